"""Pictures of attention: matrix heatmaps (PNG) and a colour-map page (HTML).

``attention_heatmap`` draws one attention matrix with the words on both axes,
as in Figures 3–6 of the SANet paper (rows: the attending word, columns: the
word attended to). ``attention_html`` writes a self-contained page showing each
document with every word's background intensity set by the attention it
receives, one line per attention layer, the prediction and its probabilities;
given token attributions (:class:`~kerasattn.interpret.TokenAttribution`, e.g.
integrated gradients) it shows them beside the attention, over the same words,
in a diverging palette: green for evidence FOR the explained class, purple for
evidence AGAINST it (PRGn, readable with the common colour-vision deficiencies),
white at zero.
"""

import html
import os

import numpy as np

from kerasattn.interpret.attention import TOKEN_AXES
from kerasattn.word_colours import attention_colour, signed_colour


def _save(fig, path, tight=True):
    """Write ``fig`` to ``path`` (creating its folder) and close it."""
    import matplotlib.pyplot as plt

    if tight:
        fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def received_attention(weights, axes):
    """Per-token attention received: the mean over every axis but the last token axis.

    For a (query, key) matrix this is the column mean (how much the other
    words attend to each word); for a (token,) vector it is the vector itself.
    """
    weights = np.asarray(weights, dtype=np.float64)
    # IRAM's "memory" runs over the tokens then its summaries (which have no word)
    token_axes = [i for i, a in enumerate(axes) if a in TOKEN_AXES or a == "memory"]
    if not token_axes:
        raise ValueError(f"weights with axes {axes} have no token axis")
    last = token_axes[-1]
    others = tuple(i for i in range(weights.ndim) if i != last)
    if weights.size == 0:  # an empty sentence or text
        return np.zeros(weights.shape[last])
    return weights.mean(axis=others) if others else weights


def attention_heatmap(matrix, tokens, path, title="", max_tokens=80):
    """Save an (n, n) attention matrix as a PNG heatmap with the words on both axes.

    Texts longer than ``max_tokens`` are shown up to ``max_tokens`` (the title
    says so); the colour scale is the weight itself (0 to the largest shown).
    """
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
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
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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


def _step_lines(name, weights, tokens):
    """HTML of IRAM's ("step", "memory") weights: one line per step, its words
    coloured, then its weights on the earlier summaries."""
    weights = np.asarray(weights, dtype=np.float64)
    n, lines = len(tokens), []
    for t, row in enumerate(weights, 1):
        top = float(row.max(initial=0))
        spans = [f"<span class='w' style='background:{_colour(_scale(float(v), top))}' "
                 f"title='{float(v):.4f}'>{html.escape(w)}</span>"
                 for w, v in zip(tokens, row[:n])]
        spans += [f"<span class='s' style='background:{_colour(_scale(float(v), top))}' "
                  f"title='summary {k}: {float(v):.4f}'>s{k} {float(v):.2f}</span>"
                  for k, v in enumerate(row[n:], 1)]
        lines.append(f"<div class='layer'><span class='layer-name'>{html.escape(name)}, "
                     f"step {t}</span>{' '.join(spans)}</div>")
    return lines


