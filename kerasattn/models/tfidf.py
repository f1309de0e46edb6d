"""Classical baselines (HCAN §4.2–4.3): Naive Bayes and L1 logistic regression on TF-IDF.

Features are TF-IDF of unigrams and bigrams with a minimum document frequency
of 5, over the zoo's own tokenisation (:class:`~kerasattn.data.preprocessing.TextPreprocessor`),
so the classical and neural models see the same tokens. scikit-learn does
the rest. Logistic regression uses ``l1_ratio=1.0`` with the ``saga`` solver:
scikit-learn 1.9 deprecates ``penalty=`` and liblinear has no multiclass.

A fitted model is saved with :func:`save` as a skops file (``model.skops``),
never a pickle: :func:`load` reads it only if every type it names is on
:data:`TRUSTED_TYPES`, the exact scikit-learn, NumPy and built-in types these
pipelines are made of, so a run directory from someone else cannot run their
code. The preprocessor options travel inside it as a JSON string. Old run
directories with a pickled ``model.joblib`` are refused (:class:`UnsafeModelError`)
and must be retrained.
"""

from __future__ import annotations

import json
import os
import warnings
import zipfile
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from kerasattn import ownership
from kerasattn._text_input import as_texts, text_input_tags


class TfidfClassifier(ClassifierMixin, BaseEstimator):
    """Tokenise with the zoo's preprocessing, then a scikit-learn TF-IDF pipeline: a
    scikit-learn classifier on raw texts (``clone``, ``Pipeline``, ``GridSearchCV`` and
    ``cross_val_score`` take it; labels may be integers or strings).

    Args:
        estimator: the scikit-learn classifier after the TF-IDF features (cloned at
            ``fit``; default ``MultinomialNB()``); its parameters tune as
            ``estimator__NAME``.
        preprocessor_config: options of the ``TextPreprocessor`` used to tokenise.
        ngram_range, min_df: of the ``TfidfVectorizer``.

    Attributes (after ``fit``):
        pipeline_: the fitted ``Pipeline`` (``"tfidf"``, ``"classifier"``).
        classes_: the labels, in the order of ``predict_proba``'s columns.
    """

    def __init__(self, estimator=None, preprocessor_config=None, ngram_range=(1, 2),
                 min_df=5):
        self.estimator = estimator
        self.preprocessor_config = preprocessor_config
        self.ngram_range = ngram_range
        self.min_df = min_df

    def _make_pipeline(self):
        estimator = MultinomialNB() if self.estimator is None else clone(self.estimator)
        return Pipeline([
            # token_pattern \S+ splits on whitespace exactly like str.split, without a
            # callable a skops file would have to name (the features are identical)
            ("tfidf", TfidfVectorizer(analyzer="word", token_pattern=r"\S+", lowercase=False,
                                      ngram_range=tuple(self.ngram_range),
                                      min_df=self.min_df, sublinear_tf=False,
                                      dtype=np.float32)),
            ("classifier", estimator),
        ])

    @property
    def pipeline(self):
        """The fitted pipeline (``pipeline_``); before ``fit``, the one it would train."""
        return self.pipeline_ if hasattr(self, "pipeline_") else self._make_pipeline()

    def __sklearn_tags__(self) -> Any:
        # raw texts: a 1-D array-like of strings, never a 2-D numeric array
        return text_input_tags(super().__sklearn_tags__())

    def __getstate__(self):  # the TF lookup tables are rebuilt, not pickled
        state = super().__getstate__()
        state.pop("_preprocessor", None)
        return state

    def tokenize(self, texts, batch_size=4096):
        """The texts as the zoo's preprocessing tokenises them, tokens joined by spaces."""
        from kerasattn.data.preprocessing import TextPreprocessor  # late: TensorFlow

        if getattr(self, "_preprocessor", None) is None:
            self._preprocessor = TextPreprocessor(**dict(self.preprocessor_config or {}))
        texts = [str(t) for t in texts]
        out = []
        for start in range(0, len(texts), batch_size):
            tokens = self._preprocessor.tokenize(texts[start:start + batch_size])
            out += [b" ".join(row).decode("utf-8") for row in tokens.to_list()]
        return out

    def fit(self, X: Any, y: Any) -> TfidfClassifier:
        """Fit on texts ``X`` (a 1-D sequence of strings) and labels ``y``; returns the
        classifier.

        A ``LogisticRegression`` that stops at ``max_iter`` before converging warns a
        :class:`NotConvergedWarning` (a scikit-learn ``ConvergenceWarning``) naming the
        setting to raise."""
        texts = self.tokenize(as_texts(X, "TfidfClassifier.fit"))
        pipeline = self._make_pipeline()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pipeline.fit(texts, np.asarray(y))
        for w in caught:  # every other warning as it came; scikit-learn's convergence one
            # replaced by one that says what to raise
            if issubclass(w.category, ConvergenceWarning):
                warnings.warn(_not_converged(pipeline.named_steps["classifier"]),
                              NotConvergedWarning, stacklevel=2)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno,
                                       source=w.source)
        self.pipeline_ = pipeline
        self.classes_ = self.pipeline_.classes_
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities, ``(len(X), len(classes_))``."""
        check_is_fitted(self, "pipeline_")
        return self.pipeline_.predict_proba(
            self.tokenize(as_texts(X, "TfidfClassifier.predict_proba")))

    def predict(self, X: Any) -> np.ndarray:
        """The most probable label of each text (one of ``classes_``)."""
        probabilities = self.predict_proba(X)
        return self.classes_[np.argmax(probabilities, axis=1)]

    def save(self, path):
        """Write the fitted model to ``path`` (a skops file); see :func:`load`."""
        save(self, path)


FORMAT = "kerasattn.TfidfClassifier/1"
LEGACY_MODEL = "model.joblib"  # pickles written before the skops format: never loaded
ESTIMATORS = (MultinomialNB, LogisticRegression)

# every type a saved nb/lr model names, exactly ("module.Class"); nothing else is loaded,
# not even the types skops trusts by default (other estimators, ufuncs, ...)
TRUSTED_TYPES = frozenset({
    "builtins.dict", "builtins.list", "builtins.tuple", "builtins.str",  # str: all JSON
    "numpy.ndarray", "numpy.float32",
    "sklearn.pipeline.Pipeline",
    "sklearn.feature_extraction.text.TfidfVectorizer",
    "sklearn.feature_extraction.text.TfidfTransformer",
    "sklearn.naive_bayes.MultinomialNB",
    "sklearn.linear_model._logistic.LogisticRegression",
})
_PREPROCESSOR_OPTIONS = ("mode", "remove_punctuation", "remove_stopwords", "max_length",
                         "hierarchical", "max_sentences", "max_words", "truncation")


class NotConvergedWarning(ConvergenceWarning):
    """``lr``'s logistic regression stopped at ``max_iter`` before it converged; the
    message says which setting to raise."""


def _not_converged(estimator: Any) -> str:
    """The one line of :class:`NotConvergedWarning` for ``estimator``."""
    max_iter = getattr(estimator, "max_iter", None)
    return (f"{type(estimator).__name__} (solver {getattr(estimator, 'solver', '?')!r}) "
            f"stopped at max_iter={max_iter} before converging: raise max_iter "
            f"(models.get('lr', max_iter=N), set_params(estimator__max_iter=N) or "
            f"--model-option max_iter=N), or loosen its tol")


class UnsafeModelError(ValueError):
    """A classical model file that is not loaded: a legacy pickle, or a skops file
    naming a type outside :data:`TRUSTED_TYPES`, or not a saved ``TfidfClassifier``."""


def save(model, path):
    """Save a fitted :class:`TfidfClassifier` to ``path`` with skops (no pickle)."""
    import skops.io as sio  # optional until a model is saved or loaded: slow to import

    check_is_fitted(model, "pipeline_")
    config = json.dumps(dict(model.preprocessor_config or {}), sort_keys=True)
    # written whole, beside and renamed, never through a link
    ownership.write_bytes(path, sio.dumps({"format": FORMAT, "preprocessor_config": config,
                                           "pipeline": model.pipeline_}))
    return path


def _schema_types(path):
    """Every ``module.Class`` the skops file's schema names (its nodes' types)."""
    with zipfile.ZipFile(path) as z:
        schema = json.loads(z.read("schema.json"))
    found, stack = set(), [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "__class__" in node or "__module__" in node:
                found.add(f"{node.get('__module__')}.{node.get('__class__')}")
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def load(path):
    """Load a :class:`TfidfClassifier` written by :func:`save`.

    Raises:
        UnsafeModelError: ``path`` is missing but a legacy ``model.joblib`` lies beside
            it (a pickle, which would run any code it holds: retrain), or the file names
            a type outside :data:`TRUSTED_TYPES`, or it is not a saved ``TfidfClassifier``.
    """
    import skops.io as sio  # optional until a model is saved or loaded: slow to import

    legacy = os.path.join(os.path.dirname(path), LEGACY_MODEL)
    if not os.path.exists(path) and os.path.exists(legacy):
        raise UnsafeModelError(
            f"{legacy} is a pickle, an unsafe legacy format: loading it would run any code "
            f"it contains, so it is not loaded. Retrain the run with the current version "
            f"(kerasattn train with the same arguments, see config.json's "
            f"\"command\"), which saves a {os.path.basename(path)} instead")
    try:
        named = _schema_types(path)
        untrusted = set(sio.get_untrusted_types(file=path))
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError) as e:
        raise UnsafeModelError(f"{path} is not a skops model file: {e}") from None
    refused = sorted((named | untrusted) - TRUSTED_TYPES)
    if refused:
        raise UnsafeModelError(f"{path} names types that are not trusted, so it is not "
                               f"loaded: {', '.join(refused)}")
    obj = sio.load(path, trusted=sorted(untrusted))  # all of them on TRUSTED_TYPES
    pipeline = obj.get("pipeline") if isinstance(obj, dict) else None
    if not (isinstance(obj, dict) and obj.get("format") == FORMAT
            and isinstance(pipeline, Pipeline) and len(pipeline.steps) == 2
            and isinstance(pipeline.named_steps.get("tfidf"), TfidfVectorizer)
            and isinstance(pipeline.named_steps.get("classifier"), ESTIMATORS)):
        raise UnsafeModelError(f"{path} does not hold a saved TfidfClassifier ({FORMAT})")
    tfidf = pipeline.named_steps["tfidf"]
    if tfidf.analyzer != "word" or tfidf.tokenizer is not None or tfidf.preprocessor is not None:
        raise UnsafeModelError(f"{path}: its TfidfVectorizer uses a callable")
    if tfidf.input != "content":  # "filename"/"file": every text would be opened as a path
        raise UnsafeModelError(f"{path}: its TfidfVectorizer reads input={tfidf.input!r}; a "
                               "saved TfidfClassifier takes texts (input='content'), never "
                               "files")
    try:
        config = json.loads(obj["preprocessor_config"])
    except (TypeError, json.JSONDecodeError):
        config = None
    if not (isinstance(config, dict) and set(config) <= set(_PREPROCESSOR_OPTIONS)
            and all(v is None or isinstance(v, (str, bool, int)) for v in config.values())):
        raise UnsafeModelError(f"{path}: invalid preprocessor options")
    model = TfidfClassifier(pipeline.named_steps["classifier"], config,
                            tuple(tfidf.ngram_range), tfidf.min_df)
    model.pipeline_, model.classes_ = pipeline, pipeline.classes_
    return model


def build_nb(num_classes, alpha=1.0, ngram_range=(1, 2), min_df=5, preprocessor_config=None):
    """Multinomial Naive Bayes on TF-IDF of 1–2-grams (HCAN §4.2)."""
    return TfidfClassifier(MultinomialNB(alpha=alpha), preprocessor_config, ngram_range, min_df)


def build_lr(num_classes: int, C: float = 1.0, max_iter: int = 1000,
             ngram_range: tuple[int, int] = (1, 2), min_df: int = 5, seed: int = 0,
             preprocessor_config: dict[str, Any] | None = None,
             l1_ratio: float = 1.0) -> TfidfClassifier:
    """L1-regularised logistic regression (strength 1.0) on TF-IDF of 1–2-grams (HCAN §4.2).

    ``l1_ratio`` mixes the penalty: 1.0 is the paper's L1, 0.0 is L2 (with ``C=10``, the
    strong TF-IDF baseline of IMDB), between them elastic net. ``max_iter`` bounds saga's
    passes: 1000 lets it converge on BBC's long articles (L1 there takes more than 200
    passes; SST-2 and IMDB stop before 200, so their fits do not change); a fit that
    still stops at the bound warns :class:`NotConvergedWarning`."""
    if not 0.0 <= l1_ratio <= 1.0:
        raise ValueError(f"l1_ratio must be in [0, 1], got {l1_ratio!r}")
    estimator = LogisticRegression(l1_ratio=float(l1_ratio), C=C, solver="saga",
                                   max_iter=max_iter, random_state=seed)
    return TfidfClassifier(estimator, preprocessor_config, ngram_range, min_df)
