"""A run's explanation report: an HTML page of its attention (and a token attribution
beside it) for given texts, and a heatmap PNG per attention layer and text, as
``kerasattn explain --output FILE.html`` writes them.

For hierarchical models (HCAN, HAN) the page shows every sentence on its own
line with its sentence-level weights and its words coloured by their
word-level weights, and ``FILE-<n>-<word layer>.png`` draws the same grid
(the HCAN paper's Figure 4) for each word-level pooling layer.

A pooling layer with one weight per word (the Transformer's inter-attention)
gets ``FILE-<n>-<layer>.png``: the text with each word's background as dark as
its weight (the Transformer paper's Figures 11–12), the PNG twin of its line
on the page.

For IRAM the page has one line per attention step (words coloured, then the
step's weights on the earlier summaries) and ``FILE-<n>-<layer>.png`` is the
words × steps matrix with the summary rows below the words (the IRAM paper's
Figure 6).
"""

import glob
import os

from kerasattn.interpret import Explanation, attention_layers, extract_attention
from kerasattn.interpret.attributions import (applicable_methods, explain_tokens,
                                              predict_probabilities, prepare_documents)
from kerasattn.interpret.plots import (METHOD_NAMES, attention_heatmap, attention_html,
                                       hierarchical_heatmap, hierarchical_levels,
                                       iterative_heatmap, word_colour_map)


def heatmaps_of(output):
    """The heatmaps an earlier page at ``output`` left beside it (``STEM-<n>-<layer>.png``),
    which :func:`write_report` would overwrite."""
    stem = glob.escape(os.path.splitext(output)[0])
    return sorted(glob.glob(f"{stem}-[0-9]*-*.png"))


def _token_attribution(model, texts, pre, method, steps):
    """The run's attributions of ``texts`` by ``method`` (None for ``"none"``)."""
    if method == "none":
        return None
    available = applicable_methods(model)
    if method not in available:
        raise ValueError(f"--attribution {method} does not apply to model {model.name!r} "
                         f"(it takes: {', '.join(available)}, or none)")
    return explain_tokens(model, texts, pre, method=method, steps=steps)


def _explanations(model, texts, pre):
    """The attention of each text (``extract_attention``); a model without attention
    gets each text's tokens and probabilities with an empty ``attention``."""
    if attention_layers(model):
        return extract_attention(model, texts, pre)
    _, docs, tokens, lay = prepare_documents(model, texts, pre)
    probs = predict_probabilities(model, docs)
    return [Explanation(tokens=t, probabilities=p.astype("float32"), attention={}, axes={},
                        hierarchical=lay.hierarchical) for t, p in zip(tokens, probs)]


def write_report(model, pre, texts, output, class_names=None, model_name="model",
                 max_tokens=80, heatmaps=True, attribution="integrated_gradients", steps=50):
    """Write the page (and heatmaps beside it) for ``texts``; returns (html path, png
    paths).

    Args:
        model: a zoo Keras model on token ids; ``pre``: its ``TextPreprocessor``.
        texts: the texts to explain; ``output``: the HTML file.
        class_names: the classes' names (default: their indices).
        model_name: what the page's title calls the model (``MODEL on DATASET``).
        max_tokens: heatmaps show at most this many words.
        heatmaps: draw a PNG per attention layer and text.
        attribution: the :func:`kerasattn.interpret.explain_tokens` method shown beside
            the attention (``"none"``: the attention only; a model without attention then
            shows its predictions alone).
        steps: integrated gradients' steps.
    """
    attributions = _token_attribution(model, texts, pre, attribution, steps)
    explanations = _explanations(model, texts, pre)
    stem = os.path.splitext(output)[0]
    images, pngs = [], []
    page_dir = os.path.dirname(os.path.abspath(output))
    for i, ex in enumerate(explanations):
        mine = []
        names = class_names or [str(c) for c in range(len(ex.probabilities))]

        def draw(label, plot, *args, **kwargs):
            """Write ``FILE-<n>-<label>.png`` with ``plot`` and list it under text n."""
            png = f"{stem}-{i + 1}-{label}.png"
            plot(*args, png, **kwargs)
            pngs.append(png)
            mine.append(os.path.relpath(png, page_dir))

        title = f"text {i + 1}: predicted {names[ex.label]}"
        if ex.hierarchical:
            word_layers, sentence_layers = hierarchical_levels(ex)
            # the pooling layers (weights over tokens, not query x key matrices)
            pools = [n for n in sentence_layers if "query" not in ex.axes[n]]
            for name in word_layers if heatmaps and pools and any(ex.tokens) else ():
                if "query" not in ex.axes[name]:
                    draw(name, hierarchical_heatmap, ex, name, pools[-1], title=title)
        for name, weights in ex.attention.items() if heatmaps and ex.tokens and \
                not ex.hierarchical else ():
            axes = ex.axes[name]
            titled = f"text {i + 1}, {name}: predicted {names[ex.label]}"
            if axes == ("step", "memory"):  # IRAM: words x steps (its paper's Figure 6)
                draw(name, iterative_heatmap, weights, ex.tokens, max_tokens=max_tokens,
                     title=titled)
            elif axes == ("token",):  # a pooling layer: the text coloured by its weights
                draw(name, word_colour_map, weights, ex.tokens, title=titled)
            elif axes == ("query", "key"):
                draw(name, attention_heatmap, weights, ex.tokens, max_tokens=max_tokens,
                     title=titled)
            elif axes == ("head", "query", "key"):
                for h in range(weights.shape[0]):
                    draw(f"{name}-head{h}", attention_heatmap, weights[h], ex.tokens,
                         max_tokens=max_tokens,
                         title=f"text {i + 1}, {name}-head{h}: predicted {names[ex.label]}")
        images.append(mine)
    what = [name for name, present in (
        ("attention", any(ex.attention for ex in explanations)),
        (METHOD_NAMES.get(attribution, attribution), attributions is not None)) if present]
    attention_html(explanations, output, class_names,
                   title=f"{model_name}: "
                         f"{' and '.join(what) or 'predictions'}",
                   images=images, attributions=attributions)
    return output, pngs
