"""Typed configuration of a training run: what ``config.json`` holds.

:class:`RunConfig` is built from a preset, one of its named recipes
(:mod:`kerasattn.recipes`) and overrides, and validated before anything is
read or written. ``RunConfig.to_json()`` is the ``config.json`` of a run
directory (the layout is stable: old runs stay readable); two configurations
are the same run when :meth:`RunConfig.same_run` says so (compared as JSON, so
a tuple option, e.g. ``cnn``'s ``windows=(3, 4, 5)``, matches the list it
comes back as).
"""

import dataclasses
import os
from typing import Any

from kerasattn import models, recipes, runs
from kerasattn.data.datasets import VAL_SPLITS
from kerasattn.data.preprocessing import TRUNCATIONS
from kerasattn.models.registry import TRAIN_DEFAULTS
from kerasattn.training.bounds import INT32_MAX, LENGTH_MAX, SEED_MAX, Bounds
from kerasattn.training.errors import ConfigError  # raised here, and re-exported


# setting: its rule, the one place it is written: RunConfig.create checks a library
# caller's values by it, the train command its flags (before any work; the flags' argparse
# types refuse what is no number: inf, nan, -0, text). arguments.Bounds:
# integers (True) or finite floats, within bounds; the upper ones are natural limits
# (int32 counts, seeds of 32 bits) or, for lengths and batches, a typo's (2**20).
SETTINGS = {
    "seed": Bounds(True, 0, SEED_MAX, span=True),
    "epochs": Bounds(True, 1, INT32_MAX, unit="epochs"),
    "batch_size": Bounds(True, 1, LENGTH_MAX, unit="texts per batch"),
    "max_length": Bounds(True, 1, LENGTH_MAX, unit="tokens"),
    "max_sentences": Bounds(True, 1, LENGTH_MAX, unit="sentences"),
    "max_words": Bounds(True, 1, LENGTH_MAX, unit="words per sentence"),
    "vocab_size": Bounds(True, 3, INT32_MAX, unit="ids (padding, OOV and a word)"),
    "min_freq": Bounds(True, 1, INT32_MAX, unit="occurrences"),
    "early_stopping": Bounds(True, 1, INT32_MAX, unit="epochs of patience"),
    "shuffle_buffer": Bounds(True, 1, INT32_MAX, unit="rows"),
    "layers": Bounds(True, 1, 1024, unit="encoder layers"),
    "heads": Bounds(True, 1, 1024, unit="attention heads"),
    "learning_rate": Bounds(False, 0, low_open=True),
    "clipnorm": Bounds(False, 0, low_open=True),
    "warmup": Bounds(False, 0, 1, high_open=True,
                     wording="is a share of the training steps, in [0, 1); got {value}"),
    "val_fraction": Bounds(False, 0, 1, low_open=True, high_open=True,
                           wording="must be between 0 and 1 (exclusive), got {value}"),
    "time_limit": Bounds(False, 0, low_open=True, unit="seconds"),
}
# setting: (smallest value, what it counts), as SETTINGS says (kept for callers)
LOWER_BOUNDS = {k: (r.low, r.unit) for k, r in SETTINGS.items()
                if r.integer and k not in ("seed", "layers", "heads")}
MIXED_PRECISION = ("auto", "off", "float16", "bfloat16")
LR_SCHEDULES = ("constant", "cosine")
DISTRIBUTIONS = ("none", "mirrored", "multiworker")


