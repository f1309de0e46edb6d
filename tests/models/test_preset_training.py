"""Every registered Keras preset, built small (tests/models/harness.py): a training step
with the optimizer of its recipe moves every weight, the .keras file loads in safe mode
with the same predictions, attention and optimizer, and a few steps under mixed
precision stay finite and lower the loss.

Tracing a preset's train step costs 5-20x its eager step, so by default one preset of
every builder (its representative) is traced: here, unless its family's test file
names a default test that trains it in graph mode (``TRAINED_IN_GRAPH_MODE``); the
other steps are taken eagerly, and traced with -m slow. The representatives run the
mixed_float16 check by default; the rest, and mixed_bfloat16, run with -m slow.
"""

import importlib

import keras
import pytest

from tests.models import harness

ZOO = harness.zoo()

STEP_PARAMS = []
for _name, _options, _vid in ZOO.variants:
    if _name in ZOO.traced_here and not _options:
        STEP_PARAMS.append(pytest.param(_name, _options, False, id=_vid))
    else:  # eager by default, its traced step with -m slow
        STEP_PARAMS.append(pytest.param(_name, _options, True, id=_vid + "-eager"))
        STEP_PARAMS.append(pytest.param(_name, _options, False, id=_vid,
                                        marks=pytest.mark.slow))


@pytest.mark.parametrize("name,options,eager", STEP_PARAMS)
def test_a_step_trains_every_weight_and_the_keras_file_loads_in_safe_mode(name, options, eager,
                                                                          tmp_path):
    model = harness.build(name, seed=2, num_classes=2,
                          **{**harness.fit_options(name), **options})
    harness.check_fit_and_round_trip(model, name, tmp_path, eager)


def test_each_builder_is_traced_once_by_default():
    """The representative of every builder takes its train step in graph mode in a
    default test: here (traced), or in the test its family's file names."""
    assert ZOO.representatives == ZOO.traced_here | set(ZOO.trained_elsewhere)
    for preset, where in ZOO.trained_elsewhere.items():
        path, name = where.split("::")
        test = getattr(importlib.import_module(path[:-3].replace("/", ".")), name)
        assert not [m for m in getattr(test, "pytestmark", []) if m.name == "slow"], where
        source = open(path, encoding="utf-8").read()
        assert f'"--model", "{preset}"' in source or f'"{preset}"' in source, where
    traced = [p for p in STEP_PARAMS if not p.values[2] and not p.marks]
    assert {p.values[0] for p in traced} == ZOO.traced_here


# bfloat16 has float32's range: the layers' own harness runs each layer under it by default
MIXED_PARAMS = [pytest.param(name, policy, id=f"{name}-{policy}", marks=harness.slow_unless(
                    policy == "mixed_float16" and name in ZOO.representatives))
                for name in ZOO.presets for policy in ("mixed_float16", "mixed_bfloat16")]


@pytest.mark.parametrize("name,policy", MIXED_PARAMS)
def test_mixed_precision_trains_without_nan(name, policy):
    keras.mixed_precision.set_global_policy(policy)
    harness.check_mixed_precision(
        lambda: harness.build(name, seed=5, num_classes=2, **harness.fit_options(name)), name,
        policy)
