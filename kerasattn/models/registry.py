"""The model registry: preset name -> builder, model config and training defaults.

``kerasattn.models.get(name, vocab_size=..., num_classes=...)`` builds any
registered Keras model; ``python -m training.train --model NAME`` finds the
same presets, including the classical scikit-learn ones (``kind="classical"``).
A family registers its presets when its module is imported; the modules are
imported by ``kerasattn.models``.

Each family keeps its presets as data, one table per family as keras-hub's
``*_presets.py`` (``kerasattn/models/<family>_presets.py``: ``FAMILY``, ``PAPER`` and
``PRESETS``), read by :meth:`Preset.from_spec`. An entry holds ``description``;
``config``, the builder's arguments; ``train``, the paper's training settings over
:data:`TRAIN_DEFAULTS` (the ``"paper"`` recipe); ``recipes``, the other named ways to
train it (``"default"``, where present, is what learns here); and, where they apply,
``kind``, ``hierarchical``, ``needs_vocabulary`` and its own ``paper``.
"""

import dataclasses
from collections.abc import Callable

# Training defaults every preset starts from; a preset overrides what it needs.
TRAIN_DEFAULTS = {
    "optimizer": "adam",
    "learning_rate": 1e-3,
    "batch_size": 32,
    "epochs": 10,
    "max_length": None,
    "val_fraction": 0.1,
    # how that share is drawn: "stratified" (at random within each class) or "grouped"
    # (whole groups, e.g. an IMDB film's reviews; kerasattn.data.datasets.grouped_split)
    "val_split": "stratified",
    "vocab_size": 50000,
    "min_freq": 2,
    "text_mode": "default",
    "remove_punctuation": False,
    "remove_stopwords": False,
    "max_sentences": None,
    "max_words": None,
    # which part of a text over max_length (max_sentences) is kept: "head", "tail" or
    # "head+tail" (kerasattn.data.preprocessing.truncate)
    "truncation": "head",
    # the learning rate over training: "constant", or "cosine" decay to 0 (Loshchilov &
    # Hutter 2017); "warmup" is the share of all steps over which it first rises
    # linearly from 0 (Goyal et al. 2017)
    "lr_schedule": "constant",
    "warmup": 0.0,
    # clip the global norm of each step's gradients to this (Pascanu et al. 2013); None:
    # the optimizer's own (IRAM's recipe clips at 1.0, the others do not clip)
    "clipnorm": None,
}


@dataclasses.dataclass(frozen=True)
class Preset:
    """A registered model.

    Attributes:
        name: the preset name (``--model``).
        builder: ``builder(vocab_size, num_classes, **model_config) -> keras.Model``
            (or, for ``kind="classical"``, ``builder(num_classes, **config)``
            returning a scikit-learn estimator).
        model_config: keyword arguments of the builder.
        train_config: overrides of :data:`TRAIN_DEFAULTS`.
        kind: ``"keras"`` or ``"classical"``.
        hierarchical: whether the model takes (batch, sentences, words) ids.
        description: one line for ``--help`` and the README.
        make_optimizer: optional ``f(learning_rate) -> keras optimizer`` for
            recipes a plain optimizer name cannot express.
        needs_vocabulary: the builder also takes ``vocabulary`` (the id ->
            token list), e.g. to derive character n-grams of each id.
        family: the model family (``"sanet"``, ``"hcan"``, ``"iram"``, ``"transformer"``,
            ``"baselines"``): its docs page is ``docs/models/FAMILY.md``.
        paper: the paper the preset follows.
        recipes: its named recipes besides ``"paper"`` (the preset itself), as data:
            name -> ``{"description", "train", "model_options"}``
            (:class:`kerasattn.recipes.Recipe`'s fields); ``"default"``, where
            present, replaces the paper's recipe as the default.
    """

    name: str
    builder: Callable
    model_config: dict = dataclasses.field(default_factory=dict)
    train_config: dict = dataclasses.field(default_factory=dict)
    kind: str = "keras"
    hierarchical: bool = False
    description: str = ""
    make_optimizer: Callable | None = None
    needs_vocabulary: bool = False
    family: str = ""
    paper: str = ""
    recipes: dict = dataclasses.field(default_factory=dict)

    @classmethod
    def from_spec(cls, name, builder, spec, **extra):
        """The preset of a family's table entry (``kerasattn/models/*_presets.py``):
        ``description``, ``config``, ``train``, ``recipes`` and, where they apply,
        ``kind``, ``hierarchical``, ``needs_vocabulary`` and ``paper`` (over the
        family's); ``extra``: the other fields (``family``, ``paper``,
        ``make_optimizer``)."""
        known = {"description", "config", "train", "recipes", "kind", "hierarchical",
                 "needs_vocabulary", "paper"}
        if set(spec) - known:
            raise ValueError(f"preset {name}: unknown entries {sorted(set(spec) - known)}")
        if "paper" in spec:
            extra = {**extra, "paper": spec["paper"]}
        return cls(name, builder, dict(spec.get("config", {})),
                   train_config=dict(spec.get("train", {})), kind=spec.get("kind", "keras"),
                   hierarchical=spec.get("hierarchical", False),
                   description=spec.get("description", ""),
                   needs_vocabulary=spec.get("needs_vocabulary", False),
                   recipes=dict(spec.get("recipes", {})), **extra)

    def check_recipe(self, name, train=(), model_options=()):
        """Raise ``ValueError`` for a recipe of this preset that names a training setting
        or model option it does not have."""
        for what, keys, known in (("training settings", set(train), set(self.training_defaults())),
                                  ("model options", set(model_options), set(self.model_config))):
            if keys - known:
                raise ValueError(f"recipe {name!r} of {self.name}: unknown {what} "
                                 f"{sorted(keys - known)}")

    def training_defaults(self):
        unknown = set(self.train_config) - set(TRAIN_DEFAULTS)
        if unknown:
            raise ValueError(f"preset {self.name}: unknown training options {sorted(unknown)}")
        return {**TRAIN_DEFAULTS, **self.train_config}


