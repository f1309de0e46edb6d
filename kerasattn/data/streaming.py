"""The large CSV datasets, streamed: rows are read by tf.data, never held in memory.

Yelp, Amazon and Yahoo (Zhang et al. 2015) have 0.5 to 3.6 million training
rows; :func:`kerasattn.data.datasets.load` reads a dataset into Python lists,
which is right for IMDB-sized data and wrong for these. Here each split is a
``tf.data.Dataset`` of ``(text, label)`` read line by line from its CSV files
(``TextLineDataset``, files interleaved), so peak memory depends on the shuffle
buffer and the vocabulary, not on the number of rows. ``python -m
training.train --stream`` trains from it.

The rules of the in-memory reader hold: every row must have the columns of the
file's first row and a class in 1..K, and a row that does not stops the pass
with a :class:`~kerasattn.data.datasets.DatasetFormatError` naming file and
line (Zhang et al. escape newlines inside texts as ``\\n``, so a row is a line).
The validation split is a fixed fraction of the training rows chosen by a hash
of the line number and the seed: the same rows in every pass and every
process, not stratified (the in-memory split is).
"""

import csv
import os
import re

import tensorflow as tf

from kerasattn.data import datasets

# one CSV field: quoted (quotes doubled inside) or bare
_FIELD = r'(?:"(?:[^"]|"")*"|[^,"]*)'
_HASH_BUCKETS = 1_000_000
_MARK = "CSV columns like the first row"  # in the malformed-row message


def _width(path):
    with open(path, newline="", encoding="utf-8") as fh:
        first = next(csv.reader(fh), None)
    if not first or len(first) < 2:
        raise datasets.DatasetFormatError(f"{path}:1: expected a class column and text")
    return len(first)


def csv_rows(paths, num_classes, width=None):
    """``(text, label, path, line)`` per row of Zhang et al. CSV files, in file
    order (files interleaved); ``label`` is 0-based."""
    paths = [str(p) for p in paths]
    width = width or _width(paths[0])
    row_re = f"{_FIELD}(?:,{_FIELD}){{{width - 1}}}"
    label_re = r'"?[1-9][0-9]{0,8}"?'

    def parse(path, lines, first_line):
        ok = tf.strings.regex_full_match(lines, row_re)
        fields = tf.io.decode_csv(tf.where(ok, lines, ","*(width - 1) + "1"),
                                  [""] * width)
        good_label = tf.strings.regex_full_match(fields[0], label_re)
        label = tf.strings.to_number(tf.where(good_label, fields[0], "1"), tf.int64)
        good = ok & good_label & (label <= num_classes)
        bad = tf.argmin(tf.cast(good, tf.int32))
        message = tf.strings.join([
            path, ":", tf.strings.as_string(first_line + bad + 1),
            f": expected {width} {_MARK} and a class in "
            f"1..{num_classes}, got: ", tf.strings.substr(lines[bad], 0, 120)])
        check = tf.debugging.Assert(tf.reduce_all(good), [message], summarize=1)
        with tf.control_dependencies([check]):
            text = tf.strings.reduce_join(tf.stack(fields[1:], axis=1), axis=1, separator=" ")
            text = tf.strings.strip(tf.strings.regex_replace(text, r"\\n", "\n"))
            lines_no = first_line + tf.range(tf.size(lines, out_type=tf.int64)) + 1
        return text, label - 1, tf.fill(tf.shape(lines), path), lines_no

    def one_file(path):
        lines = tf.data.TextLineDataset(path).batch(1024)
        starts = tf.data.Dataset.range(0, 2**62, 1024)
        return tf.data.Dataset.zip((lines, starts)).map(
            lambda ls, start: parse(path, ls, start), num_parallel_calls=tf.data.AUTOTUNE)

    files = tf.data.Dataset.from_tensor_slices(paths)
    return files.interleave(one_file, cycle_length=max(1, len(paths)), block_length=1,
                            num_parallel_calls=tf.data.AUTOTUNE,
                            deterministic=True).unbatch()


def _in_val(line, fraction, seed):
    key = tf.strings.join([tf.strings.as_string(seed), ":", tf.strings.as_string(line)])
    return tf.strings.to_hash_bucket_fast(key, _HASH_BUCKETS) < int(fraction * _HASH_BUCKETS)


class StreamingDataset:
    """The splits of a CSV dataset as ``tf.data`` pipelines of ``(text, label)``."""

    def __init__(self, name, files, class_names, val_fraction=0.1, seed=0, notes=()):
        if not 0.0 < val_fraction < 1.0:
            raise ValueError(f"val_fraction must be in (0, 1), got {val_fraction}")
        self.name = name
        self.files = {s: [str(p) for p in ps] for s, ps in files.items()}
        self.class_names = list(class_names)
        self.val_fraction, self.seed = val_fraction, seed
        self.width = _width(self.files["train"][0])
        self.notes = list(notes) + [
            f"streamed; validation split: {val_fraction:g} of the train rows by a hash of "
            f"the line number (seed {seed}), not stratified"]

    @property
    def num_classes(self):
        return len(self.class_names)

    def rows(self, split):
        """``(text, label, path, line)`` of a split."""
        if split not in datasets.SPLITS:
            raise ValueError(f"unknown split {split!r}; expected one of {datasets.SPLITS}")
        source = "test" if split == "test" else "train"
        rows = csv_rows(self.files[source], self.num_classes, self.width)
        if split == "test":
            return rows
        f, seed, want_val = self.val_fraction, self.seed, split == "val"
        return rows.filter(lambda t, y, p, n: tf.equal(_in_val(n, f, seed), want_val))

    def split(self, split):
        """``(text, label)`` of a split."""
        return self.rows(split).map(lambda t, y, p, n: (t, y))

    def summary(self):
        files = ", ".join(os.path.basename(p) for s in ("train", "test") for p in self.files[s])
        return (f"{self.name}: streamed from {os.path.dirname(self.files['test'][0])} "
                f"({files}); {self.num_classes} classes")


def load(name, data_dir=None, val_fraction=0.1, seed=0, download=True):
    """A Zhang et al. (2015) dataset (``yelp_polarity``, ``amazon_full``, ...) streamed."""
    if name not in datasets.ZHANG_DATASETS:
        raise ValueError(f"--stream reads the large CSV datasets "
                         f"({', '.join(datasets.ZHANG_DATASETS)}), not {name!r}")
    files, class_names = datasets._zhang_files(name, data_dir, download)
    return StreamingDataset(name, {s: [f] for s, f in files.items()}, class_names,
                            val_fraction, seed, [f"source: {os.path.dirname(files['test'])}"])


def is_format_error(error):
    """Whether ``error`` is the malformed-row assertion of :func:`csv_rows`."""
    return isinstance(error, tf.errors.InvalidArgumentError) and _MARK in str(error)


def format_error(error):
    """A tf.data assertion of :func:`csv_rows` as a DatasetFormatError (file:line: ...)."""
    message = str(getattr(error, "message", error))
    found = re.search(r"assertion failed: \[(.*?)\]\s*(?:\n|$)", message, re.DOTALL)
    return datasets.DatasetFormatError(
        (found.group(1) if found else message).replace('\\"', '"'))