def check_settings(values, flag=lambda key: key):
    """Raise :class:`ConfigError` for a value no run can use (by :data:`SETTINGS`, and
    the named choices); ``flag`` names a setting in the message (the command line
    gives ``--max-length``). A setting that is absent or None is not checked."""
    for key, rule in SETTINGS.items():
        value = values.get(key)
        if value is not None:
            try:
                rule.check(value, flag(key))
            except ValueError as e:
                raise ConfigError(str(e)) from None
    schedule = values.get("lr_schedule")
    if schedule is not None and schedule not in LR_SCHEDULES:
        raise ConfigError(f"{flag('lr_schedule')} must be one of {', '.join(LR_SCHEDULES)}, "
                          f"got {schedule!r}")
    truncation = values.get("truncation")
    if truncation is not None and truncation not in TRUNCATIONS:
        raise ConfigError(f"{flag('truncation')} must be one of {', '.join(TRUNCATIONS)}, "
                          f"got {truncation!r}")
    val_split = values.get("val_split")
    if val_split is not None and val_split not in VAL_SPLITS:
        raise ConfigError(f"{flag('val_split')} must be one of {', '.join(VAL_SPLITS)}, "
                          f"got {val_split!r}")


@dataclasses.dataclass
class TrainSettings:
    """The recipe's settings (every preset starts from
    :data:`kerasattn.models.registry.TRAIN_DEFAULTS`)."""

    optimizer: str = TRAIN_DEFAULTS["optimizer"]
    learning_rate: float = TRAIN_DEFAULTS["learning_rate"]
    batch_size: int = TRAIN_DEFAULTS["batch_size"]
    epochs: int = TRAIN_DEFAULTS["epochs"]
    max_length: int | None = TRAIN_DEFAULTS["max_length"]
    val_fraction: float = TRAIN_DEFAULTS["val_fraction"]
    val_split: str = TRAIN_DEFAULTS["val_split"]
    vocab_size: int = TRAIN_DEFAULTS["vocab_size"]
    min_freq: int = TRAIN_DEFAULTS["min_freq"]
    text_mode: str = TRAIN_DEFAULTS["text_mode"]
    remove_punctuation: bool = TRAIN_DEFAULTS["remove_punctuation"]
    remove_stopwords: bool = TRAIN_DEFAULTS["remove_stopwords"]
    max_sentences: int | None = TRAIN_DEFAULTS["max_sentences"]
    max_words: int | None = TRAIN_DEFAULTS["max_words"]
    truncation: str = TRAIN_DEFAULTS["truncation"]
    lr_schedule: str = TRAIN_DEFAULTS["lr_schedule"]
    warmup: float = TRAIN_DEFAULTS["warmup"]
    clipnorm: float | None = TRAIN_DEFAULTS["clipnorm"]


_TRAIN_FIELDS = tuple(f.name for f in dataclasses.fields(TrainSettings))
assert set(_TRAIN_FIELDS) == set(TRAIN_DEFAULTS), "TrainSettings must follow TRAIN_DEFAULTS"


