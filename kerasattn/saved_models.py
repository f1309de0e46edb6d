"""Checking an exported SavedModel before it is read (standard library only, so
``kerasattn predict`` stays on the SavedModel alone)."""

import json
import os

MARKER = ".kerasattn"  # kerasattn.ownership.MARKER (not imported: predict loads no package code)


def check(path, explain=False):
    """Raise ``ValueError`` (one line) unless ``path`` is an exported SavedModel version
    whose files are whole enough to load: a directory (not a link) holding
    ``saved_model.pb``, its variables (index and data shards) and the assets the
    commands read (``assets/labels.txt``; ``assets/attention.json`` with ``explain``),
    and, if it has a kerasattn marker, one of an export. Returns ``path``."""
    if os.path.islink(path):
        raise ValueError(f"{path} is a symbolic link, not a SavedModel directory")
    if not os.path.isdir(path):
        raise ValueError(f"{path}: no such SavedModel directory")
    if not os.path.isfile(os.path.join(path, "saved_model.pb")):
        raise ValueError(f"{path} is not a SavedModel (no saved_model.pb)")
    try:
        with open(os.path.join(path, MARKER), encoding="utf-8") as fh:
            kind = json.load(fh).get("kind")
    except (OSError, ValueError, AttributeError):
        kind = "export"
    if kind != "export":
        raise ValueError(f"{path} is a kerasattn {kind} directory, not a SavedModel")
    variables = os.path.join(path, "variables")
    shards = [n for n in (os.listdir(variables) if os.path.isdir(variables) else [])
              if n.startswith("variables.data-")]
    missing = [f for f in ("variables/variables.index", "assets/labels.txt",
                           *(["assets/attention.json"] if explain else []))
               if not os.path.isfile(os.path.join(path, f))]
    if not shards:
        missing.insert(1, "variables/variables.data-*")
    if missing:
        raise ValueError(f"{path} is damaged or not a kerasattn export: "
                         f"{', '.join(missing)} missing")
    return path
