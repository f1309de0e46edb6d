"""Convolutional multi-head self-attention (HCAN, Gao et al. 2018, §3.2–3.3)."""

import math

import keras
from keras import ops

from kerasattn.layers._attention_ops import (conv, fused_attention, masked_softmax, merge_heads,
                                             split_heads, takes_fused_path, zero_padding)

VALUE_ACTIVATIONS = ("elu", "tanh")


@keras.saving.register_keras_serializable(package="kerasattn")
class ConvMultiheadAttention(keras.layers.Layer):
    """HCAN's convolutional multi-head self-attention (Equations 2–3).

    ::

        Q = ELU(Conv1D(E, W_q) + b_q),  K = ELU(Conv1D(E, W_k) + b_k)
        V = act(Conv1D(E, W_v) + b_v)            act = ELU, or tanh (Equation 4)
        head_i = softmax(Q_i K_iᵀ / √(d/h)) V_i,  output = [head_1, ..., head_h]

    Each convolution has ``units`` filters and a window of three words
    ("same" padding). Padded positions are zeroed before the convolutions, so
    padding never leaks into a real word's window, are excluded as keys, and
    get zero outputs. Dropout (0.1 in §3.8) is applied to the attention
    weights. The softmax runs in float32 with a boolean mask.

    Two paths, the same numbers (to float rounding), chosen by
    ``_attention_ops.takes_fused_path``: explicit weights as above, or the
    fused ``keras.ops.dot_product_attention``.

    Args:
        num_heads: h (8 in §4.2); must divide ``units``.
        units: d, the number of filters (default: the input size).
        value_activation: ``"elu"`` (Equation 2) or ``"tanh"`` (the second
            branch of Equation 4).
        dropout: dropout on the attention weights.
        kernel_initializer: initializer of the convolution kernels.

    Call arguments:
        inputs: (batch, n, d_in). mask: boolean (batch, n). training: dropout on/off.
        return_attention_scores: also return the (batch, heads, n, n) weights.

    Example:
    >>> import numpy as np
    >>> from kerasattn.layers import ConvMultiheadAttention
    >>> layer = ConvMultiheadAttention(num_heads=2, units=8)
    >>> tuple(layer(np.zeros((2, 5, 6), "float32")).shape)
    (2, 5, 8)
    """

    # the small layers the shared harness builds (tests/layers/test_harness.py): keyword
    # arguments, one dict a layer
    harness_examples = ({"num_heads": 2, "dropout": 0.0},
                        {"num_heads": 2, "units": 4, "value_activation": "tanh", "dropout": 0.0})

    # The weights returned with ``return_attention_scores=True`` are shaped
    # (batch, *attention_axes); attention extraction reads these names.
    attention_axes = ("head", "query", "key")

    def __init__(self, num_heads=8, units=None, value_activation="elu", dropout=0.1,
                 kernel_initializer="glorot_uniform", **kwargs):
        super().__init__(**kwargs)
        if not isinstance(num_heads, int) or num_heads < 1:
            raise ValueError(f"num_heads must be a positive integer, got {num_heads!r}")
        if units is not None and (not isinstance(units, int) or units < 1):
            raise ValueError(f"units must be a positive integer or None, got {units!r}")
        if units is not None and units % num_heads:
            raise ValueError(f"num_heads ({num_heads}) must divide units ({units})")
        if value_activation not in VALUE_ACTIVATIONS:
            raise ValueError(f"value_activation must be one of {VALUE_ACTIVATIONS}, "
                             f"got {value_activation!r}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout!r}")
        self.num_heads = num_heads
        self.units = units
        self.value_activation = value_activation
        self.dropout = float(dropout)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.supports_masking = True
        self._softmax = keras.layers.Softmax(axis=-1, dtype="float32", name="softmax")
        self._dropout = keras.layers.Dropout(self.dropout, name="attention_dropout")

    def build(self, input_shape):
        d = self.units or input_shape[-1]
        if d is None:
            raise ValueError("ConvMultiheadAttention needs a known input size or units")
        if d % self.num_heads:
            raise ValueError(f"num_heads ({self.num_heads}) must divide d ({d})")
        self.d = d
        policy, init = self.dtype_policy, self.kernel_initializer
        self._q = conv(d, "elu", "query_conv", policy, init)
        self._k = conv(d, "elu", "key_conv", policy, init)
        self._v = conv(d, self.value_activation, "value_conv", policy, init)
        for c in (self._q, self._k, self._v):
            c.build(input_shape)

    def call(self, inputs, mask=None, training=None, return_attention_scores=False):
        x = zero_padding(inputs, mask)
        if takes_fused_path(return_attention_scores, training, self.dropout):
            # (batch, n, heads, d/h): the op's layout, no transposes; padded queries zero
            batch, n, dh = ops.shape(x)[0], ops.shape(x)[1], self.d // self.num_heads
            q, k, v = (ops.reshape(c(x), (batch, n, self.num_heads, dh))
                       for c in (self._q, self._k, self._v))
            out = fused_attention(q, k, v, mask, 1.0 / math.sqrt(dh), self.compute_dtype)
            return ops.reshape(out, (batch, n, self.d))
        q, k, v = (split_heads(c(x), self.num_heads) for c in (self._q, self._k, self._v))
        score_dtype = "float32" if self.compute_dtype == "float16" else self.compute_dtype
        scores = ops.matmul(ops.cast(q, score_dtype),
                            ops.transpose(ops.cast(k, score_dtype), (0, 1, 3, 2)))
        scores = scores / ops.cast(math.sqrt(self.d // self.num_heads), score_dtype)
        weights = ops.cast(masked_softmax(self._softmax, scores, mask, mask), self.compute_dtype)
        out = merge_heads(ops.matmul(self._dropout(weights, training=training), v))
        out = zero_padding(out, mask)
        return (out, weights) if return_attention_scores else out

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], self.units or input_shape[-1])

    def compute_output_spec(self, inputs, mask=None, training=None,
                            return_attention_scores=False):
        shape = self.compute_output_shape(inputs.shape)
        out = keras.KerasTensor(shape, dtype=self.compute_dtype)
        if not return_attention_scores:
            return out
        n = inputs.shape[1]
        return out, keras.KerasTensor((inputs.shape[0], self.num_heads, n, n),
                                      dtype=self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update(num_heads=self.num_heads, units=self.units,
                      value_activation=self.value_activation, dropout=self.dropout,
                      kernel_initializer=keras.initializers.serialize(self.kernel_initializer))
        return config
