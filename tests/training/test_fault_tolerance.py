"""Reproducible runs, resuming after SIGKILL, and multi-worker training.

The end-to-end tests run ``python -m training.train`` in subprocesses (op
determinism is process-wide, and a process must really die) on real SST-2.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time

import keras
import numpy as np
import pytest

from kerasattn import runs
from kerasattn.training import resume
from tests.conftest import write
from kerasattn.cli import train

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARGS = ["--model", "mlp", "--dataset", "sst2", "--epochs", "2", "--seed", "5",
        "--deterministic", "--verbose", "0"]
TIMEOUT = 600  # seconds any one training process may take


def _start(out, *extra, env=None, log=None):
    cmd = [sys.executable, "-m", "training.train", *ARGS, "--output-dir", str(out), *extra]
    env = {**os.environ, "PYTHONPATH": ROOT, **(env or {})}
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log or subprocess.DEVNULL,
                            stderr=subprocess.STDOUT)


def _run(out, *extra):
    p = _start(out, *extra)
    assert p.wait(timeout=TIMEOUT) == 0
    return p


def _metrics(run_dir):
    m = runs.read_json(os.path.join(run_dir, runs.METRICS))
    return {k: m[k] for k in ("val", "test", "best_epoch", "epochs_run")}


def _history(run_dir):
    with open(os.path.join(run_dir, runs.HISTORY)) as fh:
        return fh.read()


def _kill_when_backed_up(process, run_dir):
    """SIGKILL ``process`` as soon as its first epoch's backup exists."""
    deadline = time.time() + TIMEOUT
    while not resume.backed_up_epochs(run_dir):
        assert process.poll() is None, "the run ended before its first backup"
        assert time.time() < deadline
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert not os.path.exists(os.path.join(run_dir, runs.METRICS))
    return resume.backed_up_epochs(run_dir)


@pytest.fixture(scope="module")
def whole(tmp_path_factory, shared_data):
    """An uninterrupted single-process run."""
    out = tmp_path_factory.mktemp("whole")
    _run(out, "--run-name", "r")
    return str(out / "r")


# implied by the next test, whose resumed run repeats an uninterrupted one in another
# process to the last digit; this one costs a third run
@pytest.mark.slow
@pytest.mark.usefixtures("shared_data")
def test_deterministic_runs_are_bit_identical(whole, tmp_path):
    _run(tmp_path, "--run-name", "again")
    again = str(tmp_path / "again")
    assert _metrics(again) == _metrics(whole)
    assert _history(again) == _history(whole)  # every epoch, every digit


@pytest.mark.usefixtures("shared_data")
def test_killed_run_resumes_and_ends_like_an_uninterrupted_one(whole, tmp_path):
    # no --run-name: re-running the same command must find the interrupted run
    p = _start(tmp_path)
    deadline = time.time() + TIMEOUT
    while not os.listdir(tmp_path):
        assert time.time() < deadline and p.poll() is None
        time.sleep(0.02)
    run_dir = str(tmp_path / os.listdir(tmp_path)[0])
    assert _kill_when_backed_up(p, run_dir) == 1
    _run(tmp_path)
    assert os.listdir(tmp_path) == [os.path.basename(run_dir)]  # resumed, not started anew
    m = runs.read_json(os.path.join(run_dir, runs.METRICS))
    assert m["resumed_after_epoch"] == 1
    assert _metrics(run_dir) == _metrics(whole)
    assert _history(run_dir) == _history(whole)
    assert not os.path.exists(resume.backup_dir(run_dir))  # deleted once finished


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_workers(out, name, logs):
    ports = [_free_port(), _free_port()]
    procs = []
    for i in range(2):
        tf_config = {"cluster": {"worker": [f"127.0.0.1:{p}" for p in ports]},
                     "task": {"type": "worker", "index": i}}
        procs.append(_start(out, "--distribution", "multiworker", "--run-name", name,
                            env={"TF_CONFIG": json.dumps(tf_config)},
                            log=open(os.path.join(logs, f"{name}-{i}-{time.time()}.log"), "w")))
    return procs


def _worker_dirs(out, name):
    return str(out / name), str(out / name / "worker-1")


def _weights(run_dir):
    return keras.saving.load_model(os.path.join(run_dir, runs.KERAS_MODEL)).get_weights()


@pytest.fixture(scope="module")
def multiworker(tmp_path_factory, shared_data):
    """Two worker processes on 127.0.0.1, uninterrupted."""
    out = tmp_path_factory.mktemp("mw")
    procs = _start_workers(out, "mw", str(out))
    assert [p.wait(timeout=TIMEOUT) for p in procs] == [0, 0]
    return _worker_dirs(out, "mw")


