"""What the experiments share: training a run by its ``training.train`` arguments (a
finished run of the same command is reused), seeds, the records kept as JSON and the
Markdown cells and files.

Training runs ``python -m kerasattn.cli.train`` in a subprocess (``_run_training``),
so each run gets a fresh TensorFlow and an interrupted experiment continues where it
stopped.
"""

import os
import subprocess
import sys

from kerasattn import ownership, run_data, runs
from kerasattn.training.arguments import config_of

# relative to the working directory: the checkout's benchmarks/results when run from it
RESULTS = os.path.join("benchmarks", "results")
# where runs trained by an experiment go by default
OUTPUT_DIR = os.path.join("runs", "reproduce")


class ExperimentError(ValueError):
    """A request the experiment cannot carry out (reported without a traceback)."""


def _run_and_texts(run_dir, split, data_dir, limit):
    """(config, model on token ids, preprocessor, texts of ``split`` sorted by length) of
    a Keras run (:func:`kerasattn.runs.load_run`)."""
    run = runs.load_run(run_dir)
    part = run_data.load_dataset(run.config, data_dir).split(split)
    texts = part.texts[:limit] if limit else part.texts
    # similar lengths in a batch pad less; the order does not change the means
    return run.config, run.backbone, run.preprocessor, sorted(texts, key=lambda t: len(t.split()))



def _progress(items, bar):
    i = 0
    for i, item in enumerate(items, 1):
        if bar is not None and i % 256 == 0:
            bar.update(i)
        yield item
    if bar is not None:
        bar.update(i, finalize=True)



def _run_training(cli, name, output_dir):
    run_dir = os.path.join(output_dir, name)
    if runs.finished_run_of(run_dir, config_of(cli)):
        print(f"reusing {run_dir} (a finished run of the same command)", flush=True)
        return run_dir
    cmd = [sys.executable, "-m", "kerasattn.cli.train", *cli, "--output-dir", output_dir,
           "--run-name", name, "--verbose", "2"]
    print("$", " ".join(cmd[1:]), flush=True)
    subprocess.run(cmd, check=True)
    return os.path.join(output_dir, name)


def _train_seeds(cli, name, output_dir, seeds=1):
    """Run directories of training seeds 0 … seeds-1: seed 0 is NAME with ``cli`` as
    given, seed s is NAME-seedS with ``--seed s`` added (each reused when finished)."""
    return [_run_training(cli if s == 0 else [*cli, "--seed", str(s)],
                          name if s == 0 else f"{name}-seed{s}", output_dir)
            for s in range(seeds)]


def over_seeds(records):
    """One record of several seeds' records (dicts of the same keys): the mean of each
    number, ``accuracy_std`` (the sample standard deviation over seeds; None for one
    seed), each seed's accuracy, best epochs and commands; the first seed's run directory
    (and every seed's in ``run_dirs``)."""
    from kerasattn.metrics import mean_std  # late: scikit-learn, slow to import for --help

    out = dict(records[0])
    for key, value in records[0].items():
        if isinstance(value, float):
            out[key] = mean_std([r[key] for r in records])[0]
    out["seeds"] = len(records)
    out["accuracy_std"] = (mean_std([r["accuracy"] for r in records])[1]
                           if len(records) > 1 else None)
    out["seed_accuracies"] = [r["accuracy"] for r in records]
    out["best_epochs"] = [r.get("best_epoch") for r in records]
    out["commands"] = [r["command"] for r in records]
    out["run_dirs"] = [r["run_dir"] for r in records if "run_dir" in r]
    return out


def _acc(record, key="accuracy"):
    """An accuracy cell: ``mean ± std`` over seeds, or the one run's value."""
    std = record.get(f"{key}_std")
    return f"{record[key]:.4f}" + ("" if std is None else f" ± {std:.4f}")


def _epochs(record):
    return "/".join(str(e) for e in record.get("best_epochs") or [record.get("best_epoch")])


def _seeds_note(seeds):
    return ("" if seeds == 1 else f" Each row: mean ± standard deviation over {seeds} "
            f"training seeds (0 … {seeds - 1}; run names end -seedS for S > 0); the other "
            "columns are means, ROC curves and plots show seed 0.")



def _records(results_dir, name):
    """(path, records so far) of an experiment's JSON in ``results_dir`` (created)."""
    os.makedirs(results_dir, exist_ok=True)
    path = os.path.join(results_dir, name)
    return path, runs.read_json(path) if os.path.exists(path) else {}


def _write(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    text = "\n".join(lines) + "\n"
    ownership.write_text(path, text)  # whole, following no link
    return text