def word_colour_map(weights, tokens, path, title="", line_chars=90, max_tokens=600):
    """PNG of a text with each word's background as dark as its weight (the
    Transformer paper's Figures 11–12): ``weights`` holds one value per token,
    scaled to the text's largest. Words wrap at ``line_chars`` characters;
    texts longer than ``max_tokens`` show their first ``max_tokens`` words."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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


_colour = attention_colour  # the one palette (kerasattn.word_colours)
_diverging = signed_colour


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #111; }
.doc { border: 1px solid #ccc; border-radius: 6px; padding: 1em; margin-bottom: 1.5em; }
.layer { line-height: 2; margin: .6em 0; }
.layer-name { font-size: .8em; color: #555; display: block; }
.w { padding: 2px 3px; margin: 0 1px; border-radius: 3px; }
.sentence, .attr-sentence { margin: .15em 0; }
.s { display: inline-block; min-width: 3.2em; font-size: .75em; text-align: right;
     padding: 1px 4px; margin-right: .5em; border-radius: 3px;
     font-variant-numeric: tabular-nums; }
.pred { font-weight: 600; }
.probs { font-size: .85em; color: #444; }
.legend { display: inline-block; width: 12em; height: 1em; vertical-align: middle;
          background: linear-gradient(to right, rgba(220,38,38,.05), rgba(220,38,38,.9)); }
.legend-signed { display: inline-block; width: 16em; height: 1em; vertical-align: middle;
          background: linear-gradient(to right, rgba(118,42,131,.9), rgba(118,42,131,.05),
                                      white, rgba(27,120,55,.05), rgba(27,120,55,.9)); }
.panels { display: grid; grid-template-columns: 1fr 1fr; gap: 1.2em; }
.panel { min-width: 0; }
.panel-title { font-size: .85em; font-weight: 600; color: #333; margin-top: .4em; }
.a { padding: 2px 3px; margin: 0 1px; border-radius: 3px; }
.a.strong { color: white; }
.note { font-size: .8em; color: #555; }
img { max-width: 100%; display: block; margin-top: .5em; }
"""


def hierarchical_levels(explanation):
    """(word-level layer names, sentence-level layer names) of a hierarchical explanation."""
    words = [n for n, a in explanation.axes.items() if a and a[0] == "sentence"]
    sentences = [n for n, a in explanation.axes.items() if not a or a[0] != "sentence"]
    return words, sentences


def word_weights(explanation, name):
    """Per sentence, the attention each of its words receives from layer ``name``
    (a list of arrays, one per sentence)."""
    weights, axes = explanation.attention[name], explanation.axes[name]
    return [received_attention(weights[i], axes[1:])[:len(sentence)]
            for i, sentence in enumerate(explanation.tokens)]


def _scale(values, top):
    return values / top if top > 0 else values * 0.0


def _hierarchical_lines(ex):
    """HTML of one hierarchical document (HCAN Figure 4): per word-level layer, every
    sentence on its line, its sentence-level weights first, its words coloured."""
    word_layers, sentence_layers = hierarchical_levels(ex)
    received = {n: received_attention(ex.attention[n], ex.axes[n]) for n in sentence_layers}
    lines = []
    for name in word_layers:
        per_sentence = word_weights(ex, name)
        top = max((float(w.max()) for w in per_sentence if w.size), default=0.0)
        lines.append(f"<div class='layer'><span class='layer-name'>{html.escape(name)} "
                     f"(words); sentence weights from "
                     f"{html.escape(', '.join(sentence_layers))}</span>")
        for i, (sentence, values) in enumerate(zip(ex.tokens, per_sentence)):
            badges = []
            for s_name in sentence_layers:
                value = float(received[s_name][i])
                s_top = float(received[s_name].max())
                badges.append(f"<span class='s' style='background:"
                              f"{_colour(_scale(value, s_top))}' title='{html.escape(s_name)}: "
                              f"{value:.4f}'>{value:.2f}</span>")
            spans = [f"<span class='w' style='background:{_colour(_scale(float(v), top))}' "
                     f"title='{float(v):.4f}'>{html.escape(w)}</span>"
                     for w, v in zip(sentence, values)]
            lines.append(f"<div class='sentence'>{''.join(badges)}{' '.join(spans)}</div>")
        lines.append("</div>")
    return lines


