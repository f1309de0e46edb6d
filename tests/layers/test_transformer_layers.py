"""The sentiment Transformer's layers (paper 004 §2): the encoder block against numpy,
masks, mixed precision, and InterAttention's weights and trained query."""

import keras
import numpy as np
import pytest

from kerasattn.layers import InterAttention, TransformerEncoderBlock


def _layer_norm(x, gamma, beta, eps):
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _numpy_block(block, x):
    """Equations of §2 with the block's own weights, no mask, no dropout."""
    w = {v.path.split("/", 1)[1]: np.asarray(v) for v in block.weights}
    h, dk = block.num_heads, block._dk

    def heads(name):
        y = x @ w[f"{name}/kernel"] + w.get(f"{name}/bias", 0)     # (n, h*dk); no key bias
        return y.reshape(len(x), h, dk).transpose(1, 0, 2)        # (h, n, dk)

    q, k, v = heads("query"), heads("key"), heads("value")
    a = _softmax(q @ k.transpose(0, 2, 1) / np.sqrt(dk))           # (h, n, n)
    z = (a @ v).transpose(1, 0, 2).reshape(len(x), h * dk)
    z = z @ w["output/kernel"] + w["output/bias"]                  # W_Z
    eps = block.layer_norm_epsilon
    y = _layer_norm(x + z, w["attention_norm/gamma"], w["attention_norm/beta"], eps)
    f = np.maximum(y @ w["ffn_hidden/kernel"] + w["ffn_hidden/bias"], 0)
    f = f @ w["ffn_output/kernel"] + w["ffn_output/bias"]
    return _layer_norm(y + f, w["ffn_norm/gamma"], w["ffn_norm/beta"], eps), a


