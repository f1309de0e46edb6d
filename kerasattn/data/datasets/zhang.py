"""Zhang et al. (2015) CSV datasets (AG News)."""

import csv
import io
import os

from kerasattn.data.datasets.definitions import (DatasetFormatError, DatasetIntegrityError,
                                          DatasetNotFoundError, Split)
from kerasattn.data.datasets.locate import Remote, _decode, locate
from kerasattn.data.datasets.integrity import (_extract, _verify_enabled, _verify_published,
                                               check_counts, verify_file)
from kerasattn.data.datasets.splits import split_80_10_10
from kerasattn.data.datasets.catalogue import register


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


# the domain of each corpus's texts (Zhang et al. 2015, section 4)
_DOMAINS = {"ag_news": "news articles (AG's corpus)", "yelp": "business reviews (Yelp)",
            "amazon": "product reviews (Amazon)",
            "dbpedia": "Wikipedia article abstracts (DBpedia)",
            "yahoo_answers": "questions and answers (Yahoo! Answers)"}


def _domain(name):
    return next(d for prefix, d in _DOMAINS.items() if name.startswith(prefix))


for _name in ZHANG_DATASETS:
    register(_name, f"{_name} (Zhang et al. 2015 CSV), official train/test",
             domain=_domain(_name))(
        lambda data_dir=None, download=True, verify=True, _n=_name:
            _load_zhang(_n, data_dir, download, verify)
    )


@register(
    "ag_news-test-split",
    "AG News test rows only, split stratified 80/10/10 into train/val/test (seed 0)",
    domain=_domain("ag_news"),
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
