"""A kill, a full disk or a read-only file system at any write kerasattn makes loses
nothing, and the same command recovers (docs/reliability.md, "Faults").

Each case runs the harness ``tests/crash_harness.py`` in a process of its own: it counts
the writes and renames a command makes (each passes ``kerasattn.ownership.fault_point``),
then fails the command at each of them in turn (SIGKILL, ``ENOSPC``, ``EROFS``) and
checks that nothing outside kerasattn's own directories changed, that nothing inside
them is half-written, that a refused write is one ``error:`` line, and that the same
command then succeeds with no leftover. The default suite runs the first, a middle and
the last points of each command; ``-m slow`` runs every point of all.
"""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _harness(tmp_path, scenario, actions="kill,enospc,erofs", cases=None):
    result = subprocess.run(
        [sys.executable, "-m", "tests.crash_harness", scenario, str(tmp_path),
         "--actions", actions, *(["--cases", cases] if cases else [])],
        cwd=ROOT, capture_output=True, text=True, timeout=3000,
        env={**os.environ, "PYTHONPATH": ROOT, "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["failures"] == [], "\n".join(report["failures"])
    return report


# the default suite: the first write (the directory's marker), one in the middle and the
# last ones (the renames that put a version, a preset or the metrics in place); every
# point of train-nb and evaluate took 130 s and 31 s of the default suite's CPU
QUICK = [("train-nb", "kill@1,erofs@mid,enospc@-1,kill@-1"),
         ("evaluate", "kill@1,enospc@mid,erofs@-1,kill@-1"),
         ("train-mlp", "erofs@1,kill@mid,enospc@mid,kill@-1"),
         ("export", "kill@1,enospc@mid,kill@-1"),
         ("preset", "kill@2,erofs@mid,kill@-2,kill@-1")]


@pytest.mark.parametrize("scenario, cases", QUICK, ids=[q[0] for q in QUICK])
def test_every_write_can_fail_and_the_command_recovers(tmp_path, scenario, cases):
    report = _harness(tmp_path, scenario, cases=cases)
    assert report["points"] >= 2
    assert report["checked"] == len(cases.split(","))


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["train-nb", "train-mlp", "export", "preset", "evaluate"])
def test_every_write_of_every_command_can_fail(tmp_path, scenario):
    report = _harness(tmp_path, scenario)
    assert report["checked"] == 3 * report["points"]


def test_the_harness_fails_a_write_that_is_not_whole(tmp_path):
    """The harness itself can fail: a cut JSON file in a marked directory is reported."""
    from tests import crash_harness

    d = tmp_path / "run"
    d.mkdir()
    (d / ".kerasattn").write_text('{"format": "kerasattn.owned/1", "kind": "run", '
                                  '"id": "x"}')
    (d / "metrics.json").write_text('{"val": {"accuracy": 0.8')
    (d / "model.keras").write_bytes(b"PK\x03\x04 cut")
    assert crash_harness.owned_dirs(str(tmp_path)) == [str(d)]
    bad = crash_harness.damaged_files(str(d))
    assert len(bad) == 2 and any("metrics.json" in b for b in bad)
    assert crash_harness.one_error_line("error: the disk is full\n")
    assert not crash_harness.one_error_line("Traceback (most recent call last):\nerror: x\n")


# -- a real full disk: a small tmpfs ------------------------------------------------------
@pytest.fixture
def small_disk(tmp_path):
    """A 400 KiB file system (tmpfs) that fills during a run's first epoch backup. Needs
    root (CI runs as root: there it must work, never skip)."""
    mount = tmp_path / "disk"
    mount.mkdir()

    def mount_size(size):
        subprocess.run(["umount", str(mount)], capture_output=True)
        return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                               str(mount)], capture_output=True, text=True)

    made = mount_size("400k")
    if made.returncode != 0:
        if os.environ.get("CI"):
            pytest.fail(f"cannot mount a tmpfs under CI: {made.stderr.strip()}")
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    yield mount
    subprocess.run(["umount", str(mount)], capture_output=True)


def _command(module, *args, cwd):
    result = subprocess.run([sys.executable, "-m", module, *args], cwd=cwd,
                            capture_output=True, text=True, timeout=600,
                            env={**os.environ, "PYTHONPATH": ROOT,
                                 "TF_CPP_MIN_LOG_LEVEL": "3"})
    noise = ("WARNING: All log messages", "I0000", "W0000", "E0000")
    err = [line for line in result.stderr.splitlines() if not line.startswith(noise)]
    return result.returncode, err


def test_a_full_disk_in_train_and_export_is_one_line_and_loses_nothing(tmp_path, small_disk):
    """Before: h5py's write of the epoch backup failed, the right line was printed, then
    the process crashed at exit (rc 139) and left a truncated latest.weights.h5; export
    ended in a ResourceExhaustedError traceback."""
    from tests import crash_harness

    crash_harness._csv(str(tmp_path / "small.csv"))
    train = ["--model", "mlp", "--dataset", f"csv:{tmp_path / 'small.csv'}", "--epochs",
             "3", "--batch-size", "16", "--verbose", "0", "--run-name", "r"]
    rc, err = _command("training.train", *train, "--output-dir", str(small_disk),
                       cwd=str(tmp_path))
    assert rc == 1 and len(err) == 1 and err[0].startswith("error: the disk is full"), err
    run = small_disk / "r"
    assert crash_harness.damaged_files(str(run)) == []
    backup = run / "backup"
    assert not backup.exists() or not [n for n in os.listdir(backup) if "partial" in n]
    # export of a finished run (on a roomy disk) into the full one
    rc, err = _command("training.train", *train, "--epochs", "1", "--output-dir",
                       str(tmp_path / "runs"), cwd=str(tmp_path))
    assert rc == 0, err
    rc, err = _command("training.export", "--run", str(tmp_path / "runs" / "r"),
                       "--output", str(small_disk / "m" / "1"), cwd=str(tmp_path))
    assert rc == 1 and len(err) == 1 and "the disk is full" in err[0], err
    assert not (small_disk / "m" / "1").exists()
    assert not [n for n in os.listdir(small_disk / "m") if n.startswith(".")]
