"""The package's imports run one way: no two parts of kerasattn import each other,
however indirectly (every import counted, those inside functions too), and no module's
import runs back into itself (module-scope imports between modules, within a part too)."""

import ast
import collections
import pathlib

import kerasattn

ROOT = pathlib.Path(kerasattn.__file__).parent


def _module(path):
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _part(module):
    """The part of the package a module belongs to: ``kerasattn.training.core`` ->
    ``training``; the package's own ``__init__`` -> ``kerasattn``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "kerasattn"


def _runtime_tree(source):
    """``source`` parsed, without the bodies of ``if TYPE_CHECKING:`` blocks: imports
    for type checkers only, never run."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and (getattr(node.test, "id", None) == "TYPE_CHECKING"
                                         or getattr(node.test, "attr", None)
                                         == "TYPE_CHECKING"):
            node.body = [ast.Pass()]
    return tree


def import_graph():
    """part -> the other parts it imports."""
    graph = collections.defaultdict(set)
    for path in ROOT.rglob("*.py"):
        source = _module(path)
        for node in ast.walk(_runtime_tree(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in targets:
                if target.startswith("kerasattn.") and _part(target) != _part(source):
                    graph[_part(source)].add(_part(target))
    return graph


def _cycle(graph):
    """One cycle of ``graph`` as a list of parts, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_two_parts_of_the_package_import_each_other():
    graph = import_graph()
    assert "layers" in graph.get("models", ())  # the graph is read
    cycle = _cycle({k: v - {"kerasattn"} for k, v in graph.items()})  # __version__ only
    assert cycle is None, " -> ".join(cycle)


def test_imports_for_type_checkers_only_are_not_run():
    source = ("from typing import TYPE_CHECKING\nimport typing\nif TYPE_CHECKING:\n"
              "    from kerasattn import a\nif typing.TYPE_CHECKING:\n    import kerasattn.b\n"
              "else:\n    import kerasattn.c\n")
    found = [n for n in ast.walk(_runtime_tree(source))
             if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert [getattr(n, "module", None) or n.names[0].name for n in found] == [
        "typing", "typing", "kerasattn.c"]


def test_the_cycle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def _module_scope_imports(tree):
    """The import statements a module runs when it is imported: those of its body,
    its classes and its if/try blocks, not those inside functions."""
    found, todo = [], list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and getattr(node.value.func, "attr", "") == "import_module" \
                and node.value.args and isinstance(node.value.args[0], ast.Constant):
            found.append(ast.Import(names=[ast.alias(name=node.value.args[0].value)]))
        todo.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))
    return found


def _every_import(tree):
    found = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    return found + [ast.Import(names=[ast.alias(name=node.args[0].value)])
                    for node in ast.walk(tree) if isinstance(node, ast.Call)
                    and getattr(node.func, "attr", "") == "import_module" and node.args
                    and isinstance(node.args[0], ast.Constant)]


def module_graph(imports=_module_scope_imports):
    """module -> the kerasattn modules it imports (``from a import b`` counts as ``a.b``
    when that is a module, else as ``a``; at module scope, ``importlib.import_module``
    with a literal counts too); ``imports=_every_import`` counts those inside functions."""
    modules = {_module(path): path for path in ROOT.rglob("*.py")}
    graph = collections.defaultdict(set)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in imports(_runtime_tree(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = node.module if node.level == 0 else ".".join(
                    package.split(".")[:len(package.split(".")) - node.level + 1]
                    + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                           for a in node.names]
            graph[name] |= {t for t in targets if t in modules and t != name}
    return graph


def test_no_module_imports_itself_back_when_it_is_imported():
    """A circle of module-scope imports between modules (of one part or several) fails
    at import time with a half-made module; the parts' test above cannot see one inside
    a part."""
    graph = module_graph()
    assert "kerasattn.layers" in graph["kerasattn.models.sanet"] or \
        any(t.startswith("kerasattn.layers") for t in graph["kerasattn.models.sanet"])
    cycle = _cycle(graph)
    assert cycle is None, " -> ".join(cycle)


def test_no_two_modules_import_each_other_even_inside_functions():
    """Nor does any circle of modules close through an import inside a function: a
    function-level import is there for a light path (no TensorFlow), never to hide a
    circle."""
    cycle = _cycle(module_graph(_every_import))
    assert cycle is None, " -> ".join(cycle)


def test_the_module_graph_sees_a_circle_inside_a_part(tmp_path, monkeypatch):
    package = tmp_path / "kerasattn"
    (package / "part").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "part" / "__init__.py").write_text("")
    (package / "part" / "a.py").write_text("from kerasattn.part import b\n")
    (package / "part" / "b.py").write_text("import importlib\n"
                                           "importlib.import_module('kerasattn.part.a')\n"
                                           "def later():\n    from kerasattn import c\n")
    (package / "c.py").write_text("")
    monkeypatch.setitem(globals(), "ROOT", package)
    graph = module_graph()
    assert graph["kerasattn.part.a"] == {"kerasattn.part.b"}
    assert graph["kerasattn.part.b"] == {"kerasattn.part.a"}  # not c: inside a function
    assert module_graph(_every_import)["kerasattn.part.b"] == {"kerasattn.part.a",
                                                              "kerasattn.c"}
    assert _cycle(graph) in (["kerasattn.part.a", "kerasattn.part.b", "kerasattn.part.a"],
                             ["kerasattn.part.b", "kerasattn.part.a", "kerasattn.part.b"])
