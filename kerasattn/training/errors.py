"""What bad settings raise (no other import: read where TensorFlow is missing too)."""


class ConfigError(ValueError):
    """An invalid configuration, command line or run directory: reported as one
    ``error:`` line by the command line, before anything is written."""
