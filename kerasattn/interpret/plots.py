"""Pictures of attention: matrix heatmaps (PNG) and a colour-map page (HTML).

``attention_heatmap`` draws one attention matrix with the words on both axes,
as in Figures 3–6 of the SANet paper (rows: the attending word, columns: the
word attended to). ``attention_html`` (rendered by :mod:`kerasattn.explanation_pages`,
with every other explanation page, and importable from here) writes a self-contained
page showing each
document with every word's background intensity set by the attention it
receives, one line per attention layer, the prediction and its probabilities;
given token attributions (:class:`~kerasattn.interpret.TokenAttribution`, e.g.
integrated gradients) it shows them beside the attention, over the same words,
in a diverging palette: green for evidence FOR the explained class, purple for
evidence AGAINST it (PRGn, readable with the common colour-vision deficiencies),
white at zero. ``explanation_html`` and ``attribution_html`` (also from there) give one
document as a notebook fragment whose styles and ids stay inside it (its root element's
id: fresh each time, or ``root_id=``; a stylesheet that cannot be scoped raises
``FragmentError``).
"""

import os

import numpy as np

# the HTML views live with every other explanation page; imported here, where they are
# documented beside the heatmaps
from kerasattn.explanation_pages import (METHOD_NAMES, FragmentError,  # noqa: F401
                                         attention_html, attribution_html,
                                         explanation_html, hierarchical_levels,
                                         received_attention, word_weights)


def _save(fig, path, tight=True):
    """Write ``fig`` to ``path`` (creating its folder) and close it."""
    import matplotlib.pyplot as plt  # late: matplotlib loads only where a figure is drawn

    if tight:
        fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    from kerasattn.run_plots import save_figure  # late: importing it switches matplotlib to Agg

    save_figure(fig, path)  # whole, following no link
    plt.close(fig)
    return path


def attention_heatmap(matrix, tokens, path, title="", max_tokens=80):
    """Save an (n, n) attention matrix as a PNG heatmap with the words on both axes.

    Texts longer than ``max_tokens`` are shown up to ``max_tokens`` (the title
    says so); the colour scale is the weight itself (0 to the largest shown).
    """
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
    import matplotlib  # late: heavy; switched to Agg when a figure is drawn, not on import

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # late: after matplotlib.use("Agg")

    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"expected a square matrix, got shape {matrix.shape}")
    if matrix.shape[0] != len(tokens):
        raise ValueError(f"{len(tokens)} tokens for a {matrix.shape[0]}×{matrix.shape[0]} matrix")
    n = len(tokens)
    if n > max_tokens:
        matrix, tokens = matrix[:max_tokens, :max_tokens], tokens[:max_tokens]
        title = f"{title} (first {max_tokens} of {n} words)".strip()
    size = min(3 + 0.22 * len(tokens), 22)
    fig, ax = plt.subplots(figsize=(size + 1.5, size))
    im = ax.imshow(matrix, cmap="Blues", vmin=0, vmax=max(float(matrix.max(initial=0)), 1e-9))
    ax.set_xticks(range(len(tokens)), tokens, rotation=90, fontsize=8)
    ax.set_yticks(range(len(tokens)), tokens, fontsize=8)
    ax.set_xlabel("attended word (key)")
    ax.set_ylabel("attending word (query)")
    if title:
        ax.set_title(title)
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="attention weight")
    return _save(fig, path)


def iterative_heatmap(weights, tokens, path, title="", max_tokens=80):
    """PNG of IRAM's attention as in its paper's Figure 6: one row per word and
    then one per summary s(1) … s(T−1), one column per step t = 1 … T.

    ``weights`` is the ``("step", "memory")`` matrix of one text, shaped
    (T, n + T − 1) (the words, then the summaries). A step that attends to an
    earlier summary shows in the summary rows at the bottom. Texts longer than
    ``max_tokens`` show their first ``max_tokens`` words and all the summaries.
    """
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
    import matplotlib  # late: heavy; switched to Agg when a figure is drawn, not on import

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # late: after matplotlib.use("Agg")

    weights = np.asarray(weights, dtype=np.float64)
    steps = weights.shape[0] if weights.ndim == 2 else 0
    n = len(tokens)
    if weights.ndim != 2 or weights.shape[1] != n + steps - 1:
        raise ValueError(f"expected a (steps, {n} words + steps - 1) matrix for {n} words, "
                         f"got shape {weights.shape}")
    rows = list(tokens)
    if n > max_tokens:
        weights = np.concatenate([weights[:, :max_tokens], weights[:, n:]], axis=1)
        rows = rows[:max_tokens]
        title = f"{title} (first {max_tokens} of {n} words)".strip()
    rows += [f"[summary {t}]" for t in range(1, steps)]
    matrix = weights.T  # (words + summaries, steps)
    fig, ax = plt.subplots(figsize=(2.2 + 0.6 * steps, 1.2 + 0.2 * len(rows)))
    im = ax.imshow(matrix, cmap="Blues", vmin=0, vmax=max(float(matrix.max(initial=0)), 1e-9),
                   aspect="auto")
    ax.set_xticks(range(steps), [f"t={t}" for t in range(1, steps + 1)], fontsize=8)
    ax.set_yticks(range(len(rows)), rows, fontsize=7)
    if steps > 1:
        ax.axhline(len(rows) - steps + 0.5, color="black", linewidth=0.8)
    ax.set_xlabel("attention step")
    if title:
        ax.set_title(title, fontsize=9)
    fig.colorbar(im, ax=ax, fraction=0.08, pad=0.04, label="attention weight")
    return _save(fig, path)


