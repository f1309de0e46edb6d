"""Imports sit at the top of their module. One inside a function (or method) stays there
only for a reason, given in a ``#`` comment on its line: the module must load without
TensorFlow or Keras, an optional heavy dependency of one feature, a cycle that hoisting
would make."""

import ast
import pathlib

import pytest

import kerasattn

ROOT = pathlib.Path(kerasattn.__file__).parent

# every module of the package
COVERED = ("**/*.py",)
FILES = sorted({path for pattern in COVERED for path in ROOT.glob(pattern)})


def uncommented_function_imports(path):
    """``(line, source)`` of each import inside a function or method of the file at
    ``path`` whose line has no ``#`` comment."""
    source = pathlib.Path(path).read_text(encoding="utf-8")
    lines = source.splitlines()
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, (ast.Import, ast.ImportFrom)) \
                    and "#" not in lines[child.lineno - 1]:
                found.append((child.lineno, lines[child.lineno - 1].strip()))
            visit(child, in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(source, filename=str(path)), False)
    return found


def test_the_list_names_files():
    assert len(FILES) >= len(COVERED) and ROOT / "__init__.py" in FILES
    assert ROOT / "interpret" / "attention.py" in FILES
    assert ROOT / "data" / "datasets" / "splits.py" in FILES  # ** reaches subpackages


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_an_import_inside_a_function_says_why(path):
    found = uncommented_function_imports(path)
    assert found == [], (f"{path.relative_to(ROOT)}: move these imports to the top, or say "
                         "on their line why they stay: "
                         + "; ".join(f"line {n}: {text}" for n, text in found))


def test_the_check_catches_an_uncommented_import(tmp_path):
    module = tmp_path / "module.py"
    module.write_text("import os\n"
                      "\n"
                      "def f():\n"
                      "    import json\n"
                      "    import keras  # late: a reason\n"
                      "    return json\n"
                      "\n"
                      "class C:\n"
                      "    import re\n"  # a class body runs on import: the top, as it were
                      "\n"
                      "    def m(self):\n"
                      "        def inner():\n"
                      "            from collections import deque\n"
                      "        return inner\n",
                      encoding="utf-8")
    assert uncommented_function_imports(module) == [
        (4, "import json"), (13, "from collections import deque")]
