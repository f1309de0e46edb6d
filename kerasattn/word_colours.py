"""The palette every explanation page colours words with (the standard library only).

One palette for the three HTML outputs: ``kerasattn.interpret.plots`` (the pages of
``kerasattn explain`` and the notebook views), ``kerasattn.saved_model_page`` (``predict
--explain``, which loads no model code) and the explanation server's page, whose script
(``interpret/page/explain.js``) mirrors these two functions (a test keeps them equal).
Attention is red, its opacity growing with the weight; a signed attribution is green
for the class and purple against it (the ends of ColorBrewer's PRGn).
"""

import html
import math

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


def attention_spans(words, values):
    """Words as ``<span class='w'>`` coloured by their value over the largest (its raw
    value on hover), joined by spaces."""
    top = max([float(v) for v in values] + [0.0])
    spans = []
    for w, v in zip(words, values):
        colour = attention_colour(float(v) / top if top > 0 else 0.0)
        spans.append(f"<span class='w' style='background:{colour}' title='{float(v):.4f}'>"
                     f"{html.escape(str(w))}</span>")
    return " ".join(spans)
