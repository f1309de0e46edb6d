"""A run that did not learn says so; benchmark tables give spreads over seeds."""

import datetime
import json
import os
import time

import pytest

from benchmarks import accuracy
from kerasattn.callbacks import DivergenceGuard
from kerasattn.cli import train
from kerasattn.metrics import learning_check
from kerasattn.training.diagnostics import diverged_message
from tests.conftest import learnability_csv as _csv, train_in_process, write


def test_learning_check_against_the_majority_rate():
    # 60 of 100 validation texts are class 1; predicting it always gives 0.60
    always = {"accuracy": 0.60, "confusion_matrix": [[0, 40], [0, 60]]}
    check = learning_check(always, ["neg", "pos"])
    assert not check["learned"] and check["majority_rate"] == 0.60
    assert check["majority_class"] == "pos" and "did not learn" in check["warning"]
    assert not learning_check({**always, "accuracy": 0.615}, ["neg", "pos"])["learned"]
    good = learning_check({"accuracy": 0.80, "confusion_matrix": [[30, 10], [10, 50]]})
    assert good["learned"] and good["warning"] is None


@pytest.mark.parametrize("learnable", [True, False])
def test_metrics_and_the_log_say_whether_a_run_learned(tmp_path, capsys, learnable):
    run_dir, m = train.train(["--model", "mlp", "--dataset", f"csv:{_csv(tmp_path, learnable)}",
                              "--epochs", "3", "--output-dir", str(tmp_path / "runs"),
                              "--verbose", "0", "--learning-rate", "0.01"])
    assert m["learning"]["learned"] is learnable
    out = capsys.readouterr().out
    assert ("WARNING: this run did not learn" in out) is (not learnable)
    with open(os.path.join(run_dir, "metrics.json")) as fh:
        assert json.load(fh)["learning"]["learned"] is learnable


def test_the_divergence_guard_stops_at_the_first_loss_that_is_not_finite():
    import keras
    import numpy as np

    x = np.ones((8, 2), np.float32)
    x[4:6] = np.inf  # the third batch of two
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    guard = DivergenceGuard()
    history = model.fit(x, np.zeros(8), batch_size=2, epochs=3, shuffle=False,
                        callbacks=[guard], verbose=0)
    assert guard.diverged == (1, 3) and len(history.history["loss"]) == 1
    assert "step 3 of epoch 1" in diverged_message(guard, "here")
    clean = DivergenceGuard()
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    history = model.fit(x[:4], np.zeros(4), batch_size=2, epochs=3, callbacks=[clean],
                        verbose=0)
    assert clean.diverged is None and len(history.history["loss"]) == 3


def test_a_run_that_diverges_ends_with_one_error_line_and_no_metrics(tmp_path, capsys):
    out = tmp_path / "runs"
    code = train.main(["--model", "mlp", "--dataset", f"csv:{_csv(tmp_path, True)}",
                       "--epochs", "3", "--output-dir", str(out), "--verbose", "0",
                       "--learning-rate", "1e30"])  # Adam's first steps overflow the logits
    assert code == 1
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and err[0].startswith("error: mlp on csv:") and "diverged" in err[0]
    (run,) = os.listdir(out)
    assert not os.path.exists(out / run / "metrics.json")


def _record(acc, learned=True):
    return {"test": {"accuracy": acc, "f1_macro": acc}, "val_accuracy": acc - 0.05,
            "best_epoch": 2, "train_seconds": 10.0,
            "train_examples_per_second": 100.0, "learned": learned, "measured": "2026-11-23",
            "machine": "m", "versions": "v"}


def test_a_row_gives_mean_and_standard_deviation_and_flags_runs_that_did_not_learn():
    suite = {"a": (["--model", "mlp", "--dataset", "sst2"], 0.75)}
    row = accuracy._row(suite, "a", {"seeds": [_record(0.7), _record(0.9)]})
    assert "| 0.8000 ± 0.1414 | 2 |" in row and "| yes |" in row
    assert "| 0.7500 ± 0.1414 | 0.8000" in row  # validation accuracy first
    row = accuracy._row(suite, "a", {"seeds": [_record(0.5, learned=False), _record(0.9)]})
    assert "**did not learn**" in row and "**no**" in row
    old = _record(0.81)  # a record from before --seeds (and before validation was kept)
    del old["val_accuracy"]
    assert "| - | 0.8100 | 1 |" in accuracy._row(suite, "a", old)


