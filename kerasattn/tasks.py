"""``TextClassifier``: a preset's backbone, its text preprocessor and its recipe, on raw strings.

The keras-hub split (preprocessor / backbone / task) for the zoo::

    import kerasattn
    clf = kerasattn.TextClassifier.from_preset("cnn", num_classes=2)
    clf.fit(train_texts, train_labels, validation_data=(val_texts, val_labels), epochs=3)
    clf.predict(["a gorgeous, witty film"])        # (1, 2) probabilities
    clf.explain(["a gorgeous, witty film"])        # attention, or gradient × input
    clf.save("cnn.keras")                          # keras.saving.load_model after import kerasattn
    clf.export("saved_models/cnn/1")               # raw text in, for TF Serving

- :class:`TextClassifierPreprocessor` is a Keras layer of core TensorFlow ops
  (``tf.strings``, ``tf.lookup``): strings in, zero-padded int32 ids out,
  ``(batch, length)`` or, for hierarchical presets, ``(batch, sentences,
  words)``. It can be mapped over a ``tf.data.Dataset``, and ``adapt`` builds
  its vocabulary. Its configuration holds the vocabulary, so a ``.keras`` file
  is complete.
- :class:`TextClassifier` is a ``keras.Model`` that calls the backbone on ids.
  ``fit``, ``evaluate``, ``predict`` and ``explain`` take raw strings (or a
  ``tf.data.Dataset`` of ``(string, label)``) and run the preprocessor first;
  labels may be integers or strings (string labels become the class names).
  ``compile()`` without arguments applies the preset's recipe
  (:mod:`kerasattn.recipes`). The backbone is built once the vocabulary is
  known: at construction when one is given, else on the first ``fit``, which
  adapts the preprocessor on the training texts.
- ``predict`` returns ``(n, num_classes)`` probabilities for every preset: a
  binary head of one sigmoid unit gives ``[1 - p, p]``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import keras
import numpy as np
import tensorflow as tf

from kerasattn import embeddings as word_vectors
from kerasattn import (heads, models, preset_dirs, recipes, task_data, task_presets,
                       task_summary)
from kerasattn.data.preprocessing import TextPreprocessor
from kerasattn.export import export_classifier

if TYPE_CHECKING:  # names of the type hints only
    from kerasattn.data.datasets import TextDataset
    from kerasattn.data.layout import Layout
    from kerasattn.interpret import Explanation, TokenAttribution


@keras.saving.register_keras_serializable(package="kerasattn")
class TextClassifierPreprocessor(keras.layers.Layer):
    """Raw strings -> zero-padded int32 token ids (the zoo's text preprocessing).

    A Keras layer around :class:`~kerasattn.data.preprocessing.TextPreprocessor`
    (normalisation, word or sentence splitting, stop words, truncation and
    vocabulary lookup with core TensorFlow ops only), so it runs in
    ``tf.data.Dataset.map``, in a served graph and in a ``.keras`` file.

    Args:
        vocabulary: the id -> token list (``""`` padding and ``"[UNK]"`` first), or
            None until :meth:`adapt`.
        mode, remove_punctuation, remove_stopwords, max_length, hierarchical,
            max_sentences, max_words, truncation: as for ``TextPreprocessor``
            (``truncation="tail"`` keeps the end of a text over ``max_length``).

    Call arguments:
        texts: a string tensor of shape (batch,).

    Returns:
        int32 ids, (batch, length) or (batch, sentences, words), every axis at
        least 1 long (an empty text is one padding id).

    Example:
        >>> import kerasattn
        >>> pre = kerasattn.TextClassifierPreprocessor(max_length=4)
        >>> _ = pre.adapt(["a good film", "a bad film"])
        >>> pre(["a good film indeed"]).numpy().tolist()  # ties in frequency: alphabetical
        [[2, 5, 3, 1]]
    """

    def __init__(self, vocabulary: Sequence[str] | None = None, mode: str = "default",
                 remove_punctuation: bool = False, remove_stopwords: bool = False,
                 max_length: int | None = None, hierarchical: bool = False,
                 max_sentences: int | None = None, max_words: int | None = None,
                 truncation: str = "head", **kwargs: Any) -> None:
        kwargs.setdefault("trainable", False)
        super().__init__(**kwargs)
        # strings in: no conversion to float tensors, no build step
        self._convert_input_args = False
        self._allow_non_tensor_positional_args = True
        self.built = True
        self.text_preprocessor = TextPreprocessor(
            vocabulary=vocabulary, mode=mode, remove_punctuation=remove_punctuation,
            remove_stopwords=remove_stopwords, max_length=max_length,
            hierarchical=hierarchical, max_sentences=max_sentences, max_words=max_words,
            truncation=truncation)

    @classmethod
    def from_text_preprocessor(cls, text_preprocessor: TextPreprocessor,
                               **kwargs: Any) -> TextClassifierPreprocessor:
        return cls(vocabulary=text_preprocessor.vocabulary, **text_preprocessor.get_config(),
                   **kwargs)

    @property
    def vocabulary(self) -> list[str] | None:
        return self.text_preprocessor.vocabulary

    @property
    def vocabulary_size(self) -> int | None:
        return self.text_preprocessor.vocabulary_size

    @property
    def hierarchical(self) -> bool:
        return self.text_preprocessor.hierarchical

    @property
    def layout(self) -> Layout:
        """How a document's ids are laid out (:mod:`kerasattn.data.layout`)."""
        return self.text_preprocessor.layout

    def adapt(self, texts: Sequence[str] | np.ndarray | tf.data.Dataset, min_freq: int = 1,
              max_size: int | None = None) -> TextClassifierPreprocessor:
        """Build the vocabulary on ``texts`` (a list of str or a ``tf.data.Dataset`` of
        scalar strings); returns self."""
        self.text_preprocessor.adapt(texts, min_freq=min_freq, max_size=max_size)
        return self

    def tokenize(self, texts: Sequence[str] | np.ndarray | tf.Tensor) -> tf.RaggedTensor:
        return self.text_preprocessor.tokenize(texts)

    def call(self, texts: Sequence[str] | np.ndarray | tf.Tensor) -> tf.Tensor:
        texts = tf.convert_to_tensor(texts, tf.string)
        ids = self.text_preprocessor(texts).to_tensor()
        shape = tf.shape(ids)
        pads = [[0, 0]] + [[0, tf.maximum(0, 1 - shape[i])] for i in range(1, len(ids.shape))]
        return tf.pad(ids, pads)

    def compute_output_spec(self, texts: Any) -> keras.KerasTensor:
        return keras.KerasTensor((None,) * self.layout.rank, dtype="int32")

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update(self.text_preprocessor.get_config())
        config["vocabulary"] = (list(self.vocabulary) if self.vocabulary is not None
                                else None)
        return config


class classproperty(property):
    """A read-only property of the class, as keras-hub's (``TextClassifier.presets``)."""

    def __get__(self, _, owner_cls):
        return self.fget(owner_cls)


# -- the arguments of TextClassifier, checked ------------------------------------------
def _keras_preset(preset):
    """The registered Keras preset ``preset``; ``ValueError`` for a scikit-learn one."""
    spec = models.get_preset(preset)
    if spec.kind != "keras":
        raise ValueError(f"{preset!r} is a scikit-learn preset: build it with "
                         f"kerasattn.models.get({preset!r}, num_classes=N), a scikit-learn "
                         f"classifier on raw texts; TextClassifier holds the Keras presets "
                         f"(TextClassifier.presets: {', '.join(models.names('keras'))})")
    return spec


def _recipe_settings(preset, spec, recipe, model_options):
    """``(settings, model options)`` of ``preset``'s ``recipe``: its training settings
    over the preset's defaults, and ``model_options`` over the recipe's (checked)."""
    chosen = recipes.get_recipe(preset, recipe)
    # the recipe's settings (the same on every machine) over the training defaults
    settings = {**spec.training_defaults(), **chosen.train}
    model_options = {**chosen.model_options, **(model_options or {})}
    unknown = sorted(set(model_options) - set(spec.model_config))
    if unknown:
        raise ValueError(f"model {preset!r} has no option(s) {unknown}; its options are "
                         f"{sorted(spec.model_config)}")
    return settings, model_options


def _checked_classes(num_classes, class_names):
    """``(num_classes, class_names)`` checked: an integer >= 2 (or None), names as
    strings, each once; the number of names when names are given."""
    if num_classes is not None and (isinstance(num_classes, bool) or not isinstance(
            num_classes, (int, np.integer))):
        raise ValueError(f"num_classes must be an integer >= 2, got {num_classes!r}")
    if class_names is not None:
        class_names = [str(c) for c in class_names]
        twice = sorted({c for c in class_names if class_names.count(c) > 1})
        if twice:
            raise ValueError(f"class_names names {twice} more than once; each class "
                             "needs a name of its own")
        if num_classes is not None and num_classes != len(class_names):
            raise ValueError(f"num_classes={num_classes} but {len(class_names)} "
                             "class_names")
        num_classes = len(class_names)
    if num_classes is not None and num_classes < 2:
        raise ValueError(f"num_classes must be >= 2, got {num_classes}")
    return None if num_classes is None else int(num_classes), class_names


def _checked_preprocessor(preset, spec, settings, preprocessor):
    """``preprocessor``, or the preset's own (``settings``' text options, no vocabulary
    yet) when None; ``ValueError`` for one of the other kind (flat or hierarchical)."""
    if preprocessor is None:
        return TextClassifierPreprocessor(**recipes.preprocessor_options(spec, **settings))
    if preprocessor.hierarchical != spec.hierarchical:
        raise ValueError(f"{preset!r} takes {'hierarchical' if spec.hierarchical else 'flat'}"
                         " ids: the preprocessor must have hierarchical="
                         f"{spec.hierarchical}")
    return preprocessor


def _checked_embeddings(embeddings):
    path = None if embeddings is None else os.fspath(embeddings)
    if path is not None and not os.path.isfile(path):
        raise FileNotFoundError(f"embeddings: no such file {path}")
    return path


# -- the backbone, built once the vocabulary and the classes are known -------------------
def _build_backbone(classifier):
    """Build ``classifier``'s backbone (its word vectors loaded, default class names
    given), then apply the ``compile`` call that waited for it."""
    pre = classifier.preprocessor
    classifier.backbone = models.get(classifier.preset, vocab_size=pre.vocabulary_size,
                                     num_classes=classifier.num_classes,
                                     vocabulary=pre.vocabulary, **classifier.model_options)
    if classifier.embeddings is not None:
        classifier.embeddings_found = word_vectors.load_into(
            classifier.backbone, classifier.embeddings, pre.vocabulary)
    if classifier.class_names is None:
        classifier.class_names = [str(i) for i in range(classifier.num_classes)]
    classifier.built = True
    if classifier._pending_compile is not None:
        kwargs, classifier._pending_compile = classifier._pending_compile, None
        classifier.compile(**{**kwargs, "run_eagerly": classifier.run_eagerly})


# -- the recipe ------------------------------------------------------------------------
def _recipe_setting(name):
    """A read-only property: the classifier's recipe setting ``name``."""
    return property(lambda classifier: classifier._settings[name])


def _is_auto(value):
    return isinstance(value, str) and value == "auto"


def _recipe_optimizer(spec, settings):
    """The recipe's optimizer at its (constant) learning rate."""
    return recipes.make_optimizer(spec, settings["optimizer"], settings["learning_rate"],
                                  settings["clipnorm"])


def _recipe_compile_arguments(spec, settings, backbone, optimizer, loss, metrics, kwargs):
    """``compile``'s arguments with the recipe's for every ``"auto"`` (its optimizer, the
    loss of the backbone's head, accuracy), and the arguments to compile with again once
    ``fit`` knows the training steps (None unless the recipe's optimizer is scheduled)."""
    auto_loss, auto_accuracy = heads.loss_and_accuracy(backbone)
    scheduled = None
    if _is_auto(optimizer):
        optimizer = _recipe_optimizer(spec, settings)
        if recipes.is_scheduled(settings["lr_schedule"], settings["warmup"]):
            # the recipe's schedule spans the training steps: fit sets it once it knows them
            scheduled = dict(loss=loss, metrics=metrics, **kwargs)
    return dict(optimizer=optimizer, loss=auto_loss if _is_auto(loss) else loss,
                metrics=[auto_accuracy] if _is_auto(metrics) else metrics, **kwargs), scheduled


def _compile_with_schedule(classifier, data, batch_size, epochs):
    """Compile ``classifier`` with its recipe's learning-rate schedule over ``epochs`` of
    ``data`` (a dataset of batches, or ids in batches of ``batch_size``): the first
    ``fit`` after ``compile(optimizer="auto")`` does this once, as the command line does."""
    per_epoch = task_data.steps_per_epoch(data, batch_size)
    kwargs, classifier._scheduled_compile = classifier._scheduled_compile, None
    kwargs["run_eagerly"] = classifier.run_eagerly  # as compiled, or as set since
    classifier.compile(optimizer=recipes.optimizer_for(
        classifier._spec, {**classifier._settings, "epochs": epochs}, max(1, per_epoch)),
        **kwargs)


def _require_fitted(classifier, what):
    if classifier.backbone is None:
        raise ValueError(f"{what}: this classifier has not been fitted; call fit() on "
                         "texts and labels first (or load a fitted one)")


def _check_saveable(classifier, filepath):
    """``ValueError`` unless ``classifier`` is fitted and ``filepath`` a ``.keras`` file."""
    if classifier.backbone is None:
        raise ValueError("nothing to save: the classifier has not been fitted")
    name = os.fspath(filepath)
    if isinstance(name, str) and not name.endswith(".keras"):
        raise ValueError(f"{name}: a TextClassifier saves to a .keras file (a .h5 or "
                         "other file would not load back); for serving use "
                         "export(PATH)")


# -- the config round trip ---------------------------------------------------------------
# what get_config saves, besides Keras's own keys and the preprocessor (in this order)
_CONFIG = ("preset", "num_classes", "class_names", "model_options", "min_freq",
           "vocab_size", "recipe", "training_summary")


def _arguments_of_config(config):
    """A saved configuration -> the classifier's arguments."""
    config = dict(config)
    # a saved classifier holds its word vectors in its weights: a path in a config
    # (a tampered .keras file) is never opened
    config.pop("embeddings", None)
    config["preprocessor"] = keras.saving.deserialize_keras_object(config["preprocessor"])
    return config


def _interpret():
    """kerasattn.interpret.classifier, imported when first used: Keras imports this
    module to register the task, and importing the layers must not load interpret."""
    from kerasattn.interpret import classifier  # late: see the docstring

    return classifier


@keras.saving.register_keras_serializable(package="kerasattn")
class TextClassifier(keras.Model):
    """A preset's backbone with its preprocessor and training recipe, on raw strings.

    Build one with :meth:`from_preset` (or :meth:`from_run` for a run directory
    of ``python -m training.train``).

    Args:
        preset: a registered Keras preset name (``kerasattn.models.names()``).
        num_classes: number of classes; may be None when ``class_names`` is given
            or until the first ``fit`` infers it from the labels.
        class_names: the label of each class (strings); defaults to "0", "1", ...
        preprocessor: a :class:`TextClassifierPreprocessor` (default: the
            preset's text options, no vocabulary yet).
        backbone: an already built backbone (token ids -> probabilities).
        model_options: overrides of the preset's model configuration.
        min_freq, vocab_size: how :meth:`fit` adapts a preprocessor without a
            vocabulary (the preset's defaults).
        embeddings: a GloVe-format text file (e.g. from ``kerasattn word-vectors``)
            whose vectors start the backbone's embedding layer when it is built (as
            ``train --embeddings``); the saved weights carry them afterwards.
        training_summary: what earlier ``fit`` calls trained (a loaded classifier's;
            see below).

    Attributes:
        training_summary: None before the first ``fit``; then a dict that ``fit``
            writes and ``get_config`` keeps (a ``.keras`` file and a preset directory
            carry it): ``"epochs"`` (epochs actually run, over every ``fit`` call),
            ``"epochs_requested"``, ``"batch_size"``, ``"recipe"``,
            ``"early_stopping"`` (``{"monitor", "patience", "stopped_epoch"}`` of a
            ``keras.callbacks.EarlyStopping`` among the callbacks, or None),
            ``"seed"``, ``"train_texts"`` and ``"validation_texts"`` (None when the
            data was a ``tf.data.Dataset``), ``"dataset"`` (``{"name", "sizes"}`` when
            ``fit`` got a :class:`~kerasattn.data.datasets.TextDataset`, else None),
            ``"validation"`` (``{"accuracy", "examples"}``: the last epoch's validation
            accuracy and the number of validation texts, or None) and
            ``"class_names"``. After several ``fit`` calls ``"epochs"`` is their sum
            and every other key is the latest call's.

    In a notebook a classifier shows its preset, recipe, classes, parameter count and
    training summary (``_repr_html_``).

    Example:
        >>> import kerasattn
        >>> clf = kerasattn.TextClassifier.from_preset("mlp", model_options={"hidden_units": 8})
        >>> _ = clf.fit(["good", "fine film", "bad", "awful film"], ["pos", "pos", "neg", "neg"],
        ...             epochs=1, verbose=0)
        >>> clf.predict(["good film"], verbose=0).shape
        (1, 2)
        >>> clf.class_names
        ['neg', 'pos']
    """

    preprocessor_cls = TextClassifierPreprocessor
    # a compile() made before the backbone exists, applied when fit builds it
    _pending_compile: dict[str, Any] | None

    def __init__(self, preset: str, num_classes: int | None = None,
                 class_names: Sequence[str] | None = None,
                 preprocessor: TextClassifierPreprocessor | None = None,
                 backbone: keras.Model | None = None,
                 model_options: Mapping[str, Any] | None = None,
                 min_freq: int | None = None, vocab_size: int | None = None,
                 recipe: str = "default", embeddings: str | os.PathLike[str] | None = None,
                 training_summary: Mapping[str, Any] | None = None,
                 **kwargs: Any) -> None:
        spec = _keras_preset(preset)
        super().__init__(**kwargs)
        self.preset = preset
        self._spec = spec
        self.recipe = recipe
        self._settings, self.model_options = _recipe_settings(preset, spec, recipe,
                                                              model_options)
        self.num_classes, self.class_names = _checked_classes(num_classes, class_names)
        self.min_freq = self._settings["min_freq"] if min_freq is None else min_freq
        self.vocab_size = self._settings["vocab_size"] if vocab_size is None else vocab_size
        self.preprocessor = _checked_preprocessor(preset, spec, self._settings, preprocessor)
        self.backbone = backbone
        self.embeddings = _checked_embeddings(embeddings)
        self._pending_compile = None
        self._scheduled_compile = None
        self.training_summary = (None if training_summary is None
                                 else task_summary.plain(training_summary))
        if backbone is not None:
            self.built = True
        elif self.preprocessor.vocabulary is not None and self.num_classes is not None:
            _build_backbone(self)

    @classproperty
    def presets(cls) -> dict[str, dict[str, Any]]:
        """The Keras presets ``from_preset`` takes, name -> ``{"family", "kind",
        "description", "paper", "hierarchical", "recipes"}`` (the scikit-learn ``nb`` and
        ``lr`` are :func:`kerasattn.models.get`'s: ``kerasattn.models.describe()`` lists
        every preset)."""
        return task_presets.keras_presets()

    @classmethod
    def from_preset(cls, preset: str | os.PathLike[str], num_classes: int | None = None,
                    class_names: Sequence[str] | None = None,
                    vocabulary: Sequence[str] | None = None, recipe: str = "default",
                    compile: bool = True, embeddings: str | os.PathLike[str] | None = None,
                    **model_options: Any) -> TextClassifier:
        """A classifier of a registered Keras preset with its default recipe, or the
        trained classifier a preset location holds.

        Args:
            preset: a registered name (``TextClassifier.presets``), e.g. ``"cnn"``,
                ``"sanet-base"``, ``"hcan-2sa-target"``; or a location: a preset
                directory written by :meth:`save_to_preset`, a ``.keras`` file of a
                classifier, or an ``hf://NAMESPACE/NAME`` repository (the ``[hub]``
                extra), loaded as it was saved (:mod:`kerasattn.preset_dirs`).
            num_classes: number of classes (None: inferred by the first ``fit``).
            class_names: names of the classes (strings), in label order.
            vocabulary: an id -> token list to start from (else ``fit`` adapts one).
            recipe: one of the preset's named recipes (``kerasattn.recipes.recipe_names``):
                its optimizer, learning rate, batch size, epochs, text options and model
                options become the defaults. The same on every machine: a preset too
                large for a CPU has ``recipe="cpu"`` (the IRAM presets) to ask for.
            compile: apply the recipe (``compile()`` with its defaults).
            embeddings: a GloVe-format file to start the embedding layer from (its
                vector size must be the model's ``embedding_dim``).
            **model_options: overrides of the preset's model configuration, e.g.
                ``filters=50``; ``model_options={...}`` also works.
        """
        return task_presets.from_preset(cls, preset, num_classes, class_names, vocabulary,
                                        recipe, compile, embeddings, **model_options)

    @classmethod
    def from_run(cls, run_dir: str | os.PathLike[str], compile: bool = True) -> TextClassifier:
        """The classifier a ``python -m training.train`` run directory holds (its best
        model, vocabulary, text options and class names). ``compile=True`` compiles it
        with the run's optimizer at the run's base learning rate, constant: a run trained
        with ``--lr-schedule``/``--warmup`` had a schedule over its own number of steps,
        which means nothing for a further ``fit`` (pass ``compile(optimizer=...)`` with a
        schedule of your own for that)."""
        return task_presets.from_run(cls, run_dir, compile=compile)

    @classmethod
    def of_run(cls, config: Mapping[str, Any], backbone: keras.Model,
               text_preprocessor: TextPreprocessor) -> TextClassifier:
        """The classifier of a run's parts: its ``config.json`` (a dict), its trained
        backbone and its :class:`~kerasattn.data.preprocessing.TextPreprocessor`. What
        ``training.train`` saves as a run's ``model.keras``; :meth:`from_run` builds it
        from the files of a run that holds the backbone alone."""
        return task_presets.of_run(cls, config, backbone, text_preprocessor)

    def call(self, ids: Any, training: bool = False) -> Any:
        if self.backbone is None:
            raise ValueError("the classifier has no backbone yet: fit it on texts first "
                             "(or give from_preset a vocabulary)")
        return self.backbone(ids, training=training)

    def compile(self, optimizer: str | keras.optimizers.Optimizer = "auto", loss: Any = "auto",
                metrics: Any = "auto", **kwargs: Any) -> None:
        """``keras.Model.compile`` with the preset's recipe for every ``"auto"``: its
        optimizer and learning rate, the loss of its head (binary or sparse categorical
        cross-entropy) and accuracy. Before the backbone exists (no vocabulary yet) the
        call is remembered and applied when ``fit`` builds it."""
        if self.backbone is None:
            if "run_eagerly" in kwargs:  # set now, as Keras's compile does
                self.run_eagerly = kwargs.pop("run_eagerly")
            self._pending_compile = dict(optimizer=optimizer, loss=loss, metrics=metrics,
                                         **kwargs)
            return
        self._scheduled_compile = None  # also when the recipe's optimizer cannot be made
        arguments, self._scheduled_compile = _recipe_compile_arguments(
            self._spec, self._settings, self.backbone, optimizer, loss, metrics, kwargs)
        super().compile(**arguments)

    default_batch_size = _recipe_setting("batch_size")
    default_epochs = _recipe_setting("epochs")

    def fit(self, x: Sequence[str] | np.ndarray | tf.data.Dataset | TextDataset | None = None,
            y: Sequence[int] | Sequence[str] | np.ndarray | None = None,
            batch_size: int | None = None, epochs: int | None = None,
            validation_data: tuple[Any, Any] | tf.data.Dataset | None = None,
            shuffle: bool = True, seed: int | None = None,
            class_names: Sequence[str] | None = None,
            **kwargs: Any) -> keras.callbacks.History:
        """``keras.Model.fit`` on raw strings.

        Args:
            x: a list/array of strings (with ``y``), a ``tf.data.Dataset`` of
                ``(string, label)`` (batched or not), or a
                :class:`~kerasattn.data.datasets.TextDataset`
                (``kerasattn.datasets.load``): its train split, its val split as
                ``validation_data`` unless that is given, and its class names. Token
                ids work as for Keras.
            y: integer labels or class-name strings (none with a ``TextDataset``).
            batch_size, epochs: default to the preset's recipe.
            validation_data: ``(texts, labels)`` or a dataset like ``x``.
            shuffle: reshuffle the texts, then the batches, every epoch (batches of
                similar length).
            seed: the shuffling seed.
            class_names: the names of integer labels 0, 1, ... (as a
                ``TextDataset`` gives them); they become the classifier's class names
                when it has none (or only the default "0", "1", ...), and
                ``ValueError`` when they differ from its own. ``predict_labels``,
                ``export`` and the model card then speak them.
            **kwargs: any other ``keras.Model.fit`` argument (callbacks, verbose, ...).

        Returns:
            Keras's ``History``. ``training_summary`` records the call: its
            ``"epochs"`` add up over several calls, the other keys are the latest
            call's.
        """
        batch_size = batch_size or self.default_batch_size
        epochs = epochs or self.default_epochs
        dataset = x if task_data.is_text_dataset(x) else None
        if dataset is not None:
            x, y, validation_data = task_data.dataset_arguments(self, dataset, y,
                                                                validation_data)
        if class_names is not None:
            task_data.adopt_class_names(self, class_names, "class_names")
        summary = dict(epochs=epochs, batch_size=batch_size, seed=seed, x=x,
                       validation_data=validation_data, dataset=dataset,
                       callbacks=kwargs.get("callbacks"))
        history = self._fit_texts(x, y, batch_size, epochs, validation_data, shuffle, seed,
                                  **kwargs)
        self.training_summary = task_summary.of_fit(self, history, **summary)
        return history

    def _fit_texts(self, x, y, batch_size, epochs, validation_data, shuffle, seed,
                   **kwargs):
        """``fit`` once its arguments are settled: build, batch, compile, train."""
        task_data.check_training_input(x, y, fitted=self.backbone is not None)
        if self.backbone is None:  # the vocabulary and the classes of the training data
            task_data.adapt(self, x, y)
            _build_backbone(self)
        train = task_data.batches(self, x, y, batch_size, shuffle, seed, training=True)
        validation_data = task_data.validation_batches(self, validation_data, batch_size)
        if not self.compiled and self._pending_compile is None:
            # Keras's compile resets run_eagerly: keep what the user set on the classifier
            self.compile(run_eagerly=self.run_eagerly)
        if self._scheduled_compile is not None:
            _compile_with_schedule(self, x if train is None else train, batch_size, epochs)
        if train is None:  # ids: plain Keras
            return super().fit(x, y, batch_size=batch_size, epochs=epochs,
                               validation_data=validation_data, shuffle=shuffle, **kwargs)
        return super().fit(train, epochs=epochs, validation_data=validation_data,
                           shuffle=False, **kwargs)

    def evaluate(self, x: Sequence[str] | np.ndarray | tf.data.Dataset | None = None,
                 y: Sequence[int] | Sequence[str] | np.ndarray | None = None,
                 batch_size: int | None = None,
                 **kwargs: Any) -> float | list[float] | dict[str, float]:
        """``keras.Model.evaluate`` on raw strings and labels (or as for Keras)."""
        _require_fitted(self, "evaluate")
        batch_size = batch_size or self.default_batch_size
        data = task_data.batches(self, x, y, batch_size, False)
        if data is None:
            return super().evaluate(x, y, batch_size=batch_size, **kwargs)
        return super().evaluate(data, **kwargs)

    def predict(self, x: Sequence[str] | np.ndarray | tf.data.Dataset,
                batch_size: int | None = None, verbose: str | int = "auto",
                **kwargs: Any) -> np.ndarray:
        """Class probabilities, shape (n, num_classes), for a list of strings (or token
        ids, or a dataset of strings); in input order."""
        _require_fitted(self, "predict")
        batch_size = batch_size or self.default_batch_size
        texts = task_data.as_text_array(x)
        if texts is not None and not texts:
            return np.zeros((0, self.num_classes), np.float32)
        x = task_data.prediction_batches(x, texts, self.preprocessor, batch_size)
        out = super().predict(x, batch_size=batch_size, verbose=verbose, **kwargs)
        return heads.as_probabilities(out).astype(np.float32)

    def predict_labels(self, texts: Sequence[str] | np.ndarray | tf.data.Dataset,
                       **kwargs: Any) -> list[str]:
        """The predicted class name of each text."""
        return [self.class_names[i] for i in np.argmax(self.predict(texts, **kwargs), axis=1)]

    def explain(self, texts: Sequence[str], batch_size: int = 32) -> list[Explanation]:
        """Tokens, probabilities and every attention layer's weights per text: a list of
        :class:`kerasattn.interpret.Explanation` (as ``extract_attention`` gives them).
        A preset without attention (``cnn``, ``mlp``, the RNNs) gives a gradient
        attribution instead: ``attention`` is empty and ``attribution`` holds each
        token's gradient × input score for the predicted class (a ``TokenAttribution``),
        which the explanation draws in the signed colours of an attribution (under a
        backend other than TensorFlow: ``attribution`` is None)."""
        return _interpret().explain_classifier(self, texts, batch_size=batch_size)

    def _repr_html_(self) -> str:
        """The notebook view: preset, recipe, classes, parameter count (or "not built
        yet") and the training summary, as a self-contained HTML fragment."""
        return task_summary.classifier_html(self)

    def attribute(self, texts: Sequence[str], method: str = "integrated_gradients",
                  **kwargs: Any) -> list[TokenAttribution]:
        """One score per token of each text by ``method`` (``"integrated_gradients"``,
        ``"gradient_x_input"``, ``"leave_one_out"``, ``"attention"``, ``"rollout"``):
        a list of :class:`kerasattn.interpret.TokenAttribution`. Keyword arguments go
        to :func:`kerasattn.interpret.explain_tokens` (``target``, ``steps``,
        ``baseline``, ``rule``, ``batch_size``)."""
        return _interpret().attribute_classifier(self, texts, method=method, **kwargs)

    def save_to_preset(self, preset_dir: str | os.PathLike[str],
                       overwrite: bool = False) -> str:
        """Write this fitted classifier as a self-contained preset: a directory (or an
        ``hf://NAMESPACE/NAME`` repository, with the ``[hub]`` extra) holding the model,
        its vocabulary, class names and recipe, the run's ``metrics.json`` when it came
        from :meth:`from_run`, and a model card ``README.md``;
        ``TextClassifier.from_preset(preset_dir)`` loads it (:mod:`kerasattn.preset_dirs`).
        An existing directory is refused unless empty or ``overwrite``."""
        return preset_dirs.save(self, preset_dir, run_dir=getattr(self, "source_run", None),
                                overwrite=overwrite)

    def export(self, path: str | os.PathLike[str], max_length: int | None = None) -> str:
        """Write the raw-text SavedModel of ``training.export`` (TF Serving layout) to
        ``path`` (e.g. ``saved_models/NAME/1``); returns ``path``."""
        return export_classifier(self, path, max_length)

    def save(self, filepath: str | os.PathLike[str], *args: Any, **kwargs: Any) -> None:
        """Save to a ``.keras`` file (``keras.saving.load_model`` reads it back after
        ``import kerasattn``). Other formats are refused: a legacy ``.h5`` file cannot
        hold the preprocessor and the task, and would not load."""
        _check_saveable(self, filepath)
        return super().save(filepath, *args, **kwargs)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({name: getattr(self, name) for name in _CONFIG})
        config["training_summary"] = task_summary.plain(self.training_summary)
        config["preprocessor"] = keras.saving.serialize_keras_object(self.preprocessor)
        return config

    def compile_from_config(self, config: dict[str, Any]) -> None:
        """Compile a loaded classifier as it was saved (optimizer state included)."""
        config = keras.saving.deserialize_keras_object(config)
        self.compile(**config)
        if self.built and self.optimizer is not None:
            self.optimizer.build(self.trainable_variables)

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> TextClassifier:
        return cls(**_arguments_of_config(config))
