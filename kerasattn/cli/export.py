"""Export a trained run as a SavedModel that takes raw text (TensorFlow Serving layout).

    kerasattn export --run runs/transformer-imdb-... [--output saved_models/NAME[/VERSION]]

Without ``--output`` the model goes to ``saved_models/<run name>/<next version>/``;
with a base path (no version number at the end) to its next version. Signatures:
``serving_default`` (text -> probabilities, label, label_name) and ``explain``
(text -> tokens, probabilities and the attention tensors); see
:mod:`kerasattn.export`. Try it with ``kerasattn predict --model-dir PATH``.

A run whose training did not finish (no ``metrics.json``: interrupted, or still
running) is refused: resume it with the same ``kerasattn train`` command first, or
pass ``--allow-unfinished`` to export its best epoch so far (with a warning).
A class name with a line break is refused too (``assets/labels.txt`` holds one
name per line). ``--preset DIR`` (or ``hf://NAMESPACE/NAME``) writes a preset instead:
the classifier, its vocabulary, the run's metrics and a model card, for
``TextClassifier.from_preset(DIR)`` (:mod:`kerasattn.preset_dirs`). Errors, the Hub's
included (offline, no connection, an HTTP error, a repository id it refuses), are one
``error: ...`` line on stderr and exit status 2.
"""

import argparse
import os
import sys

from kerasattn import runs
from kerasattn.cli.parsing import ArgumentParser, fault_line, length

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def _error(message):
    print(f"error: {message}", file=sys.stderr)
    return 2


def build_parser():
    p = ArgumentParser(prog="kerasattn export", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", required=True, help="a run directory of a Keras model")
    p.add_argument("--output", help="SavedModel base path, or base/VERSION "
                                    "(default saved_models/<run name>/<next version>)")
    p.add_argument("--preset", metavar="DIR",
                   help="write a preset directory (or hf://NAMESPACE/NAME) instead of a "
                        "SavedModel: TextClassifier.from_preset(DIR) loads it")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an existing --preset directory")
    p.add_argument("--max-length", type=length,
                   help="cut served texts at this many tokens (default: the run's training "
                        "length, else 2048)")
    p.add_argument("--allow-unfinished", action="store_true",
                   help="export a run whose training did not finish (no metrics.json): its "
                        "best epoch so far, with a warning (by default such a run is refused)")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    from kerasattn import export  # late: Keras and TensorFlow, after parsing

    if args.preset and (args.output or args.max_length):
        return _error("--preset writes a preset, not a SavedModel: drop --output and "
                      "--max-length")
    if args.max_length is not None and args.max_length < 1:
        return _error(f"--max-length must be >= 1, got {args.max_length}")
    try:  # the one check of a run every command makes (marker, files, status)
        config = runs.open_run(args.run, finished=False)
    except runs.RunError as e:
        return _error(e)
    if config.get("kind") == "classical":
        return _error("classical (scikit-learn) runs have no SavedModel export; "
                      "export a Keras model")
    if export.unfinished(args.run):
        if not args.allow_unfinished:
            return _error(f"{args.run} is an unfinished run (no {runs.METRICS}): its training "
                          f"was interrupted or is still running; resume it with the same "
                          f"kerasattn train command, or pass --allow-unfinished to export its "
                          f"best epoch so far")
        print(f"warning: {args.run} is an unfinished run (no {runs.METRICS}): exporting its "
              f"best epoch so far, not a finished model", file=sys.stderr)
    if not os.path.exists(os.path.join(args.run, runs.KERAS_MODEL)):
        return _error(f"{args.run} has no {runs.KERAS_MODEL} (training stopped before its "
                      f"first epoch ended?)")
    try:
        if args.preset:
            from kerasattn import TextClassifier  # late: Keras and TensorFlow, after parsing

            path = TextClassifier.from_run(args.run, compile=False).save_to_preset(
                args.preset, overwrite=args.overwrite)
        else:
            path = export.export_run(args.run, args.output, args.max_length)
    except (FileExistsError, ValueError) as e:
        return _error(str(e))
    except Exception as e:  # the disk filled or is read-only while writing: nothing is made
        line = fault_line(e, args.preset or args.output)
        if line is None:
            raise
        print(f"error: {line}", file=sys.stderr)
        return 1
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
