"""kerasattn: interpretable attention models for text classification, with their baselines.

``import kerasattn`` is fast and quiet: it imports neither Keras nor TensorFlow, sets
nothing and queries no device. Names load when first used (PEP 562):
``kerasattn.TextClassifier``, ``kerasattn.models``, ``kerasattn.interpret``... and the
modules a name needs are imported then, with TensorFlow's start-up lines that say
nothing dropped (:mod:`kerasattn._quiet`).

Keras finds the zoo's layers, optimizer and task when it loads a file
(``keras.saving.load_model(path)``, safe mode included) in any process that has done
``import kerasattn``: they register with Keras as soon as both are imported, in either
order (at once when Keras is imported already, else when Keras is).

Entry points: :class:`TextClassifier` (raw strings in, probabilities and attention
out), ``kerasattn.data.datasets.load``, ``kerasattn.models.get``,
``kerasattn.interpret`` and the ``kerasattn`` command (``kerasattn --help``).

The public API carries type hints (the package ships ``py.typed``, PEP 561).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.machinery
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

from kerasattn._quiet import physical_gpus, quiet_native_import

wrapt: ModuleType | None
try:  # wrapt (a dependency of TensorFlow) runs a hook after a module's import
    import wrapt
except ImportError:  # no wrapt: the zoo registers at once (imports Keras)
    wrapt = None

# the one place the version is written: pyproject.toml reads it, CITATION.cff and
# CHANGELOG.md's latest release are tested against it
__version__ = "0.2.0"

# name -> the module that defines it
_NAMES = {"TextClassifier": "kerasattn.tasks", "TextClassifierPreprocessor": "kerasattn.tasks"}
_SUBMODULES = ("callbacks", "data", "embeddings", "evaluation", "experiments", "export",
               "interpret", "layers", "metrics", "models", "optimizers", "prediction",
               "recipes", "run_data", "runs", "tasks", "training")

__all__ = ["TextClassifier", "TextClassifierPreprocessor", "__version__", *_SUBMODULES]

if TYPE_CHECKING:  # what the lazy names are, for type checkers (nothing imported here)
    from kerasattn import (callbacks, data, embeddings, evaluation, experiments, export,
                           interpret, layers, metrics, models, optimizers, prediction,
                           recipes, run_data, runs, tasks, training)
    from kerasattn.tasks import TextClassifier, TextClassifierPreprocessor


def _import(name: str) -> ModuleType:
    """Import ``name`` with TensorFlow's and absl's start-up lines that say nothing
    dropped (at ``TF_CPP_MIN_LOG_LEVEL`` 2 unless the user set a level)."""
    if "tensorflow" in sys.modules or "keras" in sys.modules:
        return importlib.import_module(name)
    # set only now, before kerasattn's own first import of TensorFlow
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    with quiet_native_import():
        return importlib.import_module(name)


def __getattr__(name: str) -> Any:
    _retry_registration()
    if name in _NAMES:
        return getattr(_import(_NAMES[name]), name)
    if name in _SUBMODULES:
        return _import(f"kerasattn.{name}")
    raise AttributeError(f"module 'kerasattn' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def register_keras_objects(_keras: object = None) -> None:
    """Register the zoo's layers, optimizer and task with Keras (import their modules).
    Called by ``import kerasattn`` once Keras is imported; the task needs TensorFlow (its
    preprocessing is tf.strings / tf.lookup), so a process with Keras on JAX or PyTorch
    and no TensorFlow (``kerasattn portable fit``) registers the rest."""
    global _PENDING
    _import("kerasattn.layers")
    _import("kerasattn.optimizers")
    try:
        importlib.import_module("tensorflow")
    except ImportError:
        _PENDING = False
        return
    _import("kerasattn.tasks")
    _PENDING = False
    # TensorFlow's first device query logs a cuInit failure at ERROR on a machine
    # without a GPU: made here, where kerasattn._quiet drops that line
    physical_gpus()


_PENDING = False  # Keras is imported, but the registration waits for kerasattn's imports


def _on_keras_import(_keras: object = None) -> None:
    """Keras was just imported. When a kerasattn module imported it, that module is
    still half made: registering now would import it again, half made, so it waits
    until :func:`_retry_registration` (when that module's import ends, see
    :class:`_QuietSubmodules`, and at the next ``kerasattn.<name>``)."""
    global _PENDING
    _PENDING = True
    _retry_registration()


_IMPORTING = 0  # how many kerasattn submodules, begun before Keras was, are mid-import


def _retry_registration() -> None:
    """Register the zoo if Keras is imported and no kerasattn module is half made:
    registering imports the layers, which may import the very module whose import
    imported Keras, and a half-made module cannot be imported again. While one is,
    the registration waits until its import ends (:class:`_QuietSubmodules`)."""
    if _PENDING and not _IMPORTING:
        register_keras_objects()


class _QuietSubmodules:
    """A meta path finder for kerasattn's submodules imported before Keras. Each such
    import is counted while it runs (so that :func:`_retry_registration` waits for it
    to end) and, while neither Keras nor TensorFlow is imported, runs with their
    start-up lines that say nothing dropped, as :func:`_import` does for
    ``kerasattn.<name>``. When the outermost one ends, the zoo registers with Keras if
    that import imported Keras."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("kerasattn.") or fullname == "kerasattn._quiet" \
                or "keras" in sys.modules:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        # this one spec's loader: its module's import is counted (see _counted_import)
        spec.loader.exec_module = functools.partial(  # type: ignore[method-assign]
            _counted_import, spec.loader.exec_module)
        return spec


def _counted_import(run: Callable[[ModuleType], None], module: ModuleType) -> None:
    global _IMPORTING
    quiet = "tensorflow" not in sys.modules and "keras" not in sys.modules
    if quiet:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    _IMPORTING += 1
    try:
        with quiet_native_import() if quiet else contextlib.nullcontext():
            run(module)
    finally:
        _IMPORTING -= 1
    # Keras was imported by this module's import: register the zoo now that the module
    # is whole (a no-op unless the hook left it pending)
    _retry_registration()


if not any(isinstance(f, _QuietSubmodules) for f in sys.meta_path):
    sys.meta_path.insert(0, _QuietSubmodules())


def _register_when_keras_is_imported() -> None:
    if "keras" in sys.modules:
        _on_keras_import()
        return
    if wrapt is None:  # no wrapt: register now (imports Keras)
        register_keras_objects()
        return
    wrapt.register_post_import_hook(_on_keras_import, "keras")


_register_when_keras_is_imported()
