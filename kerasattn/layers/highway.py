"""Highway layers (Srivastava et al. 2015), as IRAM uses them (Tutek & Šnajder 2018, §3.1, §3.4)."""

import keras

from kerasattn.layers._initializers import clone_initializer


GATES = ("transform", "carry")


@keras.saving.register_keras_serializable(package="kerasattn")
class Highway(keras.layers.Layer):
    """A stack of highway layers, each gating its transform ``H(x)`` against its input.

    ``H(x) = act(W_H x + b_H)`` and the gate ``g = sigmoid(W_g x + b_g)``. Which
    of the two ``g`` opens is ``gate``:

    - ``"transform"`` (Srivastava et al. 2015's formula): ``y = g ⊙ H(x) + (1 − g) ⊙ x``;
    - ``"carry"`` (AllenNLP's and TensorFlow's ``HighwayWrapper``):
      ``y = g ⊙ x + (1 − g) ⊙ H(x)``.

    Every gate bias starts at ``gate_bias_initializer`` (1.0). IRAM §4.2 sets
    "all highway networks' gate biases to 1, as recommended by Srivastava et
    al.", who recommend starting biased towards carrying the input: that is a
    carry gate at +1 (a new layer passes ≈ 73 % of its input on). Read as a
    transform gate, +1 starts each layer transforming instead; with IRAM's
    N(0, 0.01) weights H(x) ≈ 0 then, so every layer shrinks its input to ≈ 27 %.
    Works on any rank (the last axis is transformed) and passes the mask through.

    Args:
        num_layers: how many highway layers are stacked (2 over IRAM's
            embeddings, 1 over its query and summaries).
        activation: the activation of H (ReLU by default).
        gate_bias_initializer: the initial gate bias (1.0 in IRAM §4.2).
        kernel_initializer: initializer of W_H and W_g (IRAM: N(0, 0.01)).
        gate: ``"transform"`` (default) or ``"carry"``: what the gate opens.

    Call arguments:
        inputs: (..., d). mask: passed on unchanged.

    Example:
    >>> import numpy as np
    >>> from kerasattn.layers import Highway
    >>> tuple(Highway(num_layers=2)(np.ones((3, 5, 8), "float32")).shape)
    (3, 5, 8)
    """

    # the small layers the shared harness builds (tests/layers/test_harness.py): keyword
    # arguments, one dict a layer
    harness_examples = ({"num_layers": 2},)

    def __init__(self, num_layers=1, activation="relu", gate_bias_initializer=1.0,
                 kernel_initializer="glorot_uniform", gate="transform", **kwargs):
        super().__init__(**kwargs)
        if not isinstance(num_layers, int) or num_layers < 1:
            raise ValueError(f"num_layers must be a positive integer, got {num_layers!r}")
        if gate not in GATES:
            raise ValueError(f"gate must be one of {', '.join(GATES)}, got {gate!r}")
        self.gate = gate
        self.num_layers = num_layers
        self.activation = keras.activations.get(activation)
        self.gate_bias_initializer = float(gate_bias_initializer)
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.supports_masking = True

    def build(self, input_shape):
        d = input_shape[-1]
        if d is None:
            raise ValueError("Highway needs a known last dimension")
        self._transforms, self._gates = [], []
        for i in range(self.num_layers):
            transform = keras.layers.Dense(d, activation=self.activation, name=f"transform_{i}",
                                           kernel_initializer=clone_initializer(
                                               self.kernel_initializer),
                                           dtype=self.dtype_policy)
            gate = keras.layers.Dense(
                d, activation="sigmoid", name=f"gate_{i}",
                kernel_initializer=clone_initializer(self.kernel_initializer),
                bias_initializer=keras.initializers.Constant(self.gate_bias_initializer),
                dtype=self.dtype_policy)
            transform.build(input_shape)
            gate.build(input_shape)
            self._transforms.append(transform)
            self._gates.append(gate)

    def call(self, inputs, mask=None):
        x = inputs
        for transform, gate in zip(self._transforms, self._gates):
            g = gate(x)
            if self.gate == "carry":
                x = g * x + (1 - g) * transform(x)
            else:
                x = g * transform(x) + (1 - g) * x
        return x

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        config = super().get_config()
        config.update(num_layers=self.num_layers,
                      activation=keras.activations.serialize(self.activation),
                      gate_bias_initializer=self.gate_bias_initializer, gate=self.gate,
                      kernel_initializer=keras.initializers.serialize(self.kernel_initializer))
        return config