@pytest.mark.usefixtures("shared_data")
def test_a_cluster_of_one_worker_trains_through_the_multiworker_loop(whole, tmp_path):
    """By default, one worker process: the multi-worker path (its strategy, its own
    training loop, the chief's run directory) ends as the single-process run does."""
    tf_config = {"cluster": {"worker": [f"127.0.0.1:{_free_port()}"]},
                 "task": {"type": "worker", "index": 0}}
    p = _start(tmp_path, "--distribution", "multiworker", "--run-name", "one",
               env={"TF_CONFIG": json.dumps(tf_config)})
    assert p.wait(timeout=TIMEOUT) == 0
    one = str(tmp_path / "one")
    assert runs.read_json(os.path.join(one, runs.CONFIG))["distribution"] == "multiworker"
    assert not os.path.exists(os.path.join(one, "worker-1"))
    single = runs.read_json(os.path.join(whole, runs.METRICS))["test"]["accuracy"]
    assert abs(_metrics(one)["test"]["accuracy"] - single) <= 0.01
    assert _metrics(one)["test"]["accuracy"] > 0.75  # and it learned


# two fresh worker processes on loopback, about 80 s of CPU: with -m slow (one worker
# through the same loop above; the pieces of a multi-worker run, without training, below)
@pytest.mark.slow
def test_two_workers_on_loopback_agree_and_match_one_worker(multiworker, whole):
    chief, other = multiworker
    for a, b in zip(_weights(chief), _weights(other)):
        np.testing.assert_array_equal(a, b)
    assert _metrics(chief) == _metrics(other)
    one = runs.read_json(os.path.join(whole, runs.METRICS))["test"]["accuracy"]
    assert abs(_metrics(chief)["test"]["accuracy"] - one) <= 0.01
    assert _metrics(chief)["test"]["accuracy"] > 0.75  # and it learned


@pytest.mark.slow
def test_multiworker_resumes_after_one_worker_is_killed(multiworker, tmp_path):
    procs = _start_workers(tmp_path, "cut", str(tmp_path))
    chief, other = _worker_dirs(tmp_path, "cut")
    assert _kill_when_backed_up(procs[1], other) == 1
    try:  # the survivor notices the missing heartbeats and fails
        procs[0].wait(timeout=120)
    except subprocess.TimeoutExpired:
        procs[0].kill()
        procs[0].wait()
    procs = _start_workers(tmp_path, "cut", str(tmp_path))
    assert [p.wait(timeout=TIMEOUT) for p in procs] == [0, 0]
    for resumed, uninterrupted in zip((chief, other), multiworker):
        assert _metrics(resumed) == _metrics(uninterrupted)
        assert _history(resumed) == _history(uninterrupted)


# -- the pieces, without training -------------------------------------------


def test_multiworker_needs_tf_config_and_a_run_name(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    base = ["--model", "mlp", "--dataset", "sst2", "--output-dir", str(tmp_path),
            "--distribution", "multiworker"]
    assert train.main(base) == 2
    assert "--run-name" in capsys.readouterr().err
    assert train.main(base + ["--run-name", "x"]) == 2
    assert "TF_CONFIG" in capsys.readouterr().err
    monkeypatch.setenv("TF_CONFIG", "{not json")
    assert train.main(base + ["--run-name", "x"]) == 2
    assert "not valid cluster JSON" in capsys.readouterr().err
    assert os.listdir(tmp_path) == []


def _fake_interrupted_run(run_dir, model):
    from kerasattn import ownership

    ownership.make_dir(run_dir, "run")  # a run directory of kerasattn's
    os.makedirs(resume.backup_dir(run_dir))
    runs.write_json(os.path.join(run_dir, runs.CONFIG), {"model": model})
    write(os.path.join(resume.backup_dir(run_dir), "training_metadata.json"),
          json.dumps({"epoch": 1, "batch": 0}))


def test_a_backup_of_another_command_is_not_resumed(tmp_path):
    _fake_interrupted_run(str(tmp_path / "x"), "cnn")
    with pytest.raises(train.ConfigError, match="interrupted run of a different command"):
        train.train(["--model", "mlp", "--dataset", "sst2", "--output-dir", str(tmp_path),
                     "--run-name", "x"])
    assert resume.backed_up_epochs(str(tmp_path / "x")) == 1  # nothing deleted


def test_restart_discards_the_backup(tmp_path):
    rows = "".join(f"{'good fine' if i % 2 else 'bad poor'} {i},{i % 2}\n" for i in range(60))
    path = write(tmp_path / "d.csv", "text,label\n" + rows)
    run_dir = str(tmp_path / "x")
    _fake_interrupted_run(run_dir, "cnn")
    _, m = train.train(["--model", "mlp", "--dataset", f"csv:{path}", "--epochs", "1",
                        "--output-dir", str(tmp_path), "--run-name", "x", "--restart",
                        "--verbose", "0"])
    assert "resumed_after_epoch" not in m and m["epochs_run"] == 1
    assert "--restart" not in runs.read_json(os.path.join(run_dir, runs.CONFIG))["command"]


def test_epoch_seeds_make_dropout_a_function_of_the_epoch():
    def model():
        keras.utils.set_random_seed(1)
        return keras.Sequential([keras.Input((64,)), keras.layers.Dropout(0.5)])

    def masks(m, epochs):
        cb = resume.EpochSeeds()
        cb.set_model(m)
        cb.on_train_begin()
        out = {}
        for e in epochs:
            cb.on_epoch_begin(e)
            assert int(cb.epoch.numpy()) == e
            out[e] = m(np.ones((2, 64)), training=True).numpy()
        return out

    straight = masks(model(), [0, 1, 2])
    resumed = masks(model(), [2])  # a fresh process starting at epoch 2
    np.testing.assert_array_equal(straight[2], resumed[2])
    assert not np.array_equal(straight[0], straight[1])


def test_history_is_cut_back_to_the_backed_up_epochs(tmp_path):
    path = write(tmp_path / "h.csv", "epoch,accuracy,val_accuracy\n0,0.5,0.6\n1,0.7,0.8\n"
                                     "2,0.8,0.7\n")
    rows = resume.truncate_history(path, 2)
    assert rows == [{"epoch": 0, "accuracy": 0.5, "val_accuracy": 0.6},
                    {"epoch": 1, "accuracy": 0.7, "val_accuracy": 0.8}]
    assert resume.read_history(path) == rows
    assert resume.truncate_history(path, 0) == [] and open(path).read() == ""


def test_early_stopping_counts_the_epochs_before_the_interruption():
    past = [{"epoch": 0, "val_accuracy": 0.8}, {"epoch": 1, "val_accuracy": 0.7}]
    cb = resume.ResumableEarlyStopping(past, monitor="val_accuracy", mode="max", patience=2)
    cb.set_model(keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)]))
    cb.on_train_begin()
    assert cb.best == 0.8 and cb.wait == 1
    cb.on_epoch_end(2, {"val_accuracy": 0.75})
    assert cb.model.stop_training  # two epochs without improvement, as uninterrupted


