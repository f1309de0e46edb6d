"""SANet presets: the architecture and the recipe of §4. Masks (padding), the .keras
round trip with the GroupedSGD recipe and the attention, and mixed precision are the
shared harness's (tests/models/test_presets.py)."""

import pytest

from kerasattn import models
from kerasattn.layers import FeedForwardBlock, SelfAttentionBlock
from kerasattn.optimizers import GroupedSGD


def small_options(name):
    """Model options that make ``name`` small, its architecture unchanged (the harness)."""
    return {"embedding_dim": 8, "d": 8}


# the default test that trains it in graph mode (the harness takes its step eagerly)
TRAINED_IN_GRAPH_MODE = {
    "sanet-base": "tests/training/test_sanet_commands.py::test_sanet_base_learns_sst2"}
SERVED = "sanet-base"
# the default recipe's scaled attention, through the harness too
OPTION_VARIANTS = {"sanet-base-scaled": ("sanet-base", {"scaled": True, "embedding_scale": 10.0})}


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
