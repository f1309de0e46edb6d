"""Accuracy and time of the foundation baselines on the official test splits.

    python -m benchmarks.baselines [--only [lr nb gru bilstm cnn]] [--output-dir runs/benchmarks]

Runs each configuration of the foundation issue's acceptance list through
``python -m training.train`` (a fresh process each), then writes the test
accuracy, macro F1, training time and throughput with the exact command to
``benchmarks/results/baselines.md`` (records in ``baselines.json`` beside it).
Needs the datasets (KERASATTN_DATA_DIR).
"""

import argparse
import datetime
import os
import subprocess
import sys

from kerasattn import runs

# name -> (command-line arguments, acceptance threshold on test accuracy)
RUNS = {
    "lr": (["--model", "lr", "--dataset", "imdb"], 0.875),
    "nb": (["--model", "nb", "--dataset", "imdb"], 0.865),
    "gru": (["--model", "gru", "--dataset", "imdb", "--max-length", "400", "--epochs", "4"], 0.86),
    "bilstm": (["--model", "bilstm", "--dataset", "imdb", "--max-length", "400",
                "--epochs", "4"], 0.86),
    "cnn": (["--model", "cnn", "--dataset", "sst2", "--epochs", "10"], 0.78),
}
RESULTS = os.path.join(os.path.dirname(__file__), "results", "baselines.md")


def _row(name, record):
    cli, threshold = RUNS[name]
    t = record["test"]
    return (f"| `{' '.join(['python', '-m', 'training.train', *cli])}` | {t['accuracy']:.4f} "
            f"| {threshold:.3f} | {'yes' if t['accuracy'] >= threshold else '**no**'} "
            f"| {t['f1_macro']:.4f} | {t.get('roc_auc', float('nan')):.4f} "
            f"| {record.get('best_epoch') or '-'} | {record['train_seconds']:.0f} "
            f"| {record['train_examples_per_second']:.0f} | {record['measured']} |")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.baselines", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", nargs="*", choices=list(RUNS), default=list(RUNS),
                   help="configurations to (re-)measure; with none, rewrite the table "
                        "from the records")
    p.add_argument("--output-dir", default=os.path.join("runs", "benchmarks"))
    p.add_argument("--results", default=RESULTS)
    args = p.parse_args(argv)
    # one record per configuration; a run with --only replaces just its rows
    records_path = os.path.splitext(args.results)[0] + ".json"
    records = runs.read_json(records_path) if os.path.exists(records_path) else {}
    env = runs.environment()
    for name in args.only:
        cli, _ = RUNS[name]
        cmd = [sys.executable, "-m", "training.train", *cli, "--output-dir", args.output_dir,
               "--run-name", name, "--verbose", "2"]
        print("$", " ".join(cmd[1:]), flush=True)
        subprocess.run(cmd, check=True)
        m = runs.read_json(os.path.join(args.output_dir, name, runs.METRICS))
        records[name] = {
            "test": {k: v for k, v in m["test"].items() if isinstance(v, float)},
            "best_epoch": m.get("best_epoch"), "train_seconds": m["train_seconds"],
            "train_examples_per_second": m["train_examples_per_second"],
            "measured": str(datetime.date.today()), "machine": env["machine"],
            "versions": f"TensorFlow {env['tensorflow']}, Keras {env['keras']}, "
                        f"scikit-learn {env['scikit_learn']}",
        }
        os.makedirs(os.path.dirname(args.results), exist_ok=True)
        runs.write_json(records_path, records)
    machines = sorted({f"{r['machine']} ({r['versions']})" for r in records.values()})
    text = [
        "# Foundation baselines: test accuracy and training time",
        "",
        "Written by `python -m benchmarks.baselines` (one row per configuration; "
        "`--only NAME` re-measures a row). Measured on " + "; ".join(machines) +
        ", float32, data from `KERASATTN_DATA_DIR`.",
        "Official test splits; validation is a stratified 10% of train (seed 0) for IMDB and "
        "the official dev split for SST-2. Keras models keep the best epoch on validation "
        "accuracy. Train time covers `model.fit` (all epochs, with validation) or the "
        "scikit-learn fit; other processes shared the 2 cores during some runs, so times "
        "are indicative.",
        "",
        "| command | test accuracy | threshold | passes | macro F1 | ROC-AUC | best epoch "
        "| train s | train examples/s | measured |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *[_row(n, records[n]) for n in RUNS if n in records],
        "",
    ]
    with open(args.results, "w") as fh:
        fh.write("\n".join(text))
    print("\n".join(text))


if __name__ == "__main__":
    main()
