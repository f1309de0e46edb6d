"""How a preset is trained: its optimizer, precision policy and text options (the loss
belongs to its head: :mod:`kerasattn.heads`).

One place for what the command line (``training.train``), ``training.portable``,
the multi-worker loop, the benchmarks and :class:`kerasattn.TextClassifier`
used to work out each on their own:

- :func:`make_optimizer`: the preset's own optimizer recipe (SANet's
  ``GroupedSGD``, IRAM's AMSGrad with clipping, HCAN's Adam β2) unless another
  optimizer is asked for by name; :func:`optimizer_for`: the same from a run's
  training settings, with their learning-rate schedule over the run's steps;
- :func:`preprocessor_options`: the preset's text options as
  :class:`~kerasattn.data.preprocessing.TextPreprocessor` arguments;
- :func:`set_precision`: Keras's global dtype policy from a short name.
"""

import dataclasses
import json
from collections.abc import Mapping

import keras

from kerasattn import models  # registers the zoo's presets, and with them their recipes
from kerasattn._quiet import physical_gpus
from kerasattn.data import layout

PRECISIONS = {"off": "float32", "float16": "mixed_float16", "bfloat16": "mixed_bfloat16"}


def make_optimizer(preset, optimizer=None, learning_rate=None, clipnorm=None):
    """The optimizer of ``preset``'s recipe. ``optimizer`` (a Keras optimizer name) and
    ``learning_rate`` (a number or a schedule: :func:`learning_rate`) override the
    preset's; asking for the preset's own optimizer name keeps its recipe (e.g. SANet's
    grouped learning rates) at that rate. ``clipnorm`` clips the global norm of each
    step's gradients (Keras's ``global_clipnorm``), in place of any clipping the recipe's
    optimizer does; ``None`` keeps the recipe's."""
    optimizer = _make_optimizer(preset, optimizer, learning_rate)
    if clipnorm is None:
        return optimizer
    if not clipnorm > 0:
        raise ValueError(f"clipnorm must be > 0, got {clipnorm}")
    config = {**optimizer.get_config(), "clipnorm": None, "clipvalue": None,
              "global_clipnorm": float(clipnorm)}
    return type(optimizer).from_config(config)


def _make_optimizer(preset, optimizer, learning_rate):
    defaults = preset.training_defaults()
    name = optimizer or defaults["optimizer"]
    rate = defaults["learning_rate"] if learning_rate is None else learning_rate
    scheduled = isinstance(rate, keras.optimizers.schedules.LearningRateSchedule)
    if preset.make_optimizer is not None and name == defaults["optimizer"]:
        try:
            return preset.make_optimizer(rate)
        except TypeError:
            if not scheduled:
                raise
            raise ValueError(f"{preset.name}'s own optimizer ({name}) takes no learning-rate "
                             f"schedule; name another optimizer (e.g. adam)") from None
    if scheduled:
        return type(keras.optimizers.get(name))(learning_rate=rate)
    return keras.optimizers.get({"class_name": name, "config": {"learning_rate": rate}})


def is_scheduled(schedule, warmup):
    """Whether ``schedule`` and ``warmup`` make the learning rate vary over the steps
    (then it needs the number of training steps: :func:`learning_rate`)."""
    return schedule != "constant" or bool(warmup)


def learning_rate(rate, schedule="constant", warmup=0.0, total_steps=None):
    """The learning rate ``rate`` over ``total_steps`` training steps: a float for a
    constant rate, else a ``keras.optimizers.schedules.CosineDecay``: linear warm-up from 0
    over the first ``warmup`` share of the steps, then constant (``"constant"``) or
    cosine decay to 0 (``"cosine"``)."""
    if schedule not in ("constant", "cosine"):
        raise ValueError(f"unknown learning-rate schedule {schedule!r}; expected constant "
                         f"or cosine")
    if not 0 <= warmup < 1:
        raise ValueError(f"warmup is a share of the steps in [0, 1), got {warmup}")
    if not is_scheduled(schedule, warmup):
        return rate
    if not total_steps or total_steps < 1:
        raise ValueError("a learning-rate schedule needs the number of training steps")
    warm = int(round(warmup * total_steps))
    return keras.optimizers.schedules.CosineDecay(
        initial_learning_rate=0.0 if warm else rate, decay_steps=max(1, total_steps - warm),
        alpha=1.0 if schedule == "constant" else 0.0,
        warmup_target=rate if warm else None, warmup_steps=warm)


