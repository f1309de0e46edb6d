"""SANet presets: architecture of §4, the recipe, masks, saving and mixed precision."""

import os

import keras
import numpy as np
import pytest

from kerasattn import models
from kerasattn.interpret import extract_attention
from kerasattn.layers import FeedForwardBlock, SelfAttentionBlock
from kerasattn.optimizers import GroupedSGD


def _count(model, cls):
    return sum(isinstance(l, cls) for l in model.layers)


@pytest.mark.parametrize("name,n,emb,d,attention", [
    ("sanet-base", 1, 100, 128, True), ("sanet-big", 2, 200, 256, True),
    ("sanet-baseline-base", 1, 100, 128, False), ("sanet-baseline-big", 2, 200, 256, False)])
def test_presets_follow_section_4(name, n, emb, d, attention):
    m = models.get(name, vocab_size=50, num_classes=5)
    assert m.get_layer("embedding").output_dim == emb
    assert m.get_layer("projection").units == d
    assert _count(m, SelfAttentionBlock) == (n if attention else 0)
    assert _count(m, FeedForwardBlock) == (0 if attention else n)
    assert m.output_shape == (None, 5)
    train = models.get_preset(name).training_defaults()
    assert (train["batch_size"], train["val_fraction"], train["max_length"],
            train["optimizer"]) == (128, 0.2, 1000, "grouped_sgd")
    assert train["learning_rate"] == (0.01 if name.endswith("base") else 0.005)  # halved for big
    opt = models.get_preset(name).make_optimizer(train["learning_rate"])
    assert isinstance(opt, GroupedSGD)
    assert opt.momentum == 0.9 and opt.embedding_momentum == 0.0
    assert opt.embedding_learning_rate == pytest.approx(train["learning_rate"] / 10)


def test_padding_never_changes_the_prediction():
    keras.utils.set_random_seed(3)
    m = models.get("sanet-base", vocab_size=60, num_classes=2, num_blocks=2)
    ids = np.array([[4, 9, 17, 23]])
    padded = np.array([[4, 9, 17, 23] + [0] * 12, [5] * 16])
    np.testing.assert_allclose(m.predict(padded, verbose=0)[:1], m.predict(ids, verbose=0),
                               atol=1e-6)


def test_keras_round_trip_in_safe_mode(tmp_path):
    keras.utils.set_random_seed(4)
    m = models.get("sanet-base", vocab_size=40, num_classes=3, embedding_scale=10.0,
                   scaled=True)
    m.compile(optimizer=models.get_preset("sanet-base").make_optimizer(0.01),
              loss="sparse_categorical_crossentropy")
    x = np.random.default_rng(0).integers(1, 40, size=(8, 7))
    m.fit(x, np.arange(8) % 3, epochs=1, verbose=0)
    path = os.path.join(tmp_path, "m.keras")
    m.save(path)
    again = keras.saving.load_model(path, safe_mode=True)
    np.testing.assert_allclose(again.predict(x, verbose=0), m.predict(x, verbose=0), atol=1e-6)
    assert isinstance(again.optimizer, GroupedSGD)
    a = extract_attention(again, x[:1])[0].attention["self_attention_block_1"]
    b = extract_attention(m, x[:1])[0].attention["self_attention_block_1"]
    np.testing.assert_allclose(a, b, atol=1e-6)


@pytest.mark.parametrize("policy", ["mixed_float16", "mixed_bfloat16"])
def test_mixed_precision_trains_without_nan(policy):
    keras.mixed_precision.set_global_policy(policy)
    keras.utils.set_random_seed(5)
    m = models.get("sanet-base", vocab_size=30, num_classes=2, embedding_dim=16, d=32)
    m.compile(optimizer=keras.optimizers.LossScaleOptimizer(GroupedSGD(0.01, momentum=0.9))
              if policy == "mixed_float16" else GroupedSGD(0.01, momentum=0.9),
              loss="sparse_categorical_crossentropy")
    rng = np.random.default_rng(1)
    x = rng.integers(1, 30, size=(16, 40))
    x[::2, 25:] = 0  # padded rows
    y = (x[:, 0] % 2).astype("int32")
    history = m.fit(x, y, epochs=2, batch_size=8, verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    p = m.predict(x, verbose=0)
    assert p.dtype == np.float32 and np.all(np.isfinite(p))
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-3)
    ex = extract_attention(m, x[:2])
    assert ex[0].attention["self_attention_block_1"].shape == (25, 25)
    assert all(np.all(np.isfinite(e.attention["self_attention_block_1"])) for e in ex)
