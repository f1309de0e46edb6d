"""Every entry the benchmarks (``benchmarks/*.py``) and the experiments
(``kerasattn.experiments``) write says which code, command, seed, machine and time made
it and what cut it (``kerasattn.provenance``); a run recorded before provenance says
"commit unknown" and never a guessed commit."""

import json
import pathlib
import re
import types

import numpy as np
import pytest

from kerasattn import provenance

ROOT = pathlib.Path(__file__).resolve().parent.parent
# what every entry's "provenance" holds (kerasattn.provenance.started + finished)
KEYS = {"commit", "dirty", "kerasattn", "command", "seed", "backend", "cpu", "cores", "gpus",
        "versions", "started_utc", "ended_utc", "wall_seconds", "cut"}
DEVICE = {"backend": "tensorflow", "cpu": "Test CPU @ 2.0GHz", "cores": 2, "gpus": []}
UTC = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00"


@pytest.fixture(autouse=True)
def _device(monkeypatch):
    """No device query: the tests check the record's shape, not this machine."""
    monkeypatch.setattr(provenance, "device", lambda: dict(DEVICE))


def _complete(record, command=None, seed=None):
    assert KEYS <= set(record), sorted(KEYS - set(record))
    assert record["cpu"] == DEVICE["cpu"] and record["cores"] == 2 and record["gpus"] == []
    assert re.fullmatch(UTC, record["started_utc"]) and re.fullmatch(UTC, record["ended_utc"])
    assert record["wall_seconds"] >= 0 and isinstance(record["cut"], list)
    assert "python" in record["versions"]
    assert record["commit"] is None or re.fullmatch(r"[0-9a-f]{40}", record["commit"])
    if command is not None:
        assert record["command"] == command
    if seed is not None:
        assert record["seed"] == seed


def _run(folder, provenance_=None, epochs=4, epochs_run=4, seed=0):
    """A finished run's folder: config.json and metrics.json (with ``provenance_``)."""
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({
        "kind": "keras", "command": f"python -m training.train --model mlp --seed {seed}",
        "seed": seed, "train": {"epochs": epochs}}))
    metrics = {"test": {"accuracy": 0.8, "f1_macro": 0.79, "examples": 10},
               "val": {"accuracy": 0.81}, "best_epoch": 2, "train_seconds": 12.0,
               "train_examples_per_second": 900.0, "learning": {"learned": True},
               "epochs_run": epochs_run}
    if provenance_ is not None:
        metrics["provenance"] = provenance_
    (folder / "metrics.json").write_text(json.dumps(metrics))
    return folder


RUN_PROVENANCE = {"kerasattn": "0.1.0", "commit": "1" * 40, "dirty": True,
                  "command": "python -m training.train --model mlp", "seed": 3,
                  "backend": "jax", "cpu": "Other CPU", "cores": 64, "gpus": ["NVIDIA H200"],
                  "versions": {"python": "3.11.7", "keras": "3.15.1"},
                  "started_utc": "2026-12-01T10:00:00+00:00",
                  "ended_utc": "2026-12-01T10:05:00+00:00", "wall_seconds": 300.0,
                  "cut": ["time limit of 300 s"]}
ENV = {"machine": "x86_64 Linux, 2 CPUs, GPUs: 0", "tensorflow": "2.21.0", "keras": "3.15.1",
       "scikit_learn": "1.9.1"}


# -- benchmarks.accuracy ----------------------------------------------------------------
def test_an_accuracy_seed_records_its_run_s_provenance_and_the_benchmark_s(tmp_path):
    from benchmarks import accuracy

    run = _run(tmp_path / "mlp-tiny-seed3", RUN_PROVENANCE, seed=3)
    start = provenance.started("python -m benchmarks.accuracy --suite tiny --seeds 4", 3)
    record = accuracy._record(str(run / "metrics.json"), ENV, start, reused=True)
    found = record["provenance"]
    _complete(found, "python -m benchmarks.accuracy --suite tiny --seeds 4", 3)
    assert found["reused"] is True
    assert found["run"] == RUN_PROVENANCE  # the training run's own record, as it is
    assert "runs" not in found
    # the commit the pages' marks go by (kerasattn.records) is the run's
    from kerasattn import records

    assert records.commit_of(record) == RUN_PROVENANCE["commit"]
    assert found["cut"] == ["time limit of 300 s"]  # what cut its run
    # the table names the run's commit, dirty
    line = accuracy._commits({"mlp-tiny": {"seeds": [record]}})
    assert line == "Provenance of the runs: commit `1111111 + uncommitted changes` (every entry)."


