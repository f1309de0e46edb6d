"""A failed run told in one line: the device out of memory, the disk full, the loss
diverged. The commands (``kerasattn train``, ``kerasattn portable fit``) recognise a
failure here and print what to change; the standard library only (read where
TensorFlow is missing too)."""

import errno
import re


def _one_line(words):
    """h5py's words for a failed write span lines; the file they name is what matters."""
    words = str(words)
    if "\n" not in words and len(words) < 200:
        return words
    named = re.search(r"filename = '([^'\n]+)'", words)
    return f"writing {named.group(1)}" if named else "No space left on device"


def disk_full(error):
    """Where the disk filled (a file name, or the error's words) when ``error`` or an
    error it was raised from says "No space left on device"; None otherwise. TensorFlow
    and h5py re-raise an ``OSError(ENOSPC)`` as their own errors, so the chain and the
    message are both read."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OSError) and error.errno == errno.ENOSPC:
            return _one_line(error.filename or error.strerror or "No space left on device")
        if "No space left on device" in str(error):
            # h5py's words span lines; the file they name is what matters
            named = re.search(r"filename = '([^'\n]+)'", str(error))
            return f"writing {named.group(1)}" if named else "No space left on device"
        error = error.__cause__ or error.__context__
    return None


def diverged_message(guard, where):
    """One line for a run that a :class:`kerasattn.callbacks.DivergenceGuard` stopped
    (:class:`kerasattn.training.errors.DivergedError`'s); ``where`` names it."""
    epoch, step = guard.diverged
    return (f"{where}: the training loss became {guard.loss} at step {step} of epoch {epoch}, "
            "so the run diverged and was stopped before evaluation (no metrics.json); try a "
            "smaller --learning-rate or --clipnorm 1")


def out_of_memory(error):
    """Whether ``error`` is an accelerator running out of memory: TensorFlow's
    ``ResourceExhaustedError``, a JAX (XLA) runtime error that says
    ``RESOURCE_EXHAUSTED``, or PyTorch's ``OutOfMemoryError``."""
    name = type(error).__name__
    if name in ("ResourceExhaustedError", "OutOfMemoryError"):
        return True
    return (name in ("JaxRuntimeError", "XlaRuntimeError")
            and "RESOURCE_EXHAUSTED" in str(error))


def out_of_memory_message(error, hint, where=None):
    """One line for a run stopped by :func:`out_of_memory`: ``hint`` says what to change
    (the settings differ between commands), ``where`` names the run if given."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    said = next((line for line in lines if "memory" in line.lower()),
                lines[0] if lines else type(error).__name__)
    return ((f"{where}: " if where else "") + f"the device ran out of memory ({said[:200]}), "
            f"so the run was stopped before evaluation (no metrics.json); {hint}")
