"""benchmarks.speed (families, keras-hub peer, FLOPs, memory) and benchmarks.layer_profile."""

import os

import keras
import numpy as np
import pytest

from benchmarks import layer_profile, speed
from kerasattn import models


def test_analytic_flops_by_hand():
    # transformer preset: d = 100, ff = 128, one layer; 10 tokens:
    # block 4·100² + 2·10·100 + 2·100·128 = 67,600; inter-attention 100² + 100 = 10,100
    assert speed.forward_macs_per_document("transformer", 10) == 10 * (67_600 + 10_100)
    assert speed.training_flops_per_document("transformer", 10) == 6 * 777_000
    # keras-hub's block has the same four projections: the same count
    assert speed.forward_macs_per_document("peer-transformer", 10) == 777_000
    # sanet-base: embedding 100 -> d 128 (12,800), block 2·10·128 + 4·128² = 68,096;
    # the peer has Q, K, V, O where SANet has W_QK and W_V: 2·128² more
    assert speed.forward_macs_per_document("sanet-base", 10) == 10 * (12_800 + 68_096)
    assert speed.forward_macs_per_document("peer-sanet-base", 10) == \
        10 * (12_800 + 68_096 + 2 * 128 * 128)
    with pytest.raises(ValueError, match="no FLOP count"):
        speed.forward_macs_per_document("gru", 10)


def test_the_same_tokens_for_hierarchical_models():
    assert [speed.hierarchical_shape(n) for n in (64, 256, 1024)] == [(8, 8), (16, 16), (32, 32)]
    assert [speed.batch_size_for(n) for n in (64, 256, 512, 1024, 9000)] == [128, 32, 16, 8, 1]


@pytest.mark.parametrize("peer,extra", [
    ("peer-transformer", 100),      # keras-hub's key projection has a bias, ours none (d)
    ("peer-sanet-base", 2 * 128 * 128 + 4 * 128),  # two more d x d projections with biases
])
def test_peer_is_the_same_size_and_honours_padding(peer, extra):
    keras.utils.set_random_seed(0)
    model = speed.build_peer(peer, 500)
    ours = models.get(speed.PEERS[peer], vocab_size=500, num_classes=2)
    assert model.count_params() - ours.count_params() == extra
    ids = np.array([[5, 6, 7, 0, 0, 0]], "int32")
    np.testing.assert_allclose(np.asarray(model(ids)), np.asarray(model(ids[:, :3])), atol=1e-5)


@pytest.mark.slow  # a whole measurement in a fresh process (~20 s); its failure path and
# the report from measured rows are in the default suite below
def test_one_measurement_in_a_fresh_process():
    row = speed.run_in_process({"name": "transformer", "length": 64, "jit": False,
                                "steps": 1, "repeats": 1, "attainable": True}, print)
    assert row["batch"] == 128 and row["shape"] == [128, 64]
    assert row["train_docs_per_s"] > 0 and row["infer_docs_per_s"] > 0
    assert row["peak_rss_mib_above_idle"] > 0
    assert 0 < row["utilisation"] < 1.5 and row["attainable_gflops"] > 1


def test_a_failed_measurement_says_why():
    with pytest.raises(RuntimeError, match="failed"):
        speed.run_in_process({"name": "transformer", "length": 64, "jit": False,
                              "no_such_argument": 1}, print)


def _row(model, length, jit, train, infer):
    return {"model": model, "length": length, "shape": [8, length], "jit": jit, "batch": 8,
            "parameters": 10, "train_docs_per_s": train, "infer_docs_per_s": infer,
            "train_s_per_step": 8 / train, "peak_rss_mib_above_idle": 100.0}


def test_report_with_peer_ratios_flops_and_the_memory_curve(tmp_path):
    rows = [_row("transformer", 64, False, 300, 1000), _row("peer-transformer", 64, False, 200, 1000),
            _row("sanet-base", 64, False, 100, 500), _row("peer-sanet-base", 64, False, 400, 250)]
    ratios = speed.peer_ratios(rows)
    assert ratios == {("transformer", 64, False): (1.5, 1.0), ("sanet-base", 64, False): (0.25, 2.0)}
    flops = [{**_row("sanet-big", 512, False, 40, 0), "achieved_train_gflops": 140.0,
              "attainable_gflops": 200.0, "utilisation": 0.7}]
    memory = [{**_row("sanet-base", n, False, 10, 10), "peak_rss_mib_above_idle": m}
              for n, m in ((64, 20.0), (4096, 3000.0))]
    path = str(tmp_path / "speed.md")
    text = speed.write_report({"date": "d", "command": "c", "machine": "m", "steps": 1,
                               "repeats": 1, "speed": rows, "flops": flops, "memory": memory},
                              path)
    assert "| transformer | 64 | off | 1.50 | 1.00 |" in text
    assert "| sanet-big | off | " in text and "| 70% |" in text
    assert "| 4096 | 0.800 | 3000 |" in text
    assert os.path.getsize(str(tmp_path / "speed_memory.png")) > 5000


def test_profile_names_map_to_layers():
    assert layer_profile._layer_of(
        "sanet-base_1/self_attention_block_1_1/ffn_hidden_1/MatMul:_MklMatMul", "sanet-base") \
        == ("self_attention_block/ffn_hidden", "forward")
    assert layer_profile._layer_of(
        "gradient_tape/sanet-base_1/max_over_time_1/Max:Max", "sanet-base") \
        == ("max_over_time", "backward")
    assert layer_profile._layer_of("adam/Sub:Sub", "sanet-base") == ("adam", "optimizer and other")


def test_profile_of_a_training_step(tmp_path):
    result = layer_profile.profile("transformer", 64, 8, 1, str(tmp_path))
    assert result["total_ps"] > 0 and os.path.exists(result["trace"])
    layers = {layer for layer, _ in result["by_layer"]}
    assert any(layer.startswith("encoder") for layer in layers)
    phases = {phase for _, phase in result["by_layer"]}
    assert {"forward", "backward"} <= phases
    text = layer_profile.report([result], "cmd", top=5)
    assert "## transformer: batch 8 x 64" in text
