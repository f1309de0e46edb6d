"""The training path of the library (the command line is argument parsing over it).

- :class:`RunConfig` / :class:`TrainSettings`: the typed configuration of a run
  (a preset, one of its named recipes, overrides), validated up front;
- :func:`train`: a configuration in, a finished run directory out (resume,
  multi-worker, streaming, metrics and plots);
- :class:`ConfigError`: what bad settings raise.

For training in your own script on lists of strings, use
:class:`kerasattn.TextClassifier`; this path is for reproducible run
directories (``kerasattn train``, ``kerasattn reproduce``, the benchmarks).
"""

from kerasattn.training.config import ConfigError, RunConfig, TrainSettings
from kerasattn.training.run import train

__all__ = ["ConfigError", "RunConfig", "TrainSettings", "train"]
