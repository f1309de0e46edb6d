"""The model registry: preset name -> builder, model config and training defaults.

``kerasattn.models.get(name, vocab_size=..., num_classes=...)`` builds any
registered Keras model; ``python -m training.train --model NAME`` finds the
same presets, including the classical scikit-learn ones (``kind="classical"``).

Each family keeps its presets as data, one table per family as keras-hub's
``*_presets.py``: ``kerasattn/models/<family>_presets.py`` (the module's name is the
family's: ``hcan_presets`` holds the ``hcan`` family, HAN included). ``import
kerasattn.models`` registers every table it finds there (:func:`discover`), and those of
installed packages that name theirs under the entry-point group ``kerasattn.presets``.
A table is data only: it names its builders as strings (``"kerasattn.models.sanet:
build_sanet"``), imported when a model is first built, so listing or describing the
presets, and building the scikit-learn ones, imports neither Keras nor TensorFlow.

A table holds:

- ``PAPER``: the family's paper (a preset may name its own);
- ``BASE``: what every preset of the family shares (optional);
- ``BASES``: named partial entries for what some of its presets share (optional);
- ``PRESETS``: name -> entry, each stating only what differs from its base;
- ``FAMILY`` (optional): the family's name, which must be the module's.

An entry (and ``BASE``, and each of ``BASES``) may hold ``description``; ``builder`` and
``make_optimizer`` (``"module:function"``); ``config``, the builder's arguments;
``train``, the paper's training settings over :data:`TRAIN_DEFAULTS` (the ``"paper"``
recipe); ``recipes``, the other named ways to train it (``"default"``, where present, is
what learns here); and, where they apply, ``kind``, ``hierarchical`` (by default the
builder's own ``hierarchical`` option, where it has one), ``needs_vocabulary`` and its own
``paper``. ``base`` names the entry of ``BASES`` or ``PRESETS`` it starts from (default:
``BASE``): ``config`` and ``train`` are merged key by key over the base's, ``recipes``
recipe by recipe (a recipe named again is stated whole), anything else replaces the
base's. :func:`expand` gives each preset's whole entry.
"""

import copy
import dataclasses
import difflib
import importlib
import pkgutil
import warnings
from collections.abc import Callable
from importlib.metadata import entry_points

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

TABLE_SUFFIX = "_presets"  # a module named FAMILY_presets is FAMILY's table
ENTRY_POINT_GROUP = "kerasattn.presets"  # installed packages' tables: name = "package"
ENTRY_KEYS = frozenset({"description", "builder", "make_optimizer", "config", "train",
                        "recipes", "kind", "hierarchical", "needs_vocabulary", "paper"})


def import_object(path):
    """The object at ``path``, ``"package.module:name"`` (``name`` may be dotted)."""
    module, sep, name = str(path).partition(":")
    if not sep or not module or not name:
        raise ValueError(f"{path!r} is not 'package.module:name'")
    obj = importlib.import_module(module)
    for part in name.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ImportError(f"{path!r}: {obj.__name__ if hasattr(obj, '__name__') else obj!r} "
                              f"has no {part!r}") from None
    return obj


_NO_DEFAULT = object()


class _Imported:
    """A :class:`Preset` field holding a callable, given as itself or as where to import
    it from (``"package.module:name"``): read, it is the callable, imported the first
    time (so that a table names its builder without importing Keras)."""

    def __init__(self, default=_NO_DEFAULT):
        self.default = default

    def __set_name__(self, owner, name):
        self.name, self.slot = name, f"_{name}"

    def __get__(self, obj, owner=None):
        if obj is None:  # the dataclass's default, if any
            if self.default is _NO_DEFAULT:
                raise AttributeError(self.name)
            return self.default
        value = obj.__dict__[self.slot]
        if isinstance(value, str):
            value = import_object(value)
            obj.__dict__[self.slot] = value
        return value

    def __set__(self, obj, value):
        if isinstance(value, str):
            if ":" not in value:
                raise ValueError(f"{self.name} must be a callable or 'package.module:name', "
                                 f"got {value!r}")
        elif value is not None and not callable(value):
            raise TypeError(f"{self.name} must be a callable or 'package.module:name', got "
                            f"{value!r}")
        obj.__dict__[self.slot] = value

    def where(self, obj):
        """Where the callable is (``"module:name"``), without importing it."""
        value = obj.__dict__[self.slot]
        if value is None or isinstance(value, str):
            return value
        return f"{value.__module__}:{value.__qualname__}"


