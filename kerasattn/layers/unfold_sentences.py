"""Restore the document axis after a folded word level (the sentence level of a hierarchy)."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="kerasattn")
class UnfoldSentences(keras.layers.Layer):
    """``[x, reference]`` -> x reshaped from (batch · sentences, ...) to (batch, sentences, ...).

    ``reference`` is the (batch, sentences, words, ...) tensor that was
    folded by :class:`FoldSentences`; its shape gives the document axes and
    its (batch, sentences, words) mask gives the output's sentence mask: a
    sentence is real when any of its words is. Any rank of ``x`` works, so
    the same layer unfolds sentence vectors (batch · S, d) and word-level
    attention weights (batch · S, heads, words).

    Call arguments:
        inputs: the list ``[x, reference]``. mask: their masks (set by Keras).

    Example:
    >>> import numpy as np
    >>> from kerasattn.layers import UnfoldSentences
    >>> words = np.zeros((2, 3, 5, 8), "float32")
    >>> tuple(UnfoldSentences()([np.zeros((6, 16), "float32"), words]).shape)
    (2, 3, 16)
    """

    # its inputs are not one (batch, time, features) sequence: the shared harness
    # (tests/layers/test_harness.py) leaves it to its own tests, in this file
    harness_examples = "tests/layers/test_sentence_folding.py"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        x, reference = inputs
        shape = ops.shape(reference)
        tail = [x.shape[i] if x.shape[i] is not None else ops.shape(x)[i]
                for i in range(1, len(x.shape))]
        return ops.reshape(x, (shape[0], shape[1], *tail))

    def compute_mask(self, inputs, mask=None):
        if mask is None or mask[1] is None:
            return None
        return ops.any(ops.cast(mask[1], "bool"), axis=-1)

    def compute_output_shape(self, input_shape):
        x, reference = input_shape
        return (reference[0], reference[1], *x[1:])
