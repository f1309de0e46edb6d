"""Every HTML page of an explanation, rendered in one place (NumPy and the standard
library only: no Keras, no TensorFlow).

- :func:`attention_html`: the colour-map page of ``kerasattn explain`` (each word's
  background as dark as the attention it receives, one line per attention layer; a
  token attribution beside it in a diverging palette), also what
  ``kerasattn predict --explain`` writes from an exported SavedModel
  (:mod:`kerasattn.saved_model_page`, which loads no model code);
- :func:`explanation_html` / :func:`attribution_html`: one document as a fragment with
  its own styles, what a notebook shows (``_repr_html_``): every rule of its ``<style>``
  is scoped to the fragment's root element (a unique id, ``kerasattn-<hex>``), and so is
  every id inside it, so two fragments on one page restyle nothing outside themselves
  and share no id;
- :func:`server_page`: the explanation server's page, made from the package data files
  ``kerasattn/interpret/page/explain.html``, ``explain.css`` and ``explain.js``; its
  script draws in the browser with the same palette (:func:`attention_colour`,
  :func:`signed_colour`; a test keeps the two equal).

An explanation is anything with ``tokens`` (words, or a list of sentences of words
when ``hierarchical``), ``probabilities``, ``attention`` (layer name -> weights with
the padding cut: :func:`trim_padding`) and ``axes`` (layer name -> the weights' axis
names), e.g. :class:`kerasattn.interpret.Explanation`.

The palette: attention is red, its opacity growing with the weight; a signed
attribution is green for the class and purple against it (the ends of ColorBrewer's
PRGn, readable with the common colour-vision deficiencies).
"""

import functools
import html
import importlib.resources
import json
import math
import os
import re

import numpy as np

TOKEN_AXES = ("query", "key", "token")

ATTENTION_RGB = (220, 38, 38)
# the ends of ColorBrewer's PRGn diverging palette: positive green, negative purple
POSITIVE_RGB, NEGATIVE_RGB = (27, 120, 55), (118, 42, 131)


def _rgba(rgb, alpha):
    return f"rgba({rgb[0]}, {rgb[1]}, {rgb[2]}, {alpha:.3f})"


def attention_colour(value):
    """Background for an intensity in [0, 1]: transparent to saturated red."""
    return _rgba(ATTENTION_RGB, 0.05 + 0.85 * min(value, 1.0)) if value > 0 else "transparent"


def signed_colour(value):
    """Background for a signed score scaled to [-1, 1]: purple (negative) through
    transparent (0) to green (positive), the opacity growing with |value|."""
    if not math.isfinite(value) or value == 0:
        return "transparent"
    return _rgba(POSITIVE_RGB if value > 0 else NEGATIVE_RGB,
                 0.05 + 0.85 * min(abs(value), 1.0))


def _span(text, colour, title, cls="w"):
    """One coloured word (or badge), ``title`` shown on hover; both escaped."""
    return (f"<span class='{cls}' style='background:{colour}' title='{html.escape(title)}'>"
            f"{html.escape(str(text))}</span>")


def _scale(value, top):
    return value / top if top > 0 else value * 0.0


def attention_spans(words, values, top=None):
    """Words as ``<span class='w'>`` coloured by their value over ``top`` (default: the
    largest value), the raw value on hover, joined by spaces."""
    if top is None:
        top = max([float(v) for v in values] + [0.0])
    return " ".join(_span(w, attention_colour(_scale(float(v), top)), f"{float(v):.4f}")
                    for w, v in zip(words, values))


def trim_padding(weights, axes, n, sentences=None):
    """Cut the padding: token axes to ``n``; a "sentence" axis to ``sentences``; a
    "memory" axis to its first ``n`` entries and its last (steps − 1)."""
    weights = np.asarray(weights)
    if "memory" in axes:
        axis = axes.index("memory")
        total, summaries = weights.shape[axis], weights.shape[axes.index("step")] - 1
        keep = np.r_[0:min(n, total - summaries), total - summaries:total]
        weights = np.take(weights, keep, axis=axis)
    index = tuple(slice(0, n) if a in TOKEN_AXES else
                  slice(0, sentences) if a == "sentence" else slice(None) for a in axes)
    return np.asarray(weights[index], dtype=np.float32)


