"""The page of :mod:`kerasattn.explain_server`: one self-contained HTML file (inline CSS
and JavaScript, nothing loaded from anywhere else), made from the package's data files
``kerasattn/interpret/page/explain.html``, ``explain.css`` and ``explain.js``.

:func:`render_page` fills in the run's name, model and dataset (escaped) and a JSON
copy of ``ExplainService.info`` for the script. The script posts the texts to
``api/explain`` and draws, per text: the prediction and probabilities; the
attention per word (the ranking used for deletion) beside the gradient attribution
(diverging colours: green for the predicted class, purple against it); what
deleting the top-k attended words does to the prediction; and every attention
layer as a colour map over the words and as heatmaps (canvas; hover a word or a
cell for its value).
"""

import functools
import html
import importlib.resources
import json
import re


@functools.cache
def page_file(name):
    """The text of ``kerasattn/interpret/page/NAME`` (package data)."""
    return importlib.resources.files("kerasattn.interpret").joinpath("page", name) \
        .read_text(encoding="utf-8")


def _script_json(obj):
    """JSON safe inside a <script> element (no "</script>", no "<!--")."""
    return (json.dumps(obj, ensure_ascii=True).replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("&", "\\u0026"))


def render_page(info):
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
