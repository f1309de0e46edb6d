"""What training raises (no other import: read where TensorFlow is missing too).
How a failure is recognised and said in one line: :mod:`kerasattn.training.diagnostics`."""


class ConfigError(ValueError):
    """An invalid configuration, command line or run directory: reported as one
    ``error:`` line by the command line, before anything is written."""


class DivergedError(RuntimeError):
    """Training stopped because its loss became NaN or infinite: the run diverged, and
    nothing was evaluated (no ``metrics.json``)."""
