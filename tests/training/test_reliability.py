"""Crashes and bad command lines never lose work or leave half a run behind.

The kill tests run ``python -m training.train`` in subprocesses (a process must
really die) with ``--deterministic``, and compare the resumed run's
``metrics.json`` with an uninterrupted run's. A crash at an exact point after
training is made by a ``sitecustomize`` module on the child's PYTHONPATH that
replaces one function of a kerasattn module (:mod:`kerasattn.prediction`,
:mod:`kerasattn.runs`) with a SIGKILL of the process.
"""

import os
import signal
import subprocess
import sys
import time

import pytest

from kerasattn import models, runs
from kerasattn.training import resume
from tests.conftest import write
from kerasattn.cli import train

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the repro, at a small size (a tuple option, windows=(3, 4, 5), stays in)
CNN = ["--model", "cnn", "--dataset", "sst2", "--epochs", "2", "--seed", "1",
       "--deterministic", "--verbose", "0", "--model-option", "filters=16",
       "--model-option", "embedding_dim=32"]
TIMEOUT = 600

_KILLER = """
import importlib, os, signal

def _die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

setattr(importlib.import_module({module!r}), {name!r}, _die)
"""


def _env(kill_in=None, tmp=None):
    path = [ROOT]
    if kill_in:
        d = os.path.join(tmp, f"kill-{kill_in}")
        os.makedirs(d, exist_ok=True)
        module, name = kill_in.rsplit(".", 1)
        write(os.path.join(d, "sitecustomize.py"), _KILLER.format(module=module, name=name))
        path.insert(0, d)
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}


