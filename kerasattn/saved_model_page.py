"""The attention page of an exported SavedModel, from its ``explain`` signature.

Reads nothing but the signature's outputs and ``assets/attention.json``, and imports
TensorFlow, the standard library and the palette (:mod:`kerasattn.word_colours`) only,
so ``kerasattn predict --explain`` shows what TF Serving would serve without loading any
model code: each word's background as dark as the attention it receives, one line per
attention layer, in the colours of every other explanation page.
"""

import html

from kerasattn.word_colours import attention_spans  # the standard library only

TOKEN_AXES = ("query", "key", "token", "memory")


def batches(items, size):
    """``items`` in lists of ``size`` (the last may be shorter)."""
    for start in range(0, len(items), size):
        yield items[start:start + size]


def received(weights, axes):
    """Per token, the attention it receives: the mean over every axis but the last
    token axis (for a (query, key) matrix, the column mean)."""
    token = max(i for i, a in enumerate(axes) if a in TOKEN_AXES)
    others = tuple(i for i in range(weights.ndim) if i != token)
    return weights.mean(axis=others) if others else weights


def explain_page(signature, texts, axes, path):
    """Write the colour-map page for ``texts`` from an ``explain`` signature to ``path``
    (its folder made if missing); ``axes``: layer name -> its attention axes."""
    import os

    import tensorflow as tf

    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>attention</title>"
             "<style>.w{padding:2px 3px;margin:0 1px;border-radius:3px}</style>"
             "</head><body style='font-family:sans-serif;max-width:60em;margin:2em auto'>"
             "<h1>attention</h1>"]
    for batch in batches(texts, 32):
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
                            lines.append(attention_spans(words, v))
                    body = "<br>".join(lines)
                elif tokens.ndim == 2:  # sentence-level layer of a hierarchical model
                    n = int(sum(1 for s in tokens if any(s)))
                    body = attention_spans([f"[sentence {s + 1}]" for s in range(n)],
                                  received(weights, layer_axes)[:n])
                else:
                    words = [w.decode() for w in tokens if w]
                    body = attention_spans(words, received(weights, layer_axes)[:len(words)])
                parts.append(f"<div style='line-height:2;margin:.5em 0'><small>"
                             f"{html.escape(name)}</small><br>{body}</div>")
            if not axes:
                parts.append("<p><em>this model has no attention layer</em></p>")
            parts.append("</div>")
    parts.append("</body></html>")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(parts))
    return path
