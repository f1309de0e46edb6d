"""Attention of hierarchical models (HCAN, HAN): texts in, word- and sentence-level weights
out, and the Figure-4 style page and picture."""

import keras
import numpy as np
import pytest

from kerasattn import models
from kerasattn.data.preprocessing import TextPreprocessor
from kerasattn.interpret import attention_model, extract_attention
from kerasattn.interpret.plots import (attention_html, hierarchical_heatmap, hierarchical_levels,
                                       word_weights)

TEXTS = ["A good film. Really good! Bad ending?", "", "awful"]


@pytest.fixture(scope="module")
def hcan():
    pre = TextPreprocessor(mode="hcan", hierarchical=True).adapt(
        ["a good film . really good ! bad ending ?", "awful"])
    keras.utils.set_random_seed(0)
    model = models.get("hcan-2sa-target", vocab_size=pre.vocabulary_size, num_classes=2,
                       d=8, embedding_dim=8, num_heads=2)
    return model, pre


def test_texts_give_sentences_of_words_and_weights_per_level(hcan):
    model, pre = hcan
    exs = extract_attention(model, TEXTS, pre, batch_size=2)
    assert [e.tokens for e in exs] == [
        [["a", "good", "film", "."], ["really", "good", "!"], ["bad", "ending", "?"]],
        [[]], [["awful"]]]
    first = exs[0]
    assert first.hierarchical
    assert first.axes["word_target_attention"] == ("sentence", "head", "token")
    assert first.axes["word_self_attention"] == ("sentence", "branch", "head", "query", "key")
    assert first.axes["sentence_target_attention"] == ("head", "token")
    assert first.attention["word_target_attention"].shape == (3, 2, 4)
    assert first.attention["word_self_attention"].shape == (3, 2, 2, 4, 4)
    assert first.attention["sentence_target_attention"].shape == (2, 3)
    # the shorter sentences' padding weighs exactly 0; each sentence sums to 1 per head
    np.testing.assert_allclose(first.attention["word_target_attention"].sum(-1), 1, rtol=1e-5)
    assert (first.attention["word_target_attention"][1:, :, 3] == 0).all()
    # the same document alone and in a batch: the same weights
    alone, = extract_attention(model, TEXTS[:1], pre)
    for name, w in first.attention.items():
        np.testing.assert_allclose(alone.attention[name], w, atol=1e-6)
    # the empty text: finite probabilities, no word weights
    assert np.isfinite(exs[1].probabilities).all()
    assert exs[1].attention["word_target_attention"].shape == (1, 2, 0)


def test_probe_model_reports_its_axes(hcan):
    model, pre = hcan
    probe = attention_model(model)
    assert set(probe.attention_axes) == {"word_self_attention", "word_target_attention",
                                         "sentence_self_attention", "sentence_target_attention"}
    via_probe, = extract_attention(probe, TEXTS[:1], pre)
    direct, = extract_attention(model, TEXTS[:1], pre)
    np.testing.assert_allclose(via_probe.probabilities, direct.probabilities)


def test_a_flat_preprocessor_is_refused(hcan):
    model, _ = hcan
    flat = TextPreprocessor(mode="hcan").adapt(["a good film"])
    with pytest.raises(ValueError, match="hierarchical"):
        extract_attention(model, ["a good film"], flat)


def test_page_and_picture_show_words_and_sentences(hcan, tmp_path):
    model, pre = hcan
    exs = extract_attention(model, TEXTS, pre)
    words, sentences = hierarchical_levels(exs[0])
    assert words == ["word_self_attention", "word_target_attention"]
    assert sentences == ["sentence_self_attention", "sentence_target_attention"]
    per_sentence = word_weights(exs[0], "word_target_attention")
    assert [len(w) for w in per_sentence] == [4, 3, 3]
    np.testing.assert_allclose(per_sentence[0],
                               exs[0].attention["word_target_attention"][0].mean(0))
    page = attention_html(exs, str(tmp_path / "p.html"), ["neg", "pos"])
    text = open(page, encoding="utf-8").read()
    # two word-level layers x (3 + 1 + 1) sentences, each with one badge per sentence layer
    assert text.count("class='sentence'") == 2 * 5
    assert text.count("class='s'") == 2 * 5 * 2
    assert ">ending</span>" in text and "(empty text" not in text
    png = hierarchical_heatmap(exs[0], "word_target_attention", "sentence_target_attention",
                               str(tmp_path / "h.png"), title="t")
    with open(png, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