def trim_document(weights, axes, doc, layout):
    """Every attention layer's weights of one document with the padding cut
    (:func:`trim_padding`): ``weights`` and ``axes`` map layer names to the padded weights
    and their axis names; ``doc`` is the document's tokens, laid out as ``layout`` (a
    :class:`~kerasattn.data.layout.Layout`) says. A word-level layer's token axes run over
    the (longest sentence's) words, a sentence-level layer's over the sentences."""
    words, sentences = layout.extents(doc)

    def tokens(layer_axes):  # a sentence-level layer's tokens are the sentences
        return sentences if sentences is not None and "sentence" not in layer_axes else words

    return {name: trim_padding(weights[name], axes[name], tokens(axes[name]), sentences)
            for name in axes}


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


def _step_lines(name, weights, tokens):
    """HTML of IRAM's ("step", "memory") weights: one line per step, its words
    coloured, then its weights on the earlier summaries."""
    weights = np.asarray(weights, dtype=np.float64)
    n, lines = len(tokens), []
    for t, row in enumerate(weights, 1):
        top = float(row.max(initial=0))
        spans = [attention_spans(tokens, row[:n], top)] if n else []
        spans += [_span(f"s{k} {float(v):.2f}", attention_colour(_scale(float(v), top)),
                        f"summary {k}: {float(v):.4f}", "s")
                  for k, v in enumerate(row[n:], 1)]
        lines.append(f"<div class='layer'><span class='layer-name'>{html.escape(name)}, "
                     f"step {t}</span>{' '.join(spans)}</div>")
    return lines


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
                colour = attention_colour(_scale(value, float(received[s_name].max())))
                badges.append(_span(f"{value:.2f}", colour, f"{s_name}: {value:.4f}", "s"))
            lines.append(f"<div class='sentence'>{''.join(badges)}"
                         f"{attention_spans(sentence, values, top)}</div>")
        lines.append("</div>")
    return lines


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
        scaled = [_scale(float(v), top) for v in values]
        return " ".join(_span(w, signed_colour(s), f"{float(v):+.4f}",
                              "a strong" if abs(s) > 0.6 else "a")
                        for w, v, s in zip(words, values, scaled))

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
        spans = attention_spans(ex.tokens, received_attention(weights, ex.axes[name]))
        parts.append(f"<div class='layer'><span class='layer-name'>{html.escape(name)}"
                     f"</span>{spans}</div>")
    return parts


def _document_parts(doc_id, ex, names, attribution=None, images=()):
    """The HTML of one document (its element's id ``doc_id``): prediction, probabilities,
    attention (and attribution)."""
    probs = np.asarray(ex.probabilities, dtype=np.float64)
    names = names or [str(i) for i in range(len(probs))]
    label = int(np.argmax(probs))
    parts = [f"<div class='doc' id='{html.escape(doc_id)}'>",
             f"<div class='pred'>prediction: {html.escape(str(names[label]))} "
             f"({probs[label]:.1%})</div><div class='probs'>"
             + ", ".join(f"{html.escape(str(n))} {p:.3f}" for n, p in zip(names, probs))
             + "</div>"]
    if not ex.tokens:
        parts.append("<p><em>(empty text: no words)</em></p>")
    if attribution is None:
        # a model without attention: the attribution its explanation carries instead
        parts.extend(_attention_lines(ex) or (
            _attribution_lines(ex.attribution, names)
            if ex.tokens and getattr(ex, "attribution", None) is not None else []))
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


class FragmentError(ValueError):
    """A notebook fragment that cannot be scoped: a root id that is no plain CSS
    identifier, or a style rule that would reach outside the fragment."""


# a fragment's root id: a letter, then letters, digits, "-" and "_" (a CSS identifier as
# it is, needing no escape in a selector nor in an attribute)
_ROOT_ID = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
# the page's own elements, which in a fragment are its root
_PAGE_ELEMENT = re.compile(r"(?:html|body|:root)(?![\w-])", re.IGNORECASE)
# at-rules holding style rules (scoped inside), and those holding no selector (kept)
_GROUP_RULES = ("@media", "@supports", "@container", "@layer")
_SELECTORLESS_RULES = ("@font-face", "@keyframes", "@-webkit-keyframes", "@property",
                       "@counter-style")


