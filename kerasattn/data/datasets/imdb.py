"""IMDB (Maas et al., 2011)."""

import os
import re

import numpy as np

from kerasattn.data.datasets.definitions import DatasetFormatError, Split
from kerasattn.data.datasets.locate import Remote, _decode, locate
from kerasattn.data.datasets.integrity import (PUBLISHED_COUNTS, _Tree, _verify_published,
                                               check_counts, verify_file)
from kerasattn.data.datasets.splits import split_80_10_10
from kerasattn.data.datasets.catalogue import register


IMDB_REMOTE = Remote(
    "https://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz",
    "aclImdb_v1.tar.gz",
    "7c2ac02c03563afcf9b574c7e56c153a",
)
_IMDB_NAME = re.compile(r"(?:^|/)aclImdb/(train|test)/(pos|neg)/(\d+)_(\d+)\.txt$")
# the film of review pos/ID_RATING.txt is line ID (from 0) of urls_pos.txt
_IMDB_URLS = re.compile(r"(?:^|/)aclImdb/(train|test)/urls_(pos|neg)\.txt$")
_IMDB_FILM = re.compile(r"/title/(tt\d+)")


def _imdb_films(path, split, ids, urls):
    """The film (e.g. ``tt0453418``) of each review of ``split``, from the archive's
    ``urls_{pos,neg}.txt``; None when a copy has none of them."""
    if not any((split, polarity) in urls for polarity in ("pos", "neg")):
        return None
    films = []
    for polarity, i in ids:
        lines = urls.get((split, polarity))
        where = f"{path}: aclImdb/{split}/urls_{polarity}.txt"
        if lines is None:
            raise DatasetFormatError(f"{where} is missing (the other polarity's is there)")
        if i >= len(lines):
            raise DatasetFormatError(f"{where} has {len(lines):,} lines; review "
                                     f"{polarity}/{i}_*.txt needs line {i + 1:,}")
        film = _IMDB_FILM.search(lines[i])
        films.append(film.group(1) if film else lines[i].strip())
    return films


@register("imdb", "IMDB movie reviews, binary, official 25k/25k split",
          domain="movie reviews (IMDB)")
def load_imdb(data_dir=None, download=True, verify=True):
    path = locate(
        "imdb",
        ["aclImdb", "imdb/aclImdb", "aclImdb_v1.tar.gz", "imdb/aclImdb_v1.tar.gz",
         "imdb/aclImdb_v1_labeled.tar.gz", "aclImdb_v1_labeled.tar.gz"],
        [IMDB_REMOTE], data_dir, download,
    )
    if verify and os.path.basename(path) == IMDB_REMOTE.fname:
        verify_file(path, IMDB_REMOTE.file_hash)
    _verify_published(path, "imdb/" + os.path.basename(path), verify)
    if os.path.isdir(path) and os.path.basename(path.rstrip("/")) == "aclImdb":
        path = os.path.dirname(path.rstrip("/"))  # keep the aclImdb/ prefix
    parts = {"train": ([], [], []), "test": ([], [], [])}
    urls = {}  # (split, polarity) -> the lines of urls_{polarity}.txt
    for rel, raw in _Tree(path).files():
        u = _IMDB_URLS.search(rel)
        if u:
            urls[u.groups()] = _decode(raw, f"{path}:{rel}").splitlines()
            continue
        m = _IMDB_NAME.search(rel)
        if not m:
            continue  # imdb.vocab, README, unsup/, *.feat: not labelled reviews
        split, polarity = m.group(1), m.group(2)
        text = _decode(raw, f"{path}:{rel}")
        parts[split][0].append(text)
        parts[split][1].append(1 if polarity == "pos" else 0)
        parts[split][2].append((polarity, int(m.group(3))))
    splits = {s: Split(t, l, _imdb_films(path, s, ids, urls))
              for s, (t, l, ids) in parts.items()}
    if not len(splits["train"]) or not len(splits["test"]):
        raise DatasetFormatError(f"{path}: no aclImdb/{{train,test}}/{{pos,neg}}/*.txt reviews")
    if verify:
        for s, expected in PUBLISHED_COUNTS["imdb"].items():
            check_counts(path, splits[s].labels, ["neg", "pos"], expected, s)
    return splits, ["neg", "pos"], [f"source: {path}"]


@register("imdb-random-split",
          "IMDB's 50k labelled reviews pooled, split stratified 80/10/10 (seed 0): the "
          "protocol of the Transformer paper (004 §3.1), not the official split",
          domain="movie reviews (IMDB)")
def load_imdb_random_split(data_dir=None, download=True, verify=True):
    splits, class_names, notes = load_imdb(data_dir, download, verify)
    pooled = Split(splits["train"].texts + splits["test"].texts,
                   np.concatenate([splits["train"].labels, splits["test"].labels]))
    note = ("IMDB: NOT the official split. The 50,000 labelled reviews are pooled and split "
            "stratified 40k/5k/5k (seed 0), as the Transformer paper (004) did; reviews of "
            "the same film land on both sides, which the official split avoids.")
    return split_80_10_10(pooled), class_names, notes + [note]
