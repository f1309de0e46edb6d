"""Sinusoidal positional encoding (Vaswani et al. 2017, §3.5), as SANet §3 uses it."""

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="kerasattn")
class SinusoidalPositionalEncoding(keras.layers.Layer):
    """Adds PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)).

    SANet §3 adds these fixed vectors to the word embeddings "to inject
    information about the order of the words". No weights; any length; the
    mask passes through (padded positions get an encoding too, but stay masked).

    Args:
        max_wavelength: the 10000 of the formula.
        input_scale: multiply the inputs by this before adding (1.0 = the
            plain sum of SANet §3; Vaswani et al. §3.4 scale embeddings by
            √d_model so that the ±1 encodings do not swamp small embeddings).

    Call arguments:
        inputs: (batch, n, d) embeddings.

    Example:
    >>> import numpy as np
    >>> import keras
    >>> from kerasattn.layers import SinusoidalPositionalEncoding
    >>> x = np.zeros((1, 3, 4), "float32")
    >>> y = SinusoidalPositionalEncoding()(x)
    >>> np.round(keras.ops.convert_to_numpy(y)[0, 1], 4)  # sin(1), cos(1), sin(.01), cos(.01)
    array([0.8415, 0.5403, 0.01  , 1.    ], dtype=float32)
    """

    # the small layers the shared harness builds (tests/layers/test_harness.py): keyword
    # arguments, one dict a layer
    harness_examples = ({},)

    def __init__(self, max_wavelength=10000.0, input_scale=1.0, **kwargs):
        super().__init__(**kwargs)
        if max_wavelength <= 1:
            raise ValueError(f"max_wavelength must be > 1, got {max_wavelength}")
        if not input_scale > 0:
            raise ValueError(f"input_scale must be > 0, got {input_scale}")
        self.max_wavelength = float(max_wavelength)
        self.input_scale = float(input_scale)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        n, d = ops.shape(inputs)[1], inputs.shape[-1]
        position = ops.cast(ops.arange(n), "float32")[:, None]
        i = ops.cast(ops.arange(d) // 2 * 2, "float32")[None, :]  # 2i for both 2i and 2i+1
        angle = position / ops.power(self.max_wavelength, i / float(d))
        even = ops.cast(ops.arange(d) % 2 == 0, "float32")[None, :]
        pe = even * ops.sin(angle) + (1.0 - even) * ops.cos(angle)
        if self.input_scale != 1.0:
            inputs = inputs * ops.cast(self.input_scale, inputs.dtype)
        return inputs + ops.cast(pe, inputs.dtype)[None]

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        config = super().get_config()
        config.update(max_wavelength=self.max_wavelength, input_scale=self.input_scale)
        return config
