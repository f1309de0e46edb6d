"""The self-attention block of SANet (Letarte et al. 2018, §3, Figure 1)."""

import math

import keras
from keras import ops

from kerasattn.layers._attention_ops import fused_attention, masked_softmax
from kerasattn.layers._initializers import clone_initializer


@keras.saving.register_keras_serializable(package="kerasattn")
class SelfAttentionBlock(keras.layers.Layer):
    """SANet's self-attention block: bilinear self-attention, then a feed-forward net.

    Implements §3 of Letarte et al. (2018), "Importance of Self-Attention for
    Sentiment Analysis"::

        Att(X) = softmax(X W_QK Xᵀ) X W_V                       (§3, the SANet equation)
        FFN(x) = max(0, x W_1 + b_1) W_2 + b_2, W_1, W_2 ∈ R^{d×d}
        y = LayerNorm(x + Dropout(Att(x)));  out = LayerNorm(y + Dropout(FFN(y)))

    ``W_QK`` is learned directly as a d×d matrix (not factored into query and
    key projections) and there is no output projection, as in the paper. The
    paper's product has **no 1/√d scaling**; ``scaled=False`` (the default)
    keeps it that way, ``scaled=True`` divides the scores by √(d / num_heads)
    as in Vaswani et al. (2017). Dropout (0.1 in the paper) is applied to each
    sub-layer's output.

    ``num_heads`` > 1 is a natural extension (the paper uses one head): each
    head has its own d×d bilinear form ``W_QK`` and reads its own d/h slice of
    ``X W_V``; the heads are concatenated back to d.

    Masks: padded keys get zero weight, padded queries get an all-zero row of
    weights, and a row whose keys are all padding gives zeros (never NaN). The
    softmax runs in float32 (``keras.layers.Softmax(dtype="float32")`` with a
    boolean mask); under ``mixed_float16`` the unscaled scores are also
    computed in float32, as X W_QK Xᵀ can exceed float16's range.

    Two paths, the same numbers (to float rounding): with
    ``return_attention_scores=True`` the weights are built explicitly as
    above; without, one head goes through ``keras.ops.dot_product_attention``
    (query X W_QK, key X, value X W_V; in float32 under float16), which
    never hands the (batch, n, n) weights back, in training too (dropout acts
    on the attended output, not on the weights). More than one head always
    takes the explicit path: the head's key X is d wide and its value d/h, and
    the fused op needs one width (JAX's checks it), so an exact fused form
    would widen every head's value to d, h times the value product (measured
    under TensorFlow on CPU, 2 heads, d = 128, 32 × 256 tokens, forward and
    backward: 1.7–2.4x slower than the explicit path).

    Args:
        num_heads: attention heads (1 in the paper); must divide the input size d.
        dropout: dropout on each sub-layer's output (0.1 in the paper).
        scaled: divide the scores by √(d / num_heads) (False in the paper).
        layer_norm_epsilon: epsilon of both layer normalisations.
        kernel_initializer: initializer of W_QK, W_V and the feed-forward kernels.

    Call arguments:
        inputs: (batch, n, d) vectors.
        mask: optional boolean (batch, n), True for real positions.
        training: whether dropout is active.
        return_attention_scores: also return the attention weights, shaped
            (batch, n, n) for one head and (batch, heads, n, n) otherwise;
            row i holds the weights query i puts on each key.

    Example:
    >>> import numpy as np
    >>> from kerasattn.layers import SelfAttentionBlock
    >>> x = np.random.normal(size=(2, 7, 128)).astype("float32")
    >>> block = SelfAttentionBlock()
    >>> y, a = block(x, mask=np.arange(7)[None] < np.array([[7], [4]]),
    ...              return_attention_scores=True)
    >>> tuple(y.shape), tuple(a.shape)
    ((2, 7, 128), (2, 7, 7))
    """

    # the small layers the shared harness builds (tests/layers/test_harness.py): keyword
    # arguments, one dict a layer
    harness_examples = ({"dropout": 0.0}, {"num_heads": 2, "scaled": True, "dropout": 0.0})

    @property
    def attention_axes(self):
        """The axis names of the weights returned with ``return_attention_scores=True``,
        shaped (batch, *attention_axes): one head has no head axis."""
        return ("query", "key") if self.num_heads == 1 else ("head", "query", "key")

    def __init__(self, num_heads=1, dropout=0.1, scaled=False, layer_norm_epsilon=1e-5,
                 kernel_initializer="glorot_uniform", **kwargs):
        super().__init__(**kwargs)
        if not isinstance(num_heads, int) or num_heads < 1:
            raise ValueError(f"num_heads must be a positive integer, got {num_heads!r}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout!r}")
        self.num_heads = num_heads
        self.dropout = float(dropout)
        self.scaled = bool(scaled)
        self.layer_norm_epsilon = float(layer_norm_epsilon)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.supports_masking = True
        self._softmax = keras.layers.Softmax(axis=-1, dtype="float32", name="softmax")
        self._attention_dropout = keras.layers.Dropout(self.dropout, name="attention_dropout")
        self._ffn_dropout = keras.layers.Dropout(self.dropout, name="ffn_dropout")

    def build(self, input_shape):
        d = input_shape[-1]
        if d is None:
            raise ValueError("SelfAttentionBlock needs a known last dimension d")
        if d % self.num_heads:
            raise ValueError(f"num_heads ({self.num_heads}) must divide the input size d ({d})")
        self.d = d
        init = self.kernel_initializer  # cloned for each weight: see _initializers
        self.w_qk = self.add_weight(name="w_qk", shape=(self.num_heads, d, d),
                                    initializer=clone_initializer(init))
        self.w_v = self.add_weight(name="w_v", shape=(d, d), initializer=clone_initializer(init))
        policy = self.dtype_policy
        self._ffn_hidden = keras.layers.Dense(d, activation="relu", name="ffn_hidden",
                                              kernel_initializer=clone_initializer(init),
                                              dtype=policy)
        self._ffn_output = keras.layers.Dense(d, name="ffn_output",
                                              kernel_initializer=clone_initializer(init),
                                              dtype=policy)
        self._attention_norm = keras.layers.LayerNormalization(
            epsilon=self.layer_norm_epsilon, name="attention_norm", dtype=policy)
        self._ffn_norm = keras.layers.LayerNormalization(
            epsilon=self.layer_norm_epsilon, name="ffn_norm", dtype=policy)
        self._ffn_hidden.build(input_shape)
        self._ffn_output.build(input_shape)
        self._attention_norm.build(input_shape)
        self._ffn_norm.build(input_shape)

    def _fused(self, return_attention_scores):
        """Whether a call takes ``keras.ops.dot_product_attention`` (see the class
        docstring): no weights asked for, and one head."""
        return not return_attention_scores and self.num_heads == 1

    def _attention(self, x, mask, fused=False):
        """(attended (batch, n, d), weights (batch, heads, n, n), or None when ``fused``)."""
        batch, n = ops.shape(x)[0], ops.shape(x)[1]
        h, dh = self.num_heads, self.d // self.num_heads
        # scores: X W_QK Xᵀ per head -> (batch, heads, n, n); float32 under float16
        score_dtype = "float32" if self.compute_dtype == "float16" else self.compute_dtype
        xs = ops.cast(x, score_dtype)
        scale = 1.0 / math.sqrt(dh) if self.scaled else 1.0
        if fused:  # one head: query X W_QK, key X, value X W_V, all (batch, n, 1, d)
            query = ops.matmul(xs, ops.cast(self.w_qk[0], score_dtype))[:, :, None, :]
            values = ops.matmul(x, self.w_v)[:, :, None, :]
            out = fused_attention(query, xs[:, :, None, :], values, mask, scale,
                                  self.compute_dtype)
            return ops.reshape(out, (batch, n, self.d)), None
        xw = ops.einsum("bnd,hde->bhne", xs, ops.cast(self.w_qk, score_dtype))
        scores = ops.einsum("bhne,bme->bhnm", xw, xs)
        if self.scaled:
            scores = scores / ops.cast(math.sqrt(dh), score_dtype)
        # all-padding key rows and padded queries: exactly zero weight
        weights = ops.cast(masked_softmax(self._softmax, scores, mask, mask), self.compute_dtype)
        values = ops.reshape(ops.matmul(x, self.w_v), (batch, n, h, dh))
        values = ops.transpose(values, (0, 2, 1, 3))  # (batch, heads, n, dh)
        out = ops.matmul(weights, values)  # (batch, heads, n, dh)
        out = ops.reshape(ops.transpose(out, (0, 2, 1, 3)), (batch, n, self.d))
        return out, weights

    def call(self, inputs, mask=None, training=None, return_attention_scores=False):
        attended, weights = self._attention(inputs, mask,
                                            fused=self._fused(return_attention_scores))
        x = self._attention_norm(inputs + self._attention_dropout(attended, training=training))
        ffn = self._ffn_output(self._ffn_hidden(x))
        out = self._ffn_norm(x + self._ffn_dropout(ffn, training=training))
        if return_attention_scores:
            if self.num_heads == 1:
                weights = weights[:, 0]
            return out, weights
        return out

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, input_shape, return_attention_scores=False):
        if not return_attention_scores:
            return tuple(input_shape)
        batch, n = input_shape[0], input_shape[1]
        weights = (batch, n, n) if self.num_heads == 1 else (batch, self.num_heads, n, n)
        return tuple(input_shape), weights

    def compute_output_spec(self, inputs, mask=None, training=None,
                            return_attention_scores=False):
        out = keras.KerasTensor(tuple(inputs.shape), dtype=self.compute_dtype)
        if not return_attention_scores:
            return out
        _, weights = self.compute_output_shape(inputs.shape, True)
        return out, keras.KerasTensor(weights, dtype=self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update(num_heads=self.num_heads, dropout=self.dropout, scaled=self.scaled,
                      layer_norm_epsilon=self.layer_norm_epsilon,
                      kernel_initializer=keras.initializers.serialize(self.kernel_initializer))
        return config
