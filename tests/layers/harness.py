"""One harness every layer of the zoo goes through (DESIGN.md conventions).

``check_layer(make_layer)`` runs: get_config / from_config round-trip, output
shapes and dtypes under float32, mixed_float16 and mixed_bfloat16 (finite
outputs), a training step that changes every weight, padding invariance (extra
padded positions filled with garbage change no real output), a ``.keras``
save/load round trip, and the initial weights: no two of equal shape start
equal (a Keras 3 initializer instance shared by two weights would start them
equal), one seed builds the same weights twice and another seed other weights.
``tests/layers/test_harness.py`` finds every layer and its small examples (the class's
``harness_examples``): a new layer adds no line there.
"""

import keras
import numpy as np

POLICIES = ("float32", "mixed_float16", "mixed_bfloat16")


def _inputs(batch=3, time=6, dim=8, lengths=(6, 2, 1), seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(batch, time, dim)).astype("float32")
    mask = np.arange(time)[None, :] < np.asarray(lengths)[:, None]
    return x, mask


def _np(t):
    return keras.ops.convert_to_numpy(t).astype("float32")


def _real(out, mask):
    """Outputs at real positions only (per-position outputs), or the whole output."""
    if out.ndim >= 3 and out.shape[1] == mask.shape[1]:
        return out * mask[:, :, None]
    return out


def check_config_round_trip(make_layer):
    layer = make_layer()
    clone = layer.__class__.from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()


def check_dtypes(make_layer, dim=8):
    x, mask = _inputs(dim=dim)
    for policy in POLICIES:
        keras.mixed_precision.set_global_policy(policy)
        try:
            layer = make_layer()
            out = layer(x, mask=mask)
            assert keras.backend.standardize_dtype(out.dtype) == layer.compute_dtype, policy
            assert np.isfinite(_np(out)).all(), f"non-finite output under {policy}"
            assert tuple(out.shape) == tuple(layer.compute_output_shape(x.shape)), policy
        finally:
            keras.mixed_precision.set_global_policy("float32")


def check_padding_invariance(make_layer, dim=8, extra=5, atol=1e-5):
    x, mask = _inputs(dim=dim)
    layer = make_layer()
    base = _np(layer(x, mask=mask))
    garbage = np.random.default_rng(1).normal(size=x.shape).astype("float32") * 100
    x2 = np.where(mask[:, :, None], x, garbage)  # garbage in the padded positions
    x2 = np.concatenate([x2, 50 * np.ones((x.shape[0], extra, dim), "float32")], axis=1)
    mask2 = np.concatenate([mask, np.zeros((x.shape[0], extra), bool)], axis=1)
    out2 = _np(layer(x2, mask=mask2))
    if out2.ndim >= 3 and out2.shape[1] == mask2.shape[1]:
        out2 = out2[:, : x.shape[1]]
    np.testing.assert_allclose(_real(out2, mask), _real(base, mask), atol=atol)


def _model(make_layer, dim):
    inputs = keras.Input((None, dim))
    masked = keras.layers.Masking(0.0)(inputs)
    y = make_layer()(masked)
    if len(y.shape) == 3:
        y = keras.layers.GlobalAveragePooling1D()(y)
    return keras.Model(inputs, keras.layers.Dense(2, activation="softmax")(y))


def check_training_step(make_layer, dim=8):
    keras.utils.set_random_seed(0)
    x, mask = _inputs(dim=dim)
    x = x * mask[:, :, None]  # padding as zeros, masked by Masking(0.0)
    model = _model(make_layer, dim)
    model.compile(keras.optimizers.SGD(0.1), "sparse_categorical_crossentropy")
    before = [_np(w).copy() for w in model.trainable_weights]
    model.fit(x, np.array([0, 1, 0]), epochs=1, verbose=0)
    after = [_np(w) for w in model.trainable_weights]
    unchanged = [w.path for w, b, a in zip(model.trainable_weights, before, after)
                 if np.allclose(b, a)]
    assert not unchanged, f"weights not trained: {unchanged}"


def check_save_load(make_layer, tmp_path, dim=8):
    x, mask = _inputs(dim=dim)
    x = x * mask[:, :, None]
    model = _model(make_layer, dim)
    path = str(tmp_path / "layer.keras")
    model.save(path)
    loaded = keras.saving.load_model(path)
    np.testing.assert_allclose(_np(loaded(x)), _np(model(x)), rtol=1e-5, atol=1e-6)


def seeded_weights(build, seed):
    """[(path, value)] of the weights ``build()`` (a built layer or model) starts with
    under the global seed ``seed``."""
    keras.utils.set_random_seed(seed)
    return [(w.path, _np(w)) for w in build().weights]


def equal_drawn_weights(first, second):
    """Pairs of paths whose weights were drawn at random (their values in ``first`` and
    ``second``, the same build under two seeds, differ) and start equal in ``first``.
    Weights a seed does not move (zeros, ones, a constant, a forget-gate bias) are
    not drawn and may repeat."""
    drawn = [(path, a) for (path, a), (_, b) in zip(first, second) if not np.array_equal(a, b)]
    return [(pa, pb) for i, (pa, a) in enumerate(drawn) for pb, b in drawn[i + 1:]
            if a.shape == b.shape and np.array_equal(a, b)]


def equal_initial_weights(build):
    """``equal_drawn_weights`` of ``build()`` under seeds 0 and 1."""
    return equal_drawn_weights(seeded_weights(build, 0), seeded_weights(build, 1))


def check_seeds(build):
    """One seed builds the same weights twice; another seed other weights."""
    first, again, other = (seeded_weights(build, s) for s in (1, 1, 2))
    for (path, a), (_, b) in zip(first, again):
        np.testing.assert_array_equal(a, b, err_msg=f"{path} differs under one seed")
    if first:
        assert any(not np.array_equal(a, c) for (_, a), (_, c) in zip(first, other)), \
            "seeds 1 and 2 build the same weights"


def _built(make_layer, dim):
    x, mask = _inputs(dim=dim)
    layer = make_layer()
    layer(x, mask=mask)
    return layer


def check_initial_weights(make_layer, dim=8):
    pairs = equal_initial_weights(lambda: _built(make_layer, dim))
    assert not pairs, f"weights that start equal: {pairs}"
    check_seeds(lambda: _built(make_layer, dim))


def check_layer(make_layer, tmp_path, dim=8):
    check_config_round_trip(make_layer)
    check_dtypes(make_layer, dim)
    check_padding_invariance(make_layer, dim)
    check_training_step(make_layer, dim)
    check_save_load(make_layer, tmp_path, dim)
    check_initial_weights(make_layer, dim)