def optimizer_for(preset, settings, steps_per_epoch=None):
    """The optimizer a run of ``preset`` trains with: :func:`make_optimizer` with the
    optimizer, learning rate and ``clipnorm`` of ``settings`` (a
    :class:`~kerasattn.training.config.TrainSettings` or a mapping with its fields),
    the rate following their ``lr_schedule`` and ``warmup`` (:func:`learning_rate`) over
    ``epochs`` × ``steps_per_epoch`` steps. ``steps_per_epoch`` is a number or a function
    that counts them, called only when the rate is scheduled (counting batches grouped by
    length takes a pass over the data); a scheduled rate without it is a ``ValueError``.
    """
    s = settings if isinstance(settings, Mapping) else dataclasses.asdict(settings)
    rate = s["learning_rate"]
    schedule, warmup = s.get("lr_schedule", "constant"), s.get("warmup", 0.0)
    if is_scheduled(schedule, warmup):
        per_epoch = steps_per_epoch() if callable(steps_per_epoch) else steps_per_epoch
        rate = learning_rate(rate, schedule, warmup, s["epochs"] * (per_epoch or 0))
    return make_optimizer(preset, s["optimizer"], rate, s.get("clipnorm"))


def preprocessor_options(preset, **overrides):
    """``TextPreprocessor`` keyword arguments for ``preset``: its training defaults'
    text options (``max_length``, ``text_mode``, ...), each overridable."""
    t = {**preset.training_defaults(), **{k: v for k, v in overrides.items()
                                           if v is not None}}
    return {
        "mode": t["text_mode"],
        "remove_punctuation": t["remove_punctuation"],
        "remove_stopwords": t["remove_stopwords"],
        "hierarchical": preset.hierarchical,
        **layout.layout(preset.hierarchical).limits(
            t["max_length"], t["max_sentences"], t["max_words"]),
        "truncation": t["truncation"],
    }


def set_precision(mode):
    """Set Keras's global dtype policy from ``auto`` (mixed_float16 on a GPU, float32
    otherwise), ``off``, ``float16`` or ``bfloat16``; returns the policy's name."""
    if mode == "auto":
        mode = "float16" if physical_gpus() else "off"
    if mode not in PRECISIONS:
        raise ValueError(f"unknown precision {mode!r}; expected auto, "
                         f"{', '.join(PRECISIONS)}")
    keras.mixed_precision.set_global_policy(PRECISIONS[mode])
    return PRECISIONS[mode]


# -- named recipes -------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Recipe:
    """A named way to train a preset: settings over its training defaults
    (:class:`kerasattn.training.TrainSettings` fields) and model options over its
    model configuration.

    Every preset has ``"paper"``: its defaults as the paper describes them (no
    changes), and ``"default"``: what the command line and ``TextClassifier`` use
    unless told otherwise; it is the paper's recipe except where that does not learn
    well on ordinary data (SANet, HCAN/CAN, HAN, IRAM, ``rnn``, ``lstm`` and ``gru``: their
    tables in ``kerasattn/models/*_presets.py``, and :func:`departs_from_paper`). Other
    names are registered with :func:`register_recipe`.

    A recipe is the same on every machine: ``TextClassifier.from_preset(name)`` builds
    one architecture everywhere. A preset too large for a CPU has a ``"cpu"`` recipe (the
    IRAM presets: LSTM 200 per direction, batch 64), which the command line picks on a
    machine without a GPU when no ``--recipe`` is given (:func:`for_device`), saying so
    in one log line.
    """

    preset: str
    name: str
    train: dict = dataclasses.field(default_factory=dict)
    model_options: dict = dataclasses.field(default_factory=dict)
    description: str = ""

    def arguments(self):
        """The recipe as ``training.train`` flags (for tables and READMEs)."""
        args = []
        for key, value in self.train.items():
            flag = "--" + key.replace("_", "-")
            if isinstance(value, bool):
                args += [flag] if value else []
            else:
                args += [flag, str(value)]
        for key, value in self.model_options.items():
            args += ["--model-option", f"{key}={json.dumps(value)}"]
        return args


