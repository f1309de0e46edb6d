"""HCAN's layers against numpy, with masks (Gao et al. 2018, Equations 2–5)."""

import keras
import numpy as np
import pytest

from kerasattn.layers import (ConvMultiheadAttention, LearnedPositionalEmbedding,
                              ParallelConvAttention, TargetAttention)


def _elu(x):
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0)))


def _conv(x, conv_layer, act):
    """'same' window-3 convolution by hand: out[t] = Σ_j x[t + j - 1] W[j] + b."""
    w, b = (np.asarray(v) for v in conv_layer.weights)
    padded = np.pad(x, ((1, 1), (0, 0)))
    out = np.stack([sum(padded[t + j] @ w[j] for j in range(3)) + b for t in range(len(x))])
    return act(out)


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_conv_multihead_attention_matches_numpy_and_masks_padding():
    keras.utils.set_random_seed(0)
    layer = ConvMultiheadAttention(num_heads=2, units=4, value_activation="tanh", dropout=0.0)
    x = np.random.default_rng(0).normal(size=(1, 5, 3)).astype("float32")
    mask = np.array([[True, True, True, False, False]])
    out, w = layer(x, mask=mask, return_attention_scores=True)
    real = x[0, :3]  # padding zeroed = the same as a 3-word text
    q = _conv(real, layer._q, _elu)
    k = _conv(real, layer._k, _elu)
    v = _conv(real, layer._v, np.tanh)
    for h in range(2):
        sl = slice(2 * h, 2 * h + 2)
        a = _softmax(q[:, sl] @ k[:, sl].T / np.sqrt(2))
        np.testing.assert_allclose(np.asarray(w)[0, h, :3, :3], a, atol=1e-5)
        np.testing.assert_allclose(np.asarray(out)[0, :3, sl], a @ v[:, sl], atol=1e-5)
    assert np.all(np.asarray(w)[0, :, :, 3:] == 0) and np.all(np.asarray(w)[0, :, 3:] == 0)
    assert np.all(np.asarray(out)[0, 3:] == 0)


def test_padding_never_leaks_through_the_convolutions():
    keras.utils.set_random_seed(1)
    layer = ConvMultiheadAttention(num_heads=2, dropout=0.0)
    x = np.random.default_rng(1).normal(size=(1, 4, 6)).astype("float32")
    garbage = np.concatenate([x, 100 * np.ones((1, 3, 6), "float32")], axis=1)
    mask = np.arange(7)[None] < 4
    np.testing.assert_allclose(np.asarray(layer(garbage, mask=mask))[:, :4],
                               np.asarray(layer(x)), atol=1e-5)


def test_parallel_pair_is_the_normalised_product_of_elu_and_tanh_branches():
    keras.utils.set_random_seed(2)
    layer = ParallelConvAttention(num_heads=2, dropout=0.0)
    x = np.random.default_rng(2).normal(size=(2, 5, 8)).astype("float32")
    out, w = layer(x, return_attention_scores=True)
    assert layer._a.value_activation == "elu" and layer._b.value_activation == "tanh"
    prod = np.asarray(layer._a(x)) * np.asarray(layer._b(x))
    mu, var = prod.mean(-1, keepdims=True), prod.var(-1, keepdims=True)
    np.testing.assert_allclose(np.asarray(out), (prod - mu) / np.sqrt(var + 1e-6), atol=1e-4)
    assert tuple(w.shape) == (2, 2, 2, 5, 5)


def test_target_attention_weights_sum_to_one_over_real_words_only():
    keras.utils.set_random_seed(3)
    layer = TargetAttention(num_heads=2, dropout=0.0)
    x = np.random.default_rng(3).normal(size=(3, 6, 4)).astype("float32")
    mask = np.arange(6)[None] < np.array([[6], [2], [0]])
    out, w = layer(x, mask=mask, return_attention_scores=True)
    w, out = np.asarray(w), np.asarray(out)
    np.testing.assert_allclose(w[:2].sum(-1), 1.0, atol=1e-5)
    assert np.all(w[1, :, 2:] == 0)
    assert np.all(w[2] == 0) and np.all(out[2] == 0) and np.all(np.isfinite(out))
    # by hand for the first text: softmax(T Kᵀ/√dh) V per head
    k = _conv(x[0], layer._k, _elu)
    v = _conv(x[0], layer._v, _elu)
    t = np.asarray(layer.target)[0]
    for h in range(2):
        sl = slice(2 * h, 2 * h + 2)
        a = _softmax(k[:, sl] @ t[sl] / np.sqrt(2))
        np.testing.assert_allclose(w[0, h], a, atol=1e-5)
        np.testing.assert_allclose(out[0, sl], a @ v[:, sl], atol=1e-5)
    assert "target" in [v.name for v in layer.trainable_weights]


