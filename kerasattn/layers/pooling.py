"""Masked pooling over time.

Keras's ``GlobalMaxPooling1D`` ignores masks, so padding can win the max; and
``GlobalAveragePooling1D`` divides by zero for a fully padded row. These layers
take the mask into account and return zeros for a row with no real position.
"""

import keras
from keras import ops


# The most negative finite value of each float dtype (a float16 -1e9 is -inf).
_LOWEST = {"float16": -65504.0, "bfloat16": -3.38e38, "float32": -3.4e38,
           "float64": -1.79e308}


@keras.saving.register_keras_serializable(package="kerasattn")
class MaskedGlobalMaxPooling1D(keras.layers.Layer):
    """Max over time of the unmasked positions of a (batch, time, features) input.

    Padding never wins the max; a row whose positions are all masked gives
    zeros (not the dtype's minimum).

    Call arguments:
        inputs: (batch, time, features).
        mask: optional boolean (batch, time); True marks real positions.

    Example:
    >>> import numpy as np
    >>> import keras
    >>> from kerasattn.layers import MaskedGlobalMaxPooling1D
    >>> x = np.array([[[1.0], [5.0]], [[2.0], [3.0]]], "float32")
    >>> mask = np.array([[True, False], [False, False]])
    >>> y = MaskedGlobalMaxPooling1D()(x, mask=mask)  # padding (5.0) never wins
    >>> keras.ops.convert_to_numpy(y).tolist()
    [[1.0], [0.0]]
    """

    # the small layers the shared harness builds (tests/layers/test_harness.py): keyword
    # arguments, one dict a layer
    harness_examples = ({},)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        if mask is None:
            return ops.max(inputs, axis=1)
        m = ops.expand_dims(ops.cast(mask, "bool"), -1)
        dtype = keras.backend.standardize_dtype(inputs.dtype)
        lowest = ops.cast(_LOWEST[dtype], dtype)
        pooled = ops.max(ops.where(m, inputs, lowest), axis=1)
        return ops.where(ops.any(m, axis=1), pooled, ops.zeros_like(pooled))

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape):
        return (input_shape[0], input_shape[2])


@keras.saving.register_keras_serializable(package="kerasattn")
class MaskedGlobalAveragePooling1D(keras.layers.Layer):
    """Mean over time of the unmasked positions; zeros for a fully masked row.

    Call arguments:
        inputs: (batch, time, features).
        mask: optional boolean (batch, time); True marks real positions.

    Example:
    >>> import numpy as np
    >>> import keras
    >>> from kerasattn.layers import MaskedGlobalAveragePooling1D
    >>> x = np.array([[[1.0], [3.0], [100.0]]], "float32")
    >>> y = MaskedGlobalAveragePooling1D()(x, mask=np.array([[True, True, False]]))
    >>> keras.ops.convert_to_numpy(y).tolist()
    [[2.0]]
    """

    # the small layers the shared harness builds (tests/layers/test_harness.py): keyword
    # arguments, one dict a layer
    harness_examples = ({},)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        if mask is None:
            return ops.mean(inputs, axis=1)
        m = ops.expand_dims(ops.cast(mask, inputs.dtype), -1)
        total = ops.sum(inputs * m, axis=1)
        count = ops.maximum(ops.sum(m, axis=1), ops.cast(1, inputs.dtype))
        return total / count

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape):
        return (input_shape[0], input_shape[2])
