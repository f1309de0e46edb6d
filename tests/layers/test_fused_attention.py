"""The fused attention path (``keras.ops.dot_product_attention``, taken when no attention
weights are asked for) against the explicit one (``return_attention_scores=True``):
the same outputs, padding included, the op really called, and finite under mixed
precision."""

import keras
import numpy as np
import pytest

from kerasattn.layers import ConvMultiheadAttention, SelfAttentionBlock, TransformerEncoderBlock
from kerasattn.layers._attention_ops import fused_attention

N, D = 7, 16
LENGTHS = (7, 4, 1, 0)  # full, padded, one real token, no real token at all


def _inputs(seed=0, lengths=LENGTHS, n=N, d=D):
    x = np.random.default_rng(seed).normal(size=(len(lengths), n, d)).astype("float32")
    mask = np.arange(n)[None, :] < np.asarray(lengths)[:, None]
    return x, mask


def _np(t):
    return keras.ops.convert_to_numpy(t).astype("float32")


# (id, constructor): every layer with a fused path, one head and several
LAYERS = [
    ("sanet-1-unscaled", lambda: SelfAttentionBlock(dropout=0.0)),
    ("sanet-1-scaled", lambda: SelfAttentionBlock(scaled=True, dropout=0.1)),
    ("transformer-1", lambda: TransformerEncoderBlock(num_heads=1, ff_dim=8, dropout=0.0)),
    ("transformer-4", lambda: TransformerEncoderBlock(num_heads=4, ff_dim=8, dropout=0.1)),
    ("transformer-3-key_dim", lambda: TransformerEncoderBlock(num_heads=3, ff_dim=8, key_dim=5)),
    ("hcan-1", lambda: ConvMultiheadAttention(num_heads=1, dropout=0.0)),
    ("hcan-4", lambda: ConvMultiheadAttention(num_heads=4, units=8, dropout=0.1)),
    ("hcan-2-tanh", lambda: ConvMultiheadAttention(num_heads=2, value_activation="tanh")),
]


def _layer(make, seed=0):
    keras.utils.set_random_seed(seed)
    layer = make()
    x, mask = _inputs()
    layer(x, mask=mask, return_attention_scores=True)
    # larger weights than Glorot's, so the scores are far from uniform and a wrong
    # scale, mask or head split shows in the outputs
    for w in layer.trainable_weights:
        if len(w.shape) >= 2:
            w.assign(_np(w) * 2.0)
    return layer


class _Counter:
    """Stands in for ``keras.ops.dot_product_attention``, counting its calls."""

    def __init__(self, monkeypatch):
        self.calls = 0
        original = keras.ops.dot_product_attention

        def counted(*args, **kwargs):
            self.calls += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(keras.ops, "dot_product_attention", counted)


@pytest.mark.parametrize("make", [m for _, m in LAYERS], ids=[i for i, _ in LAYERS])
def test_fused_output_equals_explicit_output_with_padding(make, monkeypatch):
    calls = _Counter(monkeypatch)
    layer = _layer(make)
    x, mask = _inputs(seed=1)
    explicit, weights = layer(x, mask=mask, return_attention_scores=True)
    assert calls.calls == 0
    fused = layer(x, mask=mask)
    assert calls.calls == 1
    explicit, fused, weights = _np(explicit), _np(fused), _np(weights)
    assert fused.shape == explicit.shape
    np.testing.assert_allclose(fused, explicit, atol=1e-5, rtol=1e-5)
    # real numbers, not zeros everywhere; the weights sharp enough to matter
    assert np.abs(explicit[mask]).min() > 0
    assert weights.max() > 0.5
    # the weights: padded keys and padded queries get none; a real query's row sums to 1
    weights = weights if weights.ndim == 4 else weights[:, None]
    assert not weights[np.broadcast_to(~mask[:, None, None, :], weights.shape)].any()
    assert not weights[np.broadcast_to(~mask[:, None, :, None], weights.shape)].any()
    sums = weights.sum(-1)
    np.testing.assert_allclose(sums[np.broadcast_to(mask[:, None, :], sums.shape)], 1, atol=1e-5)
    # no mask at all
    np.testing.assert_allclose(_np(layer(x)), _np(layer(x, return_attention_scores=True)[0]),
                               atol=1e-5, rtol=1e-5)
    assert calls.calls == 2


