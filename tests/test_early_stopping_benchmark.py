"""benchmarks.early_stopping: the replay table from run directories."""

import json

from benchmarks import early_stopping


def _run(root, name, curve, epochs=None, early=None, kind="keras"):
    d = root / name
    d.mkdir()
    (d / "config.json").write_text(json.dumps({"kind": kind, "early_stopping": early,
                                               "train": {"epochs": epochs or len(curve)}}))
    (d / "history.csv").write_text("epoch,val_accuracy\n" + "".join(
        f"{i},{v}\n" for i, v in enumerate(curve)))
    (d / "metrics.json").write_text("{}")
    return str(d)


def test_table_counts_epochs_and_same_best(tmp_path, capsys):
    dirs = [_run(tmp_path, "a", [0.7, 0.8, 0.79, 0.78, 0.77]),       # best 2, stops at 4 (p=2)
            _run(tmp_path, "b", [0.7, 0.72, 0.71, 0.70, 0.75]),      # best 5: p=2 keeps 2
            _run(tmp_path, "stopped", [0.7, 0.6], epochs=10),        # ended early: skipped
            _run(tmp_path, "es", [0.7, 0.6, 0.5], early=1)]          # early stopping: skipped
    out = tmp_path / "es.md"
    early_stopping.main([*dirs, "--patience", "2", "--results", str(out)])
    text = out.read_text()
    assert "| `a` | 5 | 2 (0.8000) | 4 (same) |" in text
    assert "| `b` | 5 | 5 (0.7500) | 4 (epoch 2, val 0.7200) |" in text
    assert "`stopped`" not in text and "`es`" not in text
    assert "patience 2: 1 of 2 runs keep the same best epoch, 8 of 10 epochs (80%)" in text
