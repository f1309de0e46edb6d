"""The package's imports run one way: no two parts of kerasattn import each other,
however indirectly (every import counted, those inside functions too)."""

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


def import_graph():
    """part -> the other parts it imports."""
    graph = collections.defaultdict(set)
    for path in ROOT.rglob("*.py"):
        source = _module(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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


def test_the_cycle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
