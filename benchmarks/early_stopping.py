"""What early stopping would save, replayed on finished runs.

    python -m benchmarks.early_stopping RUN_DIR [RUN_DIR ...] [--patience 2 3 5]

For each finished Keras run that trained all its epochs (no ``--early-stopping``),
replays ``--early-stopping P`` on its validation accuracy per epoch
(:func:`kerasattn.metrics.early_stopping_replay`): the epochs it would have run
and whether it would have kept the same best epoch (then its test accuracy is
the same). Writes ``benchmarks/results/early_stopping.md``, with one line naming the
commit of each run (``kerasattn.provenance``: "commit unknown" for a run recorded before
provenance) and the commit the replay ran at.
"""

import argparse
import csv
import datetime
import os

from kerasattn import provenance, runs
from kerasattn.cli.parsing import ArgumentParser
from kerasattn.metrics import early_stopping_replay

RESULTS = os.path.join(os.path.dirname(__file__), "results", "early_stopping.md")


def _val_accuracy(run_dir):
    with open(os.path.join(run_dir, runs.HISTORY), newline="") as fh:
        return [float(row["val_accuracy"]) for row in csv.DictReader(fh)]


def main(argv=None):
    p = ArgumentParser(prog="python -m benchmarks.early_stopping", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", help="finished run directories")
    p.add_argument("--patience", type=int, nargs="+", default=[2, 3, 5])
    p.add_argument("--results", default=RESULTS)
    args = p.parse_args(argv)
    if any(v < 1 for v in args.patience):
        p.error("--patience values must be >= 1")
    rows, totals = [], {q: [0, 0, 0] for q in args.patience}  # epochs, same, runs
    commits = {}  # run -> its own provenance
    full_epochs = 0
    for run_dir in sorted(args.runs):
        if not os.path.exists(os.path.join(run_dir, runs.METRICS)):
            continue  # not finished
        config = runs.read_json(os.path.join(run_dir, runs.CONFIG))
        curve = _val_accuracy(run_dir)
        if config.get("early_stopping") or config["kind"] != "keras" or \
                len(curve) != config["train"]["epochs"]:
            continue
        full_epochs += len(curve)
        commits[f"`{os.path.basename(run_dir)}`"] = provenance.of_run(run_dir)
        cells = []
        for q in args.patience:
            r = early_stopping_replay(curve, q)
            totals[q][0] += r["epochs_run"]
            totals[q][1] += r["same_epoch"]
            totals[q][2] += 1
            kept = ("same" if r["same_epoch"] else
                    f"epoch {r['best_epoch']}, val {r['val_accuracy']:.4f}")
            cells.append(f"{r['epochs_run']} ({kept})")
        best = early_stopping_replay(curve, len(curve))
        rows.append(f"| `{os.path.basename(run_dir)}` | {len(curve)} | {best['full_best_epoch']} "
                    f"({best['full_val_accuracy']:.4f}) | " + " | ".join(cells) + " |")
    if not rows:
        p.error("no finished Keras run that trained all its epochs among the given directories")
    n = len(rows)
    summary = [f"patience {q}: {t[1]} of {n} runs keep the same best epoch, "
               f"{t[0]:,} of {full_epochs:,} epochs ({t[0] / full_epochs:.0%})"
               for q, t in totals.items()]
    lines = [
        "# Early stopping, replayed on finished runs",
        "",
        "Written by `python -m benchmarks.early_stopping RUN_DIR ...` on "
        f"{datetime.date.today()}. Each run trained all its epochs and kept its best epoch "
        "on validation accuracy; a cell gives the epochs `--early-stopping P` would have run "
        "and whether it keeps the same best epoch (then the test figures are the same; "
        "otherwise the epoch it keeps and that epoch's validation accuracy).",
        "",
        "| run | epochs | best epoch (val) | " + " | ".join(f"patience {q}" for q in
                                                          args.patience) + " |",
        "|---|---|---|" + "---|" * len(args.patience),
        *rows,
        "",
        "In all: " + "; ".join(summary) + ".",
        "",
        provenance.commits_line(commits, "The runs' provenance")
        + f" Replayed by `{provenance.command_of('benchmarks.early_stopping', argv)}` at "
        f"{provenance.commit_text(provenance.code_version())}.",
        "",
    ]
    os.makedirs(os.path.dirname(os.path.abspath(args.results)), exist_ok=True)
    with open(args.results, "w") as fh:
        fh.write("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    main()
