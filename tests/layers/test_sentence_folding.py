"""FoldSentences / UnfoldSentences (the hierarchy of HCAN and HAN) and AttentionPooling."""

import keras
import numpy as np

from kerasattn.layers import AttentionPooling, FoldSentences, UnfoldSentences

IDS = np.array([[[3, 4, 5, 0], [6, 7, 0, 0], [0, 0, 0, 0]],
                [[3, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]], "int32")


def _words():
    ids = keras.Input((None, None), dtype="int32")
    return ids, keras.layers.Embedding(10, 4, mask_zero=True)(ids)


def test_fold_and_unfold_are_inverse_and_carry_the_masks():
    ids, words = _words()
    folded = FoldSentences()(words)
    back = UnfoldSentences()([folded, words])
    model = keras.Model(ids, {"folded": folded, "back": back, "words": words})
    out = model(IDS)
    np.testing.assert_array_equal(out["folded"].shape, (6, 4, 4))
    np.testing.assert_allclose(out["back"], out["words"])
    # the masks, read through layers that report them
    fold_mask = FoldSentences().compute_mask(None, IDS != 0)
    np.testing.assert_array_equal(fold_mask, (IDS != 0).reshape(6, 4))
    sentence_mask = UnfoldSentences().compute_mask(None, [None, IDS != 0])
    np.testing.assert_array_equal(sentence_mask, [[True, True, False], [True, False, False]])


def test_unfold_restores_weights_of_any_rank():
    x = np.arange(6 * 2 * 5, dtype="float32").reshape(6, 2, 5)
    out = UnfoldSentences()([x, np.zeros((2, 3, 5, 1), "float32")])
    np.testing.assert_allclose(out, x.reshape(2, 3, 2, 5))


def test_folded_model_masks_words_and_sentences_end_to_end():
    """A word-level masked pooling sees the word mask; the sentence level sees the sentence mask."""
    ids, words = _words()
    pooled = AttentionPooling(3, name="word_attention")(FoldSentences()(words))
    sentences = UnfoldSentences()([pooled, words])
    doc, weights = AttentionPooling(3, name="sentence_attention")(
        sentences, return_attention_scores=True)
    model = keras.Model(ids, weights)
    w = np.asarray(model(IDS))
    assert w.shape == (2, 3)
    np.testing.assert_allclose(w.sum(axis=1), 1.0, rtol=1e-6)
    assert w[0, 2] == 0 and w[1, 1] == 0 and w[1, 2] == 0  # padded sentences weigh nothing


def test_attention_pooling_matches_numpy_and_ignores_padding():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 4, 3)).astype("float32")
    mask = np.array([[True, True, True, False], [False, False, False, False]])
    layer = AttentionPooling(5)
    out, a = layer(x, mask=mask, return_attention_scores=True)
    kernel, bias = (np.asarray(v) for v in layer._hidden.weights)
    u = np.tanh(x @ kernel + bias) @ np.asarray(layer.context)
    e = np.exp(u[0, :3] - u[0, :3].max())
    expected = e / e.sum()
    np.testing.assert_allclose(np.asarray(a)[0, :3], expected, rtol=1e-5)
    assert np.asarray(a)[0, 3] == 0
    np.testing.assert_allclose(np.asarray(out)[0], expected @ x[0, :3], rtol=1e-5, atol=1e-6)
    # a sequence with no real position: zero weights and a zero vector, not NaN
    np.testing.assert_array_equal(np.asarray(a)[1], 0)
    np.testing.assert_array_equal(np.asarray(out)[1], 0)
