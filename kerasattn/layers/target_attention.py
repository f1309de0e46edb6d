"""Convolutional multi-head target attention (HCAN, Gao et al. 2018, §3.5, Equation 5)."""

import math

import keras
from keras import ops

from kerasattn.layers._attention_ops import (conv, masked_softmax, merge_heads, split_heads,
                                             zero_padding)
from kerasattn.layers._initializers import clone_initializer


@keras.saving.register_keras_serializable(package="kerasattn")
class TargetAttention(keras.layers.Layer):
    """Pools a sequence into one vector by attention from a learned target vector.

    ::

        K = ELU(Conv1D(E, W_k) + b_k),  V = ELU(Conv1D(E, W_v) + b_v)     (Equation 5)
        head_i = softmax(T_i K_iᵀ / √(d/h)) V_i,  output = [head_1, ..., head_h]

    ``T`` (1×d) is a trained weight "that represents the most critical
    information" (§3.5). Window-3 convolutions with padding zeroed first;
    padded positions get zero weight; a sequence with no real position gives
    zeros. ``values_from_inputs=True`` uses E itself as V (as the authors'
    published code does); the paper's equation is the default.

    Args:
        num_heads: h (8 in §4.2); must divide d.
        units: d (default: the input size; must equal it with ``values_from_inputs``).
        dropout: dropout on the attention weights (0.1 in §3.8).
        values_from_inputs: V = E instead of a convolution.
        kernel_initializer: initializer of the convolutions and of T.

    Call arguments:
        inputs: (batch, n, d_in). mask: boolean (batch, n). training: dropout on/off.
        return_attention_scores: also return the (batch, heads, n) weights.

    Example:
    >>> import numpy as np
    >>> from kerasattn.layers import TargetAttention
    >>> y, w = TargetAttention(num_heads=2)(np.ones((3, 5, 8), "float32"),
    ...                                     return_attention_scores=True)
    >>> tuple(y.shape), tuple(w.shape)
    ((3, 8), (3, 2, 5))
    """

    # the small layers the shared harness builds (tests/layers/test_harness.py): keyword
    # arguments, one dict a layer
    harness_examples = ({"num_heads": 2, "dropout": 0.0},
                        {"num_heads": 4, "values_from_inputs": True, "dropout": 0.0})

    # The weights returned with ``return_attention_scores=True`` are shaped
    # (batch, *attention_axes); attention extraction reads these names.
    attention_axes = ("head", "token")

    def __init__(self, num_heads=8, units=None, dropout=0.1, values_from_inputs=False,
                 kernel_initializer="glorot_uniform", **kwargs):
        super().__init__(**kwargs)
        if not isinstance(num_heads, int) or num_heads < 1:
            raise ValueError(f"num_heads must be a positive integer, got {num_heads!r}")
        if units is not None and (not isinstance(units, int) or units % num_heads):
            raise ValueError(f"units must be None or a multiple of num_heads, got {units!r}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout!r}")
        self.num_heads = num_heads
        self.units = units
        self.dropout = float(dropout)
        self.values_from_inputs = bool(values_from_inputs)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self._softmax = keras.layers.Softmax(axis=-1, dtype="float32", name="softmax")
        self._dropout = keras.layers.Dropout(self.dropout, name="attention_dropout")

    def build(self, input_shape):
        d = self.units or input_shape[-1]
        if d is None or d % self.num_heads:
            raise ValueError(f"num_heads ({self.num_heads}) must divide d ({d})")
        if self.values_from_inputs and d != input_shape[-1]:
            raise ValueError(f"values_from_inputs needs units == input size ({input_shape[-1]})")
        self.d = d
        self.target = self.add_weight(name="target", shape=(1, d),
                                      initializer=clone_initializer(self.kernel_initializer))
        policy, init = self.dtype_policy, self.kernel_initializer
        self._k = conv(d, "elu", "key_conv", policy, init)
        self._k.build(input_shape)
        if not self.values_from_inputs:
            self._v = conv(d, "elu", "value_conv", policy, init)
            self._v.build(input_shape)

    def call(self, inputs, mask=None, training=None, return_attention_scores=False):
        x = zero_padding(inputs, mask)
        h = self.num_heads
        k = split_heads(self._k(x), h)                          # (b, h, n, dh)
        t = ops.reshape(ops.cast(self.target, k.dtype), (1, h, 1, self.d // h))
        score_dtype = "float32" if self.compute_dtype == "float16" else self.compute_dtype
        scores = ops.matmul(ops.cast(t, score_dtype),
                            ops.transpose(ops.cast(k, score_dtype), (0, 1, 3, 2)))  # (b,h,1,n)
        scores = scores / ops.cast(math.sqrt(self.d // h), score_dtype)
        weights = ops.cast(masked_softmax(self._softmax, scores, mask), self.compute_dtype)
        weights = weights[:, :, 0]                                   # (b, h, n)
        out = self.pool(inputs, weights, mask=mask, training=training)
        return (out, weights) if return_attention_scores else out

    def pool(self, inputs, weights, mask=None, training=None):
        """The pooled vector ``(batch, units)`` of ``inputs`` under given attention
        ``weights`` ``(batch, heads, n)``: Equation 5's weighted sum of each head's values,
        the heads concatenated (dropout on the weights while training, as in ``call``).
        ``call`` pools its own weights this way; analysis pools others (permuted or
        random weights: :mod:`kerasattn.interpret.faithfulness`)."""
        x = zero_padding(inputs, mask)
        v = split_heads(x if self.values_from_inputs else self._v(x), self.num_heads)
        w = self._dropout(ops.cast(weights, v.dtype), training=training)
        return merge_heads(ops.matmul(w[:, :, None, :], v))[:, 0]    # (b, d)

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.units or input_shape[-1])

    def compute_output_spec(self, inputs, mask=None, training=None,
                            return_attention_scores=False):
        out = keras.KerasTensor(self.compute_output_shape(inputs.shape), dtype=self.compute_dtype)
        if not return_attention_scores:
            return out
        return out, keras.KerasTensor((inputs.shape[0], self.num_heads, inputs.shape[1]),
                                      dtype=self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update(num_heads=self.num_heads, units=self.units, dropout=self.dropout,
                      values_from_inputs=self.values_from_inputs,
                      kernel_initializer=keras.initializers.serialize(self.kernel_initializer))
        return config
