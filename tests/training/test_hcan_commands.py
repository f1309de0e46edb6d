"""HCAN and HAN through the commands: they learn BBC News, explain shows both levels."""

import os

import pytest

from kerasattn import runs
from kerasattn.cli import explain, train

SIZE = ["--model-option", "d=32", "--model-option", "embedding_dim=32", "--model-option",
        "num_heads=4"]
SMALL = ["--learning-rate", "0.001", *SIZE]
# the first 20 sentences of 40 words of each article: quicker, and plenty for its topic
SHORT = ["--max-sentences", "20", "--max-words", "40"]


@pytest.fixture(scope="module")
def hcan_run(tmp_path_factory, shared_data):
    out = tmp_path_factory.mktemp("runs")
    # ten sentences of 30 words and twice SMALL's learning rate: 3 epochs in about half
    # the time of SMALL with SHORT; test 0.919 and 0.935 (seeds 0, 1)
    return train.train(["--model", "hcan-2sa-target", "--dataset", "bbc", "--epochs", "3",
                        "--learning-rate", "0.002", *SIZE, "--max-sentences", "10",
                        "--max-words", "30", "--output-dir", str(out), "--run-name", "hcan",
                        "--verbose", "0"])


def test_hcan_learns_bbc(hcan_run):
    run_dir, m = hcan_run
    assert m["test"]["accuracy"] > 0.85  # 445 held-out articles, 5 topics; 0.919 measured
    config = runs.read_json(os.path.join(run_dir, runs.CONFIG))
    assert config["hierarchical"] and config["train"]["text_mode"] == "hcan"
    assert (config["train"]["max_sentences"], config["train"]["max_words"]) == (10, 30)


@pytest.mark.slow  # 30 s; HAN's layers, masks and round trip are tested in the default run
def test_han_learns_bbc(tmp_path, shared_data):
    _, m = train.train(["--model", "han", "--dataset", "bbc", "--epochs", "2", *SHORT,
                        "--learning-rate", "0.002", "--model-option", "embedding_dim=32",
                        "--output-dir", str(tmp_path), "--run-name", "han", "--verbose", "0"])
    assert m["test"]["accuracy"] > 0.8  # ~0.98 measured


def test_explain_shows_word_and_sentence_weights(hcan_run, tmp_path, capsys):
    run_dir, _ = hcan_run
    out = str(tmp_path / "page.html")
    assert explain.main(["--run", run_dir, "--text",
                         "The striker scored twice. The club won the cup final!",
                         "--text", "Shares fell as the bank cut its forecast.",
                         "--output", out]) == 0
    assert "2 heatmap(s)" in capsys.readouterr().out
    page = open(out, encoding="utf-8").read()
    assert page.count("class='doc'") == 2
    # the word self-attention and the word target attention, 2 + 1 sentences each
    assert page.count("class='sentence'") == 2 * 3
    assert "sentence_target_attention: " in page and ">striker</span>" in page
    for i in (1, 2):
        png = f"page-{i}-word_target_attention.png"
        assert os.path.getsize(tmp_path / png) > 1000 and f"src='{png}'" in page


VARIANTS = [f"{h}can-{n}sa-{p}" for h in ("", "h") for n in (1, 2) for p in ("maxpool", "target")]


@pytest.mark.slow
@pytest.mark.parametrize("name", VARIANTS + ["han"])
def test_every_variant_trains_on_bbc(name, tmp_path, shared_data):
    """The small configurations of `python -m benchmarks.accuracy --suite hcan` (~1 min each)."""
    small = (["--learning-rate", "0.001", "--model-option", "embedding_dim=32"]
             if name == "han" else SMALL)
    _, m = train.train(["--model", name, "--dataset", "bbc", "--epochs", "3", *small,
                        "--output-dir", str(tmp_path), "--run-name", name, "--verbose", "0"])
    assert m["test"]["accuracy"] > 0.8  # 5 topics, chance 0.23


@pytest.mark.slow  # times HAN at its preset's size (~30 s); FLOP counts are checked by hand below
def test_speed_benchmark_writes_both_models(tmp_path, shared_data, capsys):
    from benchmarks import hcan_speed

    out = str(tmp_path / "speed")
    assert hcan_speed.main(["--batches", "1", "--repeats", "1", "--no-preset",
                            "--hcan-config", "d=16 embedding_dim=16 num_heads=2",
                            "--output", out]) == 0
    result = runs.read_json(out + ".json")
    assert [r["model"] for r in result["models"]] == ["han", "hcan-2sa-target"]
    assert result["models"][1]["options"] == {"d": 16, "embedding_dim": 16, "num_heads": 2}
    assert all(r["ms_per_document"] > 0 for r in result["models"])
    assert result["documents"] == 32
    table = open(out + ".md").read()
    assert "| han | preset |" in table and "d=16, embedding_dim=16, num_heads=2" in table


def test_analytic_flops_by_hand():
    """One word in one sentence: HAN with e=2, u=1, a=1 does 2·3·(2+1) + 3 multiply-adds at
    each level; HCAN-1sa-maxpool with d=e=2 does 9·2·2 + 2·1·2 at each level; ×6 for
    a training step in FLOPs."""
    import numpy as np

    from benchmarks.hcan_speed import training_flops

    x = np.zeros((1, 1, 1))
    assert training_flops("han", {"embedding_dim": 2, "units": 1, "attention_units": 1}, x) \
        == 6 * 2 * 21
    hcan = {"d": 2, "num_self_attentions": 1, "pooling": "max", "embedding_dim": 2}
    assert training_flops("hcan-1sa-maxpool", hcan, x) == 6 * 2 * 40
    # target pooling adds its two convolutions and T·K, A·V per cell at each level
    assert training_flops("hcan-1sa-target", {**hcan, "pooling": "target"}, x) \
        == 6 * 2 * (40 + 2 * 3 * 4 + 4)
