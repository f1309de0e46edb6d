"""Learned positional embeddings added to a sequence (HCAN, Gao et al. 2018, §3.6, §3.8)."""

import keras
from keras import ops

from kerasattn.layers._initializers import clone_initializer


@keras.saving.register_keras_serializable(package="kerasattn")
class LearnedPositionalEmbedding(keras.layers.Layer):
    """Adds a trained vector per position, then dropout: ``Dropout(E + P[:n])``.

    HCAN adds learned positional embeddings to the inputs of each level of
    the hierarchy (§3.6) with dropout 0.1 after adding (§3.8). Positions past
    ``max_length`` reuse the last position's vector (the zoo's preprocessing
    truncates texts, so this only matters for hand-made inputs). The mask
    passes through.

    Args:
        max_length: number of positions with their own vector.
        dropout: dropout after adding (0.1 in §3.8).
        embeddings_initializer: initializer of the position table.

    Call arguments:
        inputs: (batch, n, d). mask: boolean (batch, n), passed on. training: dropout on/off.

    Example:
    >>> import numpy as np
    >>> from kerasattn.layers import LearnedPositionalEmbedding
    >>> layer = LearnedPositionalEmbedding(max_length=16)
    >>> tuple(layer(np.zeros((2, 5, 8), "float32")).shape)
    (2, 5, 8)
    """

    # the small layers the shared harness builds (tests/layers/test_harness.py): keyword
    # arguments, one dict a layer
    harness_examples = ({"max_length": 16, "dropout": 0.0},)

    def __init__(self, max_length, dropout=0.1, embeddings_initializer="glorot_uniform",
                 **kwargs):
        super().__init__(**kwargs)
        if not isinstance(max_length, int) or max_length < 1:
            raise ValueError(f"max_length must be a positive integer, got {max_length!r}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout!r}")
        self.max_length = max_length
        self.dropout = float(dropout)
        self.embeddings_initializer = keras.initializers.get(embeddings_initializer)
        self.supports_masking = True
        self._dropout = keras.layers.Dropout(self.dropout, name="dropout")

    def build(self, input_shape):
        self.positions = self.add_weight(name="positions", shape=(self.max_length, input_shape[-1]),
                                         initializer=clone_initializer(self.embeddings_initializer))

    def call(self, inputs, mask=None, training=None):
        n = ops.shape(inputs)[1]
        index = ops.minimum(ops.arange(n), self.max_length - 1)
        p = ops.cast(ops.take(self.positions, index, axis=0), inputs.dtype)
        return self._dropout(inputs + p[None], training=training)

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        config = super().get_config()
        config.update(max_length=self.max_length, dropout=self.dropout,
                      embeddings_initializer=keras.initializers.serialize(
                          self.embeddings_initializer))
        return config
