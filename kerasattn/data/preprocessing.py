"""The preprocessor: raw text -> token ids, the same in training, evaluation and serving.

Following the keras-hub split (preprocessor / backbone / task), models take
token ids and never strings; a :class:`TextPreprocessor` turns strings into ids
inside tf.data and is composed with the model only at export. It holds the
vocabulary (built on the training split) and the text options, and is saved
with every run as ``preprocessor.json`` + ``vocab.txt``.

Ids: 0 is padding, 1 is out-of-vocabulary, then tokens by descending training
frequency (ties alphabetical, so vocabularies are deterministic).
"""

import collections
import json
import os

import keras
import numpy as np
import tensorflow as tf

from kerasattn import ownership
from kerasattn.data import layout
from kerasattn.data import text as text_lib

PAD, OOV = "", "[UNK]"
PAD_ID, OOV_ID = 0, 1
VOCAB_FILE, CONFIG_FILE = "vocab.txt", "preprocessor.json"
# which tokens (sentences, for hierarchical texts) of a text longer than the limit are kept
TRUNCATIONS = ("head", "tail", "head+tail")


def keras_progbar(unit):
    return keras.utils.Progbar(None, unit_name=unit)


def check_truncation(truncation):
    """Raise ``ValueError`` unless ``truncation`` is one of :data:`TRUNCATIONS`."""
    if truncation not in TRUNCATIONS:
        raise ValueError(f"truncation must be one of {', '.join(TRUNCATIONS)}, "
                         f"got {truncation!r}")


def truncate(items, limit, truncation="head"):
    """Keep at most ``limit`` entries of each row of a ragged tensor's second axis
    (tokens of a flat text, sentences of a hierarchical one): the first (``"head"``),
    the last (``"tail"``), or the first ``limit // 4`` and the last
    ``limit - limit // 4`` (``"head+tail"``). Core TensorFlow ops only, so it serves.

    >>> import tensorflow as tf
    >>> t = tf.ragged.constant([["a", "b", "c", "d", "e", "f"], ["a", "b"]])
    >>> truncate(t, 4, "head+tail").to_list()
    [[b'a', b'd', b'e', b'f'], [b'a', b'b']]
    """
    check_truncation(truncation)
    if truncation == "head":
        return items[:, :limit]
    if truncation == "tail":
        return items[:, -limit:]
    head = limit // 4
    lengths = items.row_lengths()
    position = tf.ragged.range(lengths)
    keep = (position < head) | (position >= tf.expand_dims(lengths - (limit - head), 1))
    return tf.ragged.boolean_mask(items, keep)