def test_a_run_without_provenance_says_commit_unknown_and_never_guesses(tmp_path):
    from benchmarks import accuracy

    run = _run(tmp_path / "old", epochs=4, epochs_run=2)  # metrics.json predates provenance
    record = accuracy._record(str(run / "metrics.json"), ENV)
    found = record["provenance"]
    _complete(found)  # this benchmark's own record is whole
    assert found["reused"] is False
    old = found["run"]
    assert old["commit"] is None and old["dirty"] is None
    assert isinstance(old["commit_unknown"], str) and "commit unknown" in old["commit_unknown"]
    assert old["command"] == "python -m training.train --model mlp --seed 0"
    # what its files still prove: early stopping cut it
    assert old["cut"] == ["early stopping after epoch 2 of 4"] == found["cut"]
    assert "started_utc" not in old and "cpu" not in old  # nothing invented
    # records written before provenance (no "provenance" at all) are "commit unknown" too
    line = accuracy._commits({"new": {"seeds": [record]},
                              "older": {"seeds": [{"test": {"accuracy": 0.8}}]},
                              "oldest": {"test": {"accuracy": 0.8}}})
    assert line == "Provenance of the runs: commit unknown (every entry)."
    fresh = accuracy._record(str(_run(tmp_path / "new", RUN_PROVENANCE) / "metrics.json"),
                             ENV)
    line = accuracy._commits({"a": {"seeds": [fresh, record]}})
    assert line == ("Provenance of the runs (commit: entries): commit `1111111 + uncommitted "
                    "changes`: a (seed 0); commit unknown: a (seed 1).")


def test_the_accuracy_seed_is_the_training_seed():
    from benchmarks import accuracy

    assert accuracy._seed_of(["--model", "mlp"]) == 0
    assert accuracy._seed_of(["--model", "mlp", "--seed", "0", "--seed", "4"]) == 4


# -- benchmarks.quickstart, hcan_speed, serving_speed, early_stopping -------------------
def test_quickstart_gives_each_seed_and_the_file_their_provenance(tmp_path, monkeypatch):
    from benchmarks import quickstart
    from kerasattn import runs

    monkeypatch.setattr(quickstart, "measure", lambda preset, dataset, epochs, seed:
                        (0.8 + seed / 100, 1.0))
    monkeypatch.setattr(runs, "environment", lambda: ENV)
    results = tmp_path / "quickstart.md"
    argv = ["--seeds", "2", "--epochs", "1", "--results", str(results)]
    quickstart.main(argv)
    summary = json.loads((tmp_path / "quickstart.json").read_text())
    command = "python -m benchmarks.quickstart " + " ".join(argv)
    _complete(summary["provenance"], command)
    for seed, row in enumerate(summary["runs"]):
        _complete(row["provenance"], command, seed)
        assert row["provenance"]["cut"] == []
    assert "Provenance: commit `" in results.read_text() and "Test CPU" in results.read_text()