def word_colour_map(weights, tokens, path, title="", line_chars=90, max_tokens=600):
    """PNG of a text with each word's background as dark as its weight (the
    Transformer paper's Figures 11–12): ``weights`` holds one value per token,
    scaled to the text's largest. Words wrap at ``line_chars`` characters;
    texts longer than ``max_tokens`` show their first ``max_tokens`` words."""
    import matplotlib  # late: heavy; switched to Agg when a figure is drawn, not on import

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # late: after matplotlib.use("Agg")

    weights = np.asarray(weights, dtype=np.float64).ravel()
    if len(weights) != len(tokens):
        raise ValueError(f"{len(tokens)} tokens for {len(weights)} weights")
    if len(tokens) > max_tokens:
        tokens, weights = tokens[:max_tokens], weights[:max_tokens]
        title = f"{title} (first {max_tokens} words)".strip()
    top = float(weights.max(initial=0))
    lines, line, used = [], [], 0
    for word, value in zip(tokens, weights):
        if line and used + len(word) + 1 > line_chars:
            lines.append(line)
            line, used = [], 0
        line.append((word, used, value))
        used += len(word) + 1
    if line:
        lines.append(line)
    char_w, line_h = 0.085, 0.32  # inches per character / per line (monospace, 9 pt)
    fig = plt.figure(figsize=(char_w * line_chars + 0.6, line_h * (len(lines) + 1.5) + 0.3))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.set_xlim(0, line_chars + 4)
    ax.set_ylim(len(lines) + 1.5, 0)
    cmap = plt.get_cmap("Blues")
    if title:
        ax.text(1, 0.7, title, fontsize=9, va="center", fontweight="bold")
    for i, line in enumerate(lines):
        for word, start, value in line:
            level = value / top if top > 0 else 0.0
            ax.text(2 + start, i + 1.6, word, fontsize=9, family="monospace", va="center",
                    color="white" if level > 0.6 else "black",
                    bbox={"facecolor": cmap(0.05 + 0.9 * level), "edgecolor": "none",
                          "pad": 1.5})
    return _save(fig, path, tight=False)




def hierarchical_heatmap(explanation, word_layer, sentence_layer, path, title="",
                         max_sentences=30, max_words=30):
    """PNG of a hierarchical model's attention (HCAN Figure 4): one row per sentence,
    its words in cells coloured by their word-level weight, the sentence-level
    weight in a column on the left. Longer texts show their first ``max_sentences``
    sentences and ``max_words`` words of each (the title says so)."""
    import matplotlib  # late: heavy; switched to Agg when a figure is drawn, not on import

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # late: after matplotlib.use("Agg")

    ex = explanation
    longest = max((len(s) for s in ex.tokens), default=0)
    if len(ex.tokens) > max_sentences or longest > max_words:
        title = f"{title} (first {max_sentences} sentences, {max_words} words each)".strip()
    sentences = ex.tokens[:max_sentences]
    words = word_weights(ex, word_layer)[:max_sentences]
    sent = received_attention(ex.attention[sentence_layer],
                              ex.axes[sentence_layer])[:max_sentences]
    n_words = min(max_words, max((len(s) for s in sentences), default=1) or 1)
    grid = np.full((len(sentences), n_words), np.nan)
    for i, values in enumerate(words):
        grid[i, :min(len(values), n_words)] = values[:n_words]
    top = float(np.nanmax(grid)) if np.isfinite(grid).any() else 1.0
    fig, (ax_s, ax_w) = plt.subplots(
        1, 2, figsize=(1.2 + 0.75 * n_words, 0.9 + 0.42 * len(sentences)),
        gridspec_kw={"width_ratios": [1, max(n_words, 1)]}, squeeze=True)
    ax_s.imshow(np.asarray(sent)[:, None], cmap="Blues", vmin=0,
                vmax=max(float(np.max(sent, initial=0)), 1e-9), aspect="auto")
    for i, v in enumerate(sent):
        ax_s.text(0, i, f"{v:.2f}", ha="center", va="center", fontsize=7)
    ax_s.set_xticks([0], ["sentence"], fontsize=7)
    ax_s.set_yticks(range(len(sentences)), [f"s{i + 1}" for i in range(len(sentences))],
                    fontsize=7)
    ax_w.imshow(np.nan_to_num(grid), cmap="Reds", vmin=0, vmax=max(top, 1e-9), aspect="auto")
    for i, sentence in enumerate(sentences):
        for j, word in enumerate(sentence[:n_words]):
            ax_w.text(j, i, word, ha="center", va="center", fontsize=6)
    ax_w.set_xticks([])
    ax_w.set_yticks([])
    ax_w.set_title(f"words: {word_layer}; sentences: {sentence_layer}", fontsize=8)
    if title:
        fig.suptitle(title, fontsize=9)
    return _save(fig, path)


