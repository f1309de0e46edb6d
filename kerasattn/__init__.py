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
``kerasattn.interpret`` and the ``kerasattn`` command (``python -m training.*``).
"""

import importlib
import sys

__version__ = "0.1.0"

# name -> the module that defines it
_NAMES = {"TextClassifier": "kerasattn.tasks", "TextClassifierPreprocessor": "kerasattn.tasks"}
_SUBMODULES = ("callbacks", "data", "embeddings", "experiments", "export", "interpret",
               "layers", "metrics", "models", "optimizers", "recipes", "runs",
               "tasks", "training")

__all__ = ["TextClassifier", "TextClassifierPreprocessor", "__version__", *_SUBMODULES]


def _import(name):
    """Import ``name`` with TensorFlow's and absl's start-up lines that say nothing
    dropped (at ``TF_CPP_MIN_LOG_LEVEL`` 2 unless the user set a level)."""
    if "tensorflow" in sys.modules or "keras" in sys.modules:
        return importlib.import_module(name)
    import os

    from kerasattn._quiet import quiet_native_import

    # set only now, before kerasattn's own first import of TensorFlow
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    with quiet_native_import():
        return importlib.import_module(name)


def __getattr__(name):
    _retry_registration()
    if name in _NAMES:
        return getattr(_import(_NAMES[name]), name)
    if name in _SUBMODULES:
        return _import(f"kerasattn.{name}")
    raise AttributeError(f"module 'kerasattn' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


def register_keras_objects(_keras=None):
    """Register the zoo's layers, optimizer and task with Keras (import their modules).
    Called by ``import kerasattn`` once Keras is imported; the task needs TensorFlow (its
    preprocessing is tf.strings / tf.lookup), so a process with Keras on JAX or PyTorch
    and no TensorFlow (``training.portable fit``) registers the rest."""
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
    from kerasattn._quiet import physical_gpus

    # TensorFlow's first device query logs a cuInit failure at ERROR on a machine
    # without a GPU: made here, where kerasattn._quiet drops that line
    physical_gpus()


_PENDING = False  # Keras is imported, but the registration waits for kerasattn's imports


def _on_keras_import(_keras=None):
    """Keras was just imported. When a kerasattn module imported it, that module is
    still half made: registering now would import it again, half made, so it waits
    until :func:`_retry_registration` (when that module's import ends, see
    :class:`_QuietSubmodules`, and at the next ``kerasattn.<name>``)."""
    global _PENDING
    _PENDING = True
    _retry_registration()


def _retry_registration():
    if not _PENDING:
        return
    try:
        register_keras_objects()
    except ImportError as e:
        if "partially initialized" not in str(e) and "circular import" not in str(e):
            raise


class _QuietSubmodules:
    """A meta path finder: a kerasattn submodule imported while neither Keras nor
    TensorFlow is runs its import (which imports them) with their start-up lines that
    say nothing dropped, as :func:`_import` does for ``kerasattn.<name>``, and then
    registers the zoo with Keras if its import imported Keras."""

    def find_spec(self, fullname, path, target=None):
        if not fullname.startswith("kerasattn.") or fullname == "kerasattn._quiet" \
                or "tensorflow" in sys.modules or "keras" in sys.modules:
            return None
        import importlib.machinery

        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            import os

            from kerasattn._quiet import quiet_native_import

            if "tensorflow" in sys.modules or "keras" in sys.modules:
                return run(module)
            os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
            with quiet_native_import():
                run(module)
            # Keras was imported by this module's import: register the zoo now that the
            # module is whole (a no-op unless the hook left it pending)
            _retry_registration()

        spec.loader.exec_module = exec_module
        return spec


if not any(isinstance(f, _QuietSubmodules) for f in sys.meta_path):
    sys.meta_path.insert(0, _QuietSubmodules())


def _register_when_keras_is_imported():
    if "keras" in sys.modules:
        _on_keras_import()
        return
    try:  # wrapt (a dependency of TensorFlow) runs a hook after a module's import
        import wrapt
    except ImportError:  # no wrapt: register now (imports Keras)
        register_keras_objects()
        return
    wrapt.register_post_import_hook(_on_keras_import, "keras")


_register_when_keras_is_imported()
