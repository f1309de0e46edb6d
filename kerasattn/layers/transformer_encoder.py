"""The Transformer encoder block (Vaswani et al. 2017) as the sentiment Transformer uses it
(Hubli, paper 004, §2)."""

import math

import keras
from keras import ops

from kerasattn.layers._attention_ops import (fused_attention, masked_softmax, merge_heads,
                                             split_heads, takes_fused_path)
from kerasattn.layers._initializers import clone_initializer


@keras.saving.register_keras_serializable(package="kerasattn")
class TransformerEncoderBlock(keras.layers.Layer):
    """Multi-head scaled dot-product self-attention, then a two-layer feed-forward net,
    each followed by residual addition and layer normalisation (post-norm, as §2)::

        Z_h = softmax(Q_h K_hᵀ / √d_k) V_h,   Q_h = X W_h^Q, K_h = X W_h^K, V_h = X W_h^V
        Z   = [Z_1 … Z_h] W_Z                              (the output projection)
        Y   = LayerNorm(X + Dropout(Z))
        out = LayerNorm(Y + Dropout(ReLU(Y W_1 + b_1) W_2 + b_2))

    Written with ``keras.ops`` rather than ``keras.layers.MultiHeadAttention``
    so that it shares the zoo's masked softmax (float32, a boolean mask rather
    than an additive -1e9 that overflows float16; padded keys *and* padded
    queries get exactly zero weight, and a text with no real token gives
    zeros, never NaN) and returns its weights in the layout the attention
    toolkit reads, (batch, heads, n, n).

    ``key_dim`` (the size of each head) defaults to d // num_heads, so a head
    count that does not divide d still works (W_Z maps heads × key_dim back
    to d): 100-d GloVe vectors with 8 heads use heads of 12.

    Two paths, the same numbers (to float rounding), chosen by
    ``_attention_ops.takes_fused_path``: explicit weights as above, or the
    fused ``keras.ops.dot_product_attention``.

    Args:
        num_heads: attention heads (1, 2, 4 or 8 in the paper's grid).
        ff_dim: hidden units of the feed-forward net.
        key_dim: size of each head (default d // num_heads).
        dropout: dropout on the attention weights and on each sub-layer's output.
        layer_norm_epsilon: epsilon of both layer normalisations.
        kernel_initializer: initializer of every kernel.

    Call arguments:
        inputs: (batch, n, d). mask: optional boolean (batch, n).
        training: whether dropout is active.
        return_attention_scores: also return the (batch, heads, n, n) weights.

    Example:
    >>> import numpy as np
    >>> from kerasattn.layers import TransformerEncoderBlock
    >>> block = TransformerEncoderBlock(num_heads=4, ff_dim=64)
    >>> y, a = block(np.ones((2, 7, 32), "float32"), return_attention_scores=True)
    >>> tuple(y.shape), tuple(a.shape)
    ((2, 7, 32), (2, 4, 7, 7))
    """

    # the small layers the shared harness builds (tests/layers/test_harness.py): keyword
    # arguments, one dict a layer
    harness_examples = ({"num_heads": 2, "ff_dim": 8, "dropout": 0.0},
                        {"num_heads": 8, "ff_dim": 8, "key_dim": 3, "dropout": 0.0})

    # The weights returned with ``return_attention_scores=True`` are shaped
    # (batch, *attention_axes); attention extraction reads these names.
    attention_axes = ("head", "query", "key")

    def __init__(self, num_heads=1, ff_dim=128, key_dim=None, dropout=0.1,
                 layer_norm_epsilon=1e-6, kernel_initializer="glorot_uniform", **kwargs):
        super().__init__(**kwargs)
        for arg, value in (("num_heads", num_heads), ("ff_dim", ff_dim)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{arg} must be a positive integer, got {value!r}")
        if key_dim is not None and (not isinstance(key_dim, int) or key_dim < 1):
            raise ValueError(f"key_dim must be a positive integer or None, got {key_dim!r}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout!r}")
        self.num_heads = num_heads
        self.ff_dim = ff_dim
        self.key_dim = key_dim
        self.dropout = float(dropout)
        self.layer_norm_epsilon = float(layer_norm_epsilon)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.supports_masking = True
        self._softmax = keras.layers.Softmax(axis=-1, dtype="float32", name="softmax")
        self._attention_dropout = keras.layers.Dropout(self.dropout, name="attention_dropout")
        self._output_dropout = keras.layers.Dropout(self.dropout, name="output_dropout")
        self._ffn_dropout = keras.layers.Dropout(self.dropout, name="ffn_dropout")

    def build(self, input_shape):
        d = input_shape[-1]
        if d is None:
            raise ValueError("TransformerEncoderBlock needs a known last dimension d")
        dk = self.key_dim or d // self.num_heads
        if dk < 1:
            raise ValueError(f"{self.num_heads} heads of d = {d}: give key_dim")
        self._dk = dk
        inner = self.num_heads * dk

        def dense(units, name, activation=None, use_bias=True):
            return keras.layers.Dense(units, activation=activation, name=name,
                                      use_bias=use_bias,
                                      kernel_initializer=clone_initializer(self.kernel_initializer),
                                      dtype=self.dtype_policy)

        self._query, self._value = dense(inner, "query"), dense(inner, "value")
        # no key bias: it adds q·b to every score of a row, which the softmax cancels
        self._key = dense(inner, "key", use_bias=False)
        self._output = dense(d, "output")  # W_Z
        self._ffn_hidden = dense(self.ff_dim, "ffn_hidden", "relu")
        self._ffn_output = dense(d, "ffn_output")
        for layer in (self._query, self._key, self._value, self._ffn_hidden):
            layer.build(input_shape)
        self._output.build((*input_shape[:-1], inner))
        self._ffn_output.build((*input_shape[:-1], self.ff_dim))
        self._attention_norm, self._ffn_norm = (
            keras.layers.LayerNormalization(epsilon=self.layer_norm_epsilon, name=n,
                                            dtype=self.dtype_policy)
            for n in ("attention_norm", "ffn_norm"))
        self._attention_norm.build(input_shape)
        self._ffn_norm.build(input_shape)

    def _attention(self, x, mask, training, fused=False):
        """(attended (batch, n, d), weights (batch, heads, n, n) in float32, or None
        when ``fused``)."""
        if fused:  # (batch, n, heads, dk): the op's layout, no transposes
            batch, n = ops.shape(x)[0], ops.shape(x)[1]
            q, k, v = (ops.reshape(f(x), (batch, n, self.num_heads, self._dk))
                       for f in (self._query, self._key, self._value))
            out = fused_attention(q, k, v, mask, 1.0 / math.sqrt(self._dk), self.compute_dtype)
            return self._output(ops.reshape(out, (batch, n, self.num_heads * self._dk))), None
        q, k, v = (split_heads(f(x), self.num_heads)
                   for f in (self._query, self._key, self._value))   # (b, h, n, dk)
        # q scaled before the product: n x dk multiplications instead of n x n
        scores = ops.matmul(ops.cast(q, "float32") * (1.0 / math.sqrt(self._dk)),
                            ops.transpose(ops.cast(k, "float32"), (0, 1, 3, 2)))
        weights = masked_softmax(self._softmax, scores, mask, mask)  # float32
        dropped = self._attention_dropout(ops.cast(weights, self.compute_dtype),
                                          training=training)
        return self._output(merge_heads(ops.matmul(dropped, v))), weights

    def call(self, inputs, mask=None, training=None, return_attention_scores=False):
        attended, weights = self._attention(
            inputs, mask, training,
            fused=takes_fused_path(return_attention_scores, training, self.dropout))
        y = self._attention_norm(inputs + self._output_dropout(attended, training=training))
        ffn = self._ffn_output(self._ffn_hidden(y))
        out = self._ffn_norm(y + self._ffn_dropout(ffn, training=training))
        if return_attention_scores:
            return out, ops.cast(weights, self.compute_dtype)
        return out

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, input_shape, return_attention_scores=False):
        if not return_attention_scores:
            return tuple(input_shape)
        batch, n = input_shape[0], input_shape[1]
        return tuple(input_shape), (batch, self.num_heads, n, n)

    def compute_output_spec(self, inputs, mask=None, training=None,
                            return_attention_scores=False):
        shapes = self.compute_output_shape(inputs.shape, return_attention_scores)
        if not return_attention_scores:
            return keras.KerasTensor(shapes, dtype=self.compute_dtype)
        return tuple(keras.KerasTensor(s, dtype=self.compute_dtype) for s in shapes)

    def get_config(self):
        config = super().get_config()
        config.update(num_heads=self.num_heads, ff_dim=self.ff_dim, key_dim=self.key_dim,
                      dropout=self.dropout, layer_norm_epsilon=self.layer_norm_epsilon,
                      kernel_initializer=keras.initializers.serialize(self.kernel_initializer))
        return config
