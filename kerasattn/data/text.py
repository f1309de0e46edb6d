"""Text normalisation and tokenisation from core TensorFlow string ops.

These functions are the one preprocessing used in tf.data, in evaluation and
in exported SavedModels. They use only ``tf.strings`` and ``tf.lookup`` ops,
which stock TensorFlow Serving has (no tensorflow-text ops).

Modes:
    ``"default"``: lower-case, HTML ``<br />`` removed, punctuation split off
        words (apostrophes inside words such as ``don't`` are kept).
    ``"hcan"``: the setting of HCAN §4.3: lower-case and keep only letters,
        digits and ``. ! ?`` (which end sentences).
Options (Hubli, §3.3): ``remove_punctuation`` drops punctuation instead of
splitting it off; ``remove_stopwords`` drops scikit-learn's English stop words
(NLTK's list needs a data download that is not possible offline).
"""

import tensorflow as tf
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

MODES = ("default", "hcan")

_BR = r"<br\s*/?>"
_PUNCT = r"[^\pL\pN\s']"  # anything but letters, numbers, spaces, apostrophes
_SENTENCE_END = "[.!?]"


def stop_words():
    """scikit-learn's English stop-word list, sorted."""
    return sorted(ENGLISH_STOP_WORDS)


def normalize(texts, mode="default", remove_punctuation=False):
    """Normalise a string tensor; the result has tokens separated by spaces."""
    if mode not in MODES:
        raise ValueError(f"unknown text mode {mode!r}; expected one of {MODES}")
    x = tf.strings.lower(texts, encoding="utf-8")
    x = tf.strings.regex_replace(x, _BR, " ")
    if mode == "hcan":
        x = tf.strings.regex_replace(x, r"[^\pL\pN\s.!?]", " ")
        x = tf.strings.regex_replace(x, r"([.!?])", r" \1 ")
    elif remove_punctuation:
        x = tf.strings.regex_replace(x, _PUNCT, " ")
        x = tf.strings.regex_replace(x, r"(\A|\s)'+|'+(\s|\z)", " ")
    else:
        x = tf.strings.regex_replace(x, "(" + _PUNCT + ")", r" \1 ")
        # quotes at word edges are punctuation; inside a word (don't) they stay
        x = tf.strings.regex_replace(x, r"(\A|\s)'", r"\1' ")
        x = tf.strings.regex_replace(x, r"'(\s|\z)", r" '\1")
    return x


def split_words(normalized):
    """Whitespace tokenisation: (batch,) strings -> ragged (batch, words)."""
    return tf.strings.split(normalized)


def split_sentences(normalized):
    """(batch,) normalised strings -> ragged (batch, sentences, words).

    A sentence ends after a run of ``. ! ?`` tokens. A text without any
    token gives one empty sentence, so every document has >= 1 sentence.
    """
    # "a b . c d ! ! e" -> "a b .\nc d ! !\ne": a newline after the last
    # end mark of a run, before the next word.
    x = tf.strings.regex_replace(
        normalized, r"(" + _SENTENCE_END + r")\s+([^.!?\s])", "\\1\n\\2"
    )
    sentences = tf.strings.split(x, "\n")
    return tf.strings.split(sentences)


def remove_tokens(tokens, table):
    """Drop the tokens found in ``table`` (a ``tf.lookup`` table to int, 1 = drop)."""
    flat = tokens.flat_values
    keep = tf.equal(table.lookup(flat), 0)
    return tf.ragged.boolean_mask(tokens, tokens.with_flat_values(keep))