def new_root_id() -> str:
    """A fresh id for a fragment's root element: ``kerasattn-`` and 32 random hex digits
    (unique across fragments, notebook sessions and kernels)."""
    return f"kerasattn-{os.urandom(16).hex()}"


def _split_selectors(prelude: str) -> list[str]:
    """A rule's selector list split at its top-level commas (not those inside ``:is(…)``
    or ``[…]``)."""
    parts: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(prelude):
        depth += 1 if ch in "([" else -1 if ch in ")]" else 0
        if ch == "," and depth == 0:
            parts.append(prelude[start:i])
            start = i + 1
    parts.append(prelude[start:])
    return [p.strip() for p in parts if p.strip()]


def _scope_selector(selector: str, root: str) -> str:
    """``selector`` under ``#root``: ``.doc`` -> ``#root .doc``; the page's own elements
    (``html``, ``body``, ``:root``) become the root itself (``body`` -> ``#root``,
    ``body.dark p`` -> ``#root.dark p``, ``body > p`` -> ``#root > p``)."""
    rest = selector.strip()
    while (m := _PAGE_ELEMENT.match(rest)):
        rest = rest[m.end():]
        after = rest.lstrip()
        if after == rest:  # the root's own compound goes on (body.dark) or ends (body)
            return f"#{root}{rest}"
        if after.startswith(("~", "+")):  # the page element's siblings: outside the fragment
            raise FragmentError(f"cannot scope the selector {selector!r} to a fragment "
                                "(it names a sibling of the page)")
        if after.startswith(">"):
            after = after[1:].lstrip()
            if not _PAGE_ELEMENT.match(after):
                return f"#{root} > {after}"
        rest = after
    if rest.startswith(("~", "+", ">")):
        raise FragmentError(f"cannot scope the selector {selector!r} to a fragment "
                            "(it starts with a combinator)")
    return f"#{root} {rest}" if rest else f"#{root}"


