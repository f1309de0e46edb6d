"""BBC News (Greene & Cunningham, 2006)."""

import os
import re

from kerasattn.data.datasets.definitions import DEFINITION_SEED, DatasetFormatError, Split
from kerasattn.data.datasets.locate import Remote, locate
from kerasattn.data.datasets.integrity import (PUBLISHED_COUNTS, _Tree, _verify_published,
                                               check_counts)
from kerasattn.data.datasets.splits import stratified_split
from kerasattn.data.datasets.catalogue import register


BBC_REMOTE = Remote("http://mlg.ucd.ie/files/datasets/bbc-fulltext.zip", "bbc-fulltext.zip")
_BBC_NAME = re.compile(r"(?:^|/)bbc/([a-z]+)/(\d+)\.txt$")


@register("bbc", "BBC News, 5 topics; no official split: stratified 20% test (seed 0)",
          domain="news articles (BBC News)")
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