def hierarchical_heatmap(explanation, word_layer, sentence_layer, path, title="",
                         max_sentences=30, max_words=30):
    """PNG of a hierarchical model's attention (HCAN Figure 4): one row per sentence,
    its words in cells coloured by their word-level weight, the sentence-level
    weight in a column on the left. Longer texts show their first ``max_sentences``
    sentences and ``max_words`` words of each (the title says so)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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


METHOD_NAMES = {"gradient_x_input": "gradient × input",
                "integrated_gradients": "integrated gradients",
                "leave_one_out": "leave-one-out", "attention": "attention",
                "rollout": "attention rollout"}


def _attribution_lines(attribution, names):
    """HTML of one document's token attribution: the words (one line per sentence of a
    hierarchical model) coloured by the signed score / the document's largest |score|."""
    scores = attribution.flat_scores
    finite = np.abs(scores[np.isfinite(scores)])
    top = float(finite.max()) if finite.size else 0.0
    target = names[attribution.target] if attribution.target < len(names) \
        else str(attribution.target)
    method = METHOD_NAMES.get(attribution.method, attribution.method)

    def spans(words, values):
        out = []
        for w, v in zip(words, values):
            scaled = float(v) / top if top > 0 else 0.0
            strong = " strong" if abs(scaled) > 0.6 else ""
            out.append(f"<span class='a{strong}' style='background:{_diverging(scaled)}' "
                       f"title='{float(v):+.4f}'>{html.escape(str(w))}</span>")
        return " ".join(out)

    lines = [f"<div class='panel-title'>{html.escape(method)} for class "
             f"{html.escape(str(target))}</div><div class='layer attribution' "
             f"data-method='{html.escape(attribution.method)}'>"]
    if attribution.hierarchical:
        for words, values in zip(attribution.tokens, attribution.scores):
            lines.append(f"<div class='attr-sentence'>{spans(words, values)}</div>")
    else:
        lines.append(spans(attribution.tokens, scores))
    lines.append("</div>")
    gap = attribution.extras.get("completeness_gap")
    note = f"sum of scores {float(np.nansum(scores)):+.3f}"
    if gap is not None:
        note += (f"; p(class) − p(baseline) = "
                 f"{float(np.nansum(scores)) + float(gap):+.3f}")
    lines.append(f"<div class='note'>{note}</div>")
    return lines


def _attention_lines(ex):
    """HTML of one document's attention: one line per layer (IRAM: per step)."""
    if ex.hierarchical:
        return _hierarchical_lines(ex) if ex.tokens else []
    parts = []
    for name, weights in ex.attention.items():
        if not ex.tokens:
            break
        if ex.axes[name] == ("step", "memory"):
            parts.extend(_step_lines(name, weights, ex.tokens))
            continue
        received = received_attention(weights, ex.axes[name])
        top = float(received.max()) if received.size else 0.0
        spans = []
        for word, value in zip(ex.tokens, received):
            scaled = value / top if top > 0 else 0.0
            spans.append(f"<span class='w' style='background:{_colour(scaled)}' "
                         f"title='{value:.4f}'>{html.escape(word)}</span>")
        parts.append(f"<div class='layer'><span class='layer-name'>{html.escape(name)}"
                     f"</span>{' '.join(spans)}</div>")
    return parts


def _document_parts(d, ex, names, attribution=None, images=()):
    """The HTML of one document: prediction, probabilities, attention (and attribution)."""
    probs = np.asarray(ex.probabilities, dtype=np.float64)
    names = names or [str(i) for i in range(len(probs))]
    label = int(np.argmax(probs))
    parts = [f"<div class='doc' id='doc-{d}'>",
             f"<div class='pred'>prediction: {html.escape(str(names[label]))} "
             f"({probs[label]:.1%})</div><div class='probs'>"
             + ", ".join(f"{html.escape(str(n))} {p:.3f}" for n, p in zip(names, probs))
             + "</div>"]
    if not ex.tokens:
        parts.append("<p><em>(empty text: no words)</em></p>")
    if attribution is None:
        parts.extend(_attention_lines(ex))
    elif ex.tokens:
        attention = _attention_lines(ex) or [
            "<p class='note'>(this model has no attention layer)</p>"]
        parts.append("<div class='panels'><div class='panel attention-panel'>"
                     "<div class='panel-title'>attention</div>")
        parts.extend(attention)
        parts.append("</div><div class='panel attribution-panel'>")
        parts.extend(_attribution_lines(attribution, names))
        parts.append("</div></div>")
    for image in images or ():
        parts.append(f"<img src='{html.escape(image)}' alt='attention heatmap'>")
    parts.append("</div>")
    return parts


