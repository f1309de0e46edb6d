"""Layers declare their attention axes; they never import the analysis code."""

import ast
import importlib
import inspect
import pathlib
import pkgutil
import subprocess
import sys

import keras
import pytest

import kerasattn.layers
from kerasattn.interpret import attention as attention_module
from kerasattn.interpret.attention import attention_axes, attention_layers, register_attention
from kerasattn.layers import AttentionPooling, SelfAttentionBlock

LAYERS_DIR = pathlib.Path(kerasattn.layers.__file__).parent

# What each zoo attention layer returns with return_attention_scores=True: (batch, *axes).
EXPECTED_AXES = {
    "AttentionPooling": ("token",),
    "ConvMultiheadAttention": ("head", "query", "key"),
    "InterAttention": ("token",),
    "IterativeRecursiveAttention": ("step", "memory"),
    "ParallelConvAttention": ("branch", "head", "query", "key"),
    "SelfAttentionBlock": ("query", "key"),  # one head (the default); more add a "head" axis
    "TargetAttention": ("head", "token"),
    "TransformerEncoderBlock": ("head", "query", "key"),
}


def _imported_modules(tree, package):
    """Absolute names of every module an AST imports (relative imports resolved)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            yield base
            yield from (f"{base}.{a.name}" for a in node.names)


@pytest.mark.parametrize("path", sorted(LAYERS_DIR.glob("*.py")), ids=lambda p: p.name)
def test_no_layer_module_imports_interpret(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    bad = [m for m in _imported_modules(tree, "kerasattn.layers")
           if m == "kerasattn.interpret" or m.startswith("kerasattn.interpret.")]
    assert bad == [], f"{path.name} imports {bad}"
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert "register_attention" not in names, f"{path.name} still calls register_attention"


def test_importing_the_layers_does_not_load_interpret():
    code = ("import sys, kerasattn.layers; "
            "print(sorted(m for m in sys.modules if m.startswith('kerasattn.interpret')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def _declaring_classes():
    """Every Layer class defined in kerasattn.layers with an ``attention_axes`` attribute."""
    found = {}
    for info in pkgutil.iter_modules([str(LAYERS_DIR)]):
        module = importlib.import_module(f"kerasattn.layers.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if (cls.__module__ == module.__name__ and issubclass(cls, keras.layers.Layer)
                    and hasattr(cls, "attention_axes")):
                found[cls.__name__] = cls
    return found


def test_the_declaring_layers_are_exactly_the_attention_layers():
    assert sorted(_declaring_classes()) == sorted(EXPECTED_AXES)


class _Holder(keras.Model):
    def __init__(self, held):
        super().__init__()
        self.held = held


def test_every_declaring_layer_is_found_by_attention_layers():
    classes = _declaring_classes()
    instances = [cls() for cls in classes.values()] + [SelfAttentionBlock(num_heads=2)]
    found = {id(l) for l in attention_layers(_Holder(instances))}
    # (ParallelConvAttention's own ConvMultiheadAttention branches are found too)
    assert all(id(l) in found for l in instances)
    for layer in instances[:-1]:
        assert attention_axes(layer) == EXPECTED_AXES[type(layer).__name__]
    assert attention_axes(instances[-1]) == ("head", "query", "key")


@pytest.fixture
def registry(monkeypatch):
    """register_attention's registrations, undone after the test."""
    monkeypatch.setattr(attention_module, "_REGISTRY", dict(attention_module._REGISTRY))


def test_subclasses_inherit_the_axes_and_a_registration_overrides_them(registry):
    class Pool(AttentionPooling):
        pass

    class Registered(AttentionPooling):
        pass

    register_attention(Registered, lambda layer: ("custom",))
    assert attention_axes(Pool()) == ("token",)
    assert attention_axes(Registered()) == ("custom",)


def test_third_party_layers_declare_or_register(registry):
    class Declares(keras.layers.Layer):
        attention_axes = ("token",)

    class Plain(keras.layers.Layer):
        pass

    assert attention_axes(Declares()) == ("token",)
    assert attention_axes(Plain()) is None
    register_attention(Plain, ("head", "token"))
    assert attention_axes(Plain()) == ("head", "token")


def test_keras_multi_head_attention_is_not_mistaken_for_a_declaration():
    # its attention_axes are integer axes (or None), not axis names
    assert attention_axes(keras.layers.MultiHeadAttention(2, 4)) is None
    assert attention_axes(keras.layers.MultiHeadAttention(2, 4, attention_axes=(1,))) is None
