"""Gini and band diagonality (SANet §5.3) on matrices computed by hand."""

import numpy as np
import pytest

from kerasattn.interpret import attention_statistics, diagonality, gini
from kerasattn.interpret.statistics import uniform_diagonality


def test_uniform_matrix():
    a = np.full((4, 4), 0.25)
    assert gini(a) == pytest.approx(0.0, abs=1e-12)
    # band |i-j| <= 1 of a 4x4 matrix: 4 + 2*3 = 10 of 16 cells
    assert diagonality(a, 1) == pytest.approx(10 / 16)
    assert diagonality(a, 0) == pytest.approx(4 / 16)
    assert diagonality(a, 3) == pytest.approx(1.0)


def test_identity_matrix():
    a = np.eye(5)
    # 5 equal non-zero weights among 25: G = 1 - 5/25
    assert gini(a) == pytest.approx(1 - 5 / 25)
    for b in range(0, 6):
        assert diagonality(a, b) == pytest.approx(1.0)


def test_band_matrix():
    # tridiagonal with weights 1 on the diagonal, 2 off it (rows need not sum to 1)
    a = np.eye(4) + 2 * (np.eye(4, k=1) + np.eye(4, k=-1))
    assert diagonality(a, 0) == pytest.approx(4 / (4 + 2 * 2 * 3))
    assert diagonality(a, 1) == pytest.approx(1.0)
    # Gini by the pairwise definition: mean |x_i - x_j| over all pairs / (2 mean)
    x = a.ravel()
    expected = np.abs(x[:, None] - x[None, :]).mean() / (2 * x.mean())
    assert gini(a) == pytest.approx(expected)


def test_one_hot_rows_far_from_the_diagonal():
    a = np.zeros((6, 6))
    a[:, 5] = 1.0  # every word attends to the last word
    assert diagonality(a, 1) == pytest.approx(2 / 6)  # rows 4 and 5
    assert gini(a) == pytest.approx(1 - 6 / 36)


def test_dataset_average_and_validation():
    stats = attention_statistics([np.eye(2), np.full((2, 2), 0.5)], bandwidths=(0, 1))
    assert stats["documents"] == 2
    assert stats["gini"] == pytest.approx(((1 - 2 / 4) + 0.0) / 2)
    assert stats["diagonality"] == {0: pytest.approx((1 + 0.5) / 2), 1: pytest.approx(1.0)}
    with pytest.raises(ValueError, match="square"):
        gini(np.ones((2, 3)))
    with pytest.raises(ValueError, match="non-negative"):
        diagonality(-np.eye(2), 1)
    with pytest.raises(ValueError, match="no attention"):
        attention_statistics([])
    assert gini(np.zeros((3, 3))) == 0.0 and diagonality(np.zeros((3, 3)), 1) == 0.0


def test_uniform_diagonality_is_the_chance_level():
    for n in (1, 2, 4, 7, 19):
        for b in (0, 1, 3, 5):
            assert uniform_diagonality(n, b) == pytest.approx(
                diagonality(np.full((n, n), 1.0 / n), b))
    assert uniform_diagonality(19, 3) == pytest.approx((19 + 2 * (18 + 17 + 16)) / 361)
    assert uniform_diagonality(0, 3) == 0.0
    stats = attention_statistics([np.eye(2), np.full((4, 4), 0.25)], bandwidths=(1,))
    assert stats["uniform_diagonality"] == {1: pytest.approx((1.0 + 10 / 16) / 2)}
    assert stats["mean_length"] == 3.0
