"""Highway and Maxout (IRAM §3.1, §3.5, §4.2) against numpy."""

import keras
import numpy as np
import pytest

from kerasattn.layers import Highway, Maxout


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _numpy_highway(layer, x):
    """``layer``'s output computed in numpy from its weights: the gate g opens the
    transform (y = g H(x) + (1 - g) x) or, for gate="carry", the input (y = g x + (1 - g)
    H(x)); every gate bias is checked to start at 1 (IRAM §4.2)."""
    for transform, gate in zip(layer._transforms, layer._gates):
        wh, bh = (np.asarray(v) for v in transform.weights)
        wg, bg = (np.asarray(v) for v in gate.weights)
        np.testing.assert_array_equal(bg, 1.0)
        g, h = _sigmoid(x @ wg + bg), np.maximum(x @ wh + bh, 0)
        x = g * x + (1 - g) * h if layer.gate == "carry" else g * h + (1 - g) * x
    return x


def test_highway_gate_biases_start_at_one_and_match_numpy():
    layer = Highway(num_layers=2)
    x = np.random.default_rng(0).normal(size=(3, 4)).astype("float32")
    np.testing.assert_allclose(np.asarray(layer(x)), _numpy_highway(layer, x), rtol=1e-5,
                               atol=1e-6)


def test_highway_carry_gate_matches_numpy_and_starts_carrying():
    layer = Highway(num_layers=2, gate="carry", kernel_initializer=keras.initializers.RandomNormal(
        stddev=0.01, seed=0))
    x = np.random.default_rng(2).normal(size=(3, 4)).astype("float32")
    y = np.asarray(layer(x))
    np.testing.assert_allclose(y, _numpy_highway(layer, x), rtol=1e-5, atol=1e-6)
    # with IRAM's N(0, 0.01) weights H(x) is about 0: a carry gate at +1 passes
    # sigmoid(1) ~ 0.73 of the input per layer, a transform gate at +1 only 0.27
    transform = Highway(num_layers=2, kernel_initializer=keras.initializers.RandomNormal(
        stddev=0.01, seed=0))
    ratio = np.std(y) / np.std(x)
    assert 0.73 ** 2 - 0.05 < ratio < 0.73 ** 2 + 0.05
    assert np.std(np.asarray(transform(x))) / np.std(x) < 0.27 ** 2 + 0.05
    clone = Highway.from_config(layer.get_config())
    assert clone.gate == "carry"
    with pytest.raises(ValueError, match="gate must be one of transform, carry"):
        Highway(gate="open")


def test_highway_closed_gate_carries_the_input():
    layer = Highway(gate_bias_initializer=-1e4)  # sigmoid(-1e4) = 0: carry everything
    x = np.random.default_rng(1).normal(size=(2, 5, 3)).astype("float32")
    np.testing.assert_allclose(np.asarray(layer(x)), x, atol=1e-6)


def test_maxout_takes_the_largest_of_each_pool():
    layer = Maxout(units=2, pool_size=3, num_layers=1)
    x = np.array([[1.0, -2.0]], "float32")
    layer.build(x.shape)
    kernel = np.array([[1, 2, 3, -1, -2, -3], [0, 0, 0, 1, 1, 1]], "float32")
    bias = np.array([0, 0, 0, 0, 0, 10], "float32")
    layer._pieces[0].set_weights([kernel, bias])
    # pieces: x @ kernel + bias = [1, 2, 3, -3, -4, 5] -> max of (1, 2, 3) and (-3, -4, 5)
    np.testing.assert_allclose(np.asarray(layer(x)), [[3.0, 5.0]])


def test_maxout_stack_shapes_and_validation():
    out = Maxout(units=200, pool_size=4, num_layers=2)(np.ones((3, 64), "float32"))
    assert out.shape == (3, 200)
    with pytest.raises(ValueError, match="pool_size"):
        Maxout(pool_size=0)
    with pytest.raises(ValueError, match="num_layers"):
        Highway(num_layers=0)
    clone = Maxout.from_config(Maxout(units=3, dropout=0.2).get_config())
    assert (clone.units, clone.pool_size, clone.num_layers, clone.dropout) == (3, 4, 2, 0.2)
    assert keras.saving.deserialize_keras_object(
        keras.saving.serialize_keras_object(Highway(num_layers=2))).num_layers == 2