def test_a_row_name_is_given_once():
    # a second row under a name would take over the first's records
    rows = accuracy.Rows({"a": (["--model", "mlp"], None)})
    with pytest.raises(ValueError, match="'a' is defined twice"):
        rows["a"] = (["--model", "cnn"], None)
    with pytest.raises(ValueError, match="defined twice"):
        rows.update({"a": (["--model", "cnn"], None)})
    rows.redefine("a", (["--model", "cnn"], None))  # on purpose: pinning an option
    rows.update(b=(["--model", "gru"], None))
    assert rows == {"a": (["--model", "cnn"], None), "b": (["--model", "gru"], None)}
    for suite, _ in accuracy.SUITES.values():
        assert isinstance(suite, accuracy.Rows)


def test_a_run_name_means_one_command_in_every_suite():
    # the suites share one output folder: a name given to two commands would overwrite
    # one suite's run with the other's
    accuracy.check_run_names(accuracy.SUITES)
    same = {"a": ({"x-sst2": (["--model", "mlp", "--dataset", "sst2"], None)}, "A"),
            "b": ({"x-sst2": (["--model", "mlp", "--dataset", "sst2"], None)}, "B")}
    accuracy.check_run_names(same)  # the same command: one run serves both
    other = {**same, "c": ({"x-sst2": (["--model", "cnn", "--dataset", "sst2"], None)}, "C")}
    with pytest.raises(ValueError, match="'x-sst2' of suite c .* of suite a"):
        accuracy.check_run_names(other)
    # a row named like another row's seed run
    seeded = {**same, "c": ({"x-sst2-seed1": (["--model", "mlp", "--dataset", "sst2"],
                                              None)}, "C")}
    with pytest.raises(ValueError, match="'x-sst2-seed1' of suite c"):
        accuracy.check_run_names(seeded)


def test_seed_runs_keep_seed_zero_as_the_configurations_own_run():
    assert accuracy._seed_runs("x", ["--model", "mlp"], 3) == [
        ("x", ["--model", "mlp"]), ("x-seed1", ["--model", "mlp", "--seed", "1"]),
        ("x-seed2", ["--model", "mlp", "--seed", "2"])]


def test_seeds_are_trained_and_recorded(tmp_path, monkeypatch):
    cli = ["--model", "mlp", "--dataset", f"csv:{_csv(tmp_path, True)}", "--epochs", "1"]
    monkeypatch.setitem(accuracy.SUITES, "tiny", ({"mlp-tiny": (cli, 0.6)}, "Tiny"))
    train_in_process(accuracy, monkeypatch)  # the seeds' runs, without 9 s of imports each
    results = str(tmp_path / "tiny.md")
    accuracy.main(["--suite", "tiny", "--seeds", "2", "--output-dir", str(tmp_path / "runs"),
                   "--results", results])
    records = json.load(open(results.replace(".md", ".json")))
    assert len(records["mlp-tiny"]["seeds"]) == 2
    assert sorted(os.listdir(tmp_path / "runs")) == ["mlp-tiny", "mlp-tiny-seed1"]
    table = open(results).read()
    assert " ± " in table and "| 2 |" in table
    # --reuse finds both finished runs by their configuration: nothing is trained again,
    # and each record keeps the date its run finished (here made a year old)
    year_ago = time.time() - 365 * 86400
    for d in ("mlp-tiny", "mlp-tiny-seed1"):
        os.utime(tmp_path / "runs" / d / "metrics.json", (year_ago, year_ago))
    before = {d: os.path.getmtime(tmp_path / "runs" / d / "metrics.json")
              for d in ("mlp-tiny", "mlp-tiny-seed1")}
    accuracy.main(["--suite", "tiny", "--seeds", "2", "--output-dir", str(tmp_path / "runs"),
                   "--results", results, "--reuse"])
    assert before == {d: os.path.getmtime(tmp_path / "runs" / d / "metrics.json")
                      for d in before}
    then = str(datetime.datetime.fromtimestamp(year_ago, datetime.timezone.utc).date())
    records = json.load(open(results.replace(".md", ".json")))
    assert [r["measured"] for r in records["mlp-tiny"]["seeds"]] == [then, then]
    # without it each seed is trained again, though a finished run of its configuration
    # is there (the training command alone would keep that one)
    accuracy.main(["--suite", "tiny", "--seeds", "1", "--output-dir", str(tmp_path / "runs"),
                   "--results", results])
    assert os.path.getmtime(tmp_path / "runs" / "mlp-tiny" / "metrics.json") > before["mlp-tiny"]


