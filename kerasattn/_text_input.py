"""Raw texts as kerasattn takes them (private: the public names are
:mod:`kerasattn.sklearn`'s; here so that ``kerasattn.models.tfidf``, ``kerasattn.sklearn``
and ``kerasattn.task_data`` share them without importing each other): :func:`decoded`,
one text as a str, for every reader of texts; :func:`as_texts`, the scikit-learn
estimators' stricter check of a whole ``X``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class EstimatorInputError(ValueError):
    """Texts or labels a scikit-learn estimator of kerasattn cannot fit or predict on (a
    ``ValueError``, as scikit-learn's own estimators raise)."""


def decoded(item: Any) -> str | None:
    """One text as a str: a str (or NumPy str) as it is, bytes decoded as UTF-8 (an
    invalid byte becomes U+FFFD); None for anything else (a number, a token id)."""
    if isinstance(item, bytes):
        return item.decode("utf-8", "replace")
    if isinstance(item, str):
        return str(item)
    return None


def as_texts(X: Any, who: str = "the estimator") -> list[str]:
    """``X`` as a list of texts: a list, tuple, 1-D array or Series of strings (bytes
    are decoded as UTF-8).

    Raises:
        EstimatorInputError: ``X`` is one string, a 2-D array (a sample is one text, not
            a row of numbers), not iterable, or holds something other than a string.
    """
    if isinstance(X, (str, bytes)):
        raise EstimatorInputError(f"{who} takes a list of texts, got one string; wrap it "
                                  "in a list")
    ndim = getattr(X, "ndim", 1)
    if ndim != 1:
        raise EstimatorInputError(f"{who} takes a 1-D sequence of texts (one string a "
                                  f"sample), got an array of shape "
                                  f"{getattr(X, 'shape', '?')}")
    if not isinstance(X, Iterable):
        raise EstimatorInputError(f"{who} takes a list of texts, got "
                                  f"{type(X).__name__}")
    texts = []
    for i, item in enumerate(X):
        text = decoded(item)
        if text is None:
            raise EstimatorInputError(f"{who} takes texts (strings), got "
                                      f"{type(item).__name__} at index {i}")
        texts.append(text)
    return texts


def text_input_tags(tags: Any) -> Any:
    """scikit-learn ``Tags`` set for an estimator on raw texts: a 1-D array-like of
    strings (``input_tags.one_d_array`` and ``string``), never a 2-D numeric array."""
    tags.input_tags.one_d_array = True
    tags.input_tags.two_d_array = False
    tags.input_tags.string = True
    tags.input_tags.sparse = False
    tags.input_tags.allow_nan = False
    return tags