_PRESETS: dict = {}


def register(preset):
    if preset.name in _PRESETS:
        raise ValueError(f"a preset named {preset.name!r} is already registered")
    if preset.kind not in ("keras", "classical"):
        raise ValueError(f"preset kind must be 'keras' or 'classical', got {preset.kind!r}")
    preset.training_defaults()  # its training settings are known ones
    for name, recipe in preset.recipes.items():
        if name == "paper":
            raise ValueError(f"preset {preset.name}: 'paper' is the preset itself, not a "
                             "recipe of it")
        unknown = set(recipe) - {"description", "train", "model_options"}
        if unknown:
            raise ValueError(f"recipe {name!r} of {preset.name}: unknown entries "
                             f"{sorted(unknown)}")
        preset.check_recipe(name, recipe.get("train", {}), recipe.get("model_options", {}))
    _PRESETS[preset.name] = preset
    return preset


def unregister(name):
    """Remove a preset (for tests and interactive experiments)."""
    _PRESETS.pop(name, None)


def get_preset(name):
    """The registered :class:`Preset` ``name``; ``ValueError`` (with the nearest name, if
    one is near) for an unknown one."""
    if name not in _PRESETS:
        import difflib

        close = difflib.get_close_matches(str(name), list(_PRESETS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"unknown model {name!r}{hint}; registered: {', '.join(names())}")
    return _PRESETS[name]


def describe(kind=None):
    """Every registered preset (of ``kind``: ``"keras"``, ``"classical"``, or all) as
    name -> ``{"family", "kind", "description", "paper", "hierarchical", "recipes"}``:
    what ``TextClassifier.presets`` and ``kerasattn presets`` list. ``recipes``: the
    table's named recipes, ``"default"`` and ``"paper"`` first
    (:func:`kerasattn.recipes.recipe_names` adds any registered in this process)."""
    return {name: {"family": p.family, "kind": p.kind, "description": p.description,
                   "paper": p.paper, "hierarchical": p.hierarchical,
                   "recipes": ["default", "paper",
                               *sorted(r for r in p.recipes if r != "default")]}
            for name in names(kind) for p in [_PRESETS[name]]}


def names(kind=None):
    return sorted(n for n, p in _PRESETS.items() if kind is None or p.kind == kind)


def get(name, vocab_size=None, num_classes=2, vocabulary=None, **overrides):
    """Build a registered model.

    Args:
        name: the preset name.
        vocab_size: vocabulary size, padding and OOV ids included (Keras models).
        num_classes: number of classes.
        vocabulary: the id -> token list, for presets with ``needs_vocabulary``
            (ignored by the others).
        **overrides: replace entries of the preset's model config.
    """
    preset = get_preset(name)
    unknown = set(overrides) - set(preset.model_config)
    if unknown:
        raise ValueError(
            f"model {name!r} has no option(s) {sorted(unknown)}; "
            f"its options are {sorted(preset.model_config)}"
        )
    config = {**preset.model_config, **overrides}
    if num_classes < 2:
        raise ValueError(f"num_classes must be >= 2, got {num_classes}")
    if preset.kind == "classical":
        return preset.builder(num_classes=num_classes, **config)
    if not vocab_size or vocab_size < 3:
        raise ValueError(f"vocab_size must be >= 3 (padding, OOV, a word), got {vocab_size}")
    if preset.needs_vocabulary:
        config["vocabulary"] = vocabulary
    return preset.builder(vocab_size=vocab_size, num_classes=num_classes, name=name, **config)
