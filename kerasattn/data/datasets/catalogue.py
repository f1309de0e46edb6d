"""The registry of built-in datasets and :func:`load`."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Any, TypeVar

from kerasattn.data.datasets.definitions import (DEFINITION_SEED, SPLITS, DatasetFormatError,
                                                TextDataset)
from kerasattn.data.datasets.integrity import _verify_enabled
from kerasattn.data.datasets.splits import VAL_SPLITS, hold_out_validation
from kerasattn.data.datasets.user import load_user_file, refuse_untrained_classes

# a built-in dataset's loader: (data_dir=, download=, verify=) -> (splits, class names, notes)
_Loader = Callable[..., Any]
_L = TypeVar("_L", bound=_Loader)


@dataclasses.dataclass(frozen=True)
class DatasetFacts:
    """What the registry knows of a built-in dataset before loading it: its one-line
    ``description`` (source and split), the ``domain`` its texts come from (e.g. "movie
    reviews (IMDB)", what a model card names as the data a model was made for) and
    their ``language``."""

    description: str
    domain: str | None = None
    language: str = "English"


_LOADERS: dict[str, tuple[_Loader, DatasetFacts]] = {}


def register(name: str, description: str, *, domain: str | None = None,
             language: str = "English") -> Callable[[_L], _L]:
    """A decorator that registers a loader as the built-in dataset ``name``, with the
    facts :func:`facts` gives (its description, the domain and language of its texts)."""
    def deco(fn: _L) -> _L:
        _LOADERS[name] = (fn, DatasetFacts(description, domain, language))
        return fn

    return deco


def names() -> list[str]:
    """Names of the built-in datasets (plus the ``csv:PATH`` and ``jsonl:PATH`` forms)."""
    return sorted(_LOADERS)


def describe() -> dict[str, str]:
    """{name: one-line description} of the built-in datasets."""
    return {n: f.description for n, (_, f) in sorted(_LOADERS.items())}


def facts(name: str) -> DatasetFacts | None:
    """The registered :class:`DatasetFacts` of the built-in dataset ``name``; None for a
    user's file (``csv:PATH``, ...) or a name not registered."""
    found = _LOADERS.get(name)
    return found[1] if found else None


def load(name: str, data_dir: str | os.PathLike[str] | None = None,
         val_fraction: float = 0.1, seed: int = DEFINITION_SEED, download: bool = True,
         verify: bool | None = None, val_split: str = "stratified") -> TextDataset:
    """Load a dataset by name.

    Args:
        name: a name from :func:`names`, or ``csv:PATH`` / ``jsonl:PATH``.
        data_dir: a directory to look in first.
        val_fraction: the fraction of train held out as the validation split when
            the dataset has no official one; in (0, 1).
        seed: the seed of that validation split.
        val_split: how that split is drawn: ``"stratified"`` (a random share of each
            class) or ``"grouped"`` (whole groups, e.g. every review of a film: no group
            on both sides; see :func:`grouped_split`). Grouped needs the group of each
            training text: IMDB's films, a ``group`` column of your own data.
        download: whether to download when the files are not found.
        verify: whether to check a built-in dataset's files against the published
            checksums and counts (see the module docstring); None: unless
            $KERASATTN_VERIFY is "0". Archives are always checked.

    Returns:
        A :class:`TextDataset`.

    Raises:
        DatasetNotFoundError, DatasetFormatError, DatasetIntegrityError: see the
            module docstring.
        ValueError: an unknown name, val_fraction outside (0, 1), an unknown val_split,
            or a grouped split of a dataset without groups.
    """
    if not 0.0 < val_fraction < 1.0:
        raise ValueError(f"val_fraction must be in (0, 1), got {val_fraction}")
    if val_split not in VAL_SPLITS:
        raise ValueError(f"val_split must be one of {', '.join(VAL_SPLITS)}, got {val_split!r}")
    user = name.startswith(("csv:", "jsonl:", "tsv:"))
    if user:
        fmt, path = name.split(":", 1)
        splits, class_names, notes = load_user_file(path, fmt, val_fraction=val_fraction)
    elif name in _LOADERS:
        splits, class_names, notes = _LOADERS[name][0](
            data_dir=data_dir, download=download, verify=_verify_enabled(verify)
        )
    else:
        raise ValueError(
            f"unknown dataset {name!r}; choose one of {', '.join(names())}, "
            "or csv:PATH / tsv:PATH / jsonl:PATH for your own data"
        )
    notes = list(notes)
    if "val" not in splits:
        try:
            splits["train"], splits["val"], note = hold_out_validation(
                splits["train"], val_fraction, seed, val_split)
        except ValueError as e:
            raise ValueError(f"{name}: {e}") from None
        notes.append(note)
    elif val_split != "stratified":
        notes.append(f"validation split: the dataset's own ({val_split} applies only where "
                     "a share of train is held out)")
    if user:  # every split of a user's data, both held-out splits derived: each class trains
        refuse_untrained_classes(splits, class_names)
    ds = TextDataset(name, splits["train"], splits["val"], splits["test"],
                     list(class_names), notes)
    for s in SPLITS:
        labels = ds.split(s).labels
        if len(labels) and (labels.min() < 0 or labels.max() >= ds.num_classes):
            raise DatasetFormatError(f"{name}: {s} labels outside 0..{ds.num_classes - 1}")
    if user and len(set(ds.train.labels.tolist())) < 2:
        only = ds.class_names[int(ds.train.labels[0])]
        raise DatasetFormatError(
            f"{path}: the training split holds a single class {only!r} "
            f"({len(ds.train)} of {sum(len(ds.split(s)) for s in SPLITS)} rows); "
            "a classifier needs at least two: give more rows or explicit splits"
        )
    return ds