def test_reuse_takes_a_cut_run_and_refuses_to_train_over_another_configuration(
        tmp_path, monkeypatch, capsys):
    cli = ["--model", "mlp", "--dataset", f"csv:{_csv(tmp_path, True)}", "--epochs", "1"]
    monkeypatch.setitem(accuracy.SUITES, "tiny", ({"mlp-tiny": (cli, 0.6)}, "Tiny"))
    train_in_process(accuracy, monkeypatch)
    out, results = tmp_path / "runs", str(tmp_path / "tiny.md")
    # seed 0 was stopped by training.train --time-limit: its configuration says so
    train.train([*cli, "--output-dir", str(out), "--run-name", "mlp-tiny", "--verbose", "0",
                 "--time-limit", "3600"])
    mtime = os.path.getmtime(out / "mlp-tiny" / "metrics.json")
    accuracy.main(["--suite", "tiny", "--seeds", "2", "--output-dir", str(out),
                   "--results", results, "--reuse"])
    assert "reusing " + str(out / "mlp-tiny") in capsys.readouterr().out
    assert os.path.getmtime(out / "mlp-tiny" / "metrics.json") == mtime
    assert (out / "mlp-tiny-seed1" / "metrics.json").exists()  # the missing seed, trained
    # the row's command changed: its finished runs are another configuration, and
    # --reuse stops before training anything rather than overwrite them
    before = {d: os.path.getmtime(out / d / "metrics.json")
              for d in ("mlp-tiny", "mlp-tiny-seed1")}
    monkeypatch.setitem(accuracy.SUITES, "tiny",
                        ({"mlp-tiny": ([*cli[:-1], "2"], 0.6)}, "Tiny"))
    with pytest.raises(SystemExit) as stop:
        accuracy.main(["--suite", "tiny", "--seeds", "2", "--output-dir", str(out),
                       "--results", results, "--reuse"])
    message = str(stop.value.code)
    assert message.startswith("error: ") and "\n" not in message
    assert "mlp-tiny holds a finished run" in message and "differs in train.epochs" in message
    assert before == {d: os.path.getmtime(out / d / "metrics.json") for d in before}


def test_run_config_names_its_differences_setting_by_setting():
    from kerasattn.training import RunConfig

    config = RunConfig.create("cnn", "sst2")
    assert config.differences(config.to_json()) == []
    other = RunConfig.create("cnn", "sst2", seed=1, epochs=3, time_limit=60,
                             model_options={"filters": 50})
    assert config.differences(other.to_json()) == [
        "seed", "train.epochs", "model_config.filters", "time_limit"]
    assert not config.same_run(other.to_json())


def test_a_portable_run_is_recorded_with_the_machine_that_fitted_it(tmp_path):
    metrics = {"test": {"accuracy": 0.87, "f1_macro": 0.87, "examples": 3},
               "val": {"accuracy": 0.88}, "best_epoch": 2, "train_seconds": 17.0,
               "train_examples_per_second": 5000.0,
               "learning": {"learned": True},
               "trained_with": {"command": "python -m training.portable fit",
                                "backend": "jax", "keras": "3.15.1",
                                "device": "gpu: NVIDIA H200", "dtype_policy": "float32"}}
    path = write(tmp_path / "metrics.json", json.dumps(metrics))
    env = {"machine": "x86_64 Linux, 2 CPUs, GPUs: 0", "tensorflow": "2.21.0",
           "keras": "3.15.1", "scikit_learn": "1.9.1"}
    record = accuracy._record(path, env)
    assert record["machine"] == "gpu: NVIDIA H200 (float32)"
    assert record["versions"].startswith("Keras 3.15.1 on jax (training.portable")
    assert record["fitted_by"] == "training.portable"
    assert record["test"] == {"accuracy": 0.87, "f1_macro": 0.87}  # numbers only
    # its table row names where it was fitted; a row of this machine's runs does not
    suite = {"a": (["--model", "mlp", "--dataset", "imdb"], None)}
    gpu_row = accuracy._row(suite, "a", {"seeds": [{**record, "measured": "2026-11-26"}]})
    assert gpu_row.endswith("| 2026-11-26 (gpu: NVIDIA H200 (float32), training.portable) |")
    assert accuracy._row(suite, "a", {"seeds": [_record(0.8)]}).endswith("| 2026-11-23 |")
    assert "cut" not in record and "cut" not in gpu_row
    # a run stopped by fit --time-limit says so, and where
    metrics["time_limit"] = {"seconds": 200, "reached": True, "epoch": 3, "steps": 482,
                             "steps_per_epoch": 2427}
    write(tmp_path / "metrics.json", json.dumps(metrics))
    cut = accuracy._record(path, env)
    assert cut["cut"] == {"epoch": 3, "steps": 482, "steps_per_epoch": 2427}
    row = accuracy._row(suite, "a", {"seeds": [record, cut]})
    assert "| 2/2 (**cut by the time limit**: seed 1: epoch 3 at 482/2,427 steps) |" in row
    metrics["time_limit"] = {"seconds": 900, "reached": False}
    write(tmp_path / "metrics.json", json.dumps(metrics))
    assert "cut" not in accuracy._record(path, env)
    del metrics["trained_with"]
    write(tmp_path / "metrics.json", json.dumps(metrics))
    assert accuracy._record(path, env)["machine"] == env["machine"]
    assert "fitted_by" not in accuracy._record(path, env)


