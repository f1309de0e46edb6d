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
                                "steps": 1, "repeats": 1, "attainable": True,
                                "dtype": "bfloat16"}, print)
    assert row["dtype"] == "bfloat16"
    assert row["batch"] == 128 and row["shape"] == [128, 64]
    assert row["train_docs_per_s"] > 0 and row["infer_docs_per_s"] > 0
    assert row["peak_rss_mib_above_idle"] > 0
    assert 0 < row["utilisation"] < 1.5 and row["attainable_gflops"] > 1


def test_a_failed_measurement_says_why():
    with pytest.raises(RuntimeError, match="failed"):
        speed.run_in_process({"name": "transformer", "length": 64, "jit": False,
                              "no_such_argument": 1}, print)


def _row(model, length, jit, train, infer, repeat=0, dtype="float32", peak=100.0):
    return {"model": model, "length": length, "shape": [8, length], "jit": jit, "batch": 8,
            "dtype": dtype, "parameters": 10, "train_docs_per_s": train,
            "infer_docs_per_s": infer, "train_s_per_step": 8 / train,
            "peak_rss_mib_above_idle": peak, "repeat": repeat}


def test_work_ratio_is_the_peers_products_over_ours():
    assert speed.work_ratio("transformer", 256) == 1.0
    # SANet: two d x d projections fewer per block than keras-hub's four
    assert speed.work_ratio("sanet-base", 10) == pytest.approx(
        speed.forward_macs_per_document("peer-sanet-base", 10)
        / speed.forward_macs_per_document("sanet-base", 10))
    assert speed.work_ratio("sanet-base", 256) > speed.work_ratio("sanet-base", 1024) > 1


def test_peer_ratios_pair_each_process_turn():
    rows = [_row("transformer", 64, False, 300, 1000, 0), _row("peer-transformer", 64, False, 200, 1000, 0),
            _row("transformer", 64, False, 100, 1000, 1), _row("peer-transformer", 64, False, 100, 500, 1),
            _row("sanet-base", 64, False, 100, 500, peak=50.0),
            _row("peer-sanet-base", 64, False, 400, 250, peak=200.0),
            _row("transformer", 256, False, 1, 1)]  # no peer at 256 tokens: no ratio
    ratios = speed.peer_ratios(rows)
    assert ratios == {
        ("transformer", 64, False, "float32", 0): {"train": [1.5, 1.0], "infer": [1.0, 2.0],
                                                   "memory": [1.0, 1.0]},
        ("sanet-base", 64, False, "float32", 0): {"train": [0.25], "infer": [2.0],
                                                  "memory": [0.25]}}
    assert speed.shortfall(ratios[("transformer", 64, False, "float32", 0)]) == \
        "short: training"  # a mean of 1.25; inference's 1.5 meets the goal
    assert speed.shortfall({"train": [1.5], "infer": [2.0], "memory": [1.01]}) == "short: memory"
    assert speed.shortfall({"train": [1.6], "infer": [1.5], "memory": [1.0]}) == "met"


def test_report_with_spreads_peer_ratios_flops_and_the_memory_curve(tmp_path):
    rows = [_row("transformer", 64, False, 300, 1000, 0), _row("peer-transformer", 64, False, 200, 1000, 0),
            _row("transformer", 64, False, 100, 1000, 1), _row("peer-transformer", 64, False, 100, 500, 1)]
    flops = [{**_row("sanet-big", 512, False, 40, 0), "achieved_train_gflops": 140.0,
              "attainable_gflops": 200.0, "utilisation": 0.7}]
    memory = [{**_row("sanet-base", n, False, 10, 10), "peak_rss_mib_above_idle": m}
              for n, m in ((64, 20.0), (4096, 3000.0))]
    path = str(tmp_path / "speed.md")
    text = speed.write_report({"date": "d", "command": "c", "machine": "m", "steps": 1,
                               "repeats": 1, "speed": rows, "flops": flops, "memory": memory},
                              path)
    # 300 and 100 documents/s: mean 200, sample deviation 141.4; 1000/200 = 5 ms a document
    assert "| transformer | 64 (64) | off | float32 | 10 | 200.0 ± 141.4 | 5.00 |" in text
    assert "| transformer | 64 | off | float32 | 2 | 1.25 ± 0.35 | 1.50 ± 0.71 | 1.00 ± 0.00 " \
           "| 1.00 | short: training |" in text  # the peer does the same products
    assert "- run 0: d, `c` on m" in text and "commit unknown" in text
    assert "| sanet-big | off | " in text and "| 70% |" in text
    assert "| 4096 | 0.800 | 3000 |" in text
    assert os.path.getsize(str(tmp_path / "speed_memory.png")) > 5000
    assert open(path).read() == text + "\n"


def test_a_run_adds_its_rows_beside_the_earlier_runs(tmp_path):
    old = {"date": "2026-11-22", "command": "old", "machine": "m", "steps": 3, "repeats": 5,
           "speed": [_row("gru", 64, False, 10, 10), _row("transformer", 64, False, 20, 20)],
           "flops": [{"model": "x"}], "memory": []}
    new = {"date": "2026-12-02", "command": "new", "machine": "m", "steps": 3, "repeats": 5,
           "provenance": {"commit": "a" * 40}, "flops": [], "memory": [],
           "speed": [_row("transformer", 64, False, 30, 30, 0),
                     _row("transformer", 64, False, 40, 40, 0, dtype="bfloat16")]}
    merged = speed.merge(old, new)
    assert [(r["model"], r["train_docs_per_s"], r["run"]) for r in merged["speed"]] == [
        ("gru", 10, 0), ("transformer", 20, 0), ("transformer", 30, 1), ("transformer", 40, 1)]
    assert [(r["run"], r["command"]) for r in merged["runs"]] == [(0, "old"), (1, "new")]
    assert merged["flops"] == [{"model": "x"}]  # a part this run did not measure is kept
    again = speed.merge(merged, {**new, "command": "third",
                                 "speed": [dict(r) for r in new["speed"]]})
    assert [(r["run"], r["command"]) for r in again["runs"]] == [
        (0, "old"), (1, "new"), (2, "third")]
    assert [r["run"] for r in again["speed"]] == [0, 0, 1, 1, 2, 2]
    # each run's cell is its own row on the page
    text = speed.write_report({**again, "flops": []}, str(tmp_path / "speed.md"))
    assert text.count("| transformer | 64 (64) | off | float32 |") == 3


def test_rows_before_the_fused_attention_are_marked(monkeypatch):
    from kerasattn import records

    seen = []

    def relation(seed, change, repo=None):
        seen.append((seed["provenance"].get("commit"), change))
        return records.AFTER if seed["provenance"].get("commit") == "new" else records.BEFORE

    monkeypatch.setattr(records, "relation", relation)
    runs = {0: {"date": "2026-11-22"}, 1: {"provenance": {"commit": "new"}}}
    assert speed.marks({"model": "transformer", "run": 0}, runs) == "f"
    assert speed.marks({"model": "transformer", "run": 1}, runs) == ""
    assert speed.marks({"model": "gru", "run": 0}, runs) == ""  # its code did not change
    assert speed.marks({"model": "peer-transformer", "run": 0}, runs) == ""  # keras-hub's
    assert seen == [(None, "fb8f8f5"), ("new", "fb8f8f5")]


def test_a_measurement_refuses_an_unknown_dtype():
    with pytest.raises(ValueError, match="dtype 'float16'"):
        speed.measure("transformer", 64, False, dtype="float16")


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