def _scoped_style():
    """:data:`_STYLE` for a fragment inside another page (a notebook): the body rule
    becomes the fragment's own."""
    return _STYLE.replace("body {", ".kerasattn-explanation {", 1)


def explanation_html(explanation, class_names=None, attribution=None):
    """One document's colour map as an HTML fragment (its own styles inside): what a
    notebook shows for an :class:`~kerasattn.interpret.Explanation` (``_repr_html_``)."""
    names = class_names or getattr(explanation, "class_names", None)
    return (f"<div class='kerasattn-explanation'><style>{_scoped_style()}</style>"
            + "".join(_document_parts(0, explanation, names, attribution)) + "</div>")


def attribution_html(attribution, class_names=None):
    """One document's token scores as an HTML fragment (diverging colours: green for
    the explained class, purple against it): a notebook's view of a
    :class:`~kerasattn.interpret.TokenAttribution` (``_repr_html_``)."""
    names = class_names or getattr(attribution, "class_names", None)
    probs = np.asarray(attribution.probabilities, dtype=np.float64)
    names = names or [str(i) for i in range(len(probs))]
    return (f"<div class='kerasattn-explanation'><style>{_scoped_style()}</style>"
            "<div class='doc'>" + "".join(_attribution_lines(attribution, names))
            + "</div></div>")


def attention_html(explanations, path=None, class_names=None, title="Attention", images=None,
                   attributions=None):
    """The colour-map page: written to ``path`` (returned), or, with ``path=None``,
    returned as a string.

    Args:
        explanations: :class:`~kerasattn.interpret.attention.Explanation` objects
            (a model without attention: with an empty ``attention``).
        path: the ``.html`` file to write (None: return the page instead).
        class_names: label names (default: the class index).
        title: the page title.
        images: optional list (one per document) of lists of image paths to
            show under the document (e.g. its heatmaps), relative to the page.
        attributions: optional list (one per document) of
            :class:`~kerasattn.interpret.TokenAttribution` of the same texts
            (or None): drawn beside the attention over the same words.

    Each word's intensity is the attention it receives divided by the largest
    in that document and layer, so every line uses the full scale; hovering a
    word shows its raw weight. An attribution is scaled by the document's
    largest |score|: green for the explained class, purple against it.
    """
    legend = ("<p>Each word's colour is the attention it receives (mean over the words "
              "attending to it), scaled to the document's largest: low "
              "<span class='legend'></span> high.</p>")
    if attributions is not None:
        if len(attributions) != len(explanations):
            raise ValueError(f"{len(attributions)} attributions for "
                             f"{len(explanations)} explanations")
        methods = sorted({METHOD_NAMES.get(a.method, a.method)
                          for a in attributions if a is not None})
        left = ("Left, <b>attention</b>: each word's colour is the attention it receives "
                "(mean over the words attending to it), scaled to the document's largest: low "
                "<span class='legend'></span> high. " if any(ex.attention for ex in explanations)
                else "Left, <b>attention</b>: none (the model has no attention layer). ")
        legend = ("<p class='legend-text'>" + left +
                  f"Right, <b>{html.escape(', '.join(methods) or 'attribution')}</b>: each "
                  "word's score for the explained (predicted) class, scaled to the "
                  "document's largest |score|: against the class "
                  "<span class='legend-signed'></span> for the class (purple: the word "
                  "lowers the class's probability, green: it raises it, white: no effect). "
                  "Hover a word for its raw value.</p>")
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
             f"</title><style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>",
             legend]
    for d, ex in enumerate(explanations):
        attribution = attributions[d] if attributions is not None else None
        parts.extend(_document_parts(d, ex, class_names, attribution,
                                     images[d] if images else ()))
    parts.append("</body></html>")
    page = "\n".join(parts)
    if path is None:
        return page
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(page)
    return path
