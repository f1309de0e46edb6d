"""CharNgramEmbedding: hashed character n-grams of each vocabulary word, averaged."""

import zlib

import keras
import numpy as np
import pytest

from kerasattn.layers import CharNgramEmbedding
from kerasattn.layers.char_ngram_embedding import word_ngrams

VOCAB = ["", "[UNK]", "ab", "film"]


def test_ngrams_by_hand():
    assert word_ngrams("ab") == ["a", "b", "<a", "ab", "b>", "<ab", "ab>", "<ab>"]
    assert word_ngrams("ab", (3, 3)) == ["<ab", "ab>"]


def test_vectors_are_the_mean_of_the_hashed_ngram_rows():
    layer = CharNgramEmbedding(len(VOCAB), output_dim=3, num_buckets=97)
    layer.set_vocabulary(VOCAB)
    table = np.asarray(layer.ngram_ids)
    rows = [1 + zlib.crc32(g.encode()) % 97 for g in word_ngrams("ab")]
    np.testing.assert_array_equal(table[2, :len(rows)], rows)
    assert (table[2, len(rows):] == 0).all() and (table[0] == 0).all()
    out = np.asarray(layer(np.array([[2, 0]])))
    emb = np.asarray(layer.embeddings)
    np.testing.assert_allclose(out[0, 0], emb[rows].mean(0), rtol=1e-6)
    np.testing.assert_array_equal(out[0, 1], 0)  # padding
    np.testing.assert_array_equal(layer.compute_mask(np.array([[2, 0]])), [[True, False]])


def test_words_sharing_ngrams_share_rows_and_the_table_is_stable():
    a = CharNgramEmbedding(len(VOCAB), 2, num_buckets=1000)
    b = CharNgramEmbedding(len(VOCAB), 2, num_buckets=1000)
    np.testing.assert_array_equal(a.ngram_table(VOCAB), b.ngram_table(VOCAB))
    with pytest.raises(ValueError, match="built for 4"):
        a.ngram_table(VOCAB + ["abc"])
    c = CharNgramEmbedding(3, 2, num_buckets=1000)
    film, films = c.ngram_table(["", "film", "films"])[1:]
    common = set(word_ngrams("film")) & set(word_ngrams("films"))
    assert len(common) == 13  # all of "film"'s 16 but "m>", "lm>", "ilm>"
    assert (set(film) & set(films)) - {0} == {1 + zlib.crc32(g.encode()) % 1000 for g in common}


def test_config_save_and_mixed_precision(tmp_path):
    layer = CharNgramEmbedding(len(VOCAB), 4, num_buckets=50, max_ngrams=6, ngram_range=(2, 3))
    clone = CharNgramEmbedding.from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()
    ids = keras.Input((None,), dtype="int32")
    out = keras.layers.GlobalAveragePooling1D()(layer(ids))
    model = keras.Model(ids, keras.layers.Dense(2)(out))
    layer.set_vocabulary(VOCAB)
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = keras.saving.load_model(path, safe_mode=True)
    x = np.array([[2, 3, 0]])
    np.testing.assert_allclose(np.asarray(loaded(x)), np.asarray(model(x)), atol=1e-6)
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        half = CharNgramEmbedding(len(VOCAB), 4)
        half.set_vocabulary(VOCAB)
        y = half(x)
        assert keras.backend.standardize_dtype(y.dtype) == "float16"
        assert np.isfinite(np.asarray(y, "float32")).all()
    finally:
        keras.mixed_precision.set_global_policy("float32")


def test_validation():
    with pytest.raises(ValueError, match="output_dim"):
        CharNgramEmbedding(4, 0)
    with pytest.raises(ValueError, match="ngram_range"):
        CharNgramEmbedding(4, 2, ngram_range=(3, 2))
