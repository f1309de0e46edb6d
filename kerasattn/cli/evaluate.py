"""Recompute a run's metrics from its directory alone.

    kerasattn evaluate --run runs/gru-imdb-20261121-120000 [--write]

Rebuilds the dataset split exactly as in training (same validation fraction
and seed), reloads the saved preprocessor and best model, and prints the
metrics of the validation and test splits. ``--write`` replaces the metrics
in ``metrics.json`` (the training time is kept); it is refused when the run's data
changed since it trained (its data fingerprint), so recorded metrics are never
replaced by scores on other data.

A classical run's model.skops is loaded only if it names nothing but the types
an nb/lr pipeline is made of; a legacy pickled model.joblib is never loaded
(it could run any code): retrain such a run.

``--faithfulness`` measures how faithful the model's explanations are
(:func:`kerasattn.interpret.faithfulness_report`: ERASER comprehensiveness and
sufficiency with AOPC for every attribution method that applies and a random
ranking, Kendall τ of the attention against the other methods, the permuted
pooling attention) on a fixed sample of the test split: ``--faithfulness-sample``
texts (200) drawn with ``numpy.random.default_rng(--seed)``, the same seed for
the random baseline and the permutations. It prints the Markdown tables and
stores the rows under ``"faithfulness"`` in ``metrics.json`` (the other metrics
are kept; they are recomputed too only when ``--split`` is given).

    kerasattn evaluate --run runs/sanet-base-sst2 --faithfulness \\
        [--faithfulness-sample 200] [--seed 0] [--ig-steps 32]
"""

import argparse
import os
import sys

from kerasattn.cli.parsing import ArgumentParser, bounded_int, fault_line, seed, with_types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from kerasattn import run_data, runs  # noqa: E402
from kerasattn.data.datasets import DatasetError  # noqa: E402
from kerasattn.experiments import attention_faithfulness  # noqa: E402


def build_parser():
    p = ArgumentParser(prog="kerasattn evaluate", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", required=True, help="the run directory")
    p.add_argument("--data-dir", help="directory to look for the dataset in first")
    p.add_argument("--split", nargs="+", choices=["train", "val", "test"],
                   help="splits to recompute the metrics of (default: val and test; with "
                        "--faithfulness: none unless given)")
    p.add_argument("--write", action="store_true", help="write the metrics to metrics.json")
    p.add_argument("--faithfulness", action="store_true",
                   help="measure the faithfulness of the model's explanations on a seeded "
                        "sample of the test split and store it in metrics.json")
    # their lower bounds: check_flags's
    attention_faithfulness.add_flags(with_types(p, {
        "--faithfulness-sample": bounded_int, "--seed": seed, "--ig-steps": bounded_int}),
        "--faithfulness-sample")
    return p


def main(argv=None):
    p = build_parser()
    args = p.parse_args(argv)
    if args.split is None:
        args.split = [] if args.faithfulness else ["val", "test"]
    attention_faithfulness.check_flags(p, args, "--faithfulness-sample")

    # late, these three: --help and bad flags answer without loading them
    from kerasattn import evaluation  # late: Keras and TensorFlow
    from kerasattn.metrics import format_metrics  # late: scikit-learn, slow to import
    from kerasattn.models.tfidf import UnsafeModelError  # late: scikit-learn, the same

    try:  # the one check of a run every command makes (marker, files, finished)
        config = runs.open_run(args.run)
    except (runs.RunError, UnsafeModelError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    writes = args.write or args.faithfulness
    try:
        if writes and not args.split:  # metrics.json is replaced: only on the run's own data
            run_data.check_same_data(args.run, config,
                                     run_data.load_dataset(config, args.data_dir))
        # --write replaces recorded metrics: refused when the data is not the run's own
        results = evaluation.evaluate_run(args.run, args.data_dir, tuple(args.split),
                                          verbose=1, same_data=writes) if args.split else {}
        report = None
        if args.faithfulness:
            report = attention_faithfulness.measure_faithfulness(args.run, args.faithfulness_sample,
                                                       args.seed, args.ig_steps, args.data_dir)
    except (DatasetError, UnsafeModelError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # a damaged model file or a machine fault: one line
        line = fault_line(e, args.run)
        if line is None:
            raise
        print(f"error: {line}", file=sys.stderr)
        return 1
    saved_path = os.path.join(args.run, runs.METRICS)
    saved = runs.read_json(saved_path) if os.path.exists(saved_path) else {}
    for s, m in results.items():
        line = f"{s:>5}: {format_metrics(m)}"
        if s in saved:
            line += f"   (recorded accuracy {saved[s]['accuracy']:.4f})"
        print(line)
    if report is not None:
        from kerasattn.interpret import format_report  # late: Keras and TensorFlow, after parsing

        print(f"faithfulness on {report['documents']} test texts (seed "
              f"{report['seed']}, integrated gradients with {report['ig_steps']} "
              f"steps; {report['seconds']:.0f} s):\n")
        print(format_report(report["rows"]))
    if args.write or report is not None:
        # re-read: another command may have written the file meanwhile
        saved = runs.read_json(saved_path) if os.path.exists(saved_path) else {}
        if args.write:
            saved.update(results)
        if report is not None:
            saved["faithfulness"] = report
        try:
            runs.write_json(saved_path, saved)  # whole or not at all
        except OSError as e:
            print(f"error: {fault_line(e, saved_path) or e}", file=sys.stderr)
            return 1
        print(f"wrote {saved_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
