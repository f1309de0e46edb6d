"""benchmarks.batch_order: the table of first-epoch validation accuracy by batch order."""

import json
import types

import pytest

from benchmarks import batch_order


def test_table_has_each_order_both_ways_and_the_spreads(tmp_path, monkeypatch, capsys):
    calls = []

    def fake(model, ds, pre, config, seed, shuffled):
        calls.append((seed, shuffled))
        return {(0, False): 0.8, (1, False): 0.6, (0, True): 0.85, (1, True): 0.87}[
            (seed, shuffled)]

    monkeypatch.setattr(batch_order, "one_epoch", fake)
    split = types.SimpleNamespace(texts=[])
    monkeypatch.setattr("kerasattn.data.datasets.load",
                        lambda *a, **k: types.SimpleNamespace(train=split))

    class Pre:
        def __init__(self, **kw):
            pass

        def adapt(self, *a, **k):
            return self

    monkeypatch.setattr("kerasattn.data.preprocessing.TextPreprocessor", Pre)
    batch_order.main(["--model", "cnn", "--dataset", "sst2", "--orders", "2",
                      "--results", str(tmp_path)])
    assert sorted(calls) == [(0, False), (0, True), (1, False), (1, True)]
    text = (tmp_path / "batch_order.md").read_text()
    assert "`python -m benchmarks.batch_order --model cnn --dataset sst2 --orders 2`" in text
    assert "| 0 | 0.800 | 0.850 |" in text and "| 1 | 0.600 | 0.870 |" in text
    assert "| mean ± std | 0.700 ± 0.141 | 0.860 ± 0.014 |" in text
    found = json.loads((tmp_path / "batch_order.json").read_text())
    assert found["val_accuracy_after_one_epoch"]["shuffled"] == [0.85, 0.87]


def test_one_order_is_not_a_spread(capsys):
    with pytest.raises(SystemExit):
        batch_order.main(["--orders", "1"])
    assert "--orders must be at least 2" in capsys.readouterr().err
