"""Pictures of attention: matrix heatmaps (PNG) and a colour-map page (HTML).

``attention_heatmap`` draws one attention matrix with the words on both axes,
as in Figures 3–6 of the SANet paper (rows: the attending word, columns: the
word attended to). ``attention_html`` writes a self-contained page showing each
document with every word's background intensity set by the attention it
receives, one line per attention layer, the prediction and its probabilities.
"""

import html
import os

import numpy as np

from kerasattn.interpret.attention import TOKEN_AXES


def received_attention(weights, axes):
    """Per-token attention received: the mean over every axis but the last token axis.

    For a (query, key) matrix this is the column mean (how much the other
    words attend to each word); for a (token,) vector it is the vector itself.
    """
    weights = np.asarray(weights, dtype=np.float64)
    token_axes = [i for i, a in enumerate(axes) if a in TOKEN_AXES]
    if not token_axes:
        raise ValueError(f"weights with axes {axes} have no token axis")
    last = token_axes[-1]
    others = tuple(i for i in range(weights.ndim) if i != last)
    return weights.mean(axis=others) if others else weights


def attention_heatmap(matrix, tokens, path, title="", max_tokens=80):
    """Save an (n, n) attention matrix as a PNG heatmap with the words on both axes.

    Texts longer than ``max_tokens`` are shown up to ``max_tokens`` (the title
    says so); the colour scale is the weight itself (0 to the largest shown).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _colour(value):
    """Background for an intensity in [0, 1]: transparent to saturated red."""
    return f"rgba(220, 38, 38, {0.05 + 0.85 * value:.3f})" if value > 0 else "transparent"


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #111; }
.doc { border: 1px solid #ccc; border-radius: 6px; padding: 1em; margin-bottom: 1.5em; }
.layer { line-height: 2; margin: .6em 0; }
.layer-name { font-size: .8em; color: #555; display: block; }
.w { padding: 2px 3px; margin: 0 1px; border-radius: 3px; }
.pred { font-weight: 600; }
.probs { font-size: .85em; color: #444; }
.legend { display: inline-block; width: 12em; height: 1em; vertical-align: middle;
          background: linear-gradient(to right, rgba(220,38,38,.05), rgba(220,38,38,.9)); }
img { max-width: 100%; display: block; margin-top: .5em; }
"""


def attention_html(explanations, path, class_names=None, title="Attention", images=None):
    """Write the colour-map page.

    Args:
        explanations: :class:`~kerasattn.interpret.attention.Explanation` objects.
        path: the ``.html`` file to write.
        class_names: label names (default: the class index).
        title: the page title.
        images: optional list (one per document) of lists of image paths to
            show under the document (e.g. its heatmaps), relative to the page.

    Each word's intensity is the attention it receives divided by the largest
    in that document and layer, so every line uses the full scale; hovering a
    word shows its raw weight.
    """
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
             f"</title><style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>",
             "<p>Each word's colour is the attention it receives (mean over the words "
             "attending to it), scaled to the document's largest: low "
             "<span class='legend'></span> high.</p>"]
    for d, ex in enumerate(explanations):
        probs = np.asarray(ex.probabilities, dtype=np.float64)
        names = class_names or [str(i) for i in range(len(probs))]
        label = int(np.argmax(probs))
        parts.append(f"<div class='doc' id='doc-{d}'>")
        parts.append(f"<div class='pred'>prediction: {html.escape(str(names[label]))} "
                     f"({probs[label]:.1%})</div><div class='probs'>"
                     + ", ".join(f"{html.escape(str(n))} {p:.3f}" for n, p in zip(names, probs))
                     + "</div>")
        if not ex.tokens:
            parts.append("<p><em>(empty text: no words)</em></p>")
        for name, weights in ex.attention.items():
            if not ex.tokens:
                break
            received = received_attention(weights, ex.axes[name])
            top = float(received.max()) if received.size else 0.0
            spans = []
            for word, value in zip(ex.tokens, received):
                scaled = value / top if top > 0 else 0.0
                spans.append(f"<span class='w' style='background:{_colour(scaled)}' "
                             f"title='{value:.4f}'>{html.escape(word)}</span>")
            parts.append(f"<div class='layer'><span class='layer-name'>{html.escape(name)}"
                         f"</span>{' '.join(spans)}</div>")
        for image in (images[d] if images else []):
            parts.append(f"<img src='{html.escape(image)}' alt='attention heatmap'>")
        parts.append("</div>")
    parts.append("</body></html>")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(parts))
    return path
