"""Word vectors from hashed character n-grams (IRAM §3.4's n-gram embeddings, learned)."""

import zlib

import keras
import numpy as np
from keras import ops

from kerasattn.layers._initializers import clone_initializer


def word_ngrams(word, ngram_range=(1, 4)):
    """The character n-grams of ``<word>`` (boundary marks included, but not alone),
    shortest first."""
    marked = f"<{word}>"
    low, high = ngram_range
    grams = [marked[i:i + n] for n in range(low, high + 1) for i in range(len(marked) - n + 1)]
    return [g for g in grams if g not in ("<", ">")]


@keras.saving.register_keras_serializable(package="kerasattn")
class CharNgramEmbedding(keras.layers.Layer):
    """Token ids -> the mean embedding of each word's hashed character n-grams.

    IRAM's full encoder (§3.4) concatenates each GloVe vector with the
    average of the word's pretrained character n-gram vectors (Hashimoto et
    al. 2016). Those vectors cannot be downloaded here, so this layer learns
    them: every n-gram of ``<word>`` (1 to 4 characters by default) is hashed
    (CRC-32, stable across runs and machines) into ``num_buckets`` rows of a
    trained table. Which n-grams each vocabulary id has is fixed by
    :meth:`set_vocabulary` and stored as a non-trainable int32 weight, so a
    saved model needs no vocabulary to load. Id 0 (padding) gives zeros and
    is masked, like ``Embedding(mask_zero=True)``. Words outside the vocabulary
    share the OOV id and so its n-grams (the zoo's models take ids, not
    strings).

    Args:
        vocabulary_size: number of token ids.
        output_dim: n-gram vector size (100 in IRAM §4.2).
        num_buckets: rows of the hashed n-gram table.
        max_ngrams: n-grams kept per word (the shortest first).
        ngram_range: (shortest, longest) n-gram length.
        embeddings_initializer: initializer of the n-gram table.

    Call arguments:
        inputs: int token ids of any shape.

    Example:
    >>> import numpy as np
    >>> from kerasattn.layers import CharNgramEmbedding
    >>> layer = CharNgramEmbedding(vocabulary_size=4, output_dim=8)
    >>> layer.set_vocabulary(["", "[UNK]", "good", "film"])
    >>> tuple(layer(np.array([[2, 3, 0]])).shape)
    (1, 3, 8)
    """

    # its inputs are not one (batch, time, features) sequence: the shared harness
    # (tests/layers/test_harness.py) leaves it to its own tests, in this file
    harness_examples = "tests/layers/test_char_ngram_embedding.py"

    def __init__(self, vocabulary_size, output_dim=100, num_buckets=100_000, max_ngrams=40,
                 ngram_range=(1, 4), embeddings_initializer="uniform", **kwargs):
        super().__init__(**kwargs)
        for name, value in (("vocabulary_size", vocabulary_size), ("output_dim", output_dim),
                            ("num_buckets", num_buckets), ("max_ngrams", max_ngrams)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        low, high = ngram_range
        if not 1 <= low <= high:
            raise ValueError(f"ngram_range must be (low, high) with 1 <= low <= high, "
                             f"got {ngram_range!r}")
        self.vocabulary_size = vocabulary_size
        self.output_dim = output_dim
        self.num_buckets = num_buckets
        self.max_ngrams = max_ngrams
        self.ngram_range = (int(low), int(high))
        self.embeddings_initializer = keras.initializers.get(embeddings_initializer)
        self.supports_masking = True

    def build(self, input_shape=None):
        self.ngram_ids = self.add_weight(name="ngram_ids", dtype="int32", trainable=False,
                                         shape=(self.vocabulary_size, self.max_ngrams),
                                         initializer="zeros")
        # row 0 is the empty slot of words with fewer than max_ngrams n-grams
        self.embeddings = self.add_weight(name="embeddings",
                                          shape=(self.num_buckets + 1, self.output_dim),
                                          initializer=clone_initializer(
                                              self.embeddings_initializer))

    def ngram_table(self, vocabulary):
        """(vocabulary_size, max_ngrams) int32: each word's hashed n-gram rows, 0 = none."""
        if len(vocabulary) != self.vocabulary_size:
            raise ValueError(f"the vocabulary has {len(vocabulary)} tokens; the layer was "
                             f"built for {self.vocabulary_size}")
        table = np.zeros((self.vocabulary_size, self.max_ngrams), np.int32)
        for i, word in enumerate(vocabulary):
            if i == 0 or not word:  # padding has no n-grams
                continue
            grams = word_ngrams(word, self.ngram_range)[: self.max_ngrams]
            table[i, :len(grams)] = [1 + zlib.crc32(g.encode("utf-8")) % self.num_buckets
                                     for g in grams]
        return table

    def set_vocabulary(self, vocabulary):
        """Fix each id's n-grams from the id -> token list (the preprocessor's vocabulary)."""
        if not self.built:
            self.build()
        self.ngram_ids.assign(self.ngram_table(list(vocabulary)))

    def call(self, inputs):
        grams = ops.take(self.ngram_ids, ops.cast(inputs, "int32"), axis=0)   # (..., G)
        present = ops.cast(grams > 0, self.compute_dtype)[..., None]
        vectors = ops.cast(ops.take(self.embeddings, grams, axis=0), self.compute_dtype)
        count = ops.maximum(ops.sum(present, axis=-2), ops.cast(1, self.compute_dtype))
        return ops.sum(vectors * present, axis=-2) / count

    def compute_mask(self, inputs, mask=None):
        return ops.not_equal(inputs, 0)

    def compute_output_shape(self, input_shape):
        return (*input_shape, self.output_dim)

    def get_config(self):
        config = super().get_config()
        config.update(vocabulary_size=self.vocabulary_size, output_dim=self.output_dim,
                      num_buckets=self.num_buckets, max_ngrams=self.max_ngrams,
                      ngram_range=list(self.ngram_range),
                      embeddings_initializer=keras.initializers.serialize(
                          self.embeddings_initializer))
        return config
