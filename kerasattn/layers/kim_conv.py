"""The convolution + max-over-time feature of Kim (2014), with masks."""

import keras
from keras import ops

from kerasattn.layers.pooling import MaskedGlobalMaxPooling1D


@keras.saving.register_keras_serializable(package="kerasattn")
class KimConvPool(keras.layers.Layer):
    """One window size of Kim's CNN: conv over words, then max over time.

    As in Kim (2014) §2 the text is zero-padded by ``window - 1`` on both sides,
    so every window that covers at least one real word is a feature and a
    text shorter than the window still has features. Padded positions are
    zeroed before convolving, and windows made only of padding are masked out
    of the max, so the output does not depend on how much padding follows
    the text.

    Args:
        filters: feature maps (100 in Kim 2014 and HCAN §4.2).
        window: words per window (3, 4 or 5).
        activation: of the convolution (ReLU in Kim 2014).

    Call arguments:
        inputs: word vectors (batch, time, dim).
        mask: boolean (batch, time), True for real words, which come first
            (right padding, as the zoo's pipelines produce).

    Returns:
        (batch, filters).

    Example:
    >>> from kerasattn.layers import KimConvPool
    >>> import keras
    >>> ids = keras.Input((None,), dtype="int32")
    >>> x = keras.layers.Embedding(1000, 128, mask_zero=True)(ids)
    >>> KimConvPool(filters=100, window=3)(x).shape
    (None, 100)
    """

    # the small layers the shared harness builds (tests/layers/test_harness.py): keyword
    # arguments, one dict a layer
    harness_examples = ({"filters": 4, "window": 3},)

    def __init__(self, filters=100, window=3, activation="relu", **kwargs):
        super().__init__(**kwargs)
        if int(filters) < 1 or int(window) < 1:
            raise ValueError(f"filters and window must be >= 1, got {filters}, {window}")
        self.filters = int(filters)
        self.window = int(window)
        self.activation = keras.activations.get(activation)
        self.conv = keras.layers.Conv1D(self.filters, self.window, padding="valid",
                                        activation=self.activation, dtype=self.dtype_policy,
                                        name="conv")
        self.pool = MaskedGlobalMaxPooling1D(dtype=self.dtype_policy, name="pool")
        self.supports_masking = True

    def build(self, input_shape):
        self.conv.build((input_shape[0], None, input_shape[-1]))

    def call(self, inputs, mask=None):
        k = self.window
        if mask is None:
            mask = ops.ones(ops.shape(inputs)[:2], "bool")
        m = ops.cast(mask, inputs.dtype)
        x = ops.pad(inputs * ops.expand_dims(m, -1), [[0, 0], [k - 1, k - 1], [0, 0]])
        y = self.conv(x)  # (batch, time + k - 1, filters)
        # output j covers inputs j-k+1..j: it has a real word iff j < length + k - 1
        length = ops.sum(ops.cast(mask, "int32"), axis=1, keepdims=True)
        positions = ops.expand_dims(ops.arange(ops.shape(y)[1]), 0)
        out_mask = ops.logical_and(positions < length + k - 1, length > 0)
        return self.pool(y, mask=out_mask)

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.filters)

    def get_config(self):
        config = super().get_config()
        config.update(filters=self.filters, window=self.window,
                      activation=keras.activations.serialize(self.activation))
        return config