def _start(out, name, kill_in=None, args=CNN):
    cmd = [sys.executable, "-m", "training.train", *args, "--output-dir", str(out),
           "--run-name", name]
    return subprocess.Popen(cmd, cwd=ROOT, env=_env(kill_in, str(out)),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _finish(p):
    out, _ = p.communicate(timeout=TIMEOUT)
    return p.returncode, out


def _metrics(run_dir):
    m = runs.read_json(os.path.join(run_dir, runs.METRICS))
    return {k: m[k] for k in ("val", "test", "best_epoch", "epochs_run")}


@pytest.fixture(scope="module")
def whole(tmp_path_factory, shared_data):
    out = tmp_path_factory.mktemp("whole")
    rc, log = _finish(_start(out, "k"))
    assert rc == 0, log
    return str(out / "k")


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """The same cnn on 400 short texts (a kill after the last epoch needs no long epoch),
    and its uninterrupted run."""
    tmp = tmp_path_factory.mktemp("small")
    words = ["good", "fine", "great", "bad", "poor", "dull", "film", "plot", "the", "a"]
    rows = "".join(f"{words[i % 3 + 3 * (i % 2)]} {words[(7 * i) % 10]} {words[i % 4 + 6]} "
                   f"{words[(3 * i) % 10]},{i % 2}\n" for i in range(400))
    args = [a if a != "sst2" else f"csv:{write(tmp / 'd.csv', 'text,label' + chr(10) + rows)}"
            for a in CNN]
    args[args.index("--verbose") + 1] = "2"  # a line per epoch: the test sees what trained
    rc, log = _finish(_start(tmp, "k", args=args))
    assert rc == 0, log
    return args, str(tmp / "k")


# the same kill and resume as test_fault_tolerance.py's killed-run test (the tuple option
# is matched on resuming by the kill-after-the-last-epoch test below as well)
@pytest.mark.slow
def test_cnn_killed_during_an_epoch_resumes_like_an_uninterrupted_run(whole, tmp_path):
    run_dir = str(tmp_path / "k")
    p = _start(tmp_path, "k")
    deadline = time.time() + TIMEOUT
    while not resume.backed_up_epochs(run_dir):  # during epoch 2
        assert p.poll() is None and time.time() < deadline
        time.sleep(0.02)
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert not os.path.exists(os.path.join(run_dir, runs.METRICS))
    rc, log = _finish(_start(tmp_path, "k"))  # the same command: a tuple option matches
    assert rc == 0, log
    assert "resuming the interrupted run" in log
    assert runs.read_json(os.path.join(run_dir, runs.METRICS))["resumed_after_epoch"] == 1
    assert _metrics(run_dir) == _metrics(whole)
    assert not os.path.exists(resume.backup_dir(run_dir))


@pytest.mark.parametrize("kill_in", ["kerasattn.prediction.predict_keras",
                                     pytest.param("kerasattn.runs.write_plots",
                                                  marks=pytest.mark.slow)])
def test_a_kill_after_the_last_epoch_loses_no_training(small, tmp_path, kill_in):
    args, whole = small
    run_dir = str(tmp_path / "k")
    rc, log = _finish(_start(tmp_path, "k", kill_in=kill_in, args=args))
    assert rc == -signal.SIGKILL, log
    assert "Epoch 1/2" in log and "Epoch 2/2" in log
    assert not os.path.exists(os.path.join(run_dir, runs.METRICS))
    assert resume.read_fit_done(run_dir)["epochs_run"] == 2
    rc, log = _finish(_start(tmp_path, "k", args=args))
    assert rc == 0, log
    assert "training had finished before the interruption" in log
    assert "Epoch 1/2" not in log  # nothing trained again
    assert _metrics(run_dir) == _metrics(whole)
    assert not os.path.exists(resume.backup_dir(run_dir))


# -- in process: configurations and run directories -------------------------


@pytest.mark.parametrize("name", models.names())
def test_every_presets_stored_config_is_recognised_as_the_same_command(name, tmp_path):
    args = train.build_parser().parse_args(["--model", name, "--dataset", "sst2"])
    config = train.resolve_config(args, ["--model", name, "--dataset", "sst2"])
    runs.write_json(str(tmp_path / runs.CONFIG), config.to_json())
    assert config.same_run(str(tmp_path))
    assert not config.replace(seed=config.seed + 1).same_run(str(tmp_path))


def _tiny_csv(tmp_path, rows=60):
    body = "".join(f"{'good fine' if i % 2 else 'bad poor'} {i},{i % 2}\n" for i in range(rows))
    return write(tmp_path / "d.csv", "text,label\n" + body)


def _tiny(tmp_path, *extra, model="mlp"):
    return ["--model", model, "--dataset", f"csv:{_tiny_csv(tmp_path)}", "--epochs", "1",
            "--output-dir", str(tmp_path / "out"), "--verbose", "0", *extra]


def test_a_finished_run_is_never_overwritten_by_another_command(tmp_path):
    run_dir, first = train.train(_tiny(tmp_path, "--run-name", "r"))
    write(os.path.join(run_dir, "mine.txt"), "a file of the old run")
    with pytest.raises(train.ConfigError, match=r"finished run of a different command "
                                                r"\(it differs in seed\).*--overwrite"):
        train.train(_tiny(tmp_path, "--run-name", "r", "--seed", "3"))
    assert runs.read_json(os.path.join(run_dir, runs.METRICS)) == first  # untouched
    # the same command again: nothing to do, the same metrics
    assert train.train(_tiny(tmp_path, "--run-name", "r"))[1] == first
    # --overwrite: none of the old run's files left; a file that is not kerasattn's is
    # kept (kerasattn deletes only what it wrote)
    _, m = train.train(_tiny(tmp_path, "--run-name", "r", "--seed", "3", "--overwrite"))
    assert open(os.path.join(run_dir, "mine.txt")).read() == "a file of the old run"
    assert runs.read_json(os.path.join(run_dir, runs.CONFIG))["seed"] == 3
    assert m["epochs_run"] == 1


def test_a_directory_that_is_not_a_run_is_not_used(tmp_path):
    write(tmp_path / "other.txt", "x")
    argv = _tiny(tmp_path, "--run-name", "r")
    argv[argv.index("--output-dir") + 1] = str(tmp_path.parent)
    argv[argv.index("--run-name") + 1] = tmp_path.name
    with pytest.raises(train.ConfigError, match="not a kerasattn run directory"):
        train.train(argv)
    assert os.listdir(tmp_path) == ["d.csv", "other.txt"] or \
        sorted(os.listdir(tmp_path)) == ["d.csv", "other.txt"]



def test_the_chief_takes_the_run_directory_another_worker_made_first(tmp_path, monkeypatch):
    """Two workers of a multi-worker run start at once: when worker 1 makes
    RUN/worker-1 (so RUN) between the chief's check and its mkdir, the chief starts
    the run there, and worker 1's directory is left alone."""
    from kerasattn import ownership
    from kerasattn.training import trainer

    run_dir = tmp_path / "mw"
    real, raced = os.mkdir, []

    def worker_first(path, *args, **kwargs):
        if os.path.abspath(path) == str(run_dir) and not raced:
            raced.append(path)
            os.makedirs(run_dir / "worker-1")
            write(run_dir / "worker-1" / "log.txt", "worker 1")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(ownership.os, "mkdir", worker_first)
    args = train.build_parser().parse_args(["--model", "mlp", "--dataset", "sst2"])
    config = train.resolve_config(args, ["--model", "mlp", "--dataset", "sst2"])
    # "new", but not created by the chief: an error before training must not delete it
    state, created, lock = trainer.claim_run_dir(config, str(run_dir))
    lock.release()
    assert (state, created) == ("new", False)
    assert raced
    assert sorted(os.listdir(run_dir)) == [".kerasattn", "run.lock", "worker-1"]
    assert (run_dir / "worker-1" / "log.txt").read_text() == "worker 1"


_BAD = [
    (["--max-length", "0"], "--max-length must be >= 1"),
    (["--max-length", "-1"], "--max-length must be >= 1"),
    (["--vocab-size", "2"], "--vocab-size must be >= 3"),
    (["--min-freq", "0"], "--min-freq must be >= 1"),
    (["--val-fraction", "0"], "--val-fraction must be between 0 and 1"),
    (["--val-fraction", "1"], "--val-fraction must be between 0 and 1"),
    (["--learning-rate", "0"], "--learning-rate must be > 0"),
    (["--learning-rate", "-0.1"], "--learning-rate must be > 0"),
    (["--early-stopping", "0"], "--early-stopping must be >= 1"),
    (["--epochs", "0"], "--epochs must be >= 1"),
    (["--batch-size", "0"], "--batch-size must be >= 1"),
    (["--model-option", "nosuch=1"], "model mlp has no such option"),
    (["--model-option", "units"], "--model-option expects KEY=VALUE"),
    (["--run-name", "../../x"], "a run name is one directory name"),
    (["--run-name", "a/b"], "a run name is one directory name"),
    (["--run-name", ".."], "a run name is one directory name"),
    (["--model-option", "hidden_units=-4"], "model mlp with options"),
    (["--warmup", "1"], "--warmup is a share of the training steps"),
    (["--warmup", "-0.1"], "--warmup is a share of the training steps"),
    (["--lr-schedule", "cosine", "--stream"], "need the number of training steps"),
    (["--lr-schedule", "cosine", "--optimizer", "grouped_sgd", "--model-option", "nosuch=1"],
     "model mlp has no such option"),
    (["--dataset", "nosuch"], "unknown dataset 'nosuch'; choose one of"),
    (["--embeddings", "/nonexistent/vectors.txt"], "--embeddings: no such file"),
]


@pytest.mark.parametrize("extra,message", _BAD, ids=[" ".join(e) for e, _ in _BAD])
def test_bad_flags_give_one_error_line_and_write_nothing(tmp_path, capsys, extra, message):
    out = tmp_path / "out"
    assert train.main(_tiny(tmp_path, *extra)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0], err
    assert not out.exists() or os.listdir(out) == []
    assert not (tmp_path / "x").exists() and not (tmp_path.parent / "x").exists()


def test_an_output_dir_that_is_a_file_or_cannot_be_made_is_an_error(tmp_path, capsys):
    path = write(tmp_path / "file", "x")
    argv = _tiny(tmp_path)
    for bad, message in ((path, "is a file"), (os.path.join(path, "sub"), "cannot create"),
                         ("/proc/kerasattn-no", "cannot create")):
        argv[argv.index("--output-dir") + 1] = bad
        assert train.main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: ") and message in err[0], err


@pytest.mark.parametrize("rows,label_of,message", [
    (1, lambda i: i % 2, "a single class"),  # one row: one class
    (2, lambda i: i % 2, "2 rows; need at least"),
    (40, lambda i: 1, "class"),
    (6, lambda i: i % 2, "the vocabulary holds no word"),  # every word is seen once
])
def test_tiny_and_single_class_datasets_are_errors(tmp_path, capsys, rows, label_of, message):
    body = "".join(f"text{i} word{i},{label_of(i)}\n" for i in range(rows))
    path = write(tmp_path / "small.csv", "text,label\n" + body)
    out = tmp_path / "out"
    assert train.main(["--model", "mlp", "--dataset", f"csv:{path}", "--output-dir",
                       str(out), "--verbose", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0], err
    assert not out.exists() or os.listdir(out) == []  # no run directory
