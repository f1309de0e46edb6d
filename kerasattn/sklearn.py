"""scikit-learn estimators over the zoo: :class:`KerasTextClassifier` wraps any Keras
preset (``"cnn"``, ``"mlp"``, ``"sanet-base"``, ...) as a scikit-learn classifier on raw
texts, beside the classical ``nb``/``lr``
(:class:`~kerasattn.models.tfidf.TfidfClassifier`).

Both follow scikit-learn's conventions: the constructor stores its parameters and
nothing else (``get_params``/``set_params``/``clone``), ``fit(texts, labels)`` returns
the estimator, ``classes_`` holds the sorted labels (integers or strings) in the order
of ``predict_proba``'s columns, and ``Pipeline``, ``GridSearchCV`` and
``cross_val_score`` take them. They declare string input in their scikit-learn tags
(``input_tags.string``; ``two_d_array`` is False: a sample is one text, not a row of
numbers).

Importing this module is cheap (no TensorFlow): Keras is imported by the first ``fit``
or unpickling of a fitted estimator.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from kerasattn import ownership
from kerasattn._text_input import EstimatorInputError, as_texts, text_input_tags

__all__ = ["EstimatorInputError", "KerasTextClassifier", "as_texts", "text_input_tags"]


def _classes(y: Any, who: str) -> tuple[np.ndarray, np.ndarray]:
    """``(classes_, ids)``: the sorted distinct labels of ``y`` and each label's index."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise EstimatorInputError(f"{who} takes one label a text (a 1-D y), got shape "
                                  f"{y.shape}")
    check_classification_targets(y)  # "Unknown label type" for continuous targets
    try:
        classes, ids = np.unique(y, return_inverse=True)
    except TypeError:
        raise EstimatorInputError(f"{who}: labels must be all integers or all strings") \
            from None
    if len(classes) < 2:
        raise EstimatorInputError(f"{who} needs labels of at least two classes, y has "
                                  f"only {classes.tolist()}")
    return classes, ids.astype(np.int32)


def _label_ids(classes: np.ndarray, y: Any) -> np.ndarray:
    """The index in ``classes`` of each label of ``y`` (all of them among ``classes``)."""
    y = np.asarray(y)
    unknown = [v for v in np.unique(y).tolist() if v not in classes.tolist()]
    if y.ndim != 1 or unknown:
        raise EstimatorInputError(f"validation labels must be among the classes "
                                  f"{classes.tolist()}; got {unknown[:5] or y.shape}")
    return np.searchsorted(classes, y).astype(np.int32)


def _classifier_to_bytes(classifier: Any) -> bytes:
    """A fitted ``TextClassifier`` as the bytes of its ``.keras`` file."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "classifier.keras")
        classifier.save(path)
        with open(path, "rb") as fh:
            return fh.read()


def _classifier_from_bytes(data: bytes) -> Any:
    """The ``TextClassifier`` of :func:`_classifier_to_bytes`'s bytes."""
    import keras  # late: Keras only when a fitted estimator is unpickled

    from kerasattn.tasks import TextClassifier  # late: TensorFlow; registers the task

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "classifier.keras")
        ownership.write_bytes(path, data)
        classifier = keras.saving.load_model(path)
    if not isinstance(classifier, TextClassifier):
        raise EstimatorInputError("the pickled KerasTextClassifier holds a "
                                  f"{type(classifier).__name__}, not a TextClassifier")
    return classifier


