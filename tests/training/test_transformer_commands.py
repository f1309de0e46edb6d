"""The Transformer paper's experiments (kerasattn.experiments.transformer_grid, run by
training.reproduce) on a cut-down grid."""

import os

import pytest

from kerasattn import runs
from kerasattn.cli import evaluate, reproduce
from kerasattn.experiments import ExperimentError, common
from kerasattn.experiments import transformer_grid as experiment
from tests.conftest import train_in_process


def cut_down(monkeypatch, grid, width):
    """The experiments on `grid` with a `width`-wide transformer and one 1-epoch baseline."""
    monkeypatch.setattr(experiment, "TRANSFORMER_GRID", grid)
    small = ["--epochs", "1", "--model-option", f"embedding_dim={width}",
             "--model-option", f"ff_dim={width}"]
    monkeypatch.setattr(experiment, "_transformer_cli", lambda d, l, h: [
        "--model", "transformer", "--dataset", d, "--layers", str(l), "--heads", str(h), *small])
    monkeypatch.setattr(experiment, "BASELINE_MODELS", ("mlp",))
    monkeypatch.setattr(experiment, "BASELINE_EPOCHS", 1)


def test_grid_then_baselines_write_tables_and_figures(tmp_path, shared_data, monkeypatch):
    cut_down(monkeypatch, [(1, 1), (1, 2)], width=16)
    train_in_process(common, monkeypatch)  # the grid and the baseline
    out, results = str(tmp_path / "runs"), str(tmp_path / "results")

    with pytest.raises(ExperimentError, match="transformer-grid"):
        experiment.transformer_baselines([], out, results, dataset="sst2")
    text = experiment.transformer_grid([], out, results, dataset="sst2")
    records = runs.read_json(os.path.join(results, "transformer_grid_sst2.json"))
    assert set(records) == {"1x1", "1x2"}
    for r in records.values():
        assert 0.5 < r["accuracy"] <= 1 and 0 <= r["precision"] <= 1 and r["loss"] > 0
    assert "| 1 | 2 | " in text and "0.934" in text  # the paper's Yelp row beside ours
    assert os.path.getsize(os.path.join(results, "transformer_grid_sst2_roc.png")) > 10000
    # a second call reuses the finished runs instead of training again
    mtime = os.path.getmtime(os.path.join(out, "transformer-sst2-l1-h1", runs.METRICS))
    experiment.transformer_grid([], out, results, dataset="sst2")
    assert os.path.getmtime(os.path.join(out, "transformer-sst2-l1-h1", runs.METRICS)) == mtime

    text = experiment.transformer_baselines([], out, results, dataset="sst2")
    table = runs.read_json(os.path.join(results, "transformer_baselines_sst2.json"))
    assert list(table) == ["mlp", "transformer"]
    best = max(records.values(), key=lambda r: r["val_accuracy"])
    assert table["transformer"]["accuracy"] == best["accuracy"]
    assert "| mlp | " in text and "0.746" in text
    assert os.path.getsize(os.path.join(results, "transformer_baselines_sst2_curves.png")) > 10000


def test_each_seed_is_its_own_run_and_the_record_is_their_mean(tmp_path, monkeypatch):
    import numpy as np

    calls = []
    monkeypatch.setattr(common, "_run_training",
                        lambda cli, name, out: calls.append((cli, name)) or f"{out}/{name}")
    dirs = common._train_seeds(["--model", "mlp"], "mlp-x", "out", seeds=3)
    assert dirs == ["out/mlp-x", "out/mlp-x-seed1", "out/mlp-x-seed2"]
    assert calls == [(["--model", "mlp"], "mlp-x"),
                     (["--model", "mlp", "--seed", "1"], "mlp-x-seed1"),
                     (["--model", "mlp", "--seed", "2"], "mlp-x-seed2")]
    acc, loss = [0.81, 0.79, 0.84], [0.5, 0.25, 0.75]
    records = [dict(accuracy=a, loss=l, best_epoch=e, command=f"c{s}", run_dir=d, layers=1)
               for s, (a, l, e, d) in enumerate(zip(acc, loss, [2, 3, 2], dirs))]
    out = common.over_seeds(records)
    assert out["accuracy"] == pytest.approx(np.mean(acc))
    assert out["accuracy_std"] == pytest.approx(np.std(acc, ddof=1))
    assert out["loss"] == pytest.approx(0.5) and out["layers"] == 1  # ints are kept
    assert out["seed_accuracies"] == acc and out["best_epochs"] == [2, 3, 2]
    assert out["commands"] == ["c0", "c1", "c2"] and out["run_dirs"] == dirs
    assert out["run_dir"] == dirs[0] and out["seeds"] == 3
    assert common.over_seeds(records[:1])["accuracy_std"] is None


