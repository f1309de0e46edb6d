"""Heatmaps and the colour-map page."""

import re

import numpy as np
import pytest

from kerasattn.interpret import Explanation
from kerasattn.interpret.plots import attention_heatmap, attention_html, received_attention


def test_received_attention_is_the_mean_over_attending_words():
    a = np.array([[0.5, 0.5, 0.0], [0.0, 1.0, 0.0], [0.2, 0.2, 0.6]])
    np.testing.assert_allclose(received_attention(a, ("query", "key")), [0.7 / 3, 1.7 / 3, 0.2])
    heads = np.stack([a, np.eye(3)])
    np.testing.assert_allclose(received_attention(heads, ("head", "query", "key")),
                               (a.mean(0) + np.eye(3).mean(0)) / 2)
    np.testing.assert_allclose(received_attention([0.1, 0.9], ("token",)), [0.1, 0.9])
    with pytest.raises(ValueError, match="no token axis"):
        received_attention(np.ones(3), ("step",))


def test_heatmap_png(tmp_path):
    path = attention_heatmap(np.eye(3), ["a", "b", "c"], str(tmp_path / "h.png"), title="t")
    with open(path, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    attention_heatmap(np.full((100, 100), 0.01), [str(i) for i in range(100)],
                      str(tmp_path / "long.png"), max_tokens=20)
    with pytest.raises(ValueError, match="tokens"):
        attention_heatmap(np.eye(3), ["a", "b"], str(tmp_path / "bad.png"))
    with pytest.raises(ValueError, match="square"):
        attention_heatmap(np.ones((2, 3)), ["a", "b"], str(tmp_path / "bad.png"))


def test_html_colours_words_by_received_attention_and_escapes_them(tmp_path):
    a = np.array([[0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 0.0]])
    ex = Explanation(tokens=["<b>", "great", "&"], probabilities=np.array([0.2, 0.8]),
                     attention={"block": a}, axes={"block": ("query", "key")})
    empty = Explanation(tokens=[], probabilities=np.array([0.5, 0.5]),
                        attention={"block": np.zeros((0, 0))}, axes={"block": ("query", "key")})
    path = attention_html([ex, empty], str(tmp_path / "p.html"), ["neg", "pos"],
                          images=[["x.png"], []])
    page = open(path, encoding="utf-8").read()
    assert "prediction: pos (80.0%)" in page and "&lt;b&gt;" in page and "<b>" not in page
    spans = re.findall(r"background:([^']+)' title='([0-9.]+)'>([^<]+)</span>", page)
    assert [w for _, _, w in spans] == ["&lt;b&gt;", "great", "&amp;"]
    np.testing.assert_allclose([float(v) for _, v, _ in spans], [0.5 / 3, 2.5 / 3, 0.0],
                               atol=1e-4)
    assert spans[1][0] == "rgba(220, 38, 38, 0.900)"  # the most attended word: full colour
    assert spans[2][0] == "transparent"
    assert "empty text" in page and "<img src='x.png'" in page
    # without a path: the same page as a string, nothing written
    assert attention_html([ex, empty], None, ["neg", "pos"], images=[["x.png"], []]) == page


def test_explanations_and_attributions_show_themselves_in_a_notebook():
    from kerasattn.interpret import TokenAttribution

    a = np.array([[0.0, 1.0], [0.0, 1.0]])
    ex = Explanation(tokens=["dull", "<i>film"], probabilities=np.array([0.9, 0.1]),
                     attention={"block": a}, axes={"block": ("query", "key")},
                     class_names=["neg", "pos"])
    fragment = ex._repr_html_()
    assert fragment.startswith("<div class='kerasattn-explanation'><style>")
    assert "<html" not in fragment and "body {" not in fragment  # a fragment, styles scoped
    assert "prediction: neg (90.0%)" in fragment and "&lt;i&gt;film" in fragment
    spans = re.findall(r"background:([^']+)' title='([0-9.]+)'>([^<]+)</span>", fragment)
    assert [(c, w) for c, _, w in spans] == [("transparent", "dull"),
                                             ("rgba(220, 38, 38, 0.900)", "&lt;i&gt;film")]
    unnamed = Explanation(tokens=["a"], probabilities=np.array([0.3, 0.7]),
                          attention={}, axes={})
    assert "prediction: 1 (70.0%)" in unnamed._repr_html_()
    scores = TokenAttribution(tokens=["dull", "film"], scores=np.array([-0.5, 0.25]),
                              probabilities=np.array([0.9, 0.1]), target=0,
                              method="integrated_gradients", ids=[5, 6],
                              class_names=["neg", "pos"])
    fragment = scores._repr_html_()
    assert "dull" in fragment and "film" in fragment and "neg" in fragment
    assert fragment.count("title='") >= 2 and "-0.5000" in fragment


def test_one_palette_for_every_explanation_page():
    """Every page is rendered by kerasattn.explanation_pages (interpret.plots and
    saved_model_page import it); the server's script colours words alike."""
    import importlib.resources

    from kerasattn import explanation_pages as pages
    from kerasattn import saved_model_page
    from kerasattn.interpret import plots

    assert plots.attention_html is pages.attention_html is saved_model_page.attention_html
    assert pages.attention_colour(1.0) == "rgba(220, 38, 38, 0.900)"
    assert pages.attention_colour(0.0) == "transparent"
    assert pages.signed_colour(-0.5) == "rgba(118, 42, 131, 0.475)"
    assert pages.signed_colour(2.0) == "rgba(27, 120, 55, 0.900)"
    assert pages.signed_colour(float("nan")) == "transparent"
    spans = pages.attention_spans(["<b>", "film"], [0.25, 0.5])
    assert spans == ("<span class='w' style='background:rgba(220, 38, 38, 0.475)' "
                     "title='0.2500'>&lt;b&gt;</span> <span class='w' style='background:"
                     "rgba(220, 38, 38, 0.900)' title='0.5000'>film</span>")
    script = importlib.resources.files("kerasattn.interpret").joinpath(
        "page", "explain.js").read_text(encoding="utf-8")
    for rgb in (pages.ATTENTION_RGB, pages.POSITIVE_RGB, pages.NEGATIVE_RGB):
        assert f"rgba({rgb[0]}, {rgb[1]}, {rgb[2]}, " in script
    assert "0.05 + 0.85 * Math.min(" in script
