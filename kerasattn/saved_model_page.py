"""The attention page of an exported SavedModel, from its ``explain`` signature.

Reads nothing but the signature's outputs and ``assets/attention.json``, and imports
TensorFlow, NumPy, the standard library and the page renderer
(:mod:`kerasattn.explanation_pages`) only, so ``kerasattn predict --explain`` shows what
TF Serving would serve without loading any model code: the same page as ``kerasattn
explain`` draws from a run (each word's background as dark as the attention it
receives, one line per attention layer), from the same renderer.
"""

import types

import numpy as np

from kerasattn.data import layout  # NumPy only
from kerasattn.explanation_pages import attention_html, trim_document  # NumPy only


def batches(items, size):
    """``items`` in lists of ``size`` (the last may be shorter)."""
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _words(row):
    return [w.decode("utf-8", "replace") for w in row if w]


def explanation(out, i, axes):
    """Text ``i`` of the ``explain`` signature's outputs ``out`` (NumPy arrays) as an
    explanation for :func:`~kerasattn.explanation_pages.attention_html`: its words (a
    list of sentences for a hierarchical model) and each layer's weights with the
    padding cut."""
    tokens = out["tokens"][i]
    lay = layout.layout(tokens.ndim == 2)  # (sentences, words) or (words,)
    words = lay.strip(tokens, real=_words)
    axes = {name: tuple(a) for name, a in axes.items()}
    attention = trim_document({name: out[name][i] for name in axes}, axes, words, lay)
    return types.SimpleNamespace(tokens=words, attention=attention, axes=axes,
                                 probabilities=np.asarray(out["probabilities"][i]),
                                 hierarchical=lay.hierarchical)


def explain_page(signature, texts, axes, path, class_names=None):
    """Write the colour-map page for ``texts`` from an ``explain`` signature to ``path``
    (its folder made if missing; ``None``: return the page instead); ``axes``: layer
    name -> its attention axes;
    ``class_names``: the labels in class order (``assets/labels.txt``; default: the
    class index)."""
    import tensorflow as tf  # late: kerasattn predict imports this module before it parses

    explanations = []
    for batch in batches(texts, 32):
        out = {k: v.numpy() for k, v in signature(text=tf.constant(batch)).items()}
        explanations += [explanation(out, i, axes) for i in range(len(batch))]
    return attention_html(explanations, path, class_names, title="attention")

