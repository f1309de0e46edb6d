"""Predict with an exported SavedModel alone (no kerasattn model code is loaded).

    python -m training.predict --model-dir saved_models/NAME/1 "a great film" "dull"
    python -m training.predict --model-dir saved_models/NAME/1 --input reviews.txt
    cat reviews.txt | python -m training.predict --model-dir saved_models/NAME/1 -
    python -m training.predict --model-dir saved_models/NAME/1 "a great film" --explain page.html

Prints one JSON object per text: ``{"text", "label", "label_name", "probabilities"}``
(``probabilities`` keyed by label name), reading texts in batches. ``--explain
FILE`` also writes an HTML page from the ``explain`` signature: each word's
background as dark as the attention it receives, one line per attention layer.
This module imports TensorFlow, the standard library, ``kerasattn._quiet`` (which drops
TensorFlow's start-up lines) and ``kerasattn.cli.parsing`` (text decoding) only: what it
runs is what TF Serving would run.

Errors (a missing model or input file, input that is not UTF-8, ...) are one
``error: ...`` line on stderr and exit status 2, e.g.
``error: reviews.txt:3: not valid UTF-8 (byte 0xff at column 7)``.
"""

import argparse
import html
import json
import os
import sys

from kerasattn.cli import parsing  # the standard library only: no model code

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

TOKEN_AXES = ("query", "key", "token", "memory")


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


def _batches(items, size):
    for start in range(0, len(items), size):
        yield items[start:start + size]


def received(weights, axes):
    """Per token, the attention it receives: the mean over every axis but the last
    token axis (for a (query, key) matrix, the column mean)."""
    token = max(i for i, a in enumerate(axes) if a in TOKEN_AXES)
    others = tuple(i for i in range(weights.ndim) if i != token)
    return weights.mean(axis=others) if others else weights


def _spans(words, values):
    top = max([float(v) for v in values] + [0.0])
    out = []
    for w, v in zip(words, values):
        a = 0.05 + 0.85 * float(v) / top if top > 0 and v > 0 else 0.0
        out.append(f"<span style='background:rgba(37,99,235,{a:.3f});padding:2px 3px;"
                   f"border-radius:3px' title='{float(v):.4f}'>{html.escape(w)}</span>")
    return " ".join(out)


def explain_page(signature, texts, axes, path):
    """Write the colour-map page for ``texts`` from an ``explain`` signature."""
    import tensorflow as tf

    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>attention</title>"
             "</head><body style='font-family:sans-serif;max-width:60em;margin:2em auto'>"
             "<h1>attention</h1>"]
    for batch in _batches(texts, 32):
        out = {k: v.numpy() for k, v in signature(text=tf.constant(batch)).items()}
        for i, text in enumerate(batch):
            tokens = out["tokens"][i]
            parts.append("<div style='border:1px solid #ccc;padding:1em;margin:1em 0'>"
                         f"<b>{html.escape(out['label_name'][i].decode())}</b> "
                         f"({out['probabilities'][i].max():.1%})")
            for name, layer_axes in axes.items():
                weights = out[name][i]
                if layer_axes and layer_axes[0] == "sentence":  # a word-level layer
                    lines = []
                    for s, sentence in enumerate(tokens):
                        words = [w.decode() for w in sentence if w]
                        if words:
                            v = received(weights[s], layer_axes[1:])[:len(words)]
                            lines.append(_spans(words, v))
                    body = "<br>".join(lines)
                elif tokens.ndim == 2:  # sentence-level layer of a hierarchical model
                    n = int(sum(1 for s in tokens if any(s)))
                    body = _spans([f"[sentence {s + 1}]" for s in range(n)],
                                  received(weights, layer_axes)[:n])
                else:
                    words = [w.decode() for w in tokens if w]
                    body = _spans(words, received(weights, layer_axes)[:len(words)])
                parts.append(f"<div style='line-height:2;margin:.5em 0'><small>"
                             f"{html.escape(name)}</small><br>{body}</div>")
            if not axes:
                parts.append("<p><em>this model has no attention layer</em></p>")
            parts.append("</div>")
    parts.append("</body></html>")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(parts))
    return path


def build_parser():
    p = argparse.ArgumentParser(prog="kerasattn predict", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    # kerasattn.cli.parsing.ArgumentParser's one error line, written here because this
    # module imports nothing of the package
    p.error = lambda message: p.exit(2, f"error: {message} (see '{p.prog} --help')\n")
    p.add_argument("--model-dir", required=True, help="an exported SavedModel (NAME/VERSION)")
    p.add_argument("texts", nargs="*", help="texts to classify ('-' reads stdin)")
    p.add_argument("--input", help="a UTF-8 file with one text per line ('-' for stdin)")
    p.add_argument("--batch-size", type=int, default=64)
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
    if not os.path.exists(os.path.join(args.model_dir, "saved_model.pb")):
        raise InputError(f"{args.model_dir} is not a SavedModel (no saved_model.pb)")
    if args.batch_size < 1:
        raise InputError(f"--batch-size must be >= 1, got {args.batch_size}")
    if args.explain:
        _check_explain_file(args.explain, args.overwrite)
    texts = _texts(args)
    if not texts:
        raise InputError("nothing to predict: give texts, --input FILE or '-'")
    classes = _class_names(args.model_dir)
    # TensorFlow's start-up lines that say nothing, dropped (kerasattn._quiet: the
    # standard library only, no model code)
    from kerasattn._quiet import physical_gpus, quiet_native_import

    with quiet_native_import():
        import tensorflow as tf
    physical_gpus()  # the first device query, without its cuInit line on a CPU machine
    loaded = tf.saved_model.load(args.model_dir)
    serve = loaded.signatures["serving_default"]
    for batch in _batches(texts, args.batch_size):
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
            explain_page(loaded.signatures["explain"], texts, axes, args.explain)
        except OSError as e:
            raise InputError(f"--explain {args.explain}: {e.strerror or e}") from None
        print(f"wrote {args.explain}", file=sys.stderr)
    return 0


def _check_explain_file(path, overwrite):
    """Refuse, before predicting anything, an --explain path that is a directory, an
    existing file (without --overwrite) or in a folder that is missing or read-only."""
    if os.path.isdir(path):
        raise InputError(f"--explain {path} is a directory; give a file name")
    if os.path.lexists(path) and not overwrite:
        raise InputError(f"--explain {path} exists; pass --overwrite to replace it")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InputError(f"--explain {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"--explain {path}: {folder} is not writable")


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
