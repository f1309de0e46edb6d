"""Splitting: stratified, grouped by a text's group, the held-out validation split."""

import math
import warnings

import numpy as np

from kerasattn.data.datasets.definitions import DEFINITION_SEED


def stratified_split(labels, fraction, seed):
    """Indices (rest, held_out) with ``fraction`` of each class held out.

    Uses scikit-learn's ``train_test_split``; indices come back sorted so the
    original order of the data is kept within each part.
    """
    # late: scikit-learn (with SciPy) takes seconds to import, and kerasattn.data.datasets
    # loads on light paths (kerasattn.runs, training.portable fit)
    from sklearn.model_selection import train_test_split  # late: see above

    labels = np.asarray(labels, dtype=np.int64)
    idx = np.arange(len(labels))
    counts = np.bincount(labels)
    present = counts[counts > 0]
    n_held = math.ceil(fraction * len(labels))  # as scikit-learn counts it
    # a class with a single example, or a part too small to hold every class,
    # cannot be stratified: split plainly
    stratify = (labels if present.min() >= 2
                and min(n_held, len(labels) - n_held) >= len(present) else None)
    rest, held = train_test_split(
        idx, test_size=fraction, random_state=seed, stratify=stratify
    )
    return np.sort(rest), np.sort(held)


VAL_SPLITS = ("stratified", "grouped")


def grouped_split(labels, groups, fraction, seed):
    """Indices (rest, held_out) with no group on both sides, about ``fraction`` held out.

    Uses scikit-learn's ``StratifiedGroupKFold`` with ``round(1 / fraction)`` folds
    (shuffled by ``seed``) and holds out its first fold: whole groups, with the classes
    in about their proportions. The share held out is that of the fold (0.1 and 0.2 give
    10 and 5 folds; 0.3 gives 3, a third). Indices come back sorted.

    Raises:
        ValueError: fewer groups than folds.
    """
    from sklearn.model_selection import StratifiedGroupKFold  # late: as train_test_split

    labels = np.asarray(labels, dtype=np.int64)
    groups = np.asarray(groups, dtype=object)
    folds = max(2, round(1 / fraction))
    distinct = len(set(groups.tolist()))
    if distinct < folds:
        raise ValueError(f"holding out {fraction:g} by groups needs at least {folds} groups; "
                         f"there are {distinct}")
    # StratifiedGroupKFold wants sortable group labels of one type
    codes = np.unique(groups.astype(str), return_inverse=True)[1]
    splitter = StratifiedGroupKFold(n_splits=folds, shuffle=True, random_state=seed)
    with warnings.catch_warnings():
        # "The least populated class in y has only n members": a class in fewer groups
        # than folds is held out where its groups fall, which is what is wanted here
        warnings.simplefilter("ignore", UserWarning)
        rest, held = next(splitter.split(np.zeros(len(labels)), labels, codes))
    return np.sort(rest), np.sort(held)


def hold_out_validation(train, fraction, seed, val_split="stratified"):
    """Split ``train`` (a :class:`Split`) into (train, val, note) as :func:`load` does."""
    if val_split not in VAL_SPLITS:
        raise ValueError(f"val_split must be one of {', '.join(VAL_SPLITS)}, got {val_split!r}")
    if val_split == "stratified":
        rest, held = stratified_split(train.labels, fraction, seed)
        note = f"validation split: stratified {fraction:g} of train (seed {seed})"
        if train.groups is not None:
            # say what a random share of grouped texts does: it can read high
            seen = set(train.groups[rest].tolist())
            shared = sum(g in seen for g in train.groups[held].tolist())
            note += (f"; {shared:,} of its {len(held):,} texts share their group with a "
                     "training text (--val-split grouped holds out whole groups)")
        return train.take(rest), train.take(held), note
    if train.groups is None:
        raise ValueError("a grouped validation split needs the group of each training "
                         "text, and this dataset has none (IMDB has its films; your own "
                         "data, a 'group' column)")
    rest, held = grouped_split(train.labels, train.groups, fraction, seed)
    val = train.take(held)
    return (train.take(rest), val,
            f"validation split: grouped, {len(held):,} texts of "
            f"{len(set(val.groups.tolist())):,} groups ({len(held) / len(train):.3f} of "
            f"train, stratified by class; seed {seed}); no group is on both sides")


def _splittable(n, fractions):
    """Whether ``fractions`` can be held out of ``n`` rows in turn, leaving rows on both sides."""
    for f in fractions:
        held = math.ceil(f * n)
        if held < 1 or n - held < 1:
            return False
        n -= held
    return True


def rows_needed(fractions):
    """The fewest rows from which each of ``fractions`` can be held out in turn."""
    n = 1
    while not _splittable(n, fractions):
        n += 1
    return n


def split_80_10_10(rows):
    """Train/val/test splits of ``rows`` (a :class:`Split`), stratified 80/10/10 (seed 0)."""
    rest, test = stratified_split(rows.labels, 0.1, DEFINITION_SEED)
    train_val = rows.take(rest)
    train, val = stratified_split(train_val.labels, 1 / 9, DEFINITION_SEED)
    return {"train": train_val.take(train), "val": train_val.take(val), "test": rows.take(test)}
