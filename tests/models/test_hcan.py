"""HCAN (the eight variants of Gao et al. 2018 Table 2) and HAN: presets, the hierarchy,
extraction of word- and sentence-level attention, bad options. Masks (more padded
sentences and longer ones, a document alone, an empty one), the .keras round trip with
the paper's Adam (β2 0.99) and mixed precision are the shared harness's
(tests/models/test_presets.py)."""

import keras
import numpy as np
import pytest

from kerasattn import models
from kerasattn.interpret import extract_attention
from kerasattn.layers import (ConvMultiheadAttention, FoldSentences, MaskedGlobalMaxPooling1D,
                              ParallelConvAttention, TargetAttention)

VARIANTS = [f"{h}can-{n}sa-{p}" for h in ("", "h") for n in (1, 2) for p in ("maxpool", "target")]
TINY = {"d": 8, "embedding_dim": 8, "num_heads": 2, "dropout": 0.0}


def small_options(name):
    """Model options that make ``name`` small, its architecture unchanged (the harness)."""
    if name == "han":
        return {"embedding_dim": 8, "units": 4, "attention_units": 4}
    return {"d": 16, "embedding_dim": 8, "num_heads": 2}


# the default test that trains it in graph mode (the harness takes its step eagerly)
TRAINED_IN_GRAPH_MODE = {
    "hcan-2sa-target": "tests/training/test_hcan_commands.py::test_hcan_learns_bbc"}
SERVED = "hcan-2sa-target"


def _build(name, **extra):
    keras.utils.set_random_seed(0)
    options = {} if name == "han" else TINY
    if name == "han":
        extra = {"embedding_dim": 8, "units": 4, "attention_units": 6, **extra}
    return models.get(name, vocab_size=12, num_classes=3, **{**options, **extra})


def _layers(model, cls):
    return [l for l in model.layers if isinstance(l, cls)]


@pytest.mark.parametrize("name", VARIANTS)
def test_variants_follow_the_paper(name):
    preset = models.get_preset(name)
    assert preset.hierarchical == name.startswith("h")
    cfg = preset.model_config
    assert (cfg["d"], cfg["num_heads"], cfg["embedding_dim"], cfg["dropout"]) == (512, 8, 512, 0.1)
    train = preset.training_defaults()
    assert train["text_mode"] == "hcan" and train["learning_rate"] == 2e-5
    assert train["min_freq"] == 5
    if preset.hierarchical:
        assert (train["max_sentences"], train["max_words"]) == (50, 50)
    else:
        assert train["max_length"] == 1000
    opt = preset.make_optimizer(train["learning_rate"])
    assert isinstance(opt, keras.optimizers.Adam)
    assert (opt.beta_1, opt.beta_2) == (0.9, 0.99)
    model = _build(name)
    levels = 2 if name.startswith("h") else 1
    pair = "2sa" in name
    assert len(_layers(model, ParallelConvAttention)) == (levels if pair else 0)
    assert len(_layers(model, ConvMultiheadAttention)) == (0 if pair else levels)
    target = name.endswith("target")
    assert len(_layers(model, TargetAttention)) == (levels if target else 0)
    assert len(_layers(model, MaskedGlobalMaxPooling1D)) == (0 if target else levels)
    assert len(_layers(model, FoldSentences)) == (1 if levels == 2 else 0)


def test_han_follows_section_4_2():
    model = models.get("han", vocab_size=50, num_classes=2)
    for level in ("word", "sentence"):
        gru = model.get_layer(f"{level}_gru")
        assert isinstance(gru, keras.layers.Bidirectional) and gru.forward_layer.units == 50
        assert model.get_layer(f"{level}_attention").units == 200






@pytest.mark.parametrize("name", ["hcan-2sa-target", "han"])
def test_word_and_sentence_attention(name):
    """Word-level weights per sentence and sentence-level weights per document: each sums to
    1 over the real positions, padding (words, sentences, an all-padding sentence) weighs 0."""
    model = _build(name)
    docs = np.array([[[3, 4, 5, 0], [0, 0, 0, 0], [6, 7, 0, 0]]], "int32")  # empty middle
    ex, = extract_attention(model, docs)
    assert np.isfinite(ex.probabilities).all()
    assert ex.hierarchical and [len(s) for s in ex.tokens] == [3, 0, 2]
    words = "word_target_attention" if name != "han" else "word_attention"
    sents = "sentence_target_attention" if name != "han" else "sentence_attention"
    w, s = ex.attention[words], ex.attention[sents]
    assert ex.axes[words][0] == "sentence" and ex.axes[words][-1] == "token"
    w = w if name == "han" else w.mean(axis=1)            # mean over heads
    s = s if name == "han" else s.mean(axis=0)
    assert w.shape == (3, 3) and s.shape == (3,)
    np.testing.assert_allclose(w.sum(axis=-1), [1, 0, 1], rtol=1e-5)
    assert w[2, 2] == 0
    np.testing.assert_allclose(s.sum(), 1, rtol=1e-5)
    assert s[1] == 0
    # the same weights as the layer computes on the folded batch directly
    fold = model.get_layer("fold_sentences")
    layer = model.get_layer(words)
    folded_mask = fold.compute_mask(None, docs != 0)
    before = keras.Model(model.input, model.get_layer(
        "word_gru" if name == "han" else "word_self_attention").output)
    _, direct = layer(before(docs), mask=folded_mask, return_attention_scores=True)
    direct = np.asarray(direct).reshape(1, 3, *np.asarray(direct).shape[1:])[0]
    direct = direct if name == "han" else direct.mean(axis=1)
    np.testing.assert_allclose(w, direct[:, :3], atol=1e-6)


def test_bad_options_are_rejected():
    with pytest.raises(ValueError, match="num_self_attentions"):
        _build("hcan-2sa-target", num_self_attentions=3)
    with pytest.raises(ValueError, match="pooling"):
        _build("hcan-2sa-target", pooling="mean")
    with pytest.raises(ValueError, match="must divide"):
        _build("hcan-2sa-target", num_heads=3)
