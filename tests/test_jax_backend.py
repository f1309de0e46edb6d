"""Under JAX (the backend of the GPU machines, which have no TensorFlow of their own to
train with): the layers' shared harness, and a TextClassifier's fit, predict, save, load
and export, with its batches bounded to a few shapes (kerasattn.data.widths) so that
JAX compiles a handful of programs, not one per batch."""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs JAX")


def _under_jax(args, timeout=1200):
    env = {**os.environ, "KERAS_BACKEND": "jax", "PYTHONPATH": ROOT,
           "TF_CPP_MIN_LOG_LEVEL": "3"}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def jax_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("jax")
    done = _under_jax(["-m", "tests.jax_classifier", str(out)])
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_fit_compiles_once_per_bounded_width(jax_run):
    # texts of 1 to 150 tokens: widths 64, 128 and 192, batches of 16 rows each
    train = {tuple(s) for s in jax_run["shapes"]["train"]}
    assert train <= {(16, 64), (16, 128), (16, 192)} and len(train) >= 2, train
    assert len(jax_run["shapes"]["train"]) == len(train)  # each traced once
    assert jax_run["after_first"]["train"] == len(jax_run["shapes"]["train"])  # none later
    # validation: 40 texts, bounded widths; only its last batch of a width may be short
    assert {s[1] for s in jax_run["shapes"]["test"]} <= {64, 128, 192}
    assert jax_run["after_first"]["test"] == len(jax_run["shapes"]["test"])
    assert np.isfinite(jax_run["first_loss"]) and jax_run["accuracy"] > 0.9


def test_predict_save_and_load_agree_under_jax(jax_run):
    np.testing.assert_allclose(jax_run["reloaded"], jax_run["probabilities"], atol=1e-6)


def test_a_classifier_trained_under_jax_exports_the_same_saved_model(jax_run):
    served = tf.saved_model.load(jax_run["served"]).signatures["serving_default"]
    out = served(text=tf.constant(jax_run["probe"]))
    np.testing.assert_allclose(out["probabilities"].numpy(), jax_run["probabilities"],
                               atol=1e-5)
    assert (out["label"].numpy() == np.argmax(jax_run["probabilities"], 1)).all()


def test_the_layers_shared_harness_passes_under_jax():
    done = _under_jax(["-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                       "tests/layers/test_harness.py"])
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout, done.stdout[-500:]


@pytest.mark.slow
def test_every_layer_test_passes_under_jax():  # about 6 minutes on two cores
    done = _under_jax(["-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                       "tests/layers"], timeout=2400)
    assert done.returncode == 0, done.stdout[-3000:]
