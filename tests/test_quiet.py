"""TensorFlow's native log lines that TF_CPP_MIN_LOG_LEVEL does not hide or that say nothing
(kerasattn._quiet)."""

import os
import subprocess
import sys

import pytest

from kerasattn import _quiet

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PREAMBLE = ("WARNING: All log messages before absl::InitializeLog() is called are written "
            "to STDERR\n")
INFO = "I0000 00:00:1795840963.763604   14924 cudart_stub.cc:31] Could not find cuda drivers\n"
WARN = "W1128 04:42:00.123456    7 gpu/cuda_dnn.cc:8579] Unable to register cuDNN factory\n"
ERROR = "E0000 00:00:1795840963.9   14924 cuda_blas.cc:1407] Unable to register cuBLAS\n"
PYTHON = "/x/y.py:3: UserWarning: a warning of Python's\n"


@pytest.mark.parametrize("level,kept", [
    (1, [WARN, ERROR, PYTHON]),
    (2, [ERROR, PYTHON]),
    (3, [PYTHON]),
])
def test_dropped_hides_the_severities_the_level_hides(level, kept):
    text = PREAMBLE + INFO + WARN + INFO + ERROR + PYTHON
    assert _quiet.dropped(text, level) == "".join(kept)


def test_the_capture_writes_back_all_but_the_hidden_lines_even_when_the_body_fails(
        monkeypatch, capfd):
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "2")
    monkeypatch.delitem(sys.modules, "tensorflow")  # as before TensorFlow's first import
    with pytest.raises(RuntimeError, match="import failed"):
        with _quiet.quiet_native_import():
            os.write(2, (PREAMBLE + INFO + ERROR).encode())
            print("a Python line", file=sys.stderr)
            raise RuntimeError("import failed")
    # (under capfd sys.stderr is not descriptor 2, so the two come in either order)
    assert sorted(capfd.readouterr().err.splitlines(keepends=True)) == [ERROR, "a Python line\n"]
    # descriptor 2 is standard error again
    os.write(2, b"after\n")
    assert capfd.readouterr().err == "after\n"


@pytest.mark.parametrize("level", ["0", "", "verbose"])
def test_nothing_is_captured_below_level_1(monkeypatch, capfd, level):
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", level)
    monkeypatch.delitem(sys.modules, "tensorflow")
    with _quiet.quiet_native_import():
        os.write(2, (PREAMBLE + INFO).encode())
    assert capfd.readouterr().err == PREAMBLE + INFO  # a capture would drop the preamble


CUINIT = ("E0000 00:00:1795842494.206123   17744 cuda_platform.cc:52] failed call to cuInit: "
          "INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)\n")


@pytest.mark.parametrize("nvidia,level,shown", [
    ([], "2", [ERROR]),  # no NVIDIA device: the cuInit line says only that
    (["/dev/nvidia0"], "2", [CUINIT, ERROR]),  # a device the driver failed: kept
    ([], "0", [CUINIT, ERROR]),  # the user asked for every line
])
def test_physical_gpus_drops_the_cuinit_line_only_without_an_nvidia_device(
        monkeypatch, capfd, nvidia, level, shown):
    import tensorflow as tf

    def devices(kind):
        os.write(2, (CUINIT + ERROR).encode())
        return [f"{kind} list"]

    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", level)
    monkeypatch.setattr(_quiet, "nvidia_device", lambda: bool(nvidia))
    monkeypatch.setattr(tf.config, "list_physical_devices", devices)
    assert _quiet.physical_gpus() == ["GPU list"]
    assert capfd.readouterr().err == "".join(shown)


@pytest.mark.parametrize("found,dxg,device", [
    (["/dev/nvidia0", "/dev/nvidiactl"], False, True),
    ([], True, True),  # WSL 2
    ([], False, False),
])
def test_an_nvidia_device_is_a_device_file_or_wsl_s_dxg(monkeypatch, found, dxg, device):
    monkeypatch.setattr(_quiet.glob, "glob",
                        lambda pattern: found if pattern == "/dev/nvidia*" else [])
    monkeypatch.setattr(_quiet.os.path, "exists", lambda path: dxg and path == "/dev/dxg")
    assert _quiet.nvidia_device() is device


def test_a_command_writes_its_error_line_and_no_native_log_lines(tmp_path):
    """A command's whole standard error at kerasattn's default level: importing kerasattn
    imports TensorFlow and queries its devices, and neither adds a line."""
    env = {**os.environ, "PYTHONPATH": ROOT}
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    result = subprocess.run([sys.executable, "-m", "training.evaluate", "--run",
                             str(tmp_path / "missing")],
                            capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    if _quiet.nvidia_device():  # a GPU machine: the cuInit line may stay
        lines = [line for line in lines if not _quiet.CUINIT.match(line)]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