class KerasTextClassifier(ClassifierMixin, BaseEstimator):
    """A Keras preset of the zoo as a scikit-learn classifier on raw texts.

    ``fit`` builds a fresh :class:`kerasattn.TextClassifier` with
    ``TextClassifier.from_preset(preset, recipe=recipe, **model_options)`` and trains it
    (the recipe's optimizer, batch size and epochs unless given here), so ``clone``,
    ``Pipeline``, ``GridSearchCV`` and ``cross_val_score`` train one classifier per fit.

    Args:
        preset: a registered Keras preset (``kerasattn.TextClassifier.presets``).
        recipe: one of the preset's recipes (``kerasattn.recipes.recipe_names``).
        epochs, batch_size: of ``fit`` (None: the recipe's).
        seed: seeds Keras (``keras.utils.set_random_seed``: Python's, NumPy's and the
            backend's global generators) before the model is built, and the shuffling
            of the batches, so a fit repeats; None leaves both unseeded.
        model_options: overrides of the preset's model configuration (a dict, e.g.
            ``{"filters": 50}``).
        verbose: Keras's progress output of ``fit`` and ``predict`` (0: silent).

    Attributes (after ``fit``):
        classifier_: the fitted :class:`kerasattn.TextClassifier`.
        classes_: the labels (sorted), in the order of ``predict_proba``'s columns.
        history_: ``fit``'s history (a dict of lists, one value an epoch).

    A fitted estimator pickles (the classifier travels as the bytes of its ``.keras``
    file), so ``GridSearchCV(n_jobs=2)`` and ``joblib`` take it.
    """

    def __init__(self, preset: str = "cnn", recipe: str = "default", epochs: int | None = None,
                 batch_size: int | None = None, seed: int | None = 0,
                 model_options: dict[str, Any] | None = None, verbose: int = 0) -> None:
        self.preset = preset
        self.recipe = recipe
        self.epochs = epochs
        self.batch_size = batch_size
        self.seed = seed
        self.model_options = model_options
        self.verbose = verbose

    def __sklearn_tags__(self) -> Any:
        tags = text_input_tags(super().__sklearn_tags__())
        tags.non_deterministic = self.seed is None
        return tags

    def fit(self, X: Any, y: Any, **fit_params: Any) -> KerasTextClassifier:
        """Train a fresh classifier on texts ``X`` and labels ``y`` (integers or
        strings); returns the estimator. ``fit_params`` go to ``TextClassifier.fit``
        (``validation_data``, ``callbacks``, ...)."""
        import keras  # late: importing this module needs no Keras

        from kerasattn.tasks import TextClassifier  # late: TensorFlow, only when fitting

        texts = as_texts(X, "KerasTextClassifier.fit")
        classes, ids = _classes(y, "KerasTextClassifier.fit")
        if len(ids) != len(texts):
            raise EstimatorInputError(f"KerasTextClassifier.fit: {len(texts)} texts but "
                                      f"{len(ids)} labels")
        if self.seed is not None:
            keras.utils.set_random_seed(int(self.seed))
        classifier = TextClassifier.from_preset(
            self.preset, num_classes=len(classes), class_names=[str(c) for c in classes],
            recipe=self.recipe, model_options=dict(self.model_options or {}))
        validation = fit_params.get("validation_data")
        if isinstance(validation, (tuple, list)) and len(validation) == 2:
            fit_params["validation_data"] = (
                as_texts(validation[0], "KerasTextClassifier.fit's validation_data"),
                _label_ids(classes, validation[1]))
        fit_params.setdefault("verbose", self.verbose)
        history = classifier.fit(texts, ids, batch_size=self.batch_size, epochs=self.epochs,
                                 seed=self.seed, **fit_params)
        self.classifier_ = classifier
        self.classes_ = classes
        self.history_ = dict(getattr(history, "history", {}) or {})
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities, ``(len(X), len(classes_))``, columns in ``classes_``
        order."""
        check_is_fitted(self, "classifier_")
        texts = as_texts(X, "KerasTextClassifier.predict_proba")
        return np.asarray(self.classifier_.predict(texts, verbose=self.verbose))

    def predict(self, X: Any) -> np.ndarray:
        """The most probable label of each text (one of ``classes_``)."""
        probabilities = self.predict_proba(X)  # NotFittedError before classes_ is read
        return self.classes_[np.argmax(probabilities, axis=1)]

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        classifier = state.pop("classifier_", None)
        if classifier is not None:  # a Keras model does not pickle: its .keras file does
            state["_classifier_keras"] = _classifier_to_bytes(classifier)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        data = state.pop("_classifier_keras", None)
        super().__setstate__(state)
        if data is not None:
            self.classifier_ = _classifier_from_bytes(data)
