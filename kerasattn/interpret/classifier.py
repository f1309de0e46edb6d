"""Explanations of a :class:`~kerasattn.tasks.TextClassifier` on raw strings: what its
``explain`` and ``attribute`` methods return.

- :func:`explain_classifier`: each text's tokens, probabilities and every attention
  layer's weights (:class:`~kerasattn.interpret.attention.Explanation`), with the
  classifier's class names; for a classifier without attention, each token's
  gradient × input score in their place (``Explanation.attribution``);
- :func:`attribute_classifier`: one score per token of each text by an attribution
  method (:class:`~kerasattn.interpret.attributions.TokenAttribution`).
"""

import keras
import numpy as np
import tensorflow as tf

from kerasattn.interpret.attention import Explanation, attention_layers, extract_attention
from kerasattn.interpret.attributions import explain_tokens
from kerasattn.task_data import as_text_array


def _fitted_texts(classifier, texts, what):
    """``texts`` as a list of str, for a fitted classifier (else ``ValueError``)."""
    texts = as_text_array(texts)
    if texts is None:
        raise ValueError(f"{what} takes a list of texts")
    if classifier.backbone is None:
        raise ValueError(f"nothing to {what}: the classifier has not been fitted")
    return texts


def _class_names(classifier):
    return list(classifier.class_names) if classifier.class_names is not None else None


def explain_classifier(classifier, texts, batch_size=32):
    """Tokens, probabilities and every attention layer's weights per text of ``texts``
    (a list of str): a list of :class:`~kerasattn.interpret.attention.Explanation`, as
    :func:`~kerasattn.interpret.attention.extract_attention` gives them, with the
    classifier's class names. A classifier without attention gives a gradient
    attribution in its place: ``attention`` is empty and ``attribution`` holds each
    token's gradient × input score for the predicted class (a
    :class:`~kerasattn.interpret.attributions.TokenAttribution`, nested like the tokens),
    which the explanation draws as signed colours on its words. Gradients need the
    TensorFlow backend: under another, ``attribution`` is ``None``."""
    texts = _fitted_texts(classifier, texts, "explain")
    pre = classifier.preprocessor.text_preprocessor
    names = _class_names(classifier)
    if attention_layers(classifier.backbone):
        found = extract_attention(classifier.backbone, texts, pre, batch_size=batch_size)
        for explanation in found:
            explanation.class_names = names
        return found
    if keras.backend.backend() == "tensorflow" and texts:
        return [Explanation(tokens=a.tokens, probabilities=np.asarray(a.probabilities,
                                                                      np.float32),
                            attention={}, axes={}, hierarchical=a.hierarchical,
                            class_names=names, attribution=a)
                for a in attribute_classifier(classifier, texts, method="gradient_x_input",
                                              batch_size=batch_size)]
    probs = classifier.predict(texts, batch_size=batch_size, verbose=0)
    tokens = pre.tokenize(tf.constant(texts, tf.string, shape=[len(texts)])).to_list()
    return [Explanation(tokens=_decoded(t), probabilities=p, attention={}, axes={},
                        hierarchical=pre.hierarchical, class_names=names)
            for t, p in zip(tokens, probs)]


def _decoded(tokens):
    """Tokens as ``tokenize(...).to_list()`` gives them (bytes, or lists of bytes per
    sentence) -> str."""
    if isinstance(tokens, bytes):
        return tokens.decode("utf-8")
    return [_decoded(t) for t in tokens]


def attribute_classifier(classifier, texts, method="integrated_gradients", **kwargs):
    """One score per token of each text of ``texts`` (a list of str) by ``method``: a
    list of :class:`~kerasattn.interpret.attributions.TokenAttribution` with the
    classifier's class names. Keyword arguments go to
    :func:`~kerasattn.interpret.attributions.explain_tokens`."""
    texts = _fitted_texts(classifier, texts, "attribute")
    found = explain_tokens(classifier.backbone, texts,
                           classifier.preprocessor.text_preprocessor, method=method,
                           **kwargs)
    for attribution in found:
        attribution.class_names = _class_names(classifier)
    return found
