"""Predict with an exported SavedModel alone (no kerasattn model code is loaded).

    kerasattn predict --model-dir saved_models/NAME/1 "a great film" "dull"
    kerasattn predict --model-dir saved_models/NAME/1 --input reviews.txt
    cat reviews.txt | kerasattn predict --model-dir saved_models/NAME/1 -
    kerasattn predict --model-dir saved_models/NAME/1 "a great film" --explain page.html

Prints one JSON object per text: ``{"text", "label", "label_name", "probabilities"}``
(``probabilities`` keyed by label name), reading texts in batches. ``--explain
FILE`` also writes an HTML page from the ``explain`` signature: each word's
background as dark as the attention it receives, one line per attention layer.
This module imports TensorFlow, the standard library, ``kerasattn._quiet`` (which drops
TensorFlow's start-up lines), ``kerasattn.cli.parsing`` (text decoding) and
``kerasattn.saved_model_page`` (the page) and ``kerasattn.saved_models`` (the
SavedModel's files checked before loading) only: what it runs is what TF Serving would
run.

Errors (a missing model or input file, input that is not UTF-8, ...) are one
``error: ...`` line on stderr and exit status 2, e.g.
``error: reviews.txt:3: not valid UTF-8 (byte 0xff at column 7)``.
"""

import argparse
import json
import os
import sys

from kerasattn._quiet import physical_gpus, quiet_native_import  # the standard library only
from kerasattn.cli import parsing  # the same: no model code
from kerasattn.saved_model_page import batches, explain_page  # the same
from kerasattn.saved_models import check as check_saved_model  # the same

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

class InputError(ValueError):
    """Input that cannot be predicted: reported as one ``error:`` line."""


def decode_lines(data, name):
    """:func:`kerasattn.cli.parsing.decode_lines`, its error an :class:`InputError`."""
    try:
        return parsing.decode_lines(data, name)
    except ValueError as e:
        raise InputError(str(e)) from None


def _texts(args):
    texts = [t for t in args.texts if t != "-"]
    if args.input or "-" in args.texts:
        if args.input in (None, "-"):
            stdin = getattr(sys.stdin, "buffer", None)
            if stdin is None:  # a text stream (tests)
                return texts + [line.rstrip("\n") for line in sys.stdin]
            data, name = stdin.read(), "<stdin>"
        else:
            try:
                with open(args.input, "rb") as fh:
                    data = fh.read()
            except OSError as e:
                raise InputError(f"{args.input}: {e.strerror or e}") from None
            name = args.input
        texts += decode_lines(data, name)
    return texts


def build_parser():
    p = parsing.ArgumentParser(prog="kerasattn predict", description=__doc__,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model-dir", required=True, help="an exported SavedModel (NAME/VERSION)")
    p.add_argument("texts", nargs="*", type=parsing.utf8_text,
                   help="texts to classify ('-' reads stdin)")
    p.add_argument("--input", help="a UTF-8 file with one text per line ('-' for stdin)")
    p.add_argument("--batch-size", type=parsing.length, default=64,
                   help="texts per call of the model (1..%d)" % parsing.LENGTH_MAX)
    p.add_argument("--explain", metavar="FILE", help="also write the attention page here")
    p.add_argument("--overwrite", action="store_true",
                   help="replace the --explain file when it exists (refused by default)")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


def _run(args):
    try:  # checked before it is loaded: its files, and a marker of an export
        check_saved_model(args.model_dir, explain=bool(args.explain))
    except ValueError as e:
        raise InputError(str(e)) from None
    if args.batch_size < 1:
        raise InputError(f"--batch-size must be >= 1, got {args.batch_size}")
    if args.explain and (refused := parsing.output_file_error(args.explain, args.overwrite,
                                                              "--explain")):
        raise InputError(refused)
    texts = _texts(args)
    if not texts:
        raise InputError("nothing to predict: give texts, --input FILE or '-'")
    classes = _class_names(args.model_dir)
    # TensorFlow's start-up lines that say nothing, dropped (kerasattn._quiet: the
    # standard library only, no model code)
    with quiet_native_import():
        import tensorflow as tf  # late: --help and bad input answer without TensorFlow
    physical_gpus()  # the first device query, without its cuInit line on a CPU machine
    try:
        loaded = tf.saved_model.load(args.model_dir)
        serve = loaded.signatures["serving_default"]
    except Exception as e:  # damaged files: TensorFlow's own errors, as one line
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise InputError(f"{args.model_dir} cannot be loaded as a SavedModel (damaged?): "
                         f"{first}") from None
    for batch in batches(texts, args.batch_size):
        out = serve(text=tf.constant(batch))
        if out["probabilities"].shape[-1] != len(classes):
            raise InputError(f"{args.model_dir}/assets/labels.txt names {len(classes)} "
                             f"classes, the model gives {out['probabilities'].shape[-1]}")
        names = [n.decode() for n in out["label_name"].numpy()]
        for text, label, name, probs in zip(batch, out["label"].numpy(), names,
                                            out["probabilities"].numpy()):
            print(json.dumps({"text": text, "label": int(label), "label_name": name,
                              "probabilities": {c: round(float(q), 6)
                                                for c, q in zip(classes, probs)}},
                             ensure_ascii=False), flush=True)
    if args.explain:
        with open(os.path.join(args.model_dir, "assets", "attention.json")) as fh:
            axes = {k: tuple(v) for k, v in json.load(fh).items()}
        try:
            explain_page(loaded.signatures["explain"], texts, axes, args.explain, classes)
        except OSError as e:
            raise InputError(f"--explain {args.explain}: {e.strerror or e}") from None
        print(f"wrote {args.explain}", file=sys.stderr)
    return 0


def _class_names(model_dir):
    """The class names, one per line of ``assets/labels.txt`` (the export refuses
    names with a line break, so the lines are the names)."""
    path = os.path.join(model_dir, "assets", "labels.txt")
    try:
        with open(path, "rb") as fh:
            return decode_lines(fh.read(), path)
    except OSError as e:
        raise InputError(f"{path}: {e.strerror or e}") from None


if __name__ == "__main__":
    sys.exit(main())
