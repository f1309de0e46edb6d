"""Drop the lines TensorFlow's native code logs that say nothing to the user.

TensorFlow 2.19 and later log a few lines at import that ``TF_CPP_MIN_LOG_LEVEL`` does not
silence (tensorflow/tensorflow#100442): absl's ``WARNING: All log messages before
absl::InitializeLog() is called are written to STDERR`` and INFO lines such as
``I0000 00:00:... cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will
not be used.``, twice, before every command's output. :func:`quiet_native_import` sends
file descriptor 2 to a temporary file while the imports run and then writes back all of
it but absl's lines of the severities that the level hides, so Python's warnings, a
failed import's messages and whatever the level lets through still show.

The first device query then logs ``E0000 ... cuda_platform.cc:52] failed call to cuInit:
... UNKNOWN ERROR (303)`` at ERROR, which the level shows: on a machine with no NVIDIA
device at all it only says that there is no GPU, and :func:`physical_gpus` drops it
there (where an NVIDIA device exists it stays: a driver problem worth seeing).
``import kerasattn`` makes that first query, so later ones log nothing.
"""

import contextlib
import glob
import os
import re
import sys
import tempfile

# absl's preamble, and its line format: severity (I, W, E, F), month and day, time,
# thread, file:line]
PREAMBLE = "WARNING: All log messages before absl::InitializeLog() is called"
LINE = re.compile(r"([IWEF])\d{4} [\d:.]+ +\d+ [\w./-]+:\d+\] ")
CUINIT = re.compile(r"E\d{4} [\d:.]+ +\d+ [\w./-]+:\d+\] failed call to cuInit")


def _level():
    level = os.environ.get("TF_CPP_MIN_LOG_LEVEL", "0")
    return int(level) if level.isdigit() else 0


def _without(text, drop):
    """``text`` without the lines for which ``drop(line)`` is true."""
    return "".join(line for line in text.splitlines(keepends=True) if not drop(line))


def dropped(text, level):
    """``text`` without absl's preamble and the lines of the severities that
    ``TF_CPP_MIN_LOG_LEVEL=level`` hides (1: INFO; 2: and WARNING; 3: and ERROR)."""
    hidden = "IWE"[:level]

    def drop(line):
        match = LINE.match(line)
        return line.startswith(PREAMBLE) or bool(match and match.group(1) in hidden)

    return _without(text, drop)


@contextlib.contextmanager
def captured_stderr(keep):
    """Run the body with file descriptor 2 captured, then write back ``keep(text)`` of
    what it wrote (all of it when descriptor 2 cannot be duplicated, uncaptured)."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        yield
        return
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 2)
        try:
            yield
        finally:
            try:
                sys.stderr.flush()
            except (OSError, ValueError, AttributeError):
                pass
            os.dup2(saved, 2)
            os.close(saved)
            capture.seek(0)
            kept = keep(capture.read().decode("utf-8", "replace"))
            if kept:
                sys.stderr.write(kept)
                sys.stderr.flush()


@contextlib.contextmanager
def quiet_native_import():
    """Run the body (the imports of Keras and TensorFlow) with standard error less what
    :func:`dropped` drops at ``TF_CPP_MIN_LOG_LEVEL``. Does nothing where that level is
    0 or unset or TensorFlow is imported already."""
    level = _level()
    if level < 1 or "tensorflow" in sys.modules:
        yield
        return
    with captured_stderr(lambda text: dropped(text, level)):
        yield


def nvidia_device():
    """Whether the machine shows an NVIDIA device: ``/dev/nvidia*``, or WSL 2's
    ``/dev/dxg``, through which CUDA reaches a Windows host's GPU."""
    return bool(glob.glob("/dev/nvidia*")) or os.path.exists("/dev/dxg")


def physical_gpus():
    """``tf.config.list_physical_devices("GPU")``, without the ``failed call to cuInit``
    line on a machine with no NVIDIA device (:func:`nvidia_device`) where the level is 1
    or more: there it only says that there is no GPU."""
    import tensorflow as tf  # late: import kerasattn loads this module without TensorFlow

    if _level() < 1 or nvidia_device():
        return tf.config.list_physical_devices("GPU")

    with captured_stderr(lambda text: _without(text, CUINIT.match)):
        return tf.config.list_physical_devices("GPU")
