"""IRAM vanilla and its baseline (Tutek & Šnajder 2018 §3.3, §4.2–4.3): presets, wiring,
attention through the model, and learning SST-2. (Padding invariance, empty texts and the
.keras round trip of every registered model are in test_baselines.py.)"""

import keras
import numpy as np
import pytest

from kerasattn import models
from kerasattn.interpret import extract_attention
from kerasattn.layers import IterativeRecursiveAttention, Maxout
from training import train

SMALL = {"units": 8, "embedding_dim": 8, "maxout_units": 6}


@pytest.mark.parametrize("name", ["iram-vanilla", "iram-baseline"])
def test_presets_carry_the_recipe_of_section_4_2(name):
    preset = models.get_preset(name)
    t = preset.training_defaults()
    assert (t["learning_rate"], t["batch_size"], t["max_length"]) == (3e-4, 32, 200)
    opt = preset.make_optimizer(t["learning_rate"])
    assert opt.amsgrad and opt.global_clipnorm == 1.0 and opt.weight_decay == 3e-5
    cfg = preset.model_config
    assert (cfg["steps"], cfg["gamma"], cfg["init_stddev"], cfg["embedding_dropout"]) == \
        (3, 3e-4, 0.01, 0.1)
    assert (cfg["maxout_units"], cfg["maxout_pool_size"], cfg["maxout_layers"]) == (200, 4, 2)
    model = models.get(name, vocab_size=30, num_classes=2, **SMALL)
    encoder = model.get_layer("encoder")
    assert encoder.forward_layer.unit_forget_bias
    assert isinstance(model.get_layer("maxout"), Maxout)
    has_attention = any(isinstance(l, IterativeRecursiveAttention) for l in model.layers)
    assert has_attention == (name == "iram-vanilla")
    kernel = np.asarray(model.get_layer("probabilities").kernel)
    assert abs(kernel.std() - 0.01) < 0.005  # N(0, 0.01)


def test_initial_query_is_the_final_cell_state():
    """x̂ is [c_fw; c_bw] of the BiLSTM (§3.3), not its hidden state."""
    keras.utils.set_random_seed(0)
    model = models.get("iram-vanilla", vocab_size=30, num_classes=2, init_stddev=0.5, **SMALL)
    ids = np.array([[3, 4, 5, 0]], "int32")
    query = keras.Model(model.input, model.get_layer("initial_query").output)(ids)
    emb = keras.Model(model.input, model.get_layer("embedding").output)(ids)[:, :3]
    _, h_fw, c_fw, h_bw, c_bw = model.get_layer("encoder")(emb)
    np.testing.assert_allclose(np.asarray(query), np.concatenate([c_fw, c_bw], -1), atol=1e-6)
    assert not np.allclose(np.asarray(query), np.concatenate([h_fw, h_bw], -1))


def test_attention_of_the_vanilla_model_and_its_regulariser():
    keras.utils.set_random_seed(0)
    model = models.get("iram-vanilla", vocab_size=30, num_classes=2, init_stddev=0.3, **SMALL)
    ex, = extract_attention(model, np.array([[3, 4, 5, 6, 0, 0]], "int32"))
    a = ex.attention["iterative_attention"]
    assert ex.axes["iterative_attention"] == ("step", "memory") and a.shape == (3, 4 + 2)
    np.testing.assert_allclose(a.sum(-1), 1, rtol=1e-5)
    assert a[0, 4:].sum() == 0 and a[1, 5] == 0
    model(np.array([[3, 4]], "int32"))
    assert len(model.losses) == 1 and float(model.losses[0]) > 0


def test_iram_vanilla_learns_sst2(tmp_path, shared_data):
    _, m = train.train(["--model", "iram-vanilla", "--dataset", "sst2", "--epochs", "3",
                        "--learning-rate", "0.002", "--model-option", "units=64",
                        "--model-option", "embedding_dim=64", "--output-dir", str(tmp_path),
                        "--run-name", "iram", "--verbose", "0"])
    assert m["test"]["accuracy"] > 0.75  # 1,821 held-out sentences; 0.80 measured