def test_hcan_speed_records_the_measurement_s_provenance(tmp_path, monkeypatch):
    from benchmarks import hcan_speed

    xs = [np.ones((2, 3, 4), "int32")]
    monkeypatch.setattr(hcan_speed, "make_batches", lambda dataset, n: (xs, [[0, 1]], 10, 2))
    monkeypatch.setattr(hcan_speed, "time_training", lambda *a, **k: (0.5, 100, 1e9))
    monkeypatch.setattr(hcan_speed, "machine", lambda: "test machine")
    out = str(tmp_path / "hcan_speed")
    argv = ["--batches", "1", "--repeats", "1", "--output", out]
    assert hcan_speed.main(argv) == 0
    result = json.loads(pathlib.Path(out + ".json").read_text())
    _complete(result["provenance"], "python -m benchmarks.hcan_speed " + " ".join(argv), 0)
    assert "\nProvenance: commit `" in pathlib.Path(out + ".md").read_text()


def test_serving_speed_records_the_measurement_s_provenance(tmp_path, monkeypatch):
    from benchmarks import serving_speed
    from kerasattn import runs
    from kerasattn.data import datasets

    split = types.SimpleNamespace(texts=["a text"])
    monkeypatch.setattr(datasets, "load", lambda name: types.SimpleNamespace(train=split,
                                                                             test=split))
    monkeypatch.setattr(serving_speed, "measure", lambda name, *a, **k: {
        "model": name, "parameters": 1, "p50_ms": 1.0, "p99_ms": 2.0,
        "batch_texts_per_s": 3.0, "requests": 1, "batches": 1})
    monkeypatch.setattr(runs, "environment", lambda: ENV)
    argv = ["--families", "HAN", "--requests", "1", "--batches", "1", "--results-dir",
            str(tmp_path)]
    assert serving_speed.main(argv) == 0
    record = json.loads((tmp_path / "serving_speed.json").read_text())
    _complete(record["provenance"], "python -m benchmarks.serving_speed " + " ".join(argv), 0)
    assert "Provenance: commit `" in (tmp_path / "serving_speed.md").read_text()


def test_early_stopping_names_the_commits_of_the_runs_it_replays(tmp_path):
    from benchmarks import early_stopping

    for name, found in (("new", RUN_PROVENANCE), ("old", None)):
        run = _run(tmp_path / name, found, epochs=3, epochs_run=3)
        (run / "history.csv").write_text("epoch,val_accuracy\n0,0.7\n1,0.8\n2,0.75\n")
    out = tmp_path / "es.md"
    early_stopping.main([str(tmp_path / "new"), str(tmp_path / "old"), "--patience", "1",
                         "--results", str(out)])
    assert ("The runs' provenance (commit: entries): commit `1111111 + uncommitted "
            "changes`: `new`; commit unknown: `old`.") in out.read_text()


# -- kerasattn.experiments ---------------------------------------------------------------
def test_sanet_table2_gives_each_dataset_its_provenance(tmp_path, monkeypatch):
    from kerasattn.experiments import sanet_table2

    run = _run(tmp_path / "run", RUN_PROVENANCE)
    stats = {"gini": 0.5, "diagonality": {b: 0.1 * b for b in range(1, 6)},
             "uniform_diagonality": {b: 0.05 * b for b in range(1, 6)},
             "mean_length": 20.0, "documents": 10}
    monkeypatch.setattr(sanet_table2, "table2_statistics", lambda run_dir, **k: (
        {"dataset": "sst5", "model": "sanet-base", "command": "python -m training.train"},
        {"block": stats}))
    text = sanet_table2.sanet_table2([str(run)], str(tmp_path / "runs"), str(tmp_path / "res"))
    record = json.loads((tmp_path / "res" / "sanet_table2.json").read_text())["sst5"]
    _complete(record["provenance"])
    assert record["provenance"]["run"] == RUN_PROVENANCE
    assert "Provenance: commit `" in text


