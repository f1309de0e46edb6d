"""The sentiment Transformer (paper 004): the layers x heads grid, its outputs, the
command-line flags, and learning SST-2 through the commands. (Padding invariance, mixed
precision and the .keras round trip of every preset are the shared harness's:
tests/models/test_presets.py.)"""

import os

import keras
import numpy as np
import pytest

from kerasattn import models
from kerasattn.interpret import extract_attention
from kerasattn.layers import InterAttention, TransformerEncoderBlock
from kerasattn.cli import train

SMALL = {"embedding_dim": 16, "ff_dim": 8}


def small_options(name):
    """Model options that make ``name`` small, its architecture unchanged (the harness)."""
    return dict(SMALL)


# the default test that trains it in graph mode (the harness takes its step eagerly)
TRAINED_IN_GRAPH_MODE = {"transformer": "tests/models/test_transformer.py::"
                                        "test_transformer_learns_sst2_and_explain_draws_the_colour_map"}


@pytest.mark.parametrize("layers", [1, 2, 3])
@pytest.mark.parametrize("heads", [1, 2, 4, 8])
def test_the_papers_grid_builds_and_runs(layers, heads):
    keras.utils.set_random_seed(0)
    model = models.get("transformer", vocab_size=30, num_classes=2, num_layers=layers,
                       num_heads=heads, **SMALL)
    blocks = [l for l in model.layers if isinstance(l, TransformerEncoderBlock)]
    assert len(blocks) == layers and all(b.num_heads == heads for b in blocks)
    assert isinstance(model.get_layer("inter_attention"), InterAttention)
    ids = np.array([[3, 4, 5, 0, 0], [6, 7, 8, 9, 10]], "int32")
    p = np.asarray(model(ids))
    assert p.shape == (2, 1) and ((p > 0) & (p < 1)).all()  # one sigmoid unit
    ex = extract_attention(model, ids)
    assert ex[0].attention["encoder_1"].shape == (heads, 3, 3)
    np.testing.assert_allclose(ex[0].attention["inter_attention"].sum(), 1, rtol=1e-5)


def test_softmax_for_more_classes_and_defaults():
    model = models.get("transformer", vocab_size=30, num_classes=5, **SMALL)
    assert model.output_shape == (None, 5)
    assert model.get_layer("probabilities").activation.__name__ == "softmax"
    preset = models.get_preset("transformer")
    assert preset.training_defaults()["vocab_size"] == 20000  # §3.3
    big = models.get("transformer", vocab_size=30, num_classes=2, num_heads=8)
    assert big.get_layer("encoder_1")._dk == 12  # 100-d, 8 heads of 12


def test_layers_and_heads_flags():
    parser = train.build_parser()
    args = parser.parse_args(["--model", "transformer", "--dataset", "sst2", "--layers", "3",
                              "--heads", "8"])
    config = train.resolve_config(args, [])
    assert (config.model_config["num_layers"], config.model_config["num_heads"]) == (3, 8)
    args = parser.parse_args(["--model", "gru", "--dataset", "sst2", "--layers", "2"])
    with pytest.raises(train.ConfigError, match="no option num_layers"):
        train.resolve_config(args, [])


def test_transformer_learns_sst2_and_explain_draws_the_colour_map(tmp_path, shared_data):
    from kerasattn.cli import explain

    run_dir, m = train.train(["--model", "transformer", "--dataset", "sst2", "--epochs", "3",
                              "--layers", "1", "--heads", "2", "--model-option",
                              "embedding_dim=64", "--output-dir", str(tmp_path),
                              "--run-name", "t", "--verbose", "0"])
    assert m["test"]["accuracy"] > 0.72  # 1,821 held-out sentences
    page, pngs = explain.explain(run_dir, ["a gripping , funny and moving film"],
                                 str(tmp_path / "explain" / "t.html"))
    names = sorted(os.path.basename(p) for p in pngs)
    assert names == ["t-1-encoder_1-head0.png", "t-1-encoder_1-head1.png",
                     "t-1-inter_attention.png"]
    assert all(os.path.getsize(p) > 3000 for p in pngs)
    html = open(page, encoding="utf-8").read()
    assert "inter_attention" in html and html.count("class='w'") == 2 * 7
