"""A run directory trains on one dataset and has one writer: resuming or reusing a run on
changed data is refused naming what changed, a second process is refused while the
first writes (and a killed one leaves nothing stuck), a tampered vocabulary is not
resumed, and unverified data is recorded."""

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from kerasattn import runs
from kerasattn.training import resume
from kerasattn.cli import train
from kerasattn.metrics import learning_check
from tests.conftest import write

ROWS = "".join(f"{'good fine' if i % 2 else 'bad poor'} {i},{i % 2}\n" for i in range(60))


def _args(path, out, *extra):
    return ["--model", "mlp", "--dataset", f"csv:{path}", "--epochs", "1", "--output-dir",
            str(out), "--run-name", "x", "--verbose", "0", *extra]


def _flip_labels(path):
    flipped = "".join(f"{t},{1 - int(y)}\n" for t, y in
                      (line.rsplit(",", 1) for line in ROWS.splitlines()))
    write(path, "text,label\n" + flipped)


def _as_interrupted(run_dir):
    """Make a finished run look killed after its first epoch's backup."""
    os.remove(os.path.join(run_dir, runs.METRICS))
    os.makedirs(resume.backup_dir(run_dir), exist_ok=True)
    write(os.path.join(resume.backup_dir(run_dir), "training_metadata.json"),
          json.dumps({"epoch": 1, "batch": 0}))


def test_changed_data_is_neither_resumed_nor_taken_as_the_finished_run(tmp_path):
    path = write(tmp_path / "d.csv", "text,label\n" + ROWS)
    run_dir = str(tmp_path / "x")
    _, first = train.train(_args(path, tmp_path))
    recorded = runs.read_json(os.path.join(run_dir, runs.CONFIG))
    assert recorded["data_fingerprint"]["files"] == {
        os.path.abspath(path): runs._file_sha256(path)}
    assert set(recorded["data_fingerprint"]["splits"]) == {"train", "val", "test"}
    assert recorded["vocabulary_sha256"] == runs.vocabulary_sha256(
        runs.read_vocabulary(run_dir))
    # unchanged data: the finished run is found again
    assert train.train(_args(path, tmp_path))[1]["test"] == first["test"]
    _flip_labels(path)
    with pytest.raises(train.ConfigError,
                       match=r"holds a finished run of this command on other data: .*d\.csv "
                             r"changed; the train split's texts or labels differ"):
        train.train(_args(path, tmp_path))
    _as_interrupted(run_dir)
    with pytest.raises(train.ConfigError,
                       match=r"holds an interrupted run of this command on other data: "
                             r".*d\.csv changed.*restore that data"):
        train.train(_args(path, tmp_path))
    assert resume.backed_up_epochs(run_dir) == 1  # nothing deleted


