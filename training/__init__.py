"""``python -m training.<command>``: the ``kerasattn <command>`` entry points.

Each module here only hands its arguments to :mod:`kerasattn.cli`. ``predict``
and ``serving_client`` stand on a SavedModel or a server alone: they are
loaded from their files without importing the ``kerasattn`` package (which
imports Keras and TensorFlow), so a bad argument is reported before TensorFlow
starts.
"""

import importlib.util
import os


def standalone(command):
    """``kerasattn/cli/<command>.py`` as a module of its own, the package not imported."""
    spec = importlib.util.find_spec("kerasattn")
    path = os.path.join(spec.submodule_search_locations[0], "cli", f"{command}.py")
    module_spec = importlib.util.spec_from_file_location(f"_kerasattn_cli_{command}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module
