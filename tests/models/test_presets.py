"""Every registered Keras preset through the shared harness (tests/models/harness.py),
built small with its family's ``small_options`` (tests/models/test_<family>.py): seeds,
probabilities, attention, padding, empty texts, and a fresh process. The training step,
the .keras round trip and mixed precision are in test_preset_training.py, the served
SavedModel in test_preset_serving.py.

The presets and families are discovered (``kerasattn.models.names()``): a new family
adds its test file, never a line here. float16 padding runs by default for one preset of
every builder (its representative), the rest with -m slow.
"""

import keras
import numpy as np
import pytest

from kerasattn import models
from tests.models import harness

ZOO = harness.zoo()


@pytest.mark.parametrize("name", ZOO.presets)
def test_a_preset_builds_small_repeats_under_its_seed_and_shows_its_attention(name):
    model = harness.check_seeds(lambda seed: harness.build(name, seed))
    rng = np.random.default_rng(0)
    x = harness.shaped_for(name, harness.ids_batch(rng, [5, 9, 2, 11], 12))
    harness.check_probabilities(model, x)
    explanations = harness.check_attention(model, x)
    if name in ("sanet-base", "hcan-2sa-target", "iram-vanilla", "transformer", "han"):
        assert explanations[0].attention  # the families' attention is found


PADDING_PARAMS = [pytest.param(policy, name, options, id=f"{policy}-{vid}",
                               marks=harness.slow_unless(policy == "float32" or options
                                                         or name in ZOO.representatives))
                  for policy in ("float32", "mixed_float16")
                  for name, options, vid in ZOO.variants]


@pytest.mark.parametrize("policy,name,options", PADDING_PARAMS)
def test_the_same_text_padded_further_or_alone_gives_the_same_prediction(policy, name, options):
    keras.mixed_precision.set_global_policy(policy)
    model = harness.build(name, seed=1, **options)
    harness.check_padding(model, name, policy)
    if policy == "float32":
        harness.check_empty_text(model, name)


def test_every_preset_loads_in_a_fresh_process_in_safe_mode(tmp_path):
    rng = np.random.default_rng(0)
    saved, expected = {}, {}
    for name in ZOO.presets:
        model = harness.build(name)
        x = harness.shaped_for(name, harness.ids_batch(rng, [5, 8], 8))
        path = str(tmp_path / f"{name}.keras")
        model.save(path)
        saved[name] = (path, x.tolist())
        expected[name] = np.asarray(model(x))
    harness.check_fresh_process_loads(saved, expected)


def test_every_family_has_its_test_file_and_one_representative_a_builder():
    assert set(ZOO.families) == {models.get_preset(n).family for n in ZOO.presets}
    assert set(ZOO.tests) == set(ZOO.families)
    assert len(ZOO.representatives) == ZOO.builders
    assert len(ZOO.served) == len(ZOO.families) and ZOO.served <= set(ZOO.presets)
    for name in ZOO.presets:
        assert isinstance(harness.small_options(name), dict), name
