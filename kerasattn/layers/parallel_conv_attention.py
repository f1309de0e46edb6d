"""Two convolutional self-attentions multiplied (HCAN, Gao et al. 2018, §3.4, Equation 4)."""

import keras
from keras import ops

from kerasattn.layers.conv_multihead_attention import ConvMultiheadAttention


@keras.saving.register_keras_serializable(package="kerasattn")
class ParallelConvAttention(keras.layers.Layer):
    """HCAN's parallel pair: ``LayerNorm(MultiHead_a(E) ⊙ MultiHead_b(E))``.

    Branch a has ELU values, branch b tanh values (Equation 4: tanh keeps the
    product from growing or vanishing); both are
    :class:`ConvMultiheadAttention` with their own convolutions. The product
    lets the model express negation and scaling, which a weighted average
    cannot (§3.4). Layer normalisation follows, as in the paper's Figure 1.
    Padded positions give zero outputs.

    Args:
        num_heads: heads of each branch (8 in §4.2).
        units: d (default: the input size).
        dropout: dropout on each branch's attention weights (0.1).
        layer_norm_epsilon: epsilon of the layer normalisation.
        kernel_initializer: initializer of the convolution kernels.

    Call arguments:
        inputs: (batch, n, d_in). mask: boolean (batch, n). training: dropout on/off.
        return_attention_scores: also return both branches' weights stacked,
            (batch, 2, heads, n, n), branch a first.

    Example:
    >>> import numpy as np
    >>> from kerasattn.layers import ParallelConvAttention
    >>> layer = ParallelConvAttention(num_heads=2, units=8)
    >>> tuple(layer(np.ones((1, 4, 8), "float32")).shape)
    (1, 4, 8)
    """

    # the small layers the shared harness builds (tests/layers/test_harness.py): keyword
    # arguments, one dict a layer
    harness_examples = ({"num_heads": 2, "dropout": 0.0},)

    # The weights returned with ``return_attention_scores=True`` are shaped
    # (batch, *attention_axes); attention extraction reads these names.
    attention_axes = ("branch", "head", "query", "key")

    def __init__(self, num_heads=8, units=None, dropout=0.1, layer_norm_epsilon=1e-6,
                 kernel_initializer="glorot_uniform", **kwargs):
        super().__init__(**kwargs)
        self.num_heads = num_heads
        self.units = units
        self.dropout = dropout
        self.layer_norm_epsilon = float(layer_norm_epsilon)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.supports_masking = True
        common = dict(num_heads=num_heads, units=units, dropout=dropout,
                      kernel_initializer=self.kernel_initializer, dtype=self.dtype_policy)
        self._a = ConvMultiheadAttention(value_activation="elu", name="branch_elu", **common)
        self._b = ConvMultiheadAttention(value_activation="tanh", name="branch_tanh", **common)
        self._norm = keras.layers.LayerNormalization(epsilon=self.layer_norm_epsilon,
                                                     name="norm", dtype=self.dtype_policy)

    def build(self, input_shape):
        self._a.build(input_shape)
        self._b.build(input_shape)
        self._norm.build(self._a.compute_output_shape(input_shape))

    def call(self, inputs, mask=None, training=None, return_attention_scores=False):
        a, wa = self._a(inputs, mask=mask, training=training, return_attention_scores=True)
        b, wb = self._b(inputs, mask=mask, training=training, return_attention_scores=True)
        out = self._norm(a * b)
        if mask is not None:
            out = out * ops.cast(mask, out.dtype)[:, :, None]
        return (out, ops.stack([wa, wb], axis=1)) if return_attention_scores else out

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], self.units or input_shape[-1])

    def compute_output_spec(self, inputs, mask=None, training=None,
                            return_attention_scores=False):
        out = keras.KerasTensor(self.compute_output_shape(inputs.shape), dtype=self.compute_dtype)
        if not return_attention_scores:
            return out
        n = inputs.shape[1]
        return out, keras.KerasTensor((inputs.shape[0], 2, self.num_heads, n, n),
                                      dtype=self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update(num_heads=self.num_heads, units=self.units, dropout=self.dropout,
                      layer_norm_epsilon=self.layer_norm_epsilon,
                      kernel_initializer=keras.initializers.serialize(self.kernel_initializer))
        return config
