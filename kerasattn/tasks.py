"""``TextClassifier``: a preset's backbone, its text preprocessor and its recipe, on raw strings.

The keras-hub split (preprocessor / backbone / task) for the zoo::

    import kerasattn
    clf = kerasattn.TextClassifier.from_preset("cnn", num_classes=2)
    clf.fit(train_texts, train_labels, validation_data=(val_texts, val_labels), epochs=3)
    clf.predict(["a gorgeous, witty film"])        # (1, 2) probabilities
    clf.explain(["a gorgeous, witty film"])        # attention (attention presets)
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

import os

import keras
import numpy as np
import tensorflow as tf

from kerasattn import heads, recipes


def _as_text_array(x):
    """A list/tuple/array of str (or bytes) -> a 1-D object array; None otherwise."""
    if isinstance(x, str):
        raise ValueError("expected a list of texts, got one string; wrap it in a list")
    if isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.ndim == 1
                                        and x.dtype.kind in "OUS"):
        items = list(x)
        if all(isinstance(t, (str, bytes, np.str_, np.bytes_)) for t in items):
            return [t.decode("utf-8", "replace") if isinstance(t, bytes) else str(t)
                    for t in items]
    return None


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

    def __init__(self, vocabulary=None, mode="default", remove_punctuation=False,
                 remove_stopwords=False, max_length=None, hierarchical=False,
                 max_sentences=None, max_words=None, truncation="head", **kwargs):
        kwargs.setdefault("trainable", False)
        super().__init__(**kwargs)
        from kerasattn.data.preprocessing import TextPreprocessor

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
    def from_text_preprocessor(cls, text_preprocessor, **kwargs):
        return cls(vocabulary=text_preprocessor.vocabulary, **text_preprocessor.get_config(),
                   **kwargs)

    @property
    def vocabulary(self):
        return self.text_preprocessor.vocabulary

    @property
    def vocabulary_size(self):
        return self.text_preprocessor.vocabulary_size

    @property
    def hierarchical(self):
        return self.text_preprocessor.hierarchical

    def adapt(self, texts, min_freq=1, max_size=None):
        """Build the vocabulary on ``texts`` (a list of str or a ``tf.data.Dataset`` of
        scalar strings); returns self."""
        self.text_preprocessor.adapt(texts, min_freq=min_freq, max_size=max_size)
        return self

    def tokenize(self, texts):
        return self.text_preprocessor.tokenize(texts)

    def call(self, texts):
        texts = tf.convert_to_tensor(texts, tf.string)
        ids = self.text_preprocessor(texts).to_tensor()
        shape = tf.shape(ids)
        pads = [[0, 0]] + [[0, tf.maximum(0, 1 - shape[i])] for i in range(1, len(ids.shape))]
        return tf.pad(ids, pads)

    def compute_output_spec(self, texts):
        rank = 3 if self.hierarchical else 2
        return keras.KerasTensor((None,) * rank, dtype="int32")

    def get_config(self):
        config = super().get_config()
        config.update(self.text_preprocessor.get_config())
        config["vocabulary"] = (list(self.vocabulary) if self.vocabulary is not None
                                else None)
        return config


class _ClassProperty:
    """A read-only property of the class (``TextClassifier.presets``), as keras-hub's."""

    def __init__(self, fget):
        self.fget = fget
        self.__doc__ = fget.__doc__

    def __get__(self, obj, owner=None):
        return self.fget(owner if owner is not None else type(obj))


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

    def __init__(self, preset, num_classes=None, class_names=None, preprocessor=None,
                 backbone=None, model_options=None, min_freq=None, vocab_size=None,
                 recipe="default", embeddings=None, **kwargs):
        from kerasattn import models

        spec = models.get_preset(preset)
        if spec.kind != "keras":
            raise ValueError(f"{preset!r} is a scikit-learn preset: build it with "
                             f"kerasattn.models.get({preset!r}, num_classes=N), a scikit-learn "
                             f"classifier on raw texts; TextClassifier holds the Keras presets "
                             f"(TextClassifier.presets: {', '.join(models.names('keras'))})")
        super().__init__(**kwargs)
        self.preset = preset
        self._spec = spec
        self.recipe = recipe
        chosen = recipes.get_recipe(preset, recipe)
        # the recipe's settings (the same on every machine) over the training defaults
        self._settings = {**spec.training_defaults(), **chosen.train}
        self.model_options = {**chosen.model_options, **(model_options or {})}
        unknown = sorted(set(self.model_options) - set(spec.model_config))
        if unknown:
            raise ValueError(f"model {preset!r} has no option(s) {unknown}; its options are "
                             f"{sorted(spec.model_config)}")
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
        self.num_classes = None if num_classes is None else int(num_classes)
        self.class_names = class_names
        self.min_freq = self._settings["min_freq"] if min_freq is None else min_freq
        self.vocab_size = self._settings["vocab_size"] if vocab_size is None else vocab_size
        if preprocessor is None:
            preprocessor = TextClassifierPreprocessor(
                **recipes.preprocessor_options(spec, **self._settings))
        elif preprocessor.hierarchical != spec.hierarchical:
            raise ValueError(f"{preset!r} takes {'hierarchical' if spec.hierarchical else 'flat'}"
                             " ids: the preprocessor must have hierarchical="
                             f"{spec.hierarchical}")
        self.preprocessor = preprocessor
        self.backbone = backbone
        self.embeddings = None if embeddings is None else os.fspath(embeddings)
        if self.embeddings is not None and not os.path.isfile(self.embeddings):
            raise FileNotFoundError(f"embeddings: no such file {self.embeddings}")
        self._pending_compile = None
        self._scheduled_compile = None
        if backbone is None and preprocessor.vocabulary is not None and \
                num_classes is not None:
            self._build_backbone()
        elif backbone is not None:
            self.built = True

    # -- construction ---------------------------------------------------------
    @_ClassProperty
    def presets(cls):
        """The Keras presets ``from_preset`` takes, name -> ``{"family", "kind",
        "description", "paper", "hierarchical", "recipes"}`` (the scikit-learn ``nb`` and
        ``lr`` are :func:`kerasattn.models.get`'s: ``kerasattn.models.describe()`` lists
        every preset)."""
        from kerasattn import models

        return models.describe("keras")

    @classmethod
    def from_preset(cls, preset, num_classes=None, class_names=None, vocabulary=None,
                    recipe="default", compile=True, embeddings=None, **model_options):
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
        from kerasattn import models, preset_dirs

        options = dict(model_options.pop("model_options", None) or {})
        options.update(model_options)
        if not (isinstance(preset, str) and preset in models.names()) and \
                preset_dirs.is_location(preset):
            given = {k: v for k, v in dict(num_classes=num_classes, class_names=class_names,
                                           vocabulary=vocabulary, embeddings=embeddings,
                                           **options).items() if v is not None}
            if recipe != "default":
                given["recipe"] = recipe
            if given:
                raise ValueError(f"{preset} is a saved preset: it keeps its own "
                                 f"{', '.join(sorted(given))}; load it as it is")
            return preset_dirs.load(preset, compile=compile)
        spec = models.get_preset(preset)
        pre = None
        if vocabulary is not None:
            settings = recipes.get_recipe(preset, recipe).train
            pre = TextClassifierPreprocessor(vocabulary=vocabulary,
                                             **recipes.preprocessor_options(spec, **settings))
        clf = cls(preset, num_classes=num_classes, class_names=class_names, preprocessor=pre,
                  model_options=options, recipe=recipe, embeddings=embeddings)
        if compile:
            clf.compile()
        return clf

    @classmethod
    def from_run(cls, run_dir, compile=True):
        """The classifier a ``python -m training.train`` run directory holds (its best
        model, vocabulary, text options and class names). ``compile=True`` compiles it
        with the run's optimizer at the run's base learning rate, constant: a run trained
        with ``--lr-schedule``/``--warmup`` had a schedule over its own number of steps,
        which means nothing for a further ``fit`` (pass ``compile(optimizer=...)`` with a
        schedule of your own for that)."""
        from kerasattn import runs

        config, saved = runs.load_saved_model(run_dir, compile=False)
        if isinstance(saved, cls):  # a run of training.train: its model.keras is the classifier
            clf = saved
        else:  # a run of training.portable (or an older run): the backbone alone
            clf = cls.of_run(config, saved, runs.load_preprocessor(run_dir))
        clf.source_run = os.path.abspath(run_dir)  # save_to_preset takes its metrics along
        if compile:
            t = config["train"]
            clf.compile(optimizer=recipes.make_optimizer(clf._spec, t["optimizer"],
                                                         t["learning_rate"]))
        return clf

    @classmethod
    def of_run(cls, config, backbone, text_preprocessor):
        """The classifier of a run's parts: its ``config.json`` (a dict), its trained
        backbone and its :class:`~kerasattn.data.preprocessing.TextPreprocessor`. What
        ``training.train`` saves as a run's ``model.keras``; :meth:`from_run` builds it
        from the files of a run that holds the backbone alone."""
        return cls(config["model"], class_names=config["class_names"],
                   preprocessor=TextClassifierPreprocessor.from_text_preprocessor(
                       text_preprocessor),
                   backbone=backbone, model_options=config.get("model_overrides"),
                   recipe=config.get("recipe") if config.get("recipe") in
                   recipes.recipe_names(config["model"]) else "default")

    def _build_backbone(self):
        from kerasattn import models

        self.backbone = models.get(self.preset, vocab_size=self.preprocessor.vocabulary_size,
                                   num_classes=self.num_classes,
                                   vocabulary=self.preprocessor.vocabulary,
                                   **self.model_options)
        if self.embeddings is not None:
            from kerasattn import embeddings

            self.embeddings_found = embeddings.load_into(
                self.backbone, self.embeddings, self.preprocessor.vocabulary)
        if self.class_names is None:
            self.class_names = [str(i) for i in range(self.num_classes)]
        self.built = True
        if self._pending_compile is not None:
            kwargs, self._pending_compile = self._pending_compile, None
            self.compile(**{**kwargs, "run_eagerly": self.run_eagerly})

    def call(self, ids, training=False):
        if self.backbone is None:
            raise ValueError("the classifier has no backbone yet: fit it on texts first "
                             "(or give from_preset a vocabulary)")
        return self.backbone(ids, training=training)

    # -- the recipe -------------------------------------------------------------
    def compile(self, optimizer="auto", loss="auto", metrics="auto", **kwargs):
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
        auto_loss, auto_accuracy = heads.loss_and_accuracy(self.backbone)
        self._scheduled_compile = None
        if isinstance(optimizer, str) and optimizer == "auto":
            optimizer = recipes.make_optimizer(self._spec, self._settings["optimizer"],
                                               self._settings["learning_rate"],
                                               self._settings["clipnorm"])
            if recipes.is_scheduled(self._settings["lr_schedule"], self._settings["warmup"]):
                # the recipe's schedule spans the training steps: fit sets it once it
                # knows them
                self._scheduled_compile = dict(loss=loss, metrics=metrics, **kwargs)
        if isinstance(loss, str) and loss == "auto":
            loss = auto_loss
        if isinstance(metrics, str) and metrics == "auto":
            metrics = [auto_accuracy]
        super().compile(optimizer=optimizer, loss=loss, metrics=metrics, **kwargs)

    @property
    def default_batch_size(self):
        return self._settings["batch_size"]

    @property
    def default_epochs(self):
        return self._settings["epochs"]

    # -- data -------------------------------------------------------------------
    def _label_ids(self, y):
        """Labels (ints or strings) -> int32 ids; fixes the class names on first use."""
        y = list(np.asarray(y).tolist()) if not isinstance(y, list) else list(y)
        if not y:
            raise ValueError("no labels")
        if all(isinstance(v, str) for v in y):
            if self.class_names is None or (self.backbone is None and
                                            self.class_names == [str(i) for i in
                                                                 range(self.num_classes or 0)]):
                names = sorted(set(y))
                if self.num_classes is not None and len(names) > self.num_classes:
                    raise ValueError(f"{len(names)} distinct labels but num_classes="
                                     f"{self.num_classes}")
                self.class_names = names if self.num_classes is None or \
                    len(names) == self.num_classes else None
                if self.class_names is None:
                    raise ValueError(f"{len(names)} distinct string labels but num_classes="
                                     f"{self.num_classes}; pass class_names=")
                self.num_classes = len(names)
            index = {n: i for i, n in enumerate(self.class_names)}
            unknown = sorted(set(y) - set(index))
            if unknown:
                raise ValueError(f"unknown labels {unknown[:5]}; the classes are "
                                 f"{self.class_names}")
            return np.asarray([index[v] for v in y], np.int32)
        try:
            ids = np.asarray(y, dtype=np.int64)
        except (TypeError, ValueError):
            raise ValueError("labels must be all integers or all strings") from None
        if not np.array_equal(ids, np.asarray(y, dtype=np.float64)) or ids.ndim != 1:
            raise ValueError("labels must be a flat list of integers or of strings")
        if ids.min() < 0:
            raise ValueError(f"integer labels must be >= 0, got {ids.min()}")
        if self.num_classes is None:
            self.num_classes = max(2, int(ids.max()) + 1)
        if ids.max() >= self.num_classes:
            raise ValueError(f"label {ids.max()} but num_classes={self.num_classes}")
        return ids.astype(np.int32)

    def _label_table(self):
        names = tf.constant(self.class_names)
        return tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(names, tf.range(len(self.class_names),
                                                                dtype=tf.int32)), -1)

    def _dataset(self, x, y, batch_size, shuffle, seed=None):
        """Strings + labels, or a tf.data.Dataset of (string, label) -> (ids, labels)
        batches; other inputs (ids) are returned as they are, with None."""
        from kerasattn.data.pipeline import make_dataset

        if isinstance(x, tf.data.Dataset):
            spec = x.element_spec
            if not isinstance(spec, tuple) or getattr(spec[0], "dtype", None) != tf.string:
                return None  # token ids (e.g. fit's own validation batches)
            if len(spec) != 2:
                raise ValueError("a tf.data.Dataset of texts for a TextClassifier yields "
                                 "(text, label) pairs")
            ds = x if spec[0].shape.rank == 1 else x.batch(batch_size)
            table = self._label_table() if spec[1].dtype == tf.string else None

            def prepare(texts, labels):
                if table is not None:
                    labels = table.lookup(labels)
                return self.preprocessor(texts), labels

            return ds.map(prepare, num_parallel_calls=tf.data.AUTOTUNE) \
                .prefetch(tf.data.AUTOTUNE)
        texts = _as_text_array(x)
        if texts is None:
            return None
        labels = None if y is None else self._label_ids(y)
        if self.backbone is None:
            self._adapt_and_build(texts)
        return make_dataset(texts, labels, self.preprocessor.text_preprocessor,
                            batch_size=batch_size, shuffle=shuffle, seed=seed,
                            count_batches=True)

    def _adapt_and_build(self, texts):
        if self.preprocessor.vocabulary is None:
            self.preprocessor.adapt(texts, min_freq=self.min_freq, max_size=self.vocab_size)
        if self.num_classes is None:
            raise ValueError("num_classes is unknown: pass it to from_preset or fit on labels")
        self._build_backbone()

    # -- training and inference on strings -----------------------------------------
    def fit(self, x=None, y=None, batch_size=None, epochs=None, validation_data=None,
            shuffle=True, seed=None, **kwargs):
        """``keras.Model.fit`` on raw strings.

        Args:
            x: a list/array of strings (with ``y``), or a ``tf.data.Dataset`` of
                ``(string, label)`` (batched or not); token ids work as for Keras.
            y: integer labels or class-name strings.
            batch_size, epochs: default to the preset's recipe.
            validation_data: ``(texts, labels)`` or a dataset like ``x``.
            shuffle: reshuffle the texts, then the batches, every epoch (batches of
                similar length).
            seed: the shuffling seed.
            **kwargs: any other ``keras.Model.fit`` argument (callbacks, verbose, ...).
        """
        batch_size = batch_size or self.default_batch_size
        epochs = epochs or self.default_epochs
        self._check_training_input(x, y)
        if isinstance(x, tf.data.Dataset) and self.backbone is None:
            flat = x.unbatch() if x.element_spec[0].shape.rank == 1 else x
            if self.preprocessor.vocabulary is None:
                self.preprocessor.adapt(flat.map(lambda t, _: t),
                                        min_freq=self.min_freq, max_size=self.vocab_size)
            if self.num_classes is None:  # one pass over the labels
                labels = [v.decode("utf-8") if isinstance(v, bytes) else v
                          for v in flat.map(lambda _, y: y).as_numpy_iterator()]
                self._label_ids(labels)
            self._build_backbone()
        train = self._dataset(x, y, batch_size, shuffle, seed)
        if validation_data is not None:
            if isinstance(validation_data, tf.data.Dataset):
                validation_data = self._dataset(validation_data, None, batch_size, False)
            elif isinstance(validation_data, (tuple, list)) and \
                    _as_text_array(validation_data[0]) is not None:
                validation_data = self._dataset(validation_data[0], validation_data[1],
                                                batch_size, False)
        if not self.compiled and self._pending_compile is None:
            # Keras's compile resets run_eagerly: keep what the user set on the classifier
            self.compile(run_eagerly=self.run_eagerly)
        if self._scheduled_compile is not None:
            self._schedule_learning_rate(train, x, batch_size, epochs)
        if train is None:  # ids: plain Keras
            return super().fit(x, y, batch_size=batch_size, epochs=epochs,
                               validation_data=validation_data, shuffle=shuffle, **kwargs)
        return super().fit(train, epochs=epochs, validation_data=validation_data,
                           shuffle=False, **kwargs)

    def _check_training_input(self, x, y):
        """One clear ``ValueError`` for what ``fit`` cannot train on: no texts, texts
        that are not strings (token ids need a fitted classifier), labels of one class."""
        if x is None:
            raise ValueError("fit needs training texts: fit(texts, labels), or a "
                             "tf.data.Dataset of (text, label) pairs")
        if isinstance(x, tf.data.Dataset):
            return
        if _as_text_array(x) is None:
            if self.backbone is None:
                kinds = sorted({type(t).__name__ for t in x}) if isinstance(
                    x, (list, tuple)) else [type(x).__name__]
                raise ValueError("fit takes a list of strings (the texts); got "
                                 f"{', '.join(kinds)} (token ids work only once the "
                                 "classifier is fitted on texts)")
            return
        if y is None:
            raise ValueError("fit needs labels: fit(texts, labels)")
        labels = list(np.asarray(y).tolist()) if not isinstance(y, list) else list(y)
        if len(labels) != len(x):
            raise ValueError(f"{len(x)} texts but {len(labels)} labels")
        distinct = {str(v) for v in labels}
        if len(distinct) < 2 and self.backbone is None:
            raise ValueError(f"every label is {labels[0]!r}: a classifier needs examples of "
                             "at least two classes")

    def _require_fitted(self, what):
        if self.backbone is None:
            raise ValueError(f"{what}: this classifier has not been fitted; call fit() on "
                             "texts and labels first (or load a fitted one)")

    def _schedule_learning_rate(self, train, x, batch_size, epochs):
        """Compile with the recipe's learning-rate schedule over ``epochs`` of ``train``'s
        batches (or of ``x``'s ids in batches of ``batch_size``): the first ``fit`` of
        a classifier compiled with ``optimizer="auto"`` does this once, as the command
        line does."""
        data = x if train is None else train
        if isinstance(data, tf.data.Dataset):
            from kerasattn.data.pipeline import batches_per_epoch

            per_epoch = batches_per_epoch(data)
        else:
            per_epoch = -(-len(data) // batch_size)
        kwargs, self._scheduled_compile = self._scheduled_compile, None
        kwargs["run_eagerly"] = self.run_eagerly  # as compiled, or as set since
        self.compile(optimizer=recipes.optimizer_for(self._spec,
                                                     {**self._settings, "epochs": epochs},
                                                     max(1, per_epoch)),
                     **kwargs)

    def evaluate(self, x=None, y=None, batch_size=None, **kwargs):
        """``keras.Model.evaluate`` on raw strings and labels (or as for Keras)."""
        self._require_fitted("evaluate")
        batch_size = batch_size or self.default_batch_size
        data = self._dataset(x, y, batch_size, False)
        if data is None:
            return super().evaluate(x, y, batch_size=batch_size, **kwargs)
        return super().evaluate(data, **kwargs)

    def predict(self, x, batch_size=None, verbose="auto", **kwargs):
        """Class probabilities, shape (n, num_classes), for a list of strings (or token
        ids, or a dataset of strings); in input order."""
        self._require_fitted("predict")
        batch_size = batch_size or self.default_batch_size
        texts = _as_text_array(x)
        if texts is not None:
            if not texts:
                return np.zeros((0, self.num_classes), np.float32)
            x = tf.data.Dataset.from_tensor_slices(
                tf.constant(texts, tf.string, shape=[len(texts)])).batch(batch_size) \
                .map(self.preprocessor)
        elif isinstance(x, tf.data.Dataset) and x.element_spec.dtype == tf.string:
            x = (x if x.element_spec.shape.rank == 1 else x.batch(batch_size)) \
                .map(self.preprocessor)
        out = super().predict(x, batch_size=batch_size, verbose=verbose, **kwargs)
        from kerasattn.heads import as_probabilities

        return as_probabilities(out).astype(np.float32)

    def predict_labels(self, texts, **kwargs):
        """The predicted class name of each text."""
        return [self.class_names[i] for i in np.argmax(self.predict(texts, **kwargs), axis=1)]

    def explain(self, texts, batch_size=32):
        """Tokens, probabilities and every attention layer's weights per text: a list of
        :class:`kerasattn.interpret.Explanation` (as ``extract_attention`` gives them).
        A preset without attention (``cnn``, ``mlp``, the RNNs) gives each text's tokens
        and probabilities with an empty ``attention``."""
        from kerasattn.interpret import Explanation, attention_layers, extract_attention

        texts = _as_text_array(texts)
        if texts is None:
            raise ValueError("explain takes a list of texts")
        if self.backbone is None:
            raise ValueError("nothing to explain: the classifier has not been fitted")
        pre = self.preprocessor.text_preprocessor
        names = list(self.class_names) if self.class_names is not None else None
        if attention_layers(self.backbone):
            found = extract_attention(self.backbone, texts, pre, batch_size=batch_size)
            for explanation in found:
                explanation.class_names = names
            return found
        probs = self.predict(texts, batch_size=batch_size, verbose=0)
        tokens = pre.tokenize(tf.constant(texts, tf.string, shape=[len(texts)])).to_list()

        def decode(t):
            return t.decode("utf-8") if isinstance(t, bytes) else [decode(x) for x in t]

        return [Explanation(tokens=decode(t), probabilities=p, attention={}, axes={},
                            hierarchical=pre.hierarchical, class_names=names)
                for t, p in zip(tokens, probs)]

    def attribute(self, texts, method="integrated_gradients", **kwargs):
        """One score per token of each text by ``method`` (``"integrated_gradients"``,
        ``"gradient_x_input"``, ``"leave_one_out"``, ``"attention"``, ``"rollout"``):
        a list of :class:`kerasattn.interpret.TokenAttribution`. Keyword arguments go
        to :func:`kerasattn.interpret.explain_tokens` (``target``, ``steps``,
        ``baseline``, ``rule``, ``batch_size``)."""
        from kerasattn.interpret import explain_tokens

        texts = _as_text_array(texts)
        if texts is None:
            raise ValueError("attribute takes a list of texts")
        if self.backbone is None:
            raise ValueError("nothing to attribute: the classifier has not been fitted")
        found = explain_tokens(self.backbone, texts, self.preprocessor.text_preprocessor,
                               method=method, **kwargs)
        for attribution in found:
            attribution.class_names = (list(self.class_names) if self.class_names is not None
                                       else None)
        return found

    # -- persistence --------------------------------------------------------------
    def save_to_preset(self, preset_dir, overwrite=False):
        """Write this fitted classifier as a self-contained preset: a directory (or an
        ``hf://NAMESPACE/NAME`` repository, with the ``[hub]`` extra) holding the model,
        its vocabulary, class names and recipe, the run's ``metrics.json`` when it came
        from :meth:`from_run`, and a model card ``README.md``;
        ``TextClassifier.from_preset(preset_dir)`` loads it (:mod:`kerasattn.preset_dirs`).
        An existing directory is refused unless empty or ``overwrite``."""
        from kerasattn import preset_dirs

        return preset_dirs.save(self, preset_dir, run_dir=getattr(self, "source_run", None),
                                overwrite=overwrite)

    def export(self, path, max_length=None):
        """Write the raw-text SavedModel of ``training.export`` (TF Serving layout) to
        ``path`` (e.g. ``saved_models/NAME/1``); returns ``path``."""
        from kerasattn import export

        if self.backbone is None:
            raise ValueError("nothing to export: the classifier has not been fitted")
        return export.export_model(self.backbone, self.preprocessor.text_preprocessor,
                                   self.class_names, os.fspath(path), max_length,
                                   preset=self.preset)

    def get_config(self):
        config = super().get_config()
        config.update({
            "preset": self.preset,
            "num_classes": self.num_classes,
            "class_names": self.class_names,
            "model_options": self.model_options,
            "min_freq": self.min_freq,
            "vocab_size": self.vocab_size,
            "recipe": self.recipe,
            "preprocessor": keras.saving.serialize_keras_object(self.preprocessor),
        })
        return config

    def compile_from_config(self, config):
        """Compile a loaded classifier as it was saved (optimizer state included)."""
        config = keras.saving.deserialize_keras_object(config)
        self.compile(**config)
        if self.built and self.optimizer is not None:
            self.optimizer.build(self.trainable_variables)

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        # a saved classifier holds its word vectors in its weights: a path in a config
        # (a tampered .keras file) is never opened
        config.pop("embeddings", None)
        config["preprocessor"] = keras.saving.deserialize_keras_object(config["preprocessor"])
        return cls(**config)

    def save(self, filepath, *args, **kwargs):
        """Save to a ``.keras`` file (``keras.saving.load_model`` reads it back after
        ``import kerasattn``). Other formats are refused: a legacy ``.h5`` file cannot
        hold the preprocessor and the task, and would not load."""
        if self.backbone is None:
            raise ValueError("nothing to save: the classifier has not been fitted")
        name = os.fspath(filepath)
        if isinstance(name, str) and not name.endswith(".keras"):
            raise ValueError(f"{name}: a TextClassifier saves to a .keras file (a .h5 or "
                             "other file would not load back); for serving use "
                             "export(PATH)")
        return super().save(filepath, *args, **kwargs)
