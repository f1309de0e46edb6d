"""GroupedSGD: SANet §4's per-variable recipe, exact updates, fit, float16, saving."""

import keras
import numpy as np
import pytest

from kerasattn.optimizers import GroupedSGD


def tiny_model():
    ids = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(6, 3, mask_zero=True, name="embedding")(ids)
    x = keras.layers.GlobalAveragePooling1D()(x)
    return keras.Model(ids, keras.layers.Dense(2, activation="softmax", name="out")(x),
                       name="tiny")


def _np(v):
    return keras.ops.convert_to_numpy(v).astype("float64")


def test_updates_match_the_recipe_by_hand():
    model = tiny_model()
    model.build((None, 4))
    emb, kernel = model.get_layer("embedding").embeddings, model.get_layer("out").kernel
    opt = GroupedSGD()  # 0.01 with momentum 0.9; embeddings 0.001 without momentum
    assert opt.is_embedding(emb) and not opt.is_embedding(kernel)
    e0, k0 = _np(emb), _np(kernel)
    g_e, g_k = np.ones(e0.shape, "float32"), np.full(k0.shape, 2.0, "float32")
    opt.apply_gradients([(g_e, emb), (g_k, kernel)])
    np.testing.assert_allclose(_np(emb), e0 - 0.001 * 1.0, rtol=1e-6)
    np.testing.assert_allclose(_np(kernel), k0 - 0.01 * 2.0, rtol=1e-6)
    opt.apply_gradients([(g_e, emb), (g_k, kernel)])
    # momentum: m1 = -0.02, m2 = 0.9 * m1 - 0.02 = -0.038 -> total -0.058
    np.testing.assert_allclose(_np(kernel), k0 - 0.058, rtol=1e-6)
    np.testing.assert_allclose(_np(emb), e0 - 0.002, rtol=1e-6)  # no momentum


@pytest.mark.parametrize("policy", ["float32", "mixed_float16"])
def test_fit_and_keras_round_trip(policy, tmp_path):
    keras.mixed_precision.set_global_policy(policy)
    keras.utils.set_random_seed(0)
    model = tiny_model()
    model.compile(GroupedSGD(0.5, embedding_learning_rate=0.05),
                  "sparse_categorical_crossentropy", metrics=["accuracy"])
    if policy == "mixed_float16":
        assert isinstance(model.optimizer, keras.optimizers.LossScaleOptimizer)
        assert isinstance(model.optimizer.inner_optimizer, GroupedSGD)
    x = np.array([[1, 2, 0, 0], [3, 4, 5, 0]] * 8, "int32")
    y = np.array([0, 1] * 8)
    e0 = _np(model.get_layer("embedding").embeddings)
    history = model.fit(x, y, epochs=30, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert history.history["accuracy"][-1] == 1.0
    assert not np.allclose(_np(model.get_layer("embedding").embeddings), e0)
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = keras.saving.load_model(path)
    inner = getattr(loaded.optimizer, "inner_optimizer", loaded.optimizer)
    assert isinstance(inner, GroupedSGD)
    assert inner.embedding_learning_rate == pytest.approx(0.05)
    assert inner.momentum == pytest.approx(0.9)
    np.testing.assert_allclose(_np(loaded(x)), _np(model(x)), rtol=1e-5)


def test_invalid_arguments():
    with pytest.raises(ValueError):
        GroupedSGD(embedding_learning_rate=0)
    with pytest.raises(ValueError):
        GroupedSGD(embedding_momentum=2.0)
