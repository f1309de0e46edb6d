"""The no-attention stand-in of SANet's baseline (Letarte et al. 2018, §4)."""

import keras


@keras.saving.register_keras_serializable(package="kerasattn")
class FeedForwardBlock(keras.layers.Layer):
    """SANet's block with its self-attention layer replaced by a feed-forward layer.

    §4 trains "a baseline network without any attention mechanisms, replacing
    each self-attention layer with a feed forward layer". The replacement is a
    position-wise ReLU layer d→d in the same residual wrapper, followed by the
    block's usual feed-forward network::

        y = LayerNorm(x + Dropout(ReLU(x W + b)));  out = LayerNorm(y + Dropout(FFN(y)))

    Each position is transformed on its own, so padding never reaches a real
    position and the mask passes through.

    Args:
        dropout: dropout on each sub-layer's output (0.1 in the paper).
        layer_norm_epsilon: epsilon of both layer normalisations.

    Call arguments:
        inputs: (batch, n, d).
        training: whether dropout is active.
    """

    # the small layers the shared harness builds (tests/layers/test_harness.py): keyword
    # arguments, one dict a layer
    harness_examples = ({"dropout": 0.0},)

    def __init__(self, dropout=0.1, layer_norm_epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout!r}")
        self.dropout = float(dropout)
        self.layer_norm_epsilon = float(layer_norm_epsilon)
        self.supports_masking = True

    def build(self, input_shape):
        d, policy = input_shape[-1], self.dtype_policy
        self._replacement = keras.layers.Dense(d, activation="relu", name="replacement",
                                               dtype=policy)
        self._ffn_hidden = keras.layers.Dense(d, activation="relu", name="ffn_hidden",
                                              dtype=policy)
        self._ffn_output = keras.layers.Dense(d, name="ffn_output", dtype=policy)
        self._norm1 = keras.layers.LayerNormalization(epsilon=self.layer_norm_epsilon,
                                                      name="replacement_norm", dtype=policy)
        self._norm2 = keras.layers.LayerNormalization(epsilon=self.layer_norm_epsilon,
                                                      name="ffn_norm", dtype=policy)
        self._drop1 = keras.layers.Dropout(self.dropout)
        self._drop2 = keras.layers.Dropout(self.dropout)
        for layer in (self._replacement, self._ffn_hidden, self._ffn_output, self._norm1,
                      self._norm2):
            layer.build(input_shape)

    def call(self, inputs, mask=None, training=None):
        y = self._norm1(inputs + self._drop1(self._replacement(inputs), training=training))
        ffn = self._ffn_output(self._ffn_hidden(y))
        return self._norm2(y + self._drop2(ffn, training=training))

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        config = super().get_config()
        config.update(dropout=self.dropout, layer_norm_epsilon=self.layer_norm_epsilon)
        return config