@dataclasses.dataclass
class RunConfig:
    """Everything that decides a run (and, filled in by the run, its data and
    environment). Build one with :meth:`create`."""

    model: str
    dataset: str
    kind: str
    hierarchical: bool
    train: TrainSettings
    model_config: dict
    model_overrides: dict = dataclasses.field(default_factory=dict)
    recipe: str = "default"
    sized_for: str | None = None
    seed: int = 0
    mixed_precision: str = "auto"
    jit_compile: bool = False
    distribution: str = "none"
    deterministic: bool = False
    stream: bool = False
    shuffle_buffer: int | None = None
    early_stopping: int | None = None
    embeddings: str | None = None
    time_limit: float | None = None
    command: str = ""
    # written by the run
    dtype_policy: str | None = None
    class_names: list | None = None
    dataset_notes: list | None = None
    dataset_sizes: dict | None = None
    environment: dict | None = None
    # where the run came from: commit, command, device, versions, start (kerasattn.provenance)
    provenance: dict | None = None
    # what the run trains on (runs.data_fingerprint), its vocabulary's SHA-256, and
    # whether a built-in dataset's files were checked against their published
    # checksums (False under KERASATTN_VERIFY=0; None for a user's files)
    data_fingerprint: dict | None = None
    vocabulary_sha256: str | None = None
    data_verified: bool | None = None

    # what must be equal for a run directory to hold this same run
    SAME_RUN_KEYS = ("model", "dataset", "seed", "train", "model_config", "mixed_precision",
                     "jit_compile", "distribution", "deterministic", "stream",
                     "shuffle_buffer", "early_stopping", "embeddings", "time_limit")

    @classmethod
    def create(cls, model, dataset, recipe="default", model_options=None, seed=0,
               mixed_precision="auto", jit_compile=False, distribution="none",
               deterministic=False, stream=False, shuffle_buffer=100_000, early_stopping=None,
               embeddings=None, time_limit=None, command=None, flag=lambda key: key,
               device="auto", **train):
        """The configuration of ``model`` on ``dataset``: the preset's defaults, then the
        named ``recipe``'s settings (``None``: the one :func:`kerasattn.recipes.for_device`
        picks for ``device``, ``"cpu"``, ``"gpu"`` or ``"auto"``, the one TensorFlow
        sees: a preset's ``"cpu"`` recipe on a machine without a GPU, else
        ``"default"``; :attr:`sized_for` then records ``"cpu"``), then
        ``train`` (any :class:`TrainSettings` field; None keeps the recipe's) and
        ``model_options``. ``time_limit`` (seconds) stops training after the batch in
        progress (or at the end of an epoch whose validation passed it) once that long
        has passed in ``fit`` (the partial epoch is validated;
        ``metrics.json`` records where it stopped). Raises :class:`ConfigError`."""
        try:
            preset = models.get_preset(model)
        except ValueError as e:
            raise ConfigError(str(e)) from None
        unknown = sorted(set(train) - set(_TRAIN_FIELDS))
        if unknown:
            raise ConfigError(f"unknown training settings {unknown}; expected "
                              f"{', '.join(_TRAIN_FIELDS)}")
        try:
            sized_for = None  # "cpu": the command line picked the preset's CPU recipe
            if recipe is None:
                recipe = recipes.for_device(model, device)
                sized_for = "cpu" if recipe == recipes.CPU else None
            chosen = recipes.get_recipe(model, recipe)
        except ValueError as e:
            raise ConfigError(str(e)) from None
        settings = {**preset.training_defaults(), **chosen.train,
                    **{k: v for k, v in train.items() if v is not None}}
        check_settings({**settings, "early_stopping": early_stopping, "seed": seed,
                        "time_limit": time_limit,
                        "shuffle_buffer": shuffle_buffer if stream else None}, flag)
        if stream and recipes.is_scheduled(settings["lr_schedule"], settings["warmup"]):
            given = train.get("lr_schedule") is not None or train.get("warmup") is not None
            raise ConfigError(
                f"{flag('lr_schedule')}/{flag('warmup')} need the number of training steps, "
                f"which a streamed dataset does not give" + ("" if given else
                f" ({model}'s {recipe} recipe schedules its learning rate: give "
                f"{flag('lr_schedule')} constant {flag('warmup')} 0)"))
        if stream and settings["val_split"] == "grouped":
            raise ConfigError(f"{flag('val_split')} grouped needs the whole training split "
                              f"at once; a streamed dataset holds out rows by a hash of each "
                              f"row ({flag('val_split')} stratified)")
        if mixed_precision not in MIXED_PRECISION:
            raise ConfigError(f"{flag('mixed_precision')} must be one of "
                              f"{', '.join(MIXED_PRECISION)}, got {mixed_precision!r}")
        if distribution not in DISTRIBUTIONS:
            raise ConfigError(f"{flag('distribution')} must be one of "
                              f"{', '.join(DISTRIBUTIONS)}, got {distribution!r}")
        if time_limit is not None and distribution == "multiworker":
            # each worker's clock would stop it at another step, and the others wait
            raise ConfigError(f"{flag('time_limit')} does not work with "
                              f"{flag('distribution')} multiworker")
        options = dict(model_options or {})
        unknown = sorted(set(options) - set(preset.model_config))
        if unknown:
            raise ConfigError(f"{flag('model_option')} {', '.join(unknown)}: model {model} has "
                              f"no such option; its options are "
                              f"{', '.join(preset.model_config)}")
        overrides = {**chosen.model_options, **options}
        return cls(
            model=model, dataset=dataset, kind=preset.kind, hierarchical=preset.hierarchical,
            train=TrainSettings(**settings), model_config={**preset.model_config, **overrides},
            model_overrides=overrides, recipe=recipe, sized_for=sized_for, seed=seed,
            mixed_precision=mixed_precision, jit_compile=bool(jit_compile),
            distribution=distribution, deterministic=bool(deterministic), stream=bool(stream),
            shuffle_buffer=shuffle_buffer if stream else None, early_stopping=early_stopping,
            embeddings=embeddings, time_limit=time_limit,
            command=command if command is not None else f"RunConfig.create({model!r}, "
                                                         f"{dataset!r})")

    def to_json(self):
        """The ``config.json`` dictionary (JSON types only)."""
        return runs.as_json(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, data):
        """A configuration read back from ``config.json`` (unknown keys are ignored)."""
        names = {f.name for f in dataclasses.fields(cls)}
        data = {k: v for k, v in data.items() if k in names}
        data["train"] = TrainSettings(**{k: v for k, v in data["train"].items()
                                         if k in _TRAIN_FIELDS})
        return cls(**data)

    def same_run(self, stored):
        """Whether ``stored`` (a ``config.json`` dictionary, or a run directory) is a
        run of this same configuration."""
        return self.differences(stored) == []

    def differences(self, stored):
        """The :attr:`SAME_RUN_KEYS` in which ``stored`` (a ``config.json`` dictionary,
        or a run directory) differs from this configuration, a training setting or
        model option named as ``train.learning_rate`` or ``model_config.units``
        (``[]``: the same run; None: no readable ``config.json`` there)."""
        if isinstance(stored, (str, os.PathLike)):
            path = os.path.join(stored, runs.CONFIG)
            if not os.path.exists(path):
                return None
            try:
                stored = runs.read_json(path)
            except (OSError, ValueError):
                return None
        mine = self.to_json()
        if isinstance(stored.get("train"), dict):  # runs made before a setting existed
            stored = {**stored, "train": {**TRAIN_DEFAULTS, **stored["train"]}}
        differ = []
        for k in self.SAME_RUN_KEYS:
            if stored.get(k) == mine[k]:
                continue
            if k in ("train", "model_config") and isinstance(stored.get(k), dict):
                theirs = stored[k]  # setting by setting: train.epochs, model_config.units
                differ += [f"{k}.{s}" for s in sorted(set(theirs) | set(mine[k]))
                           if theirs.get(s) != mine[k].get(s)]
            else:
                differ.append(k)
        return differ

    def recipe_summary(self):
        """One line for the log: what this run's recipe changes from the preset's default
        recipe (``units=200 (default 400), batch_size=64 (default 32)``)."""
        preset = models.get_preset(self.model)
        default = recipes.get_recipe(self.model, recipes.DEFAULT)
        train = {**preset.training_defaults(), **default.train}
        options = {**preset.model_config, **default.model_options}
        parts = [f"{k}={getattr(self.train, k)} (default {train[k]})"
                 for k in train if getattr(self.train, k) != train[k]]
        parts += [f"{k}={self.model_config[k]} (default {options[k]})"
                  for k in options if self.model_config.get(k) != options[k]]
        return ", ".join(parts) or "the default's settings"

    def preprocessor_options(self):
        """The run's ``TextPreprocessor`` arguments."""
        return recipes.preprocessor_options(models.get_preset(self.model),
                                            **dataclasses.asdict(self.train))

    def replace(self, **changes: Any):
        return dataclasses.replace(self, **changes)


def check_run_name(name):
    """Raise :class:`ConfigError` for a run name that is not one directory name."""
    if name is not None and (not name or name in (".", "..") or "/" in name
                             or os.sep in name or (os.altsep and os.altsep in name)):
        raise ConfigError(f"--run-name {name!r}: a run name is one directory name inside "
                          "--output-dir (no '/', '.' or '..')")