class TextPreprocessor:
    """Raw strings -> ragged int32 token ids (flat or hierarchical).

    Args:
        vocabulary: the id -> token list; index 0 must be ``""`` (padding) and
            index 1 ``"[UNK]"``. ``None`` makes a preprocessor that can only
            tokenise (use :meth:`adapt` or :meth:`build`).
        mode: ``"default"`` or ``"hcan"`` (see :mod:`kerasattn.data.text`).
        remove_punctuation: drop punctuation tokens (Hubli, §3.3).
        remove_stopwords: drop scikit-learn's English stop words.
        max_length: keep ``max_length`` tokens of a longer flat text (which ones:
            ``truncation``).
        hierarchical: produce (sentences, words) per text.
        max_sentences: keep ``max_sentences`` sentences of a longer hierarchical text
            (which ones: ``truncation``).
        max_words: keep the first words of each sentence.
        truncation: which part of a text over the limit is kept: ``"head"`` (its first
            tokens, the default), ``"tail"`` (its last: reviews often end on their
            verdict) or ``"head+tail"`` (the first quarter of the limit from the start,
            the rest from the end, as Sun et al. 2019 cut long reviews for BERT).
    """

    def __init__(self, vocabulary=None, mode="default", remove_punctuation=False,
                 remove_stopwords=False, max_length=None, hierarchical=False,
                 max_sentences=None, max_words=None, truncation="head"):
        if mode not in text_lib.MODES:
            raise ValueError(f"unknown text mode {mode!r}; expected one of {text_lib.MODES}")
        for name, v in (("max_length", max_length), ("max_sentences", max_sentences),
                        ("max_words", max_words)):
            if v is not None and (not isinstance(v, (int, np.integer)) or v < 1):
                raise ValueError(f"{name} must be a positive integer or None, got {v!r}")
        check_truncation(truncation)
        if hierarchical and max_length is not None:
            raise ValueError("max_length applies to flat texts; use max_sentences "
                             "and max_words with hierarchical=True")
        self.mode = mode
        self.remove_punctuation = bool(remove_punctuation)
        self.remove_stopwords = bool(remove_stopwords)
        self.max_length = max_length
        self.hierarchical = bool(hierarchical)
        self.layout = layout.layout(self.hierarchical)  # how a document's ids are laid out
        self.max_sentences = max_sentences
        self.max_words = max_words
        self.truncation = truncation
        self._stop_table = None
        if self.remove_stopwords:
            words = text_lib.stop_words()
            self._stop_table = tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer(
                    tf.constant(words), tf.ones(len(words), tf.int64)), 0)
        self.vocabulary = None
        self._table = None
        if vocabulary is not None:
            self.set_vocabulary(vocabulary)

    # -- vocabulary ---------------------------------------------------------
    def set_vocabulary(self, vocabulary):
        vocabulary = list(vocabulary)
        if vocabulary[:2] != [PAD, OOV]:
            raise ValueError(f"vocabulary must start with {PAD!r} (padding) and {OOV!r}")
        if len(set(vocabulary)) != len(vocabulary):
            raise ValueError("vocabulary has duplicate tokens")
        if len(vocabulary) < 3:
            raise ValueError("the vocabulary holds no word, only padding and OOV: no word of "
                             "the training texts occurs often enough (min_freq)")
        self.vocabulary = vocabulary
        self._table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(
                tf.constant(vocabulary[2:], tf.string),
                tf.range(2, len(vocabulary), dtype=tf.int64)),
            default_value=OOV_ID)

    def set_lookup(self, table):
        """Look tokens up in ``table`` instead (anything with ``lookup(string tensor) ->
        int64 ids``, e.g. a table read from a SavedModel asset); the vocabulary list
        stays as it was."""
        self._table = table

    @property
    def vocabulary_size(self):
        return len(self.vocabulary) if self.vocabulary is not None else None

    def adapt(self, texts, min_freq=1, max_size=None, batch_size=4096, progress=False):
        """Build the vocabulary from training texts.

        ``texts`` is an iterable of str or a ``tf.data.Dataset`` of scalar
        strings; a dataset is streamed (counted batch by batch, in parallel), so
        memory grows with the number of distinct words, not of texts.
        ``self.adapted_texts`` is the number of texts read.
        """
        if min_freq < 1:
            raise ValueError(f"min_freq must be >= 1, got {min_freq}")
        if max_size is not None and max_size < 3:
            raise ValueError(f"max_size must be >= 3 (padding, OOV, one word), got {max_size}")
        if not isinstance(texts, tf.data.Dataset):
            texts = list(texts)
            texts = tf.data.Dataset.from_tensor_slices(
                tf.constant(texts, tf.string, shape=[len(texts)]))

        def count(batch):
            words, _, n = tf.unique_with_counts(self.tokenize(batch).flat_values)
            return words, n, tf.size(batch)

        batches = texts.batch(batch_size).map(count, num_parallel_calls=tf.data.AUTOTUNE,
                                              deterministic=False)
        bar = keras_progbar("texts") if progress else None
        counts, seen = collections.Counter(), 0
        for words, n, size in batches.prefetch(tf.data.AUTOTUNE):
            counts.update(dict(zip(words.numpy().tolist(), n.numpy().tolist())))
            seen += int(size)
            if bar:
                bar.update(seen)
        words = sorted((w for w, c in counts.items() if c >= min_freq),
                       key=lambda w: (-counts[w], w))
        if max_size is not None:
            words = words[: max_size - 2]
        self.set_vocabulary([PAD, OOV] + [w.decode("utf-8") for w in words])
        self.adapted_texts = seen
        return self

    # -- the transformation -------------------------------------------------
    def tokenize(self, texts):
        """(batch,) strings -> ragged string tokens, (batch, words) or (batch, sents, words)."""
        texts = tf.convert_to_tensor(texts, tf.string)
        x = text_lib.normalize(texts, self.mode, self.remove_punctuation)
        if self.hierarchical:
            tokens = text_lib.split_sentences(x)
            if self.remove_stopwords:
                tokens = text_lib.remove_tokens(tokens, self._stop_table)
            if self.max_sentences:
                tokens = truncate(tokens, self.max_sentences, self.truncation)
            if self.max_words:
                tokens = tokens[:, :, : self.max_words]
            return tokens
        tokens = text_lib.split_words(x)
        if self.remove_stopwords:
            tokens = text_lib.remove_tokens(tokens, self._stop_table)
        if self.max_length:
            tokens = truncate(tokens, self.max_length, self.truncation)
        return tokens

    def lookup(self, tokens):
        if self._table is None:
            raise ValueError("the preprocessor has no vocabulary yet: call adapt() first")
        return tf.cast(tf.ragged.map_flat_values(self._table.lookup, tokens), tf.int32)

    def __call__(self, texts):
        """(batch,) strings -> ragged int32 ids."""
        return self.lookup(self.tokenize(texts))

    # -- persistence ----------------------------------------------------------
    def get_config(self):
        return {
            "mode": self.mode,
            "remove_punctuation": self.remove_punctuation,
            "remove_stopwords": self.remove_stopwords,
            "max_length": self.max_length,
            "hierarchical": self.hierarchical,
            "max_sentences": self.max_sentences,
            "max_words": self.max_words,
            "truncation": self.truncation,
        }

    def save(self, directory):
        """Write ``preprocessor.json`` and ``vocab.txt``, each atomically (a crash
        leaves the old file or the new one, never half of one)."""
        os.makedirs(directory, exist_ok=True)
        # padding is the empty string: line 1 is empty, one token per line after
        for name, text in ((VOCAB_FILE, "\n".join(self.vocabulary) + "\n"),
                           (CONFIG_FILE, json.dumps(self.get_config(), indent=2))):
            ownership.write_text(os.path.join(directory, name), text)  # follows no link

    @classmethod
    def load(cls, directory):
        with open(os.path.join(directory, CONFIG_FILE)) as fh:
            config = json.load(fh)
        with open(os.path.join(directory, VOCAB_FILE), encoding="utf-8") as fh:
            vocabulary = fh.read().split("\n")[:-1]
        return cls(vocabulary=vocabulary, **config)