def test_iram_regulariser_gives_each_row_its_runs_provenance(tmp_path, monkeypatch):
    from kerasattn.experiments import iram_regulariser

    new, old = _run(tmp_path / "new", RUN_PROVENANCE), _run(tmp_path / "old", None)
    stats = {"overlap": 0.5, "same_argmax": 0.2, "summary_weight": 0.1, "documents": 10}
    monkeypatch.setattr(iram_regulariser, "step_statistics_of_run", lambda run_dir, **k: (
        {"dataset": "sst2", "model": "iram-vanilla", "command": f"train {run_dir}",
         "model_config": {"gamma": 0.0 if run_dir.endswith("new") else 0.03}},
        {"iterative": stats}))
    iram_regulariser.iram_regulariser([str(new), str(old)], str(tmp_path / "runs"),
                                      str(tmp_path / "res"))
    records = json.loads((tmp_path / "res" / "iram_regulariser.json").read_text())
    for record in records.values():
        _complete(record["provenance"])
        assert len(record["provenance"]["runs"]) == 1  # one seed
    [on] = [r for r in records.values() if r["gamma"] > 0]
    assert on["provenance"]["runs"][0]["commit"] is None
    assert "commit unknown" in on["provenance"]["runs"][0]["commit_unknown"]


# -- the helpers --------------------------------------------------------------------------
def test_the_markdown_line_names_the_commit_and_the_device():
    found = provenance.entry(provenance.started("python -m x", 0))
    assert provenance.describe(found).startswith("Provenance: commit `")
    assert "Test CPU @ 2.0GHz, 2 cores, no GPU (Keras backend tensorflow)" in \
        provenance.describe(found)
    assert provenance.commit_label({**found, "commit": "a" * 40, "dirty": False}) == "aaaaaaa"
    assert provenance.commit_label({**found, "commit": "a" * 40, "dirty": True}) == \
        "aaaaaaa + uncommitted changes"
    # an installed copy (no checkout): the release says which code
    assert provenance.commit_label({**found, "commit": None, "dirty": None}) == \
        f"no checkout, kerasattn {found['kerasattn']}"
    assert provenance.commit_label(provenance.unknown("old")) == "commit unknown"
    assert provenance.commit_label(None) == "commit unknown"
    assert provenance.describe(None) == "Provenance: commit unknown; device unknown."
    assert provenance.command_of("benchmarks.x", ["--a", "b c"]) == \
        "python -m benchmarks.x --a 'b c'"


# -- every writer ---------------------------------------------------------------------------
WRITES_JSON = re.compile(r"json\.dump\(|write_json\(")


def _writers():
    files = sorted((ROOT / "benchmarks").glob("*.py")) + \
        sorted((ROOT / "kerasattn" / "experiments").glob("*.py"))
    return [f for f in files if WRITES_JSON.search(f.read_text(encoding="utf-8"))]


def test_every_json_writer_records_provenance():
    """A benchmark or experiment that writes JSON records its entries' provenance
    (``provenance.entry``): a new writer without it fails here."""
    writers = _writers()
    names = {f.name for f in writers}
    assert {"accuracy.py", "batch_order.py", "speed.py", "streaming.py", "quickstart.py",
            "sanet_table2.py", "transformer_grid.py",
            "attention_faithfulness.py"} <= names  # the scan finds them
    missing = [f.name for f in writers if "provenance.entry(" not in f.read_text("utf-8")]
    assert not missing, f"write JSON without provenance.entry: {missing}"


# writers of no results table of their own: common (the experiments' _write itself),
# readme (README.md and docs/benchmarks.md from the records, marked by their provenance)
NOT_A_TABLE = {"common.py", "readme.py"}
WRITES_TEXT = re.compile(r', "w"\)|write_text\(|_write\(')


def test_every_markdown_writer_names_the_commit():
    """A benchmark or experiment that writes a results table (Markdown) names the commit
    in it (``provenance.describe`` or ``commits_line``)."""
    files = sorted((ROOT / "benchmarks").glob("*.py")) + \
        sorted((ROOT / "kerasattn" / "experiments").glob("*.py"))
    writers = [f for f in files if WRITES_TEXT.search(f.read_text("utf-8"))
               and f.name not in NOT_A_TABLE]
    assert len(writers) >= 14, [f.name for f in writers]
    missing = [f.name for f in writers if not re.search(
        r"provenance\.(describe|commits_line)\(|_commits\(", f.read_text("utf-8"))]
    assert not missing, f"write a table without naming the commit: {missing}"
