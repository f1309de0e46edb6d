"""Flat and hierarchical documents differ behind one interface (:mod:`kerasattn.data.layout`):
how texts become ids (the preprocessor), how a document's padding is cut and how scores map
back to words (a layout's methods). A branch on ``hierarchical`` elsewhere is one of the
few below, each a thing of its own kind; a new one asks the layout instead."""

import ast
import collections
import pathlib

import kerasattn

ROOT = pathlib.Path(kerasattn.__file__).parent

# file -> how many branches on "hierarchical" it keeps, and why
KEPT = {
    "models/hcan.py": 2,  # the builder: HCAN's word encoder under its sentence encoder
    "data/preprocessing.py": 2,  # texts -> ids: splitting sentences; its limits' check
    "tasks.py": 2,  # the error line for a preprocessor of the other kind
    "interpret/attention.py": 3,  # the same error line, for explanations
    "training/portable_fit.py": 1,  # a prepared run's arrays checked against its model
    "cli/presets.py": 1,  # the table's "kind" column
    "explanation_pages.py": 2,  # drawing: a hierarchical text shows a line per sentence
    "interpret/report.py": 2,  # drawing: sentence x word heatmaps
    "interpret/attributions.py": 1,  # attention scores: sentence weights times word weights
}


def branches(source):
    """The line numbers of ``if``/``while``/conditional expressions testing a name or
    attribute that says "hierarchical" (or the key ``"hierarchical"``)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.If, ast.IfExp, ast.While)):
            words = [n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)]
            words += [n.attr for n in ast.walk(node.test) if isinstance(n, ast.Attribute)]
            words += [n.value for n in ast.walk(node.test)
                      if isinstance(n, ast.Constant) and isinstance(n.value, str)]
            if any("hierarchical" in w for w in words):
                lines.append(node.lineno)
    return sorted(lines)


def test_the_branch_finder_sees_each_kind_of_branch():
    source = ("if x.hierarchical:\n    pass\n"
              "y = 3 if hierarchical else 2\n"
              "while config['hierarchical']:\n    break\n"
              "z = layout.rank\n")
    assert branches(source) == [1, 3, 4]


def test_flat_and_hierarchical_documents_differ_only_where_listed():
    found = collections.Counter()
    where = collections.defaultdict(list)
    for path in ROOT.rglob("*.py"):
        name = path.relative_to(ROOT).as_posix()
        if name == "data/layout.py":
            continue
        lines = branches(path.read_text(encoding="utf-8"))
        if lines:
            found[name] = len(lines)
            where[name] = lines
    more = {name: where[name] for name in found if found[name] > KEPT.get(name, 0)}
    assert not more, (f"branches on 'hierarchical' outside kerasattn/data/layout.py: {more}; "
                      "ask the documents' Layout (kerasattn.data.layout) instead")
    assert dict(found) == KEPT, "a kept branch went: lower its count in KEPT"
