"""Export a trained run as a SavedModel that takes raw text (TensorFlow Serving layout).

    python -m training.export --run runs/transformer-imdb-... [--output saved_models/NAME[/VERSION]]

Without ``--output`` the model goes to ``saved_models/<run name>/<next version>/``;
with a base path (no version number at the end) to its next version. Signatures:
``serving_default`` (text -> probabilities, label, label_name) and ``explain``
(text -> tokens, probabilities and the attention tensors); see
:mod:`kerasattn.export`. Try it with ``python -m training.predict --model-dir PATH``.
"""

import argparse
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m training.export", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", required=True, help="a run directory of a Keras model")
    p.add_argument("--output", help="SavedModel base path, or base/VERSION "
                                    "(default saved_models/<run name>/<next version>)")
    p.add_argument("--max-length", type=int,
                   help="cut served texts at this many tokens (default: the run's training "
                        "length, else 2048)")
    args = p.parse_args(argv)
    from kerasattn import export, runs

    config_path = os.path.join(args.run, runs.CONFIG)
    if not os.path.exists(config_path):
        p.error(f"{args.run} is not a run directory (no {runs.CONFIG})")
    if runs.read_json(config_path).get("kind") == "classical":
        p.error("classical (scikit-learn) runs have no SavedModel export; export a Keras model")
    if args.max_length is not None and args.max_length < 1:
        p.error("--max-length must be >= 1")
    try:
        path = export.export_run(args.run, args.output, args.max_length)
    except FileExistsError as e:
        p.error(str(e))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
