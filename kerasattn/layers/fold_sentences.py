"""Fold a batch of documents into a batch of sentences (the word level of a hierarchy)."""

import keras
from keras import ops


def _fold(x):
    """(batch, sentences, words, ...) -> (batch · sentences, words, ...), shapes read at run time."""
    tail = [x.shape[i] if x.shape[i] is not None else ops.shape(x)[i]
            for i in range(2, len(x.shape))]
    return ops.reshape(x, (-1, *tail))


@keras.saving.register_keras_serializable(package="kerasattn")
class FoldMask(keras.Operation):
    """The folding of a mask, as a graph operation.

    Keras records the ops a layer's ``compute_mask`` runs on symbolic
    tensors and replays them; a plain ``ops.reshape`` would be recorded with
    the symbolic shape (unknown sizes as None) and fail on real batches, so
    the fold is an operation that reads the shape when it runs.
    """

    def call(self, mask):
        return _fold(mask)

    def compute_output_spec(self, mask):
        return keras.KerasTensor((None, *mask.shape[2:]), dtype=mask.dtype)


@keras.saving.register_keras_serializable(package="kerasattn")
class FoldSentences(keras.layers.Layer):
    """(batch, sentences, words, d) -> (batch · sentences, words, d), mask folded too.

    Hierarchical models (HCAN §3.7, HAN) encode every sentence on its own
    with the same word-level layers; folding the sentence axis into the batch
    lets those be ordinary sequence layers, run on all sentences at once.
    :class:`UnfoldSentences` restores the document axis. Sentences that are
    all padding fold into rows with no real word, which every zoo layer
    turns into zeros.

    Call arguments:
        inputs: (batch, sentences, words, ...). mask: boolean (batch, sentences, words).

    Example:
    >>> import numpy as np
    >>> from kerasattn.layers import FoldSentences
    >>> tuple(FoldSentences()(np.zeros((2, 3, 5, 8), "float32")).shape)
    (6, 5, 8)
    """

    # its inputs are not one (batch, time, features) sequence: the shared harness
    # (tests/layers/test_harness.py) leaves it to its own tests, in this file
    harness_examples = "tests/layers/test_sentence_folding.py"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        return _fold(inputs)

    def compute_mask(self, inputs, mask=None):
        return None if mask is None else FoldMask()(mask)

    def compute_output_shape(self, input_shape):
        batch = None if input_shape[0] is None or input_shape[1] is None else \
            input_shape[0] * input_shape[1]
        return (batch, *input_shape[2:])
