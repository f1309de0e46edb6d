"""Sinusoidal positional encoding: the Vaswani formula, value by value."""

import keras
import numpy as np
import pytest

from kerasattn.layers import SinusoidalPositionalEncoding


def test_matches_the_formula():
    n, d = 7, 6
    out = keras.ops.convert_to_numpy(SinusoidalPositionalEncoding()(np.zeros((2, n, d), "float32")))
    for pos in range(n):
        for k in range(d):
            angle = pos / 10000 ** ((k - k % 2) / d)
            expected = np.sin(angle) if k % 2 == 0 else np.cos(angle)
            np.testing.assert_allclose(out[:, pos, k], expected, atol=1e-6)


def test_adds_to_the_input_and_is_length_agnostic():
    x = np.random.default_rng(0).normal(size=(1, 9, 4)).astype("float32")
    layer = SinusoidalPositionalEncoding()
    short = keras.ops.convert_to_numpy(layer(x[:, :5]))
    long = keras.ops.convert_to_numpy(layer(x))
    np.testing.assert_allclose(long[:, :5], short, atol=1e-6)
    pe = long - x
    np.testing.assert_allclose(pe[0, 0], [0, 1, 0, 1], atol=1e-6)


def test_input_scale_multiplies_the_inputs_before_adding():
    x = np.random.default_rng(0).normal(size=(2, 5, 6)).astype("float32")
    plain = np.asarray(SinusoidalPositionalEncoding()(x))
    scaled = np.asarray(SinusoidalPositionalEncoding(input_scale=3.0)(x))
    np.testing.assert_allclose(scaled, plain + 2.0 * x, atol=1e-5)  # 3x + PE = (x + PE) + 2x
    layer = SinusoidalPositionalEncoding.from_config(
        SinusoidalPositionalEncoding(input_scale=3.0).get_config())
    assert layer.input_scale == 3.0
    with pytest.raises(ValueError, match="input_scale"):
        SinusoidalPositionalEncoding(input_scale=0.0)