def test_the_main_command_names_the_changed_file_in_one_line(tmp_path, capsys):
    path = write(tmp_path / "d.csv", "text,label\n" + ROWS)
    assert train.main(_args(path, tmp_path)) == 0
    _as_interrupted(str(tmp_path / "x"))
    _flip_labels(path)
    capsys.readouterr()
    assert train.main(_args(path, tmp_path)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "d.csv changed" in err[0]


def test_a_changed_vocabulary_file_is_not_resumed(tmp_path):
    path = write(tmp_path / "d.csv", "text,label\n" + ROWS)
    run_dir = str(tmp_path / "x")
    train.train(_args(path, tmp_path))
    _as_interrupted(run_dir)
    with open(os.path.join(run_dir, runs.VOCAB), "a", encoding="utf-8") as fh:
        fh.write("extra\n")
    with pytest.raises(train.ConfigError, match="is not the vocabulary the interrupted run"):
        train.train(_args(path, tmp_path))
    assert resume.backed_up_epochs(run_dir) == 1


HOLDER = textwrap.dedent("""
    import sys, time
    from kerasattn import runs
    lock = runs.RunLock.acquire(sys.argv[1])
    print("held", flush=True)
    time.sleep(600)
""")


def test_a_second_process_is_refused_while_the_first_writes_and_a_kill_frees_it(tmp_path):
    path = write(tmp_path / "d.csv", "text,label\n" + ROWS)
    run_dir = tmp_path / "x"
    run_dir.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(run_dir)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(train.ConfigError,
                           match=rf"being written by another process \(pid {holder.pid}\)"):
            train.train(_args(path, tmp_path))
        assert os.listdir(run_dir) == [runs.LOCK]  # the refused command wrote nothing
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    # the killed writer left its lock file but not its lock
    _, m = train.train(_args(path, tmp_path))
    assert m["epochs_run"] == 1
    with runs.RunLock.acquire(str(run_dir)):
        with pytest.raises(runs.RunDirectoryLocked):
            # flock is per open file: a second open in this process is refused too
            runs.RunLock.acquire(str(run_dir))


def test_unverified_built_in_data_is_recorded(tmp_path, monkeypatch, shared_data):
    monkeypatch.setenv("KERASATTN_VERIFY", "0")
    run_dir, m = train.train(["--model", "nb", "--dataset", "sst2", "--output-dir",
                              str(tmp_path), "--run-name", "nb", "--verbose", "0"])
    assert m["data_verified"] is False
    assert runs.read_json(os.path.join(run_dir, runs.CONFIG))["data_verified"] is False
    monkeypatch.setenv("KERASATTN_VERIFY", "1")
    run_dir, m = train.train(["--model", "nb", "--dataset", "sst2", "--output-dir",
                              str(tmp_path), "--run-name", "nb2", "--verbose", "0"])
    assert "data_verified" not in m
    assert runs.read_json(os.path.join(run_dir, runs.CONFIG))["data_verified"] is True


def test_accuracy_below_the_majority_rate_is_not_called_within_it():
    check = learning_check({"accuracy": 0.0, "confusion_matrix": [[0, 5], [5, 0]]}, ["a", "b"])
    assert not check["learned"]
    assert "0.0000 is below the majority-class rate 0.5000" in check["warning"]
    near = learning_check({"accuracy": 0.51, "confusion_matrix": [[3, 2], [3, 2]]})
    assert "is within 0.02 of the majority-class rate" in near["warning"]


@pytest.mark.parametrize("fault,code,message", [
    (OSError(28, "No space left on device"), 1,
     "error: the disk is full (No space left on device); free some space and run the "
     "same command: it resumes after the last finished epoch"),
    (KeyboardInterrupt(), 130,
     "interrupted; the same command resumes after the last finished epoch"),
])
def test_a_full_disk_or_ctrl_c_mid_run_is_one_line_and_the_run_resumes(
        tmp_path, monkeypatch, capsys, fault, code, message):
    import keras

    path = write(tmp_path / "d.csv", "text,label\n" + ROWS)
    args = ["--model", "mlp", "--dataset", f"csv:{path}", "--epochs", "3", "--output-dir",
            str(tmp_path), "--run-name", "x", "--verbose", "0"]
    logger = keras.callbacks.CSVLogger.on_epoch_end

    def fails_at_the_second_epoch(self, epoch, logs=None):
        if epoch == 1:  # the history row of epoch 2: a writer the disk refuses
            raise fault
        return logger(self, epoch, logs)

    monkeypatch.setattr(keras.callbacks.CSVLogger, "on_epoch_end", fails_at_the_second_epoch)
    capsys.readouterr()
    assert train.main(args) == code
    err = capsys.readouterr().err.strip()
    assert err == message
    assert resume.backed_up_epochs(str(tmp_path / "x")) == 1
    monkeypatch.setattr(keras.callbacks.CSVLogger, "on_epoch_end", logger)
    assert train.main(args) == 0
    m = runs.read_json(str(tmp_path / "x" / runs.METRICS))
    assert m["resumed_after_epoch"] == 1 and m["epochs_run"] == 3
    assert not os.path.exists(tmp_path / "x" / "model.partial.keras")


@pytest.mark.parametrize("vectors,message", [
    ("good 0.1 0.2 0.3 0.4\nbad 0.1 0.2\n", r"vectors\.txt:2: 2 values, expected 4"),
    (b"good 0.1 0.2 0.3 0.4\n\xff 0.1 0.2 0.3 0.4\n", r"vectors\.txt:2: not valid UTF-8"),
    ("good 0.1 0.2 0.3\n", r"3-d vectors but the model's embeddings are 4-d"),
])
def test_a_bad_embeddings_file_leaves_no_run_directory(tmp_path, capsys, vectors, message):
    path = write(tmp_path / "d.csv", "text,label\n" + ROWS)
    bad = write(tmp_path / "vectors.txt", vectors, mode="wb" if isinstance(vectors, bytes)
                else "w")
    args = _args(path, tmp_path, "--model-option", "embedding_dim=4")
    capsys.readouterr()
    assert train.main([*args, "--embeddings", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    import re
    assert re.search(message, err), err
    assert not (tmp_path / "x").exists()
    good = write(tmp_path / "good.txt", "good 0.1 0.2 0.3 0.4\nbad 0.4 0.3 0.2 0.1\n")
    assert train.main([*args, "--embeddings", str(good)]) == 0


def test_changed_word_vectors_are_not_resumed(tmp_path):
    path = write(tmp_path / "d.csv", "text,label\n" + ROWS)
    vectors = write(tmp_path / "v.txt", "good 0.1 0.2 0.3 0.4\nbad 0.4 0.3 0.2 0.1\n")
    args = _args(path, tmp_path, "--model-option", "embedding_dim=4", "--embeddings",
                 str(vectors))
    train.train(args)
    _as_interrupted(str(tmp_path / "x"))
    write(vectors, "good 0.9 0.2 0.3 0.4\nbad 0.4 0.3 0.2 0.1\n")
    with pytest.raises(train.ConfigError, match=r"other data: .*v\.txt changed"):
        train.train(args)
