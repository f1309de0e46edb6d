"""Every layer of kerasattn.layers through the shared harness (tests/layers/harness.py).

The layers are discovered: every public ``keras.layers.Layer`` a module of
``kerasattn.layers`` defines, each exported by the package. A layer gives its small
examples in one place, its class's ``harness_examples``: a tuple of keyword-argument
dicts, one small layer each (the first is the layer; the others are variants whose graph
differs), or the path of the test file that tests it instead (layers whose inputs are
not one (batch, time, features) sequence). A new layer needs no line here."""

import importlib
import inspect
import os
import pkgutil

import keras
import numpy as np
import pytest

import kerasattn.layers as L
from kerasattn.layers._initializers import clone_initializer
from tests.layers.harness import check_layer, equal_drawn_weights

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def layer_classes():
    """name -> class of every public Keras layer a module of kerasattn.layers defines."""
    found = {}
    for info in pkgutil.iter_modules(L.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"kerasattn.layers.{info.name}")
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and issubclass(obj, keras.layers.Layer)
                    and obj.__module__ == module.__name__ and not name.startswith("_")):
                found[name] = obj
    return found


LAYERS = layer_classes()


def _examples():
    """(test id, class, keyword arguments) of every example of every layer."""
    params = []
    for name, cls in sorted(LAYERS.items()):
        examples = vars(cls).get("harness_examples")
        if isinstance(examples, (tuple, list)):
            for i, kwargs in enumerate(examples):
                tail = "".join(f"-{k}={v}" for k, v in kwargs.items()) if i else ""
                params.append(pytest.param(cls, kwargs, id=name + tail))
    return params


def test_every_public_layer_is_exported_and_gives_its_examples():
    assert set(LAYERS) == set(L.__all__)
    assert all(getattr(L, name) is cls for name, cls in LAYERS.items())
    for name, cls in LAYERS.items():
        examples = vars(cls).get("harness_examples")  # its own, not its parent's
        if isinstance(examples, str):  # tested on its own, in that file
            assert os.path.isfile(os.path.join(ROOT, examples)), (name, examples)
            assert name in open(os.path.join(ROOT, examples), encoding="utf-8").read(), name
        else:
            assert isinstance(examples, tuple) and examples, f"{name}: no harness_examples"
            assert all(isinstance(kwargs, dict) for kwargs in examples), name
    assert len(_examples()) >= len(LAYERS) - 4


@pytest.mark.parametrize("cls,kwargs", _examples())
def test_layer(cls, kwargs, tmp_path):
    check_layer(lambda: cls(**kwargs), tmp_path)


@pytest.mark.parametrize("name", ["SelfAttentionBlock", "ConvMultiheadAttention",
                                  "TransformerEncoderBlock", "InterAttention", "Highway"])
def test_a_seeded_initializer_instance_still_starts_every_weight_apart(name):
    # An explicit integer seed fixes an instance's values: each weight gets seed, seed + 1...
    seeded = keras.initializers.GlorotUniform(seed=3)
    make = {"SelfAttentionBlock": lambda: L.SelfAttentionBlock(kernel_initializer=seeded),
            "ConvMultiheadAttention": lambda: L.ConvMultiheadAttention(
                num_heads=2, kernel_initializer=seeded),
            "TransformerEncoderBlock": lambda: L.TransformerEncoderBlock(
                num_heads=2, ff_dim=8, kernel_initializer=seeded),
            "InterAttention": lambda: L.InterAttention(units=8, kernel_initializer=seeded),
            "Highway": lambda: L.Highway(num_layers=2, kernel_initializer=seeded)}[name]
    layer = make()
    layer(np.ones((2, 6, 8), "float32"))
    values = [(w.path, keras.ops.convert_to_numpy(w)) for w in layer.weights]
    # the clones' seeds do not follow the global seed: compare with the same layer
    # built from an instance seeded 1,000 further on
    other = {**layer.get_config(), "kernel_initializer": keras.initializers.GlorotUniform(1003)}
    twin = layer.__class__.from_config(other)
    twin(np.ones((2, 6, 8), "float32"))
    again = [(w.path, keras.ops.convert_to_numpy(w)) for w in twin.weights]
    assert not equal_drawn_weights(values, again)
    assert seeded.get_config()["seed"] == 3  # the layer's config keeps the user's seed
    assert layer.get_config()["kernel_initializer"]["config"]["seed"] == 3


def test_clone_initializer_gives_instances_of_their_own():
    shared = keras.initializers.RandomNormal(stddev=0.5)
    a, b = clone_initializer(shared), clone_initializer(shared)
    assert a is not shared and b is not shared
    assert a.get_config()["stddev"] == 0.5
    assert not np.array_equal(keras.ops.convert_to_numpy(a((4, 4))),
                              keras.ops.convert_to_numpy(b((4, 4))))
    # a name or a config gives a new instance too; a constant stays that constant
    assert isinstance(clone_initializer("zeros"), keras.initializers.Zeros)
    assert float(keras.ops.convert_to_numpy(
        clone_initializer(keras.initializers.Constant(1.5))((1,)))[0]) == 1.5
    # under one global seed, unseeded clones repeat exactly
    keras.utils.set_random_seed(7)
    first = keras.ops.convert_to_numpy(clone_initializer(shared)((3,)))
    keras.utils.set_random_seed(7)
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(clone_initializer(shared)((3,))),
                                  first)
