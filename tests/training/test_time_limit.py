"""--time-limit of training.train (and kerasattn.metrics.time_limit, shared with
training.portable fit and usable in any fit)."""

import os

import keras
import numpy as np
import pytest

from kerasattn import metrics, runs
from kerasattn.cli import train
from kerasattn.training import ConfigError, RunConfig
from tests.training.test_reliability import _tiny


def test_a_run_stops_at_its_time_limit_validates_the_partial_epoch_and_says_so(tmp_path,
                                                                                capsys):
    # 43 training texts in batches of 8 (6 batches an epoch), 5 epochs, a limit that has
    # passed after the first batch
    run_dir, m = train.train(_tiny(tmp_path, "--epochs", "5", "--batch-size", "8",
                                   "--time-limit", "1e-9", "--run-name", "cut"))
    limit = m["time_limit"]
    assert limit["reached"] and (limit["epoch"], limit["steps"]) == (1, 1)
    assert limit["seconds"] == 1e-9 and limit["steps_per_epoch"] == 6
    assert m["epochs_run"] == m["best_epoch"] == 1  # the partial epoch was validated
    assert os.path.exists(os.path.join(run_dir, runs.KERAS_MODEL))
    assert runs.read_json(os.path.join(run_dir, runs.METRICS))["time_limit"] == limit
    assert runs.read_json(os.path.join(run_dir, runs.CONFIG))["time_limit"] == 1e-9
    out = capsys.readouterr().out
    assert "warning: stopped by --time-limit 1e-09s in epoch 1 of 5 (after 1 of " in out
    # a limit that is not reached: every epoch, recorded as not reached, no warning
    _, m = train.train(_tiny(tmp_path, "--epochs", "2", "--time-limit", "3600",
                             "--run-name", "whole"))
    assert m["time_limit"] == {"seconds": 3600.0, "reached": False} and m["epochs_run"] == 2
    assert "stopped by --time-limit" not in capsys.readouterr().out
    # without the flag nothing is recorded
    assert "time_limit" not in train.train(_tiny(tmp_path, "--run-name", "plain"))[1]


def test_a_cut_run_is_another_configuration_than_the_whole_one(tmp_path):
    whole = RunConfig.create("cnn", "sst2")
    old = whole.to_json()
    del old["time_limit"]  # a run made before the setting existed
    assert whole.same_run(old)
    assert not RunConfig.create("cnn", "sst2", time_limit=600).same_run(old)
    # so a finished whole run is not taken for a cut one (nor overwritten by it)
    train.train(_tiny(tmp_path, "--run-name", "r"))
    with pytest.raises(ConfigError, match="--overwrite"):
        train.train(_tiny(tmp_path, "--run-name", "r", "--time-limit", "60"))


@pytest.mark.parametrize("extra,message", [
    (["--time-limit", "0"], "error: --time-limit must be > 0 (seconds), got 0.0"),
    (["--time-limit", "60", "--distribution", "multiworker"],
     "error: --time-limit does not work with --distribution multiworker"),
])
def test_a_bad_time_limit_is_one_error_line_and_leaves_nothing(tmp_path, capsys, extra,
                                                                message):
    assert train.main(_tiny(tmp_path, *extra, "--run-name", "z")) == 2
    assert capsys.readouterr().err.strip().splitlines() == [message]
    assert not os.path.exists(tmp_path / "out" / "z")


def test_the_callback_stops_any_fit_and_records_where():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    x, y = np.zeros((40, 2), "float32"), np.zeros((40, 1), "float32")
    cb = metrics.time_limit(1e-9)
    history = model.fit(x, y, batch_size=4, epochs=3, callbacks=[cb], verbose=0)
    assert cb.stopped_at == (1, 1) and len(history.history["loss"]) == 1
    assert metrics.time_limit_record(cb) == {"seconds": 1e-9, "reached": True, "epoch": 1,
                                             "steps": 1, "steps_per_epoch": 10}
    # the same callback in another fit: that fit's own limit and record
    history = model.fit(x, y, batch_size=8, epochs=3, callbacks=[cb], verbose=0)
    assert len(history.history["loss"]) == 1
    assert metrics.time_limit_record(cb)["steps_per_epoch"] == 5
    roomy = metrics.time_limit(3600)
    model.fit(x, y, batch_size=4, epochs=2, callbacks=[roomy], verbose=0)
    assert roomy.stopped_at is None
    assert metrics.time_limit_record(roomy) == {"seconds": 3600, "reached": False}
    with pytest.raises(ValueError, match="must be > 0 seconds"):
        metrics.time_limit(0)


def test_a_limit_passing_during_validation_stops_at_that_epochs_end(monkeypatch):
    # a clock that stands still through training and jumps past the limit while the
    # first epoch is validated: no second epoch starts only to be cut after one step
    import time

    now = [0.0]
    monkeypatch.setattr(time, "perf_counter", lambda: now[0])

    class SlowValidation(keras.callbacks.Callback):
        def on_test_end(self, logs=None):
            now[0] += 100.0

    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    x, y = np.zeros((40, 2), "float32"), np.zeros((40, 1), "float32")
    cb = metrics.time_limit(50)
    history = model.fit(x, y, batch_size=4, epochs=3, validation_data=(x, y),
                        callbacks=[SlowValidation(), cb], verbose=0)
    assert len(history.history["loss"]) == 1 and "val_loss" in history.history
    record = metrics.time_limit_record(cb)
    assert record == {"seconds": 50, "reached": True, "epoch": 1, "steps": 10,
                      "steps_per_epoch": 10}
    assert metrics.time_limit_warning(record, 3) == (
        "warning: stopped by --time-limit 50s after epoch 1 of 3; the run is shorter "
        "than its configuration")
    # passing while the last epoch is validated (or after its last batch) cuts nothing
    now[0] = 0.0
    whole = metrics.time_limit(250)
    history = model.fit(x, y, batch_size=4, epochs=3, validation_data=(x, y),
                        callbacks=[SlowValidation(), whole], verbose=0)
    assert len(history.history["loss"]) == 3  # validated at 100, 200 and 300 s
    assert metrics.time_limit_record(whole) == {"seconds": 250, "reached": False}

    class SlowLastBatch(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            now[0] += 100.0 if batch == 9 else 0.0

    now[0] = 0.0
    whole = metrics.time_limit(250)
    history = model.fit(x, y, batch_size=4, epochs=3, callbacks=[SlowLastBatch(), whole],
                        verbose=0)
    assert len(history.history["loss"]) == 3
    assert metrics.time_limit_record(whole) == {"seconds": 250, "reached": False}
    # cut inside an epoch, the warning says where
    assert metrics.time_limit_warning(dict(record, steps=4), 3) == (
        "warning: stopped by --time-limit 50s in epoch 1 of 3 (after 4 of 10 steps); the "
        "run is shorter than its configuration")


def test_portable_prepare_leaves_the_time_limit_to_fit(tmp_path, capsys):
    from kerasattn.cli import portable
    from kerasattn.training import prepared

    argv = [a for a in _tiny(tmp_path, "--time-limit", "60", "--run-name", "p")
            if a not in ("--verbose", "0")]
    with pytest.raises(ConfigError, match="prepare takes no --time-limit; give it to "
                                          "kerasattn portable fit"):
        prepared.prepare(argv)
    capsys.readouterr()
    assert portable.main(["prepare", *argv]) == 2
    assert capsys.readouterr().err.splitlines() == [  # one line, no traceback
        "error: prepare takes no --time-limit; give it to kerasattn portable fit"]
    assert not os.path.exists(tmp_path / "out" / "p")
