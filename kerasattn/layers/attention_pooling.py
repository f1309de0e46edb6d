"""Attention pooling with a learned context vector (HAN, Yang et al. 2016, Equations 5–10)."""

import keras
from keras import ops

from kerasattn.layers._attention_ops import softmax_over_last
from kerasattn.layers._initializers import clone_initializer


@keras.saving.register_keras_serializable(package="kerasattn")
class AttentionPooling(keras.layers.Layer):
    """HAN's attention: one vector per sequence, weighted by similarity to a trained context.

    ::

        u_i = tanh(W h_i + b)                 a hidden layer of ``units`` neurons
        a_i = softmax_i(u_iᵀ u_w)             u_w: the trained context vector
        s   = Σ_i a_i h_i

    Used at the word level (Yang et al. Equations 5–7) and the sentence level
    (Equations 8–10) of the Hierarchical Attention Network; HCAN §4.2 gives
    the hidden layer 200 neurons. The softmax runs in float32 with a boolean
    mask: padding gets exactly zero weight, and a sequence with no real
    position gives zeros (never NaN).

    Args:
        units: size of the hidden layer (200 in HCAN §4.2).
        kernel_initializer: initializer of W and of the context vector.

    Call arguments:
        inputs: (batch, n, d). mask: boolean (batch, n).
        return_attention_scores: also return the (batch, n) weights.

    Example:
    >>> import numpy as np
    >>> from kerasattn.layers import AttentionPooling
    >>> y, a = AttentionPooling(16)(np.ones((2, 5, 8), "float32"), return_attention_scores=True)
    >>> tuple(y.shape), tuple(a.shape)
    ((2, 8), (2, 5))
    """

    # the small layers the shared harness builds (tests/layers/test_harness.py): keyword
    # arguments, one dict a layer
    harness_examples = ({"units": 6},)

    # The weights returned with ``return_attention_scores=True`` are shaped
    # (batch, *attention_axes); attention extraction reads these names.
    attention_axes = ("token",)

    def __init__(self, units=200, kernel_initializer="glorot_uniform", **kwargs):
        super().__init__(**kwargs)
        if not isinstance(units, int) or units < 1:
            raise ValueError(f"units must be a positive integer, got {units!r}")
        self.units = units
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self._softmax = keras.layers.Softmax(axis=-1, dtype="float32", name="softmax")

    def build(self, input_shape):
        self._hidden = keras.layers.Dense(self.units, activation="tanh", name="hidden",
                                          kernel_initializer=clone_initializer(
                                              self.kernel_initializer),
                                          dtype=self.dtype_policy)
        self._hidden.build(input_shape)
        self.context = self.add_weight(name="context", shape=(self.units,),
                                       initializer=clone_initializer(self.kernel_initializer))

    def _hidden_states(self, inputs):
        """u_i = tanh(W h_i + b), (batch, n, units)."""
        return self._hidden(inputs)

    def call(self, inputs, mask=None, return_attention_scores=False):
        u = self._hidden_states(inputs)                                 # (b, n, units)
        scores = ops.matmul(ops.cast(u, "float32"), ops.cast(self.context, "float32"))
        if mask is None:
            weights = softmax_over_last(self._softmax, scores)
        else:
            mask = ops.cast(mask, "bool")
            weights = ops.where(mask, softmax_over_last(self._softmax, scores, mask), 0.0)
        weights = ops.cast(weights, self.compute_dtype)
        out = self.pool(inputs, weights)
        return (out, weights) if return_attention_scores else out

    def pool(self, inputs, weights, mask=None):
        """The pooled vector ``(batch, features)``: ``inputs`` summed under given attention
        ``weights`` ``(batch, n)``. ``call`` pools its own weights this way; analysis
        pools others (permuted or random weights: :mod:`kerasattn.interpret.faithfulness`).
        ``mask`` is accepted for a common signature with
        :meth:`TargetAttention.pool <kerasattn.layers.TargetAttention.pool>`: zero weight
        on padding is the weights' to give."""
        return ops.sum(inputs * ops.cast(weights, inputs.dtype)[:, :, None], axis=1)

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape):
        return (input_shape[0], input_shape[-1])

    def compute_output_spec(self, inputs, mask=None, return_attention_scores=False):
        out = keras.KerasTensor(self.compute_output_shape(inputs.shape), dtype=self.compute_dtype)
        if not return_attention_scores:
            return out
        return out, keras.KerasTensor(inputs.shape[:2], dtype=self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update(units=self.units,
                      kernel_initializer=keras.initializers.serialize(self.kernel_initializer))
        return config
