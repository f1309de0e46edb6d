"""The attention metrics of SANet §5.3 (Letarte et al. 2018, Table 2).

- **Gini coefficient**: the inequality of the attention weights; 0 when every
  weight is equal, approaching 1 when a few weights hold all the mass.
- **Band diagonality** of bandwidth b: the share of the attention weight that
  lies inside the band |i − j| ≤ b ("the interactions of every element with
  itself, and the b elements before and after in the sequence").

The paper does not say whether the Gini coefficient is taken per row or per
matrix, nor how values are averaged over a dataset. Here both metrics are
computed on each document's whole n×n matrix (padding removed) and averaged
over documents; Table 2 reports them in percent, these functions in [0, 1].
"""

import numpy as np


def _matrix(a):
    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"expected a square attention matrix, got shape {a.shape}")
    if np.any(a < 0) or not np.all(np.isfinite(a)):
        raise ValueError("attention weights must be finite and non-negative")
    return a


def gini(weights):
    """Gini coefficient of all the weights of one attention matrix, in [0, 1).

    With the weights sorted increasingly, x_(1) <= ... <= x_(N):
    G = 2 Σ_k k x_(k) / (N Σ_k x_k) − (N + 1) / N, i.e. the mean absolute
    difference of all pairs divided by twice the mean. An all-zero matrix gives 0.
    """
    x = np.sort(_matrix(weights).ravel())
    n, total = x.size, x.sum()
    if n == 0 or total == 0:
        return 0.0
    k = np.arange(1, n + 1)
    return float(2.0 * np.sum(k * x) / (n * total) - (n + 1.0) / n)


def diagonality(weights, bandwidth):
    """Share of one matrix's attention weight inside the band |i − j| <= bandwidth."""
    a = _matrix(weights)
    if bandwidth < 0:
        raise ValueError(f"bandwidth must be >= 0, got {bandwidth}")
    total = a.sum()
    if total == 0:
        return 0.0
    i, j = np.indices(a.shape)
    return float(a[np.abs(i - j) <= bandwidth].sum() / total)


def uniform_diagonality(n, bandwidth):
    """Diagonality of uniform attention over n words: the share of the n×n cells
    inside the band, (n + 2 Σ_{k=1..b} (n − k)) / n² (1 when b >= n − 1).

    This is the chance level for a text of n words: short texts have a high one
    (a band of 7 covers 7/19 of a 19-word sentence), so compare datasets through
    the ratio to it, not the raw share alone.
    """
    if n <= 0:
        return 0.0
    b = min(bandwidth, n - 1)
    return float((n + 2 * sum(n - k for k in range(1, b + 1))) / (n * n))


def attention_statistics(matrices, bandwidths=(1, 2, 3, 4, 5)):
    """Table 2 of SANet over a dataset: mean Gini and mean diagonality per bandwidth.

    Args:
        matrices: an iterable of square attention matrices, one per document,
            padding removed (as ``extract_attention`` returns them).
        bandwidths: the bandwidths b of the diagonality rows.

    Returns:
        ``{"documents": n, "gini": ..., "diagonality": {b: ...},
        "uniform_diagonality": {b: ...}, "mean_length": ...}``, where
        ``uniform_diagonality`` is the same mean for uniform attention over the
        same documents (the chance level, see :func:`uniform_diagonality`).
    """
    ginis, lengths = [], []
    diags, chance = {b: [] for b in bandwidths}, {b: [] for b in bandwidths}
    for a in matrices:
        ginis.append(gini(a))
        n = np.shape(a)[0]
        lengths.append(n)
        for b in bandwidths:
            diags[b].append(diagonality(a, b))
            chance[b].append(uniform_diagonality(n, b))
    if not ginis:
        raise ValueError("no attention matrices given")
    return {"documents": len(ginis), "gini": float(np.mean(ginis)),
            "diagonality": {b: float(np.mean(v)) for b, v in diags.items()},
            "uniform_diagonality": {b: float(np.mean(v)) for b, v in chance.items()},
            "mean_length": float(np.mean(lengths))}


def step_overlap(weights):
    """IRAM's attention overlap (§4.3): the mean off-diagonal entry of A Aᵀ.

    ``weights`` is one text's (T, N + T − 1) step × memory matrix A. Entry
    [A Aᵀ]_ij is the dot product of steps i's and j's attention rows, so the
    mean over the T(T − 1) pairs i ≠ j is 1 when every step puts all its weight
    on the same element (the collapse the regulariser of Equation 3 fights),
    and near 0 when the steps attend to different elements. It is Equation 3's
    penalty divided by γ(T − 1)/2, so it is comparable across T.
    """
    a = np.asarray(weights, dtype=np.float64)
    if a.ndim != 2 or a.shape[0] < 2:
        raise ValueError(f"expected a (steps >= 2, memory) matrix, got shape {a.shape}")
    if np.any(a < 0) or not np.all(np.isfinite(a)):
        raise ValueError("attention weights must be finite and non-negative")
    t = a.shape[0]
    gram = a @ a.T
    return float((gram.sum() - np.trace(gram)) / (t * (t - 1)))


def step_statistics(matrices):
    """Means over texts of IRAM's step × memory matrices (each (T, N + T − 1)):
    ``overlap`` (:func:`step_overlap`), ``same_argmax`` (the share of texts whose
    steps all attend most to the same element), ``summary_weight`` (the mean
    weight the steps put on earlier summaries) and ``documents``."""
    overlap, same, summary, count = 0.0, 0, 0.0, 0
    for a in matrices:
        a = np.asarray(a, dtype=np.float64)
        t = a.shape[0]
        overlap += step_overlap(a)
        same += int(len(set(np.argmax(a, axis=1).tolist())) == 1)
        summary += float(a[:, a.shape[1] - (t - 1):].sum(axis=1).mean()) if t > 1 else 0.0
        count += 1
    if not count:
        raise ValueError("no attention matrices")
    return {"overlap": overlap / count, "same_argmax": same / count,
            "summary_weight": summary / count, "documents": count}
