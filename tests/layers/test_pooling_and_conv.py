"""Masked pooling and Kim's conv feature: exact values against numpy, masks, dtypes, saving."""

import keras
import numpy as np
import pytest

from kerasattn.layers import KimConvPool, MaskedGlobalAveragePooling1D, MaskedGlobalMaxPooling1D

X = np.array([[[1.0, -2.0], [3.0, -5.0], [100.0, 100.0]],
              [[-1.0, -1.0], [-7.0, 4.0], [50.0, 50.0]],
              [[9.0, 9.0], [9.0, 9.0], [9.0, 9.0]]], "float32")
MASK = np.array([[True, True, False], [True, True, False], [False, False, False]])


@pytest.mark.parametrize("dtype", ["float32", "mixed_float16", "mixed_bfloat16"])
def test_masked_max_ignores_padding_and_gives_zero_for_empty_rows(dtype):
    keras.mixed_precision.set_global_policy(dtype)
    out = keras.ops.convert_to_numpy(MaskedGlobalMaxPooling1D()(X, mask=MASK)).astype("float32")
    np.testing.assert_allclose(out, [[3.0, -2.0], [-1.0, 4.0], [0.0, 0.0]])


def test_masked_max_with_very_negative_values_in_float16():
    keras.mixed_precision.set_global_policy("mixed_float16")
    x = np.full((1, 3, 1), -60000.0, "float32")
    out = MaskedGlobalMaxPooling1D()(x, mask=np.array([[True, False, False]]))
    assert float(keras.ops.convert_to_numpy(out)[0, 0]) == -60000.0


def test_masked_average():
    out = keras.ops.convert_to_numpy(MaskedGlobalAveragePooling1D()(X, mask=MASK))
    np.testing.assert_allclose(out, [[2.0, -3.5], [-4.0, 1.5], [0.0, 0.0]])
    np.testing.assert_allclose(keras.ops.convert_to_numpy(MaskedGlobalAveragePooling1D()(X)),
                               X.mean(axis=1), rtol=1e-6)


def kim_numpy(x, length, w, b, k):
    """Kim (2014) by hand: pad k-1 zeros each side, every window, ReLU, max."""
    d = x.shape[-1]
    padded = np.concatenate([np.zeros((k - 1, d)), x[:length], np.zeros((k - 1, d))])
    feats = [np.maximum(padded[i:i + k].reshape(-1) @ w.reshape(k * d, -1) + b, 0)
             for i in range(length + k - 1)]
    return np.max(feats, axis=0)


def test_kim_conv_matches_numpy_and_ignores_padding():
    rng = np.random.default_rng(0)
    layer = KimConvPool(filters=4, window=3)
    x = rng.normal(size=(2, 6, 5)).astype("float32")
    mask = np.array([[True] * 2 + [False] * 4, [True] * 6])
    out = keras.ops.convert_to_numpy(layer(x, mask=mask))
    w, b = [keras.ops.convert_to_numpy(v) for v in layer.conv.weights]
    np.testing.assert_allclose(out[0], kim_numpy(x[0], 2, w, b, 3), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[1], kim_numpy(x[1], 6, w, b, 3), rtol=1e-5, atol=1e-6)
    # garbage in padded positions changes nothing
    x2 = x.copy()
    x2[0, 2:] = 1e3
    np.testing.assert_allclose(keras.ops.convert_to_numpy(layer(x2, mask=mask)), out, rtol=1e-6)


def test_kim_conv_text_shorter_than_window_and_empty_text():
    layer = KimConvPool(filters=3, window=5)
    x = np.ones((2, 1, 4), "float32")
    out = keras.ops.convert_to_numpy(layer(x, mask=np.array([[True], [False]])))
    assert out.shape == (2, 3) and np.isfinite(out).all() and not out[1].any()


def test_invalid_arguments():
    with pytest.raises(ValueError):
        KimConvPool(filters=0)
