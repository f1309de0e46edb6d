"""IRAM's attention metrics (§4.3 overlap), its Figure 6 heatmap, and the coloured-text PNG."""

import numpy as np
import pytest

from kerasattn.interpret import step_overlap, step_statistics
from kerasattn.interpret.plots import iterative_heatmap
from kerasattn.layers.iterative_recursive_attention import attention_regularizer


def test_step_overlap_by_hand():
    collapsed = np.array([[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]])  # T = 2, N = 2, 1 summary
    assert step_overlap(collapsed) == 1.0
    a = np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
    assert step_overlap(a) == pytest.approx(0.5 * 0.2 + 0.5 * 0.3)  # both pairs 0.25
    disjoint = np.array([[1.0, 0, 0, 0, 0], [0, 1.0, 0, 0, 0], [0, 0, 0, 1.0, 0]])
    assert step_overlap(disjoint) == 0.0
    with pytest.raises(ValueError, match="steps >= 2"):
        step_overlap(np.ones((1, 3)))
    with pytest.raises(ValueError, match="finite"):
        step_overlap(np.array([[np.nan, 1.0], [0.0, 1.0]]))


def test_step_overlap_is_the_regulariser_over_gamma():
    """Equation 3 = γ/(2T) · T(T−1) · overlap for one text."""
    rng = np.random.default_rng(0)
    a = rng.random((3, 7))
    a /= a.sum(1, keepdims=True)
    gamma, t = 3e-4, 3
    penalty = float(attention_regularizer(a[None].astype("float32"), gamma))
    assert penalty == pytest.approx(gamma / (2 * t) * t * (t - 1) * step_overlap(a), rel=1e-5)


def test_step_statistics_by_hand():
    same_peak = np.array([[0.6, 0.4, 0.0, 0.0], [0.7, 0.1, 0.2, 0.0], [0.5, 0.0, 0.1, 0.4]])
    apart = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # T = 2: the 2nd step reads s(1)
    stats = step_statistics([same_peak, apart])
    assert stats["documents"] == 2 and stats["same_argmax"] == 0.5
    expected_summary = (np.mean([0.0, 0.2, 0.5]) + np.mean([0.0, 1.0])) / 2
    assert stats["summary_weight"] == pytest.approx(expected_summary)
    assert stats["overlap"] == pytest.approx((step_overlap(same_peak) + 0.0) / 2)
    with pytest.raises(ValueError, match="no attention"):
        step_statistics([])


def test_iterative_heatmap(tmp_path):
    words = ["not", "a", "good", "film"]
    a = np.full((3, 4 + 2), 0.1)
    path = iterative_heatmap(a, words, str(tmp_path / "fig6.png"), title="t")
    assert (tmp_path / "fig6.png").stat().st_size > 3000 and path.endswith("fig6.png")
    # long texts keep their first words and every summary row
    long = np.full((3, 200 + 2), 1 / 202)
    iterative_heatmap(long, [f"w{i}" for i in range(200)], str(tmp_path / "long.png"),
                      max_tokens=20)
    with pytest.raises(ValueError, match="steps - 1"):
        iterative_heatmap(np.ones((3, 5)), words, str(tmp_path / "bad.png"))


def test_word_colour_map(tmp_path):
    from kerasattn.interpret.plots import word_colour_map

    words = [f"word{i}" for i in range(700)]
    weights = np.linspace(0, 1, 700)
    path = word_colour_map(weights, words, str(tmp_path / "c.png"), title="t", line_chars=60)
    assert (tmp_path / "c.png").stat().st_size > 10000 and path.endswith("c.png")
    word_colour_map(np.zeros(3), ["a", "b", "c"], str(tmp_path / "zeros.png"))  # no division
    with pytest.raises(ValueError, match="3 tokens for 2 weights"):
        word_colour_map(np.ones(2), ["a", "b", "c"], str(tmp_path / "bad.png"))
