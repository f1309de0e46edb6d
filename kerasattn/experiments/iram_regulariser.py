"""IRAM §4.3: the attention regulariser and the overlap of the steps' attention
(``kerasattn reproduce --experiment iram-regulariser``). Each γ's record carries
``"provenance"`` (:func:`kerasattn.provenance.entry`: the measurement's commit, command,
device, versions, times and cut, and each seed's trained run's own record under
``"runs"``)."""

import datetime
import os

from kerasattn import ownership, provenance, runs
from kerasattn.experiments import common
from kerasattn.experiments.common import (ExperimentError, _acc, _epochs, _progress, _records,
                                          _run_and_texts, over_seeds)

# IRAM §4.3: the same recipe with the regulariser off, at the paper's strength,
# and 100 times stronger.
IRAM_GAMMAS = (0.0, 3e-4, 3e-2)
IRAM_REGULARISER_TRAINING = ["--model", "iram-vanilla", "--dataset", "sst2", "--recipe", "paper",
                             "--epochs", "4", "--seed", "0"]


def step_statistics_of_run(run_dir, split="test", data_dir=None, limit=None, verbose=True):
    """(config, {layer: step_statistics}) of an IRAM run over a split of its dataset."""
    # the experiments load with kerasattn reproduce's and evaluate's flags (--help)
    import keras  # late: Keras and TensorFlow, measured after parsing

    from kerasattn.interpret import iter_attention, step_statistics  # late: the same

    config, model, pre, texts = _run_and_texts(run_dir, split, data_dir, limit)
    out = {}
    probe = iter_attention(model, texts[:1], pre)
    layers = [n for n, a in next(probe).axes.items() if a == ("step", "memory")]
    if not layers:
        raise ExperimentError(f"{run_dir}: the model has no iterative (step x memory) attention")
    for layer in layers:
        bar = keras.utils.Progbar(len(texts), unit_name="text") if verbose else None
        docs = _progress(iter_attention(model, texts, pre, batch_size=64), bar)
        out[layer] = step_statistics(ex.attention[layer] for ex in docs if ex.tokens)
    return config, out


def _gamma(config):
    return float(config["model_config"].get("gamma", 0.0))


def write_iram_regulariser(records, path):
    """Write the Markdown table of the regulariser experiment; returns its text."""
    rows = sorted(records.values(), key=lambda r: r["gamma"])
    lines = [
        "# IRAM §4.3: the attention regulariser and the overlap of the steps' attention",
        "",
        "Written by `python -m training.reproduce --experiment iram-regulariser`. Overlap: the "
        "mean over test texts of the mean off-diagonal entry of A Aᵀ (A: the T × (N + T − 1) "
        "step × memory weights; 1 = every step puts all its weight on the same element). "
        "Same peak: the share of test texts whose T steps all attend most to the same element. "
        "Summary weight: the mean weight a step gives the earlier summaries. With "
        "`--seeds N` a row gives the test accuracy as mean ± standard deviation over the "
        "seeds and the means of the other columns.",
        "",
        "| γ | test accuracy | overlap | same peak | summary weight | best epoch | seconds "
        "| command |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        accuracy = _acc({"accuracy": r["test_accuracy"],
                         "accuracy_std": r.get("accuracy_std")})
        commands = "<br>".join(f"`{c}`" for c in r.get("commands") or [r["command"]])
        lines.append(f"| {r['gamma']:g} | {accuracy} | {r['overlap']:.3f} | "
                     f"{r['same_argmax']:.1%} | {r['summary_weight']:.3f} | {_epochs(r)} | "
                     f"{r['seconds']:.0f} | {commands} |")
    off = [r for r in rows if r["gamma"] == 0]
    on = [r for r in rows if r["gamma"] > 0]
    if off and on:
        base = off[0]["overlap"]
        verdicts = [f"γ = {r['gamma']:g}: {r['overlap']:.3f} "
                    f"({'lower' if r['overlap'] < base else '**not lower**'})" for r in on]
        lines += ["", f"Overlap without the regulariser {base:.3f}; with it " +
                  "; ".join(verdicts) + f". {on[0]['documents']:,} test texts, measured "
                  f"{rows[-1]['measured']}."]
    lines += ["", provenance.commits_line({f"γ = {r['gamma']:g}": r.get("provenance")
                                           for r in rows})]
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    ownership.write_text(path, text)  # whole, following no link
    return text


def iram_regulariser(run_dirs, output_dir, results_dir, data_dir=None, limit=None,
                     dataset=None, seeds=1):
    if dataset not in (None, "sst2"):
        raise ExperimentError("iram-regulariser trains on sst2 (the paper's §4.3); give runs "
                              "trained elsewhere with --run")
    if run_dirs:
        groups = [[d] for d in run_dirs]  # given runs: one row each
    else:
        groups = [common._train_seeds(
                      IRAM_REGULARISER_TRAINING + ["--model-option", f"gamma={g}"],
                      f"iram-vanilla-sst2-gamma{g:g}", output_dir, seeds)
                  for g in IRAM_GAMMAS]
    json_path, records = _records(results_dir, "iram_regulariser.json")
    for group in groups:
        start = provenance.started()
        per_seed = []
        for run_dir in group:
            config, stats = step_statistics_of_run(run_dir, data_dir=data_dir, limit=limit)
            first = next(iter(stats.values()))
            metrics = runs.read_json(os.path.join(run_dir, runs.METRICS))
            per_seed.append({
                **{k: float(v) if isinstance(v, (int, float)) and k != "documents" else v
                   for k, v in first.items()},
                "accuracy": metrics["test"]["accuracy"], "best_epoch": metrics.get("best_epoch"),
                "seconds": float(metrics.get("train_seconds", 0)), "command": config["command"],
                "run_dir": run_dir})
        gamma = _gamma(config)
        record = over_seeds(per_seed)
        records[f"{config['model']} {config['dataset']} gamma={gamma:g}"] = {
            "gamma": gamma, "model": config["model"], "dataset": config["dataset"], **record,
            "test_accuracy": record["accuracy"], "measured": str(datetime.date.today()),
            "provenance": provenance.entry(start, run_dirs=group),
        }
        runs.write_json(json_path, records)
        print(f"γ = {gamma:g}: test accuracy {_acc(record)}, overlap "
              f"{record['overlap']:.3f}, same peak {record['same_argmax']:.1%}", flush=True)
    return write_iram_regulariser(records, os.path.join(results_dir, "iram_regulariser.md"))