@pytest.mark.parametrize("heads,key_dim", [(1, None), (2, None), (8, None), (3, 5)])
def test_encoder_block_matches_numpy(heads, key_dim):
    keras.utils.set_random_seed(0)
    x = np.random.default_rng(0).normal(size=(1, 6, 16)).astype("float32")
    block = TransformerEncoderBlock(num_heads=heads, ff_dim=12, key_dim=key_dim)
    out, weights = block(x, return_attention_scores=True)
    expected, a = _numpy_block(block, x[0].astype("float64"))
    assert weights.shape == (1, heads, 6, 6)
    assert block._dk == (key_dim or 16 // heads)
    np.testing.assert_allclose(np.asarray(weights)[0], a, atol=1e-5)
    np.testing.assert_allclose(np.asarray(out)[0], expected, atol=1e-4)


def test_encoder_block_masks_padding():
    keras.utils.set_random_seed(1)
    rng = np.random.default_rng(1)
    block = TransformerEncoderBlock(num_heads=2, ff_dim=8)
    x = rng.normal(size=(2, 7, 8)).astype("float32")
    mask = np.arange(7)[None] < np.array([[7], [4]])
    out, a = block(x, mask=mask, return_attention_scores=True)
    a = np.asarray(a)
    np.testing.assert_allclose(a[1, :, :4].sum(-1), 1, rtol=1e-5)   # real queries
    assert (a[1, :, :, 4:] == 0).all() and (a[1, :, 4:] == 0).all()  # padded keys, queries
    # the padded positions' values change nothing for the real ones
    x2 = x.copy()
    x2[1, 4:] = rng.normal(size=(3, 8)) * 100
    out2 = block(x2, mask=mask)
    np.testing.assert_allclose(np.asarray(out2)[1, :4], np.asarray(out)[1, :4], atol=1e-5)
    alone = block(x[1:, :4])
    np.testing.assert_allclose(np.asarray(alone)[0], np.asarray(out)[1, :4], atol=1e-5)
    empty = block(x[:1], mask=np.zeros((1, 7), bool))
    assert np.isfinite(np.asarray(empty)).all()


@pytest.mark.parametrize("policy", ["mixed_float16", "mixed_bfloat16"])
def test_encoder_block_and_inter_attention_in_mixed_precision(policy):
    keras.utils.set_random_seed(2)
    x = (np.random.default_rng(2).normal(size=(2, 9, 16)) * 30).astype("float32")
    mask = np.arange(9)[None] < np.array([[9], [3]])
    ref_block, ref_pool = TransformerEncoderBlock(num_heads=4, ff_dim=8), InterAttention()
    ref = ref_pool(ref_block(x, mask=mask), mask=mask)
    keras.mixed_precision.set_global_policy(policy)
    try:
        block, pool = TransformerEncoderBlock(num_heads=4, ff_dim=8), InterAttention()
        block.build(x.shape)
        pool.build(x.shape)
        block.set_weights(ref_block.get_weights())
        pool.set_weights(ref_pool.get_weights())
        y, a = block(x, mask=mask, return_attention_scores=True)
        out, w = pool(y, mask=mask, return_attention_scores=True)
    finally:
        keras.mixed_precision.set_global_policy("float32")
    assert np.isfinite(np.asarray(out, "float32")).all()
    np.testing.assert_allclose(np.asarray(w, "float32").sum(-1), 1, atol=1e-2)
    assert (np.asarray(w, "float32")[1, 3:] == 0).all()
    # bfloat16 keeps 8 bits of mantissa: on inputs scaled by 30 the scores run to the
    # hundreds and round by about 1, enough to move a near-tied softmax (seeds 0-5 of
    # this draw: at most 0.014 apart under float16, 0.165 under bfloat16)
    atol = {"mixed_float16": 0.05, "mixed_bfloat16": 0.25}[policy]
    np.testing.assert_allclose(np.asarray(out, "float32"), np.asarray(ref), atol=atol)


def test_inter_attention_matches_numpy_and_masks():
    keras.utils.set_random_seed(3)
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 5, 6)).astype("float32")
    mask = np.arange(5)[None] < np.array([[5], [2]])
    layer = InterAttention(units=4)
    out, w = layer(x, mask=mask, return_attention_scores=True)
    k = x @ np.asarray(layer._keys.kernel)
    scores = np.tanh(k + np.asarray(layer.query)) @ np.asarray(layer.context)   # vᵀ tanh(q + K)
    expected = np.stack([_softmax(scores[0]), np.r_[_softmax(scores[1, :2]), 0, 0, 0]])
    np.testing.assert_allclose(np.asarray(w), expected, atol=1e-6)
    np.testing.assert_allclose(np.asarray(out), np.einsum("bn,bnd->bd", expected, x), atol=1e-5)
    none = layer(x, mask=np.zeros((2, 5), bool), return_attention_scores=True)
    assert (np.asarray(none[1]) == 0).all() and (np.asarray(none[0]) == 0).all()


def test_inter_attention_query_is_trained():
    """The query must be a trained weight (a published PyTorch version left it out)."""
    keras.utils.set_random_seed(4)
    inputs = keras.Input((None, 6))
    pool = InterAttention(name="inter_attention")
    model = keras.Model(inputs, keras.layers.Dense(1, activation="sigmoid")(pool(inputs)))
    assert any(w is pool.query for w in model.trainable_weights)
    model.compile(keras.optimizers.Adam(0.05), "binary_crossentropy")
    before = np.asarray(pool.query).copy()
    x = np.random.default_rng(4).normal(size=(16, 5, 6)).astype("float32")
    model.fit(x, (x[:, 0, 0] > 0).astype("float32"), epochs=1, batch_size=16, verbose=0)
    assert not np.allclose(before, np.asarray(pool.query))


def test_validation():
    with pytest.raises(ValueError, match="num_heads"):
        TransformerEncoderBlock(num_heads=0)
    with pytest.raises(ValueError, match="dropout"):
        TransformerEncoderBlock(dropout=1.0)
    with pytest.raises(ValueError, match="key_dim"):
        TransformerEncoderBlock(num_heads=8)(np.ones((1, 2, 4), "float32"))
    with pytest.raises(ValueError, match="units"):
        InterAttention(units=0)