@pytest.mark.parametrize("model,measured,marked", [
    ("sanet-base", "2026-11-26", True),
    ("hcan-2sa-target", "2026-11-26", True),
    ("transformer", "2026-12-01", False),  # measured again on the fixed code
    ("cnn", "2026-11-26", False),  # no layer of ours with an initializer: the same draw
])
def test_attention_rows_measured_before_the_initialiser_fix_say_so(model, measured, marked):
    suite = {"a": (["--model", model, "--dataset", "sst2"], None)}
    row = accuracy._row(suite, "a", {"seeds": [{**_record(0.8), "measured": measured}]})
    assert row.endswith(f"| {measured} (before the initialiser fix, 76bcf6e) |"
                        if marked else f"| {measured} |")


def test_the_initfix_table_puts_before_and_after_side_by_side():
    from benchmarks import initfix

    before = {"x": {"seeds": [_record(0.70), _record(0.72), _record(0.74)]}}
    after = {"x": {"seeds": [_record(0.75), _record(0.77), _record(0.79)]},
             "new": {"seeds": [_record(0.5)]}}
    before["x"]["seeds"][0]["machine"] = "gpu: NVIDIA H200 (float32)"
    after["x"]["seeds"][1]["cut"] = {"epoch": 5, "steps": 10, "steps_per_epoch": 20}
    rows = initfix.table(before, after, {"x": "python -m training.train --model m"})
    assert len(rows) == 3  # header, rule, and x only (no before for "new")
    assert rows[2] == ("| `python -m training.train --model m` | 0.670 ± 0.020 | 0.720 ± 0.020 "
                       "| 0.720 ± 0.020 | 0.770 ± 0.020 | +0.050 | +0.050 | 3 / 3 "
                       "| 2026-11-23 / 2026-11-23 "
                       "| GPU / 2 CPU cores, cut by the time limit in epoch 5 |")
    # a candidate recipe against its default after the fix, chosen on validation only
    candidates = {"x-cosine": {"seeds": [_record(0.80), _record(0.81), _record(0.82)]},
                  "x-adamw": {"seeds": [_record(0.76), _record(0.77), _record(0.78)]},
                  "other": {"seeds": [_record(0.9)]}}
    rows = initfix.candidate_rows(after, candidates, {})
    assert len(rows) == 4  # no default row for "other"
    assert rows[2].endswith("| 0.760 ± 0.010 / 0.810 ± 0.010 | +0.040 | the candidate |")
    assert rows[3].endswith("| +0.000 | the default |")


def test_the_zoo_s_callbacks_live_in_one_module_and_extend_keras_s():
    import keras

    from kerasattn import callbacks, metrics
    from kerasattn.training import resume

    assert issubclass(callbacks.DivergenceGuard, keras.callbacks.TerminateOnNaN)
    assert isinstance(metrics.time_limit(5), callbacks.TimeLimit)
    assert resume.ResumableEarlyStopping is callbacks.ResumableEarlyStopping
    assert issubclass(callbacks.AtomicModelCheckpoint, keras.callbacks.ModelCheckpoint)