@pytest.mark.slow  # 7 training runs (~100 s); the test above checks the same by hand
def test_seeds_give_mean_and_spread_and_keep_each_run(tmp_path, shared_data, monkeypatch):
    import numpy as np

    cut_down(monkeypatch, [(1, 1)], width=8)
    out, results = str(tmp_path / "runs"), str(tmp_path / "results")
    text = experiment.transformer_grid([], out, results, dataset="sst2", seeds=2)
    record = runs.read_json(os.path.join(results, "transformer_grid_sst2.json"))["1x1"]
    seeds = [runs.read_json(os.path.join(out, name, runs.METRICS))["test"]["accuracy"]
             for name in ("transformer-sst2-l1-h1", "transformer-sst2-l1-h1-seed1")]
    assert record["seed_accuracies"] == seeds and record["seeds"] == 2
    assert record["accuracy"] == pytest.approx(np.mean(seeds))
    assert record["accuracy_std"] == pytest.approx(np.std(seeds, ddof=1))
    assert f"{np.mean(seeds):.4f} ± {np.std(seeds, ddof=1):.4f}" in text
    assert "--seed 1" in text and "over 2 training seeds" in text
    with pytest.raises(ExperimentError, match="--seeds 3"):
        experiment.transformer_baselines([], out, results, dataset="sst2", seeds=3)
    text = experiment.transformer_baselines([], out, results, dataset="sst2", seeds=2)
    table = runs.read_json(os.path.join(results, "transformer_baselines_sst2.json"))
    assert table["transformer"]["accuracy"] == record["accuracy"]
    assert table["mlp"]["seeds"] == 2 and os.path.isdir(os.path.join(out, "mlp-sst2-table1-seed1"))
    assert sum(" ± " in line for line in text.splitlines() if line.startswith("| ")) == 2


def test_the_command_line_reports_bad_requests(tmp_path, capsys):
    code = reproduce.main(["--experiment", "sanet-table2", "--dataset", "imdb",
                           "--results-dir", str(tmp_path)])
    assert code == 2 and "sanet-table2 measures its four datasets" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        reproduce.main(["--experiment", "sanet-table2", "--seeds", "2"])
    assert "--seeds: sanet-table2 measures given or single runs" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        reproduce.main(["--experiment", "transformer-grid", "--seeds", "0"])
    assert "--seeds must be >= 1" in capsys.readouterr().err
    # the faithfulness flags are checked the same way here and in evaluate
    for main, flag in ((reproduce.main, "--sample"), (evaluate.main, "--faithfulness-sample")):
        for bad, message in (([flag, "0"], f"{flag} must be >= 1"),
                             (["--ig-steps", "0"], "--ig-steps must be >= 1")):
            args = (["--experiment", "faithfulness"] if main is reproduce.main
                    else ["--run", str(tmp_path), "--faithfulness"])
            with pytest.raises(SystemExit):
                main(args + bad)
            assert message in capsys.readouterr().err


def test_portable_jobs_are_the_commands_reproduce_runs():
    """benchmarks/portable_imdb.txt lists the IMDB runs with the names and arguments
    training.reproduce looks for, so runs fitted elsewhere are reused, not retrained."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(root, "benchmarks", "portable_imdb.txt")
    with open(path) as fh:
        jobs = dict(line.split(" ", 1) for line in fh.read().splitlines()
                    if line and not line.startswith("#"))
    expected = {f"transformer-imdb-l{l}-h{h}": experiment._transformer_cli("imdb", l, h)
                for l, h in experiment.TRANSFORMER_GRID}
    expected.update({f"{m}-imdb-table1": experiment._baseline_cli("imdb", m)
                     for m in experiment.BASELINE_MODELS})
    # and the rows of benchmarks.accuracy it holds, seed by seed (NAME-seedS adds --seed S)
    from benchmarks import accuracy

    # (a name can be a row of several suites, as transformer-imdb is of defaults and
    # wordvectors, always with one command: benchmarks.accuracy.check_run_names)
    rows = {}
    for suite, _ in accuracy.SUITES.values():
        for row, (cli, _) in suite.items():
            for name, seeded in accuracy._seed_runs(row, cli, 3):
                rows.setdefault(name, []).append(seeded)
    benchmarked = {"sanet-base-imdb-seed2", "sanet-baseline-base-imdb", "transformer-imdb-seed1",
                   "transformer-imdb-len1024-seed2", "iram-full-imdb", "cnn-imdb-seed2",
                   "hcan-1sa-target-imdb-seed1", "iram-full-imdb-paper",
                   "iram-baseline-imdb-seed2"}
    assert benchmarked <= set(jobs) & set(rows)
    assert set(jobs) <= set(rows) | set(expected)  # every job is one that is recorded
    for name in set(jobs) & set(rows):
        assert jobs[name].split() in rows[name], name
    assert jobs["cnn-imdb"].split() == ["--model", "cnn", "--dataset", "imdb"]
    for name, cli in expected.items():
        assert jobs[name].split() == cli, name
    assert "--remove-stopwords" in expected["transformer-imdb-l1-h1"]  # §3.3 on IMDB
    # and prepare takes every line of it as it stands
    from kerasattn.training import prepared

    assert [name for _, name, _ in prepared.read_jobs(path)] == list(jobs)
    assert "--remove-stopwords" not in experiment._transformer_cli("sst2", 1, 1)