def test_target_attention_with_inputs_as_values():
    layer = TargetAttention(num_heads=1, dropout=0.0, values_from_inputs=True)
    x = np.random.default_rng(4).normal(size=(1, 3, 4)).astype("float32")
    out, w = layer(x, return_attention_scores=True)
    np.testing.assert_allclose(np.asarray(out)[0], np.asarray(w)[0, 0] @ x[0], atol=1e-5)
    with pytest.raises(ValueError, match="units"):
        TargetAttention(num_heads=1, units=8, values_from_inputs=True)(x)


def test_pooling_given_weights_is_equation_5_with_those_weights():
    """``pool`` (what faithfulness tests pool permuted weights with) is the sum ``call``
    takes: the layer's own weights give its output; others, by hand, V's rows under them."""
    from kerasattn.layers import AttentionPooling

    keras.utils.set_random_seed(5)
    layer = TargetAttention(num_heads=2, dropout=0.0)
    x = np.random.default_rng(5).normal(size=(2, 5, 4)).astype("float32")
    mask = np.arange(5)[None] < np.array([[5], [3]])
    out, w = layer(x, mask=mask, return_attention_scores=True)
    np.testing.assert_allclose(np.asarray(layer.pool(x, w, mask=mask)), np.asarray(out),
                               atol=1e-6)
    other = np.zeros((2, 2, 5), "float32")
    other[:, 0, 0], other[:, 1, 1] = 1.0, 1.0  # head 0 reads the first word, head 1 the second
    v = _conv(x[0], layer._v, _elu)
    np.testing.assert_allclose(np.asarray(layer.pool(x, other, mask=mask))[0],
                               np.concatenate([v[0, :2], v[1, 2:]]), atol=1e-5)
    pooling = AttentionPooling(units=3)
    out, w = pooling(x, mask=mask, return_attention_scores=True)
    np.testing.assert_allclose(np.asarray(pooling.pool(x, w)), np.asarray(out), atol=1e-6)
    uniform = np.full((2, 5), 0.2, "float32")
    np.testing.assert_allclose(np.asarray(pooling.pool(x, uniform)), x.mean(1), atol=1e-6)


def test_learned_positions_are_added_and_clipped_past_max_length():
    layer = LearnedPositionalEmbedding(max_length=3, dropout=0.0)
    x = np.zeros((1, 5, 2), "float32")
    out = np.asarray(layer(x))
    p = np.asarray(layer.positions)
    np.testing.assert_allclose(out[0], p[[0, 1, 2, 2, 2]])
    with pytest.raises(ValueError, match="max_length"):
        LearnedPositionalEmbedding(max_length=0)


@pytest.mark.parametrize("kwargs,match", [
    ({"num_heads": 3, "units": 8}, "divide"), ({"value_activation": "relu"}, "value_activation"),
    ({"dropout": 1.0}, "dropout"), ({"num_heads": 0}, "num_heads")])
def test_conv_attention_validates_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ConvMultiheadAttention(**kwargs)


def test_one_position_gets_weight_one_without_a_softmax_warning():
    # a one-sentence document under a backend with static shapes (JAX, eager TF) attends
    # over one sentence: weight 1 (0 if padded), and Keras's "softmax over an axis of size
    # 1" warning is not raised
    import warnings

    from kerasattn.layers import AttentionPooling

    keras.utils.set_random_seed(1)
    x = np.random.default_rng(1).normal(size=(2, 1, 4)).astype("float32")
    mask = np.array([[True], [False]])
    layers = [(ConvMultiheadAttention(num_heads=2, units=4, dropout=0.0), (2, 2, 1, 1)),
              (TargetAttention(num_heads=2, dropout=0.0), (2, 2, 1)),
              (AttentionPooling(3), (2, 1))]
    for layer, shape in layers:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out, w = layer(x, mask=mask, return_attention_scores=True)
            _, unmasked = layer(x, return_attention_scores=True)
        w = np.asarray(w).reshape(shape)
        np.testing.assert_array_equal(w[0], 1.0)
        np.testing.assert_array_equal(w[1], 0.0)
        np.testing.assert_array_equal(np.asarray(unmasked), 1.0)
        assert np.all(np.isfinite(np.asarray(out)))
    # the pooled vector of one real sentence is that sentence
    np.testing.assert_allclose(np.asarray(layers[2][0](x, mask=mask))[0], x[0, 0], rtol=1e-6)