def test_step_back_one_epoch_restores_the_previous_backup(tmp_path):
    d = resume.backup_dir(str(tmp_path))
    os.makedirs(d)
    write(os.path.join(d, "training_metadata.json"), json.dumps({"epoch": 3, "batch": 0}))
    write(os.path.join(d, "latest.weights.h5"), "new")
    with pytest.raises(RuntimeError, match="no previous backup"):
        resume.step_back_one_epoch(str(tmp_path))
    write(os.path.join(d, "latest.weights.h5.bkp"), "old")
    resume.step_back_one_epoch(str(tmp_path))
    assert resume.backed_up_epochs(str(tmp_path)) == 2
    assert open(os.path.join(d, "latest.weights.h5")).read() == "old"


def _backup(tmp_path, latest, previous=None):
    d = resume.backup_dir(str(tmp_path))
    os.makedirs(d)
    write(os.path.join(d, "training_metadata.json"), latest)
    write(os.path.join(d, "latest.weights.h5"), "new")
    if previous is not None:
        write(os.path.join(d, "training_metadata.json.bkp"), previous)
        write(os.path.join(d, "latest.weights.h5.bkp"), "old")
    return d


@pytest.mark.parametrize("cut", ["", '{"epoch": 3, "ba'])
def test_a_backup_cut_off_mid_write_falls_back_to_the_previous_one(tmp_path, cut):
    d = _backup(tmp_path, cut, previous=json.dumps({"epoch": 2, "batch": 0}))
    assert resume.backed_up_epochs(str(tmp_path)) == 2  # read while Keras writes: not 3
    assert "previous one (epoch 2)" in resume.repair_backup(str(tmp_path))
    assert json.load(open(os.path.join(d, "training_metadata.json")))["epoch"] == 2
    assert open(os.path.join(d, "latest.weights.h5")).read() == "old"  # the pair matches
    assert resume.repair_backup(str(tmp_path)) is None  # whole now: nothing to do


def test_a_first_backup_cut_off_mid_write_counts_as_none(tmp_path):
    d = _backup(tmp_path, "")
    assert resume.backed_up_epochs(str(tmp_path)) == 0
    assert "deleted" in resume.repair_backup(str(tmp_path))
    assert not os.path.exists(d)


def test_a_whole_backup_is_left_alone(tmp_path):
    d = _backup(tmp_path, json.dumps({"epoch": 3, "batch": 0}),
                previous=json.dumps({"epoch": 2, "batch": 0}))
    assert resume.repair_backup(str(tmp_path)) is None
    assert resume.backed_up_epochs(str(tmp_path)) == 3
    assert open(os.path.join(d, "latest.weights.h5")).read() == "new"
