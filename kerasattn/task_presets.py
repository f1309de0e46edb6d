"""Where a :class:`~kerasattn.tasks.TextClassifier` comes from: a registered Keras
preset, a saved preset location, or a run directory of ``python -m training.train``.

What ``TextClassifier.presets``, ``TextClassifier.from_preset``,
``TextClassifier.from_run`` and ``TextClassifier.of_run`` do; each function takes the
task class (``cls``) and builds its preprocessor with ``cls.preprocessor_cls``.
Preset locations (directories, ``.keras`` files, ``hf://`` repositories) are read and
written by :mod:`kerasattn.preset_dirs`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kerasattn import models, preset_dirs, recipes, runs

if TYPE_CHECKING:  # names of the type hints only (kerasattn.tasks imports this module)
    import keras

    from kerasattn.data.preprocessing import TextPreprocessor
    from kerasattn.tasks import TextClassifier


def keras_presets() -> dict[str, dict[str, Any]]:
    """The Keras presets ``from_preset`` takes, name -> ``{"family", "kind",
    "description", "paper", "hierarchical", "recipes"}``."""
    return models.describe("keras")


def _is_saved_preset(preset):
    """Whether ``preset`` is a location (not a registered name)."""
    return not (isinstance(preset, str) and preset in models.names()) and \
        preset_dirs.is_location(preset)


def _load_saved_preset(preset, compile, recipe, given):
    """The classifier a preset location holds; ``given``: the other arguments of
    ``from_preset``, refused (``ValueError``) when set, since a saved preset keeps its
    own."""
    given = {k: v for k, v in given.items() if v is not None}
    if recipe != "default":
        given["recipe"] = recipe
    if given:
        raise ValueError(f"{preset} is a saved preset: it keeps its own "
                         f"{', '.join(sorted(given))}; load it as it is")
    return preset_dirs.load(preset, compile=compile)


def _preprocessor(cls, preset, recipe, vocabulary):
    """The preprocessor of ``preset``'s ``recipe`` on ``vocabulary`` (None without one:
    the classifier makes its own)."""
    spec = models.get_preset(preset)
    if vocabulary is None:
        return None
    settings = recipes.get_recipe(preset, recipe).train
    return cls.preprocessor_cls(vocabulary=vocabulary,
                                **recipes.preprocessor_options(spec, **settings))


def from_preset(cls: type[TextClassifier], preset: str | os.PathLike[str],
                num_classes: int | None = None, class_names: Sequence[str] | None = None,
                vocabulary: Sequence[str] | None = None, recipe: str = "default",
                compile: bool = True, embeddings: str | os.PathLike[str] | None = None,
                **model_options: Any) -> TextClassifier:
    """``cls.from_preset``: a classifier of a registered Keras preset with its recipe,
    or the trained classifier a preset location holds."""
    options = dict(model_options.pop("model_options", None) or {})
    options.update(model_options)
    if _is_saved_preset(preset):
        given = dict(num_classes=num_classes, class_names=class_names,
                     vocabulary=vocabulary, embeddings=embeddings, **options)
        return _load_saved_preset(preset, compile, recipe, given)
    clf = cls(os.fspath(preset), num_classes=num_classes, class_names=class_names,
              preprocessor=_preprocessor(cls, preset, recipe, vocabulary),
              model_options=options, recipe=recipe, embeddings=embeddings)
    if compile:
        clf.compile()
    return clf


def from_run(cls: type[TextClassifier], run_dir: str | os.PathLike[str],
             compile: bool = True) -> TextClassifier:
    """``cls.from_run``: the classifier a run directory holds, compiled (``compile``)
    with the run's optimizer at its base learning rate."""
    config, saved = runs.load_saved_model(run_dir, compile=False)
    if isinstance(saved, cls):  # a run of training.train: its model.keras is the classifier
        clf = saved
    else:  # a run of training.portable (or an older run): the backbone alone
        clf = cls.of_run(config, saved, runs.load_preprocessor(run_dir))
    clf.source_run = os.path.abspath(run_dir)  # save_to_preset takes its metrics along
    if compile:
        t = config["train"]
        clf.compile(optimizer=recipes.make_optimizer(models.get_preset(clf.preset),
                                                     t["optimizer"], t["learning_rate"]))
    return clf


def _run_recipe(config):
    """The recipe a run's ``config.json`` names, when this process knows it; else the
    default."""
    recipe = config.get("recipe")
    return recipe if recipe in recipes.recipe_names(config["model"]) else "default"


def of_run(cls: type[TextClassifier], config: Mapping[str, Any], backbone: keras.Model,
           text_preprocessor: TextPreprocessor) -> TextClassifier:
    """``cls.of_run``: the classifier of a run's ``config.json`` (a dict), its trained
    backbone and its :class:`~kerasattn.data.preprocessing.TextPreprocessor`."""
    return cls(config["model"], class_names=config["class_names"],
               preprocessor=cls.preprocessor_cls.from_text_preprocessor(text_preprocessor),
               backbone=backbone, model_options=config.get("model_overrides"),
               recipe=_run_recipe(config))
