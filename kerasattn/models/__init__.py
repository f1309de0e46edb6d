"""Model builders and the registry (importing this registers every preset)."""

from kerasattn.models import baselines  # noqa: F401  (registers mlp, cnn, rnn, ...)
from kerasattn.models import sanet  # noqa: F401  (registers sanet-*)
from kerasattn.models import hcan  # noqa: F401  (registers can-*, hcan-*)
from kerasattn.models import han  # noqa: F401  (registers han)
from kerasattn.models import iram  # noqa: F401  (registers iram-*)
from kerasattn.models import transformer  # noqa: F401  (registers transformer)
from kerasattn.models import tfidf  # noqa: F401  (registers nb, lr)
from kerasattn.models.registry import (Preset, describe, get, get_preset, names, register,
                                      unregister)

__all__ = ["Preset", "describe", "get", "get_preset", "names", "register", "unregister"]