@pytest.mark.parametrize("make", [m for i, m in LAYERS if i.startswith("hcan")],
                         ids=[i for i, _ in LAYERS if i.startswith("hcan")])
def test_hcan_padded_queries_are_exactly_zero_in_both_paths(make):
    layer = _layer(make)
    x, mask = _inputs(seed=2)
    explicit, _ = layer(x, mask=mask, return_attention_scores=True)
    fused = layer(x, mask=mask)
    for out in (_np(explicit), _np(fused)):
        assert np.all(out[~mask] == 0.0)
        assert np.all(out[3] == 0.0)  # no real token: all zeros, no NaN
        assert np.abs(out[mask]).min() > 0


@pytest.mark.parametrize("make", [m for i, m in LAYERS if not i.startswith("hcan")],
                         ids=[i for i, _ in LAYERS if not i.startswith("hcan")])
def test_internal_attention_outputs_agree_and_padded_queries_are_exactly_zero(make):
    """The attention sub-layer before its residual and layer norm (``_attention``), where
    a padded query's output is zero; the whole block's output there is the norm of its
    input, equal in both paths (tested above)."""
    layer = _layer(make)
    x, mask = _inputs(seed=3)
    args = (False,) if isinstance(layer, TransformerEncoderBlock) else ()
    explicit, weights = layer._attention(x, mask, *args)
    fused, none = layer._attention(x, mask, *args, fused=True)
    assert none is None and weights is not None
    explicit, fused = _np(explicit), _np(fused)
    np.testing.assert_allclose(fused, explicit, atol=1e-5, rtol=1e-5)
    if isinstance(layer, TransformerEncoderBlock):  # the output projection's bias
        bias = _np(layer._output.bias)
        explicit, fused = explicit - bias, fused - bias
    for out in (explicit, fused):
        np.testing.assert_allclose(out[~mask], 0.0, atol=1e-6)
        assert np.abs(out[mask]).max() > 0.1
    if not isinstance(layer, TransformerEncoderBlock):
        assert np.all(fused[~mask] == 0.0) and np.all(explicit[~mask] == 0.0)


def test_sanet_with_several_heads_keeps_the_explicit_path(monkeypatch):
    calls = _Counter(monkeypatch)
    for scaled in (False, True):
        layer = _layer(lambda: SelfAttentionBlock(num_heads=2, scaled=scaled, dropout=0.0))
        x, mask = _inputs(seed=4)
        out = _np(layer(x, mask=mask))
        np.testing.assert_allclose(
            out, _np(layer(x, mask=mask, return_attention_scores=True)[0]), atol=1e-6)
    assert calls.calls == 0


