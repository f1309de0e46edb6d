"""Maxout layers (Goodfellow et al. 2013): IRAM's classifier (Tutek & Šnajder 2018, §3.5, §4.2)."""

import keras
from keras import ops

from kerasattn.layers._initializers import clone_initializer


@keras.saving.register_keras_serializable(package="kerasattn")
class Maxout(keras.layers.Layer):
    """A stack of maxout layers: each is ``max_k (W_k x + b_k)`` over ``pool_size`` pieces.

    Each layer computes ``units × pool_size`` affine features and keeps the
    largest of every ``pool_size`` consecutive ones. IRAM classifies its last
    summary with two 200-unit maxout layers of pool size 4 (§4.2), with
    dropout (tuned in {0.1, …, 0.4}) before each layer; the softmax that
    follows is the model's output layer, not part of this one. Keras has no
    maxout layer, hence this one.

    Args:
        units: outputs of each layer (200 in IRAM).
        pool_size: pieces per output (4 in IRAM).
        num_layers: stacked layers (2 in IRAM).
        dropout: dropout on the input of each layer.
        kernel_initializer: initializer of the weights (IRAM: N(0, 0.01)).

    Call arguments:
        inputs: (..., d). mask: passed on unchanged. training: dropout on/off.

    Example:
    >>> import numpy as np
    >>> from kerasattn.layers import Maxout
    >>> layer = Maxout(units=200, pool_size=4, num_layers=2)
    >>> tuple(layer(np.ones((3, 64), "float32")).shape)
    (3, 200)
    """

    # the small layers the shared harness builds (tests/layers/test_harness.py): keyword
    # arguments, one dict a layer
    harness_examples = ({"units": 5, "pool_size": 3, "num_layers": 2},)

    def __init__(self, units=200, pool_size=4, num_layers=2, dropout=0.0,
                 kernel_initializer="glorot_uniform", **kwargs):
        super().__init__(**kwargs)
        for name, value in (("units", units), ("pool_size", pool_size),
                            ("num_layers", num_layers)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout!r}")
        self.units = units
        self.pool_size = pool_size
        self.num_layers = num_layers
        self.dropout = float(dropout)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self._dropout = keras.layers.Dropout(self.dropout, name="dropout")
        self.supports_masking = True  # position-wise: a sequence's mask passes through

    def build(self, input_shape):
        self._pieces = []
        shape = tuple(input_shape)
        for i in range(self.num_layers):
            dense = keras.layers.Dense(self.units * self.pool_size, name=f"pieces_{i}",
                                       kernel_initializer=clone_initializer(
                                           self.kernel_initializer),
                                       dtype=self.dtype_policy)
            dense.build(shape)
            self._pieces.append(dense)
            shape = (*shape[:-1], self.units)

    def call(self, inputs, mask=None, training=None):
        x = inputs
        for dense in self._pieces:
            z = dense(self._dropout(x, training=training))
            z = ops.reshape(z, (*ops.shape(z)[:-1], self.units, self.pool_size))
            x = ops.max(z, axis=-1)
        return x

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], self.units)

    def get_config(self):
        config = super().get_config()
        config.update(units=self.units, pool_size=self.pool_size, num_layers=self.num_layers,
                      dropout=self.dropout,
                      kernel_initializer=keras.initializers.serialize(self.kernel_initializer))
        return config
