"""Inter-attention pooling of the sentiment Transformer (Hubli, paper 004, §2)."""

import keras
from keras import ops

from kerasattn.layers.attention_pooling import AttentionPooling
from kerasattn.layers._initializers import clone_initializer


@keras.saving.register_keras_serializable(package="kerasattn")
class InterAttention(AttentionPooling):
    """Pools the encoder's outputs into one vector with a trained query.

    The paper writes ``W_I = softmax(tanh(Qᵀ + K))``, ``output = Vᵀ W_I``
    without saying how one score per position comes out of the d-dimensional
    tanh. We read it as additive attention whose last step reduces over the
    features with a trained vector v::

        K_i = W_K x_i                      keys: the encoder outputs projected
        score_i = vᵀ tanh(q + K_i)         q: the trained query (``query``)
        W_I = softmax_i(score_i)           over real positions only
        output = Σ_i W_I,i x_i             values: the encoder outputs themselves

    (With q folded into a bias this is HAN's attention pooling, which is why
    the class extends :class:`AttentionPooling`; here the query is its own,
    named weight.) The query is a trainable weight of the layer: a published
    PyTorch version of this layer created it outside the module's parameters,
    so it never trained. The softmax runs in float32 with a boolean mask:
    padding gets exactly zero weight, and a text with no real position gives
    zeros (never NaN).

    Args:
        units: size of the query and the projected keys (default: the input size d).
        kernel_initializer: initializer of W_K, the query and v.

    Call arguments:
        inputs: (batch, n, d). mask: boolean (batch, n).
        return_attention_scores: also return the (batch, n) weights W_I.

    Example:
    >>> import numpy as np
    >>> from kerasattn.layers import InterAttention
    >>> y, w = InterAttention()(np.ones((2, 5, 8), "float32"), return_attention_scores=True)
    >>> tuple(y.shape), tuple(w.shape)
    ((2, 8), (2, 5))
    """

    # the small layers the shared harness builds (tests/layers/test_harness.py): keyword
    # arguments, one dict a layer
    harness_examples = ({"units": 6},)

    # The weights returned with ``return_attention_scores=True`` are shaped
    # (batch, *attention_axes); attention extraction reads these names.
    attention_axes = ("token",)

    def __init__(self, units=None, kernel_initializer="glorot_uniform", **kwargs):
        if units is not None and (not isinstance(units, int) or units < 1):
            raise ValueError(f"units must be a positive integer or None, got {units!r}")
        super().__init__(units=units or 1, kernel_initializer=kernel_initializer, **kwargs)
        self.units = units

    def build(self, input_shape):
        units = self.units or input_shape[-1]
        self._keys = keras.layers.Dense(units, use_bias=False, name="keys",
                                        kernel_initializer=clone_initializer(
                                            self.kernel_initializer),
                                        dtype=self.dtype_policy)
        self._keys.build(input_shape)
        self.query = self.add_weight(name="query", shape=(units,),
                                     initializer=clone_initializer(self.kernel_initializer))
        # v, the vector that reduces tanh(q + K_i) to one score
        self.context = self.add_weight(name="score_vector", shape=(units,),
                                       initializer=clone_initializer(self.kernel_initializer))

    def _hidden_states(self, inputs):
        return ops.tanh(self._keys(inputs) + ops.cast(self.query, self.compute_dtype))

    def get_config(self):
        config = super().get_config()
        config["units"] = self.units
        return config
