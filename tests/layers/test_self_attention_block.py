"""SelfAttentionBlock (SANet §3): exact numbers against numpy, masks, heads, dtypes."""

import keras
import numpy as np
import pytest

from kerasattn.layers import SelfAttentionBlock


def _np(t):
    return keras.ops.convert_to_numpy(t).astype("float64")


def softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def layer_norm(x, gamma, beta, eps):
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


def reference(block, x, length, scaled=False):
    """The block by hand for one text of ``length`` real positions."""
    w_qk, w_v = _np(block.w_qk), _np(block.w_v)
    h, d = w_qk.shape[0], w_qk.shape[1]
    dh = d // h
    xr = x[:length].astype("float64")
    outs, weights = [], []
    for i in range(h):
        scores = xr @ w_qk[i] @ xr.T
        if scaled:
            scores /= np.sqrt(dh)
        a = softmax(scores)
        weights.append(a)
        outs.append(a @ (xr @ w_v)[:, i * dh:(i + 1) * dh])
    att = np.concatenate(outs, axis=-1)
    eps = block.layer_norm_epsilon
    y = layer_norm(xr + att, _np(block._attention_norm.gamma), _np(block._attention_norm.beta), eps)
    hid = np.maximum(y @ _np(block._ffn_hidden.kernel) + _np(block._ffn_hidden.bias), 0)
    ffn = hid @ _np(block._ffn_output.kernel) + _np(block._ffn_output.bias)
    out = layer_norm(y + ffn, _np(block._ffn_norm.gamma), _np(block._ffn_norm.beta), eps)
    return out, np.stack(weights)


@pytest.mark.parametrize("heads,scaled", [(1, False), (2, True), (4, False)])
def test_matches_the_paper_equation_computed_in_numpy(heads, scaled):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 5, 8)).astype("float32") * 0.5
    mask = np.array([[True] * 5, [True] * 3 + [False] * 2])
    block = SelfAttentionBlock(num_heads=heads, scaled=scaled, dropout=0.0)
    out, att = block(x, mask=mask, return_attention_scores=True)
    out, att = _np(out), _np(att)
    if heads == 1:
        att = att[:, None]
    for b, length in enumerate((5, 3)):
        ref_out, ref_att = reference(block, x[b], length, scaled)
        np.testing.assert_allclose(out[b, :length], ref_out, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(att[b, :, :length, :length], ref_att, rtol=1e-4, atol=1e-6)
    # padded keys get zero weight and padded queries an all-zero row
    assert not att[1, :, :, 3:].any() and not att[1, :, 3:, :].any()
    np.testing.assert_allclose(att[1, :, :3].sum(-1), 1.0, rtol=1e-5)


def test_single_head_scores_shape_and_default_is_unscaled():
    block = SelfAttentionBlock()
    assert block.num_heads == 1 and block.scaled is False and block.dropout == 0.1
    x = np.ones((3, 4, 16), "float32")
    _, att = block(x, return_attention_scores=True)
    assert tuple(att.shape) == (3, 4, 4)


@pytest.mark.parametrize("policy", ["float32", "mixed_float16", "mixed_bfloat16"])
def test_all_padding_rows_give_zeros_not_nan(policy):
    keras.mixed_precision.set_global_policy(policy)
    block = SelfAttentionBlock(num_heads=2)
    x = np.random.default_rng(1).normal(size=(2, 6, 8)).astype("float32") * 30
    mask = np.array([[False] * 6, [True] * 2 + [False] * 4])
    out, att = block(x, mask=mask, return_attention_scores=True)
    assert np.isfinite(_np(out)).all()
    assert not _np(att)[0].any()
    assert keras.backend.standardize_dtype(att.dtype) == block.compute_dtype


def test_large_unscaled_scores_do_not_overflow_in_float16():
    keras.mixed_precision.set_global_policy("mixed_float16")
    block = SelfAttentionBlock(dropout=0.0)
    x = np.full((1, 4, 64), 40.0, "float32")  # X W_QK Xᵀ far beyond 65504
    x[0, :, ::2] = -40.0
    out, att = block(x, return_attention_scores=True)
    assert np.isfinite(_np(out)).all() and np.isfinite(_np(att)).all()


def test_invalid_arguments():
    with pytest.raises(ValueError, match="num_heads"):
        SelfAttentionBlock(num_heads=0)
    with pytest.raises(ValueError, match="must divide"):
        SelfAttentionBlock(num_heads=3)(np.zeros((1, 2, 8), "float32"))
    with pytest.raises(ValueError, match="dropout"):
        SelfAttentionBlock(dropout=1.0)


def test_mask_propagates_in_a_model():
    ids = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(20, 8, mask_zero=True)(ids)
    y = SelfAttentionBlock(dropout=0.0)(x)
    model = keras.Model(ids, y)
    a = _np(model(np.array([[3, 4, 5, 0, 0]])))
    b = _np(model(np.array([[3, 4, 5]])))
    np.testing.assert_allclose(a[:, :3], b, atol=1e-5)
