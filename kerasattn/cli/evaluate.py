"""Recompute a run's metrics from its directory alone.

    python -m training.evaluate --run runs/gru-imdb-20261121-120000 [--write]

Rebuilds the dataset split exactly as in training (same validation fraction
and seed), reloads the saved preprocessor and best model, and prints the
metrics of the validation and test splits. ``--write`` replaces the metrics
in ``metrics.json`` (the training time is kept).

A classical run's model.skops is loaded only if it names nothing but the types
an nb/lr pipeline is made of; a legacy pickled model.joblib is never loaded
(it could run any code): retrain such a run.
"""

import argparse
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def main(argv=None):
    p = argparse.ArgumentParser(prog="kerasattn evaluate", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", required=True, help="the run directory")
    p.add_argument("--data-dir", help="directory to look for the dataset in first")
    p.add_argument("--split", nargs="+", default=["val", "test"], choices=["train", "val", "test"])
    p.add_argument("--write", action="store_true", help="write the metrics to metrics.json")
    args = p.parse_args(argv)

    from kerasattn import runs
    from kerasattn.classical import UnsafeModelError
    from kerasattn.data.datasets import DatasetError
    from kerasattn.metrics import format_metrics

    if not os.path.exists(os.path.join(args.run, runs.CONFIG)):
        print(f"error: {args.run} is not a run directory (no {runs.CONFIG})", file=sys.stderr)
        return 2
    try:
        results = runs.evaluate_run(args.run, args.data_dir, tuple(args.split), verbose=1)
    except (DatasetError, UnsafeModelError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    saved_path = os.path.join(args.run, runs.METRICS)
    saved = runs.read_json(saved_path) if os.path.exists(saved_path) else {}
    for s, m in results.items():
        line = f"{s:>5}: {format_metrics(m)}"
        if s in saved:
            line += f"   (recorded accuracy {saved[s]['accuracy']:.4f})"
        print(line)
    if args.write:
        saved.update(results)
        runs.write_json(saved_path, saved)
        print(f"wrote {saved_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
