"""``kerasattn presets``: list the zoo's presets.

    kerasattn presets                      # every preset: family, kind, recipes, description
    kerasattn presets --family sanet       # one family
    kerasattn presets --json               # name -> {family, kind, description, paper, ...}

Keras presets train with ``kerasattn train`` and load with
``TextClassifier.from_preset(NAME)``; the scikit-learn ones (``nb``, ``lr``) with
``kerasattn train`` and ``kerasattn.models.get(NAME)``. Argument parsing only:
:func:`kerasattn.models.describe` lists them, and the families are those registered
(:func:`kerasattn.models.families`). Neither Keras nor TensorFlow is imported.
"""

import json
import os
import sys

from kerasattn import models  # the preset tables: data, no Keras or TensorFlow
from kerasattn.cli.parsing import ArgumentParser


def build_parser():
    p = ArgumentParser(prog="kerasattn presets", description=__doc__.split("\n\n")[0])
    p.add_argument("--family", choices=models.families(), help="only this family's presets")
    p.add_argument("--kind", choices=("keras", "classical"),
                   help="only Keras presets (TextClassifier.presets) or scikit-learn ones")
    p.add_argument("--json", action="store_true", help="one JSON object, name -> details")
    return p


def table(presets):
    """The presets as aligned text lines: name, family, kind, recipes, description."""
    rows = [("preset", "family", "kind", "recipes", "description")]
    rows += [(name, p["family"], p["kind"] + (", hierarchical" if p["hierarchical"] else ""),
              ", ".join(p["recipes"]), p["description"]) for name, p in presets.items()]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return ["  ".join(f"{c:<{w}}" for c, w in zip(r[:4], widths)) + "  " + r[4] for r in rows]


def main(argv=None):
    args = build_parser().parse_args(argv)
    presets = {name: p for name, p in models.describe(args.kind).items()
               if args.family in (None, p["family"])}
    text = (json.dumps(presets, indent=2, ensure_ascii=False) if args.json
            else "\n".join(table(presets)))
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader had enough (kerasattn presets | head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (Python's docs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