def _scope_css(css: str, root: str) -> str:
    """Every rule of the stylesheet ``css`` scoped to the element with id ``root``
    (:func:`_scope_selector`), inside ``@media``/``@supports`` too; declarations are kept
    as they are. Comments are dropped; a statement outside a rule (``@import``) or an
    at-rule other than those above and selector-less ones (``@keyframes``,
    ``@font-face``) raises :class:`FragmentError`."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    rules: list[str] = []
    i = 0
    while (start := css.find("{", i)) >= 0:
        prelude = " ".join(css[i:start].split())
        if ";" in prelude or "}" in prelude:
            raise FragmentError(f"cannot scope {prelude!r}: a statement outside a rule")
        depth = 0
        for end in range(start, len(css)):
            depth += {"{": 1, "}": -1}.get(css[end], 0)
            if depth == 0:
                break
        else:
            raise FragmentError(f"cannot scope the rule {prelude!r}: its braces do not close")
        body = css[start + 1:end]
        if prelude.startswith("@"):
            name = prelude.split()[0].lower()
            if name in _GROUP_RULES:
                body = "\n" + _scope_css(body, root) + "\n"
            elif name not in _SELECTORLESS_RULES:
                raise FragmentError(f"cannot scope the at-rule {name} to a fragment")
            rules.append(f"{prelude} {{{body}}}")
        else:
            selectors = ", ".join(_scope_selector(s, root) for s in _split_selectors(prelude))
            rules.append(f"{selectors} {{{body}}}")
        i = end + 1
    if css[i:].strip():
        raise FragmentError(f"cannot scope {' '.join(css[i:].split())!r}: "
                            "a statement outside a rule")
    return "\n".join(rules)


def _scoped_style(root: str) -> str:
    """:data:`_STYLE` for a fragment inside another page (a notebook): every rule scoped
    to the fragment's root element ``#root``, the body rule the root's own."""
    return _scope_css(_STYLE, root)


def fragment_root(root_id: str | None = None) -> str:
    """A fragment's root id: ``root_id`` checked (a letter, then letters, digits, ``-`` or
    ``_``; else :class:`FragmentError`), or a fresh one (:func:`new_root_id`) where it is
    None."""
    if root_id is None:
        return new_root_id()
    if not isinstance(root_id, str) or not _ROOT_ID.fullmatch(root_id):
        raise FragmentError(f"root_id must be a letter then letters, digits, '-' or '_', "
                            f"got {root_id!r}")
    return root_id


def fragment(root: str, inner: str, css: str | None = None,
             wrapper: str = "kerasattn-explanation") -> str:
    """A notebook fragment: a ``<div class=wrapper>`` holding the stylesheet ``css``
    (default: the explanation pages' own) with every rule scoped to ``#root``
    (:func:`_scope_css`), and the root element (id ``root``) holding ``inner``, whose ids
    must all start with ``root``."""
    style = _scoped_style(root) if css is None else _scope_css(css, root)
    return (f"<div class='{html.escape(wrapper)}'><style>{style}</style>"
            f"<div class='kerasattn-root' id='{root}'>{inner}</div></div>")


def explanation_html(explanation, class_names: list[str] | None = None, attribution=None,
                     *, root_id: str | None = None) -> str:
    """One document's colour map as an HTML fragment (its own styles inside): what a
    notebook shows for an :class:`~kerasattn.interpret.Explanation` (``_repr_html_``).

    Every rule of the fragment's ``<style>`` applies only inside the fragment (under its
    root element's id), and every id in it starts with that root id, so fragments side by
    side on one page (a notebook's outputs) restyle nothing else and share no id.
    ``root_id`` names the root (a letter, then letters, digits, ``-`` or ``_``; two
    fragments on one page need two); None, the default: a fresh one
    (:func:`new_root_id`), so two renderings of one explanation differ only by it.
    """
    names = class_names or getattr(explanation, "class_names", None)
    root = fragment_root(root_id)
    return fragment(root, "".join(_document_parts(f"{root}-doc", explanation, names,
                                                  attribution)))


def attribution_html(attribution, class_names: list[str] | None = None, *,
                     root_id: str | None = None) -> str:
    """One document's token scores as an HTML fragment (diverging colours: green for
    the explained class, purple against it): a notebook's view of a
    :class:`~kerasattn.interpret.TokenAttribution` (``_repr_html_``). Its styles and ids
    are the fragment's own, as :func:`explanation_html`'s (``root_id`` likewise)."""
    names = class_names or getattr(attribution, "class_names", None)
    probs = np.asarray(attribution.probabilities, dtype=np.float64)
    names = names or [str(i) for i in range(len(probs))]
    return fragment(fragment_root(root_id), "<div class='doc'>"
                    + "".join(_attribution_lines(attribution, names)) + "</div>")


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
        parts.extend(_document_parts(f"doc-{d}", ex, class_names, attribution,
                                     images[d] if images else ()))
    parts.append("</body></html>")
    page = "\n".join(parts)
    if path is None:
        return page
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    # late: kerasattn predict loads this renderer and no other package code
    # (tests/test_export.py): the page's file is written only when it is asked for
    from kerasattn import ownership  # late: see above

    ownership.write_text(path, page)  # whole, following no link
    return path


@functools.cache
def page_file(name):
    """The text of ``kerasattn/interpret/page/NAME`` (package data)."""
    return importlib.resources.files("kerasattn.interpret").joinpath("page", name) \
        .read_text(encoding="utf-8")


def _script_json(obj):
    """JSON safe inside a <script> element (no "</script>", no "<!--")."""
    return (json.dumps(obj, ensure_ascii=True).replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("&", "\\u0026"))


def server_page(info):
    """The page's HTML for a run (``ExplainService.info``)."""
    def esc(value):
        return html.escape(str(value if value is not None else "?"))

    fields = {"INFO": _script_json(info), "RUN": esc(info.get("run")),
              "MODEL": esc(info.get("model")), "DATASET": esc(info.get("dataset")),
              "CLASSES": esc(", ".join(info.get("class_names") or [])),
              "STYLE": page_file("explain.css").rstrip("\n"),
              "SCRIPT": page_file("explain.js").rstrip("\n")}
    # one pass: a value (the style and the script included) is never searched for
    # placeholders again
    return re.sub(r"__(INFO|RUN|MODEL|DATASET|CLASSES|STYLE|SCRIPT)__",
                  lambda m: fields[m.group(1)], page_file("explain.html"))
