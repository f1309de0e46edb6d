"""Model builders and the registry of their presets.

Importing this registers every preset, without importing Keras or TensorFlow: the
preset tables (``kerasattn/models/<family>_presets.py``, found by
:func:`~kerasattn.models.registry.discover`, and those of installed packages under the
entry-point group ``kerasattn.presets``) are data that name their builders, and a
builder's module is imported when a model is first built. A family is its builder
module (``<family>.py``), its table, its docs page (``docs/models/<family>.md``) and its
test file (``tests/models/test_<family>.py``); see ``docs/adding-a-family.md``. The
builder modules load as attributes too (``kerasattn.models.sanet.build_sanet``).
"""

import importlib
import pkgutil

from kerasattn.models.registry import (Preset, describe, discover, discover_installed,
                                      families, get, get_preset, names, register,
                                      unregister)

__all__ = ["Preset", "describe", "discover", "families", "get", "get_preset", "names",
           "register", "unregister"]

discover(__name__)  # the zoo's own families
discover_installed()  # those of installed packages (entry points "kerasattn.presets")


def __getattr__(name):
    """A builder module (``kerasattn.models.sanet``...), imported when first named."""
    if not name.startswith("_") and name in {m.name for m in pkgutil.iter_modules(__path__)}:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