@dataclasses.dataclass(frozen=True)
class Preset:
    """A registered model.

    Attributes:
        name: the preset name (``--model``).
        builder: ``builder(vocab_size, num_classes, **model_config) -> keras.Model``
            (or, for ``kind="classical"``, ``builder(num_classes, **config)``
            returning a scikit-learn estimator); given as the function or as
            ``"package.module:function"``, imported when first read.
        model_config: keyword arguments of the builder.
        train_config: overrides of :data:`TRAIN_DEFAULTS`.
        kind: ``"keras"`` or ``"classical"``.
        hierarchical: whether the model takes (batch, sentences, words) ids.
        description: one line for ``--help`` and the README.
        make_optimizer: optional ``f(learning_rate) -> keras optimizer`` for
            recipes a plain optimizer name cannot express (a function or where to
            import it from, as ``builder``).
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
    builder: Callable = _Imported()
    model_config: dict = dataclasses.field(default_factory=dict)
    train_config: dict = dataclasses.field(default_factory=dict)
    kind: str = "keras"
    hierarchical: bool = False
    description: str = ""
    make_optimizer: Callable | None = _Imported(None)
    needs_vocabulary: bool = False
    family: str = ""
    paper: str = ""
    recipes: dict = dataclasses.field(default_factory=dict)

    @classmethod
    def from_spec(cls, name, builder, spec, **extra):
        """The preset of a family's table entry (``kerasattn/models/*_presets.py``, as
        :func:`expand` gives it): ``description``, ``config``, ``train``, ``recipes`` and,
        where they apply, ``builder`` and ``make_optimizer`` (``builder`` when the
        argument is None), ``kind``, ``hierarchical``, ``needs_vocabulary`` and ``paper``
        (over the family's); ``extra``: the other fields (``family``, ``paper``,
        ``make_optimizer``)."""
        if set(spec) - ENTRY_KEYS:
            raise ValueError(f"preset {name}: unknown entries {sorted(set(spec) - ENTRY_KEYS)}")
        if builder is None:
            builder = spec.get("builder")
        if builder is None:
            raise ValueError(f"preset {name}: no builder")
        if "paper" in spec:
            extra = {**extra, "paper": spec["paper"]}
        if "make_optimizer" in spec:
            extra = {**extra, "make_optimizer": spec["make_optimizer"]}
        config = dict(spec.get("config", {}))
        return cls(name, builder, config,
                   train_config=dict(spec.get("train", {})), kind=spec.get("kind", "keras"),
                   hierarchical=spec.get("hierarchical", config.get("hierarchical", False)),
                   description=spec.get("description", ""),
                   needs_vocabulary=spec.get("needs_vocabulary", False),
                   recipes=dict(spec.get("recipes", {})), **extra)

    def where(self, field="builder"):
        """Where ``builder`` (or ``make_optimizer``) is, ``"module:name"``, without
        importing it; None for no ``make_optimizer``."""
        return vars(type(self))[field].where(self)

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
_TABLES: dict = {}  # table module name -> the names of the presets it registered


def register(preset):
    if preset.name in _PRESETS:
        raise ValueError(f"a preset named {preset.name!r} is already registered")
    _check(preset)
    _PRESETS[preset.name] = preset
    return preset


def _check(preset):
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


def unregister(name):
    """Remove a preset (for tests and interactive experiments)."""
    _PRESETS.pop(name, None)


def get_preset(name):
    """The registered :class:`Preset` ``name``; ``ValueError`` (with the nearest name, if
    one is near) for an unknown one."""
    if name not in _PRESETS:
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


def families(kind=None):
    """The families of the registered presets (of ``kind``), sorted."""
    return sorted({p.family for n, p in _PRESETS.items() if kind is None or p.kind == kind})


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


# -- the tables ----------------------------------------------------------------------------

def _merge(base, entry):
    """``entry`` over ``base``: ``config`` and ``train`` key by key, ``recipes`` recipe by
    recipe, anything else replaced."""
    out = dict(base)
    for key, value in entry.items():
        if key in ("config", "train", "recipes"):
            out[key] = {**base.get(key, {}), **value}
        else:
            out[key] = value
    return out


def table_family(table):
    """The family of a table module: its name without ``_presets``."""
    module = table.__name__.rsplit(".", 1)[-1]
    if not module.endswith(TABLE_SUFFIX) or module == TABLE_SUFFIX:
        raise ValueError(f"{table.__name__}: a preset table's module is named "
                         f"FAMILY{TABLE_SUFFIX}")
    family = module[:-len(TABLE_SUFFIX)]
    if getattr(table, "FAMILY", family) != family:
        raise ValueError(f"{table.__name__} says FAMILY = {table.FAMILY!r}: a table's family "
                         f"is its module's name ({family!r})")
    return family


def expand(table):
    """name -> the whole entry of every preset of ``table`` (a table module, or anything
    with its ``PRESETS`` and optional ``BASE`` and ``BASES``), each merged over its
    ``base`` (see the module's docstring)."""
    base = getattr(table, "BASE", {})
    bases = getattr(table, "BASES", {})
    presets = table.PRESETS
    where = getattr(table, "__name__", "the table")
    if set(bases) & set(presets):
        raise ValueError(f"{where}: {sorted(set(bases) & set(presets))} named in both "
                         "BASES and PRESETS")
    named = {**bases, **presets}
    done = {}

    def resolve(name, chain):
        if name in done:
            return done[name]
        if name in chain:
            raise ValueError(f"{where}: entries based on each other: "
                             f"{' -> '.join((*chain, name))}")
        entry = named[name]
        unknown = set(entry) - ENTRY_KEYS - {"base"}
        if unknown:
            raise ValueError(f"preset {name}: unknown entries {sorted(unknown)}")
        parent = entry.get("base")
        if parent is not None and parent not in named:
            raise ValueError(f"{where}: {name} is based on {parent!r}, which is neither in "
                             "BASES nor in PRESETS")
        start = base if parent is None else resolve(parent, (*chain, name))
        done[name] = _merge(start, {k: v for k, v in entry.items() if k != "base"})
        return done[name]

    return {name: copy.deepcopy(resolve(name, ())) for name in presets}


def presets_of_table(table):
    """The :class:`Preset` of every entry of a table module (not registered)."""
    family = table_family(table)
    paper = getattr(table, "PAPER", "")
    return [Preset.from_spec(name, None, spec, family=family, paper=paper)
            for name, spec in expand(table).items()]


def register_table(table):
    """Register every preset of a table module (or its name), all or none; again, the
    same table registers nothing. Returns the names of its presets."""
    if isinstance(table, str):
        table = importlib.import_module(table)
    if table.__name__ in _TABLES:
        return list(_TABLES[table.__name__])
    made = presets_of_table(table)
    taken = [p.name for p in made if p.name in _PRESETS]
    if taken:
        raise ValueError(f"{table.__name__}: presets named {taken} are already registered")
    for preset in made:
        _check(preset)
    for preset in made:
        _PRESETS[preset.name] = preset
    _TABLES[table.__name__] = [p.name for p in made]
    return list(_TABLES[table.__name__])


def discover(package):
    """Register the preset tables of ``package`` (a package or its name): each module
    ``FAMILY_presets`` in it (not in its sub-packages), in name order; or, given such a
    module, that table. Imports the tables only (never a builder); a table already
    registered is skipped. Returns the names of the presets of the tables found.

    ``kerasattn.models`` discovers its own tables when imported, and those of installed
    packages that declare the entry point group ``kerasattn.presets`` (name: anything,
    value: the package, as ``[project.entry-points."kerasattn.presets"] mine = "mine"``).
    """
    module = importlib.import_module(package) if isinstance(package, str) else package
    if hasattr(module, "__path__"):
        tables = sorted(f"{module.__name__}.{info.name}"
                        for info in pkgutil.iter_modules(module.__path__)
                        if info.name.endswith(TABLE_SUFFIX) and not info.ispkg)
    else:
        tables = [module.__name__]
    return [name for table in tables for name in register_table(table)]


def discover_installed():
    """:func:`discover` the packages the installed distributions name under the entry
    point group ``kerasattn.presets``; one that fails is skipped with a warning."""
    found = []
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            found += discover(point.module)
        except Exception as error:  # noqa: BLE001  (a broken plug-in must not break the zoo)
            warnings.warn(f"the preset tables of {point.value!r} (entry point {point.name!r} "
                          f"of {ENTRY_POINT_GROUP!r}) were not registered: {error!r}",
                          RuntimeWarning, stacklevel=2)
    return found
