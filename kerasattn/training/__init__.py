"""The training path of the library (the command line is argument parsing over it).

- :class:`RunConfig` / :class:`TrainSettings`: the typed configuration of a run
  (a preset, one of its named recipes, overrides), validated up front;
- :func:`train`: a configuration in, a finished run directory out (resume,
  multi-worker, streaming, metrics and plots);
- :class:`ConfigError`: what bad settings raise.

For training in your own script on lists of strings, use
:class:`kerasattn.TextClassifier`; this path is for reproducible run
directories (``kerasattn train``, ``kerasattn reproduce``, the benchmarks).

Loaded lazily (PEP 562), as the package is: :mod:`kerasattn.training.portable_fit`
runs where TensorFlow is missing, and importing it must not import the rest.
"""

import importlib
import typing

if typing.TYPE_CHECKING:  # what the names are, for readers and the API reference
    from kerasattn.training.config import RunConfig, TrainSettings
    from kerasattn.training.errors import ConfigError
    from kerasattn.training.trainer import train

_WHERE = {"ConfigError": "errors", "RunConfig": "config", "TrainSettings": "config",
          "train": "trainer"}

__all__ = ["ConfigError", "RunConfig", "TrainSettings", "train"]


def __getattr__(name):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted({*globals(), *__all__})