_RECIPES: dict = {}
PAPER, DEFAULT, CPU = "paper", "default", "cpu"
DEVICES = ("cpu", "gpu")


def current_device():
    """``"gpu"`` when TensorFlow sees a GPU, else ``"cpu"``."""
    return "gpu" if physical_gpus() else "cpu"


def for_device(preset, device="auto"):
    """The recipe the command line trains ``preset`` with when none is named: ``"cpu"``
    on a machine without a GPU (``device``: ``"cpu"``, ``"gpu"`` or ``"auto"``, the one
    TensorFlow sees) for a preset that has one, else ``"default"``."""
    if device not in (*DEVICES, "auto"):
        raise ValueError(f"device must be one of cpu, gpu, auto, got {device!r}")
    if CPU not in _recipes_of(preset):
        return DEFAULT
    return CPU if (current_device() if device == "auto" else device) == "cpu" else DEFAULT


def register_recipe(recipe):
    """Add a named recipe of a preset (several presets may share a recipe's name); it
    replaces a recipe of the same name in the preset's table
    (``kerasattn/models/*_presets.py``) in this process."""
    _ensure_builtin()
    preset = models.get_preset(recipe.preset)
    if recipe.name == PAPER:
        raise ValueError(f"{PAPER!r} is every preset's own defaults; it cannot be registered")
    preset.check_recipe(recipe.name, recipe.train, recipe.model_options)
    _RECIPES[(recipe.preset, recipe.name)] = recipe
    return recipe


def _recipes_of(preset):
    """name -> :class:`Recipe` of ``preset``: its table's, then those registered."""
    _ensure_builtin()
    found = {name: Recipe(preset, name, **spec)
             for name, spec in models.get_preset(preset).recipes.items()}
    found.update({name: r for (p, name), r in _RECIPES.items() if p == preset})
    return found


def recipe_names(preset):
    """The recipes of ``preset``: ``"default"`` and ``"paper"`` first, then the others."""
    return [DEFAULT, PAPER] + sorted(n for n in _recipes_of(preset) if n != DEFAULT)


def departs_from_paper(preset):
    """Whether ``preset``'s default recipe is its own (in its table, or registered) rather
    than the paper's: what ``--recipe default`` changes, ``--recipe paper`` undoes."""
    return DEFAULT in _recipes_of(preset)


def get_recipe(preset, name=DEFAULT):
    """The recipe ``name`` of ``preset`` (``"paper"``: the preset's own defaults;
    ``"default"``: the paper's unless the preset has one of its own), the same on every
    machine."""
    known = _recipes_of(preset)
    if name == PAPER or (name == DEFAULT and DEFAULT not in known):
        return Recipe(preset, name, description="the preset's defaults, as in its paper")
    if name not in known:
        raise ValueError(f"{preset} has no recipe {name!r}; its recipes are "
                         f"{', '.join(recipe_names(preset))}")
    return known[name]


def _ensure_builtin():
    """The zoo's presets (and with them their recipes) exist once this returns: importing
    :mod:`kerasattn.models` (this module does, at the top) registered them."""