def test_sanet_fused_in_training_too(monkeypatch):
    """SANet's dropout acts on the attended output, so training keeps the fused path."""
    calls = _Counter(monkeypatch)
    layer = _layer(lambda: SelfAttentionBlock(dropout=0.5))
    x, mask = _inputs(seed=5)
    # the same dropout masks in both calls: each Dropout's seed state put back
    states = [(d.seed_generator.state, keras.ops.convert_to_numpy(d.seed_generator.state))
              for d in (layer._attention_dropout, layer._ffn_dropout)]
    fused = _np(layer(x, mask=mask, training=True))
    assert calls.calls == 1
    for variable, value in states:
        variable.assign(value)
    explicit = _np(layer(x, mask=mask, training=True, return_attention_scores=True)[0])
    assert calls.calls == 1
    assert not np.allclose(explicit, _np(layer(x, mask=mask)), atol=1e-2)  # dropout acted
    assert calls.calls == 2
    np.testing.assert_allclose(fused, explicit, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("make", [
    lambda: TransformerEncoderBlock(num_heads=2, ff_dim=8, dropout=0.3),
    lambda: ConvMultiheadAttention(num_heads=2, dropout=0.3)], ids=["transformer", "hcan"])
def test_dropout_on_the_weights_keeps_the_explicit_path_in_training(make, monkeypatch):
    calls = _Counter(monkeypatch)
    layer = _layer(make)
    x, mask = _inputs(seed=6)
    layer(x, mask=mask, training=True)
    assert calls.calls == 0  # the fused op cannot drop weights
    layer(x, mask=mask, training=False)
    layer(x, mask=mask)
    assert calls.calls == 2
    no_dropout = _layer(lambda: TransformerEncoderBlock(num_heads=2, ff_dim=8, dropout=0.0))
    no_dropout(x, mask=mask, training=True)
    assert calls.calls == 3


MIXED = [(i, m) for i, m in LAYERS if i in ("sanet-1-unscaled", "transformer-4", "hcan-4")]


@pytest.mark.parametrize("policy", ["mixed_float16", "mixed_bfloat16"])
@pytest.mark.parametrize("make", [m for _, m in MIXED], ids=[i for i, _ in MIXED])
def test_mixed_precision_outputs_are_finite_in_both_paths(make, policy):
    keras.mixed_precision.set_global_policy(policy)
    layer = _layer(make)
    x, mask = _inputs(seed=7)
    x = x * 8.0  # large unscaled scores: X W_QK Xᵀ in the hundreds
    fused = layer(x, mask=mask)
    explicit, _ = layer(x, mask=mask, return_attention_scores=True)
    assert keras.backend.standardize_dtype(fused.dtype) == layer.compute_dtype
    fused, explicit = _np(fused), _np(explicit)
    assert np.isfinite(fused).all() and np.isfinite(explicit).all()
    if isinstance(layer, ConvMultiheadAttention):
        assert np.all(fused[~mask] == 0.0)
    # the same numbers to the precision of the policy (bfloat16 keeps 8 bits)
    scale = np.abs(explicit).max()
    atol = (0.02 if policy == "mixed_float16" else 0.1) * max(scale, 1.0)
    np.testing.assert_allclose(fused, explicit, atol=atol)


def test_float16_products_past_its_range_stay_finite():
    """Under float16 the fused call runs in float32: a query·key product past 65504
    (which the TensorFlow backend would take in float16, giving inf, then NaN) is fine."""
    rng = np.random.default_rng(8)
    q = rng.normal(size=(2, 5, 2, 4)) * 300
    k = rng.normal(size=(2, 5, 2, 4)) * 300
    v = rng.normal(size=(2, 5, 2, 4))
    mask = np.arange(5)[None] < np.array([[3], [0]])
    f16 = [keras.ops.cast(t, "float16") for t in (q, k, v)]
    out = fused_attention(*f16, mask, 0.5, "float16")
    assert keras.backend.standardize_dtype(out.dtype) == "float16"
    out = _np(out)
    assert np.isfinite(out).all()
    assert np.all(out[~mask] == 0.0)
    # against a float64 reference of the real rows
    q0, k0, v0 = (t[0].astype("float16").astype("float64") for t in (q, k, v))
    scores = np.einsum("thd,shd->hts", q0[:3], k0[:3]) * 0.5
    assert np.abs(scores).max() > 65504 * 0.5  # the product itself past float16's range
    ref = np.exp(scores - scores.max(-1, keepdims=True))
    ref = np.einsum("hts,shd->thd", ref / ref.sum(-1, keepdims=True), v0[:3])
    np.testing.assert_allclose(out[0, :3], ref, atol=2e-2)
