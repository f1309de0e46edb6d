"""Token attributions: hand-checked on tiny models, then one smoke run per family."""

import keras
import numpy as np
import pytest

import kerasattn.models
from kerasattn.data.preprocessing import TextPreprocessor
from kerasattn.interpret import extract_attention
from kerasattn.interpret.attributions import (METHODS, _iram_token_weights, applicable_methods,
                                              attention_rollout, embedding_layers,
                                              explain_tokens, gradient_x_input,
                                              integrated_gradients, keep_tokens, leave_one_out,
                                              remove_tokens, riemann_grid)
from kerasattn.layers import MaskedGlobalAveragePooling1D, MaskedGlobalMaxPooling1D

EMBEDDINGS = np.array([[0.3, -0.2], [0.1, 0.4], [1.0, -0.5], [-0.7, 0.8], [0.4, 0.9],
                       [-1.2, -0.3]], np.float32)
KERNEL = np.array([[1.5, -2.0], [-1.0, 2.5]], np.float32)
BIAS = np.array([0.2, -0.1], np.float32)


def _softmax(z):
    z = np.exp(z - z.max())
    return z / z.sum()


@pytest.fixture(scope="module")
def linear():
    """ids -> embedding (mask_zero) -> masked average -> dense softmax, fixed weights."""
    ids = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(6, 2, mask_zero=True, name="embedding")(ids)
    x = MaskedGlobalAveragePooling1D()(x)
    out = keras.layers.Dense(2, activation="softmax")(x)
    model = keras.Model(ids, out)
    model.get_layer("embedding").set_weights([EMBEDDINGS])
    model.layers[-1].set_weights([KERNEL, BIAS])
    return model


def _hand_gradient_x_input(ids, target=None):
    e = EMBEDDINGS[ids]
    p = _softmax(e.mean(axis=0) @ KERNEL + BIAS)
    c = int(np.argmax(p)) if target is None else target
    dp_dz = p[c] * (np.eye(2)[c] - p)
    grad = (KERNEL @ dp_dz) / len(ids)          # the same for every token
    return (e * grad).sum(axis=1), p


def test_gradient_x_input_is_the_hand_computed_value(linear):
    ids = [2, 3, 4, 5]
    expected, p = _hand_gradient_x_input(ids)
    (result,) = gradient_x_input(linear, [ids])
    assert result.target == result.label == int(np.argmax(p))
    np.testing.assert_allclose(result.probabilities, p, atol=1e-6)
    np.testing.assert_allclose(result.scores, expected, atol=1e-6)
    # another class, and the same text padded in a batch with a neighbour
    other, _ = _hand_gradient_x_input(ids, target=1 - result.target)
    padded = gradient_x_input(linear, np.array([ids + [0, 0, 0], [3, 0, 0, 0, 0, 0, 0]]),
                              target=1 - result.target)
    assert len(padded[0].scores) == 4 and len(padded[1].scores) == 1
    np.testing.assert_allclose(padded[0].scores, other, atol=1e-6)


def test_riemann_grids():
    alphas, weights = riemann_grid(4, "trapezoid")
    np.testing.assert_allclose(alphas, [0, .25, .5, .75, 1])
    np.testing.assert_allclose(weights, [.125, .25, .25, .25, .125])
    alphas, weights = riemann_grid(4, "midpoint")
    np.testing.assert_allclose(alphas, [.125, .375, .625, .875])
    np.testing.assert_allclose(weights, [.25] * 4)
    with pytest.raises(ValueError, match="rule"):
        riemann_grid(4, "simpson")


@pytest.mark.parametrize("rule", ["trapezoid", "midpoint"])
def test_integrated_gradients_are_complete(linear, rule):
    ids = [2, 3, 2, 4, 5]
    (coarse,) = integrated_gradients(linear, [ids], steps=1, rule=rule)
    (fine,) = integrated_gradients(linear, [ids], steps=64, rule=rule)
    c = fine.target
    p = _softmax(EMBEDDINGS[ids].mean(axis=0) @ KERNEL + BIAS)[c]
    p_zero = _softmax(BIAS)[c]                   # zero vectors average to zero
    assert fine.extras["baseline_probability"] == pytest.approx(p_zero, abs=1e-6)
    assert fine.scores.sum() == pytest.approx(p - p_zero, abs=2e-4)
    assert abs(fine.extras["completeness_gap"]) < 2e-4
    # the gap is the discretisation's: one interval is visibly worse
    assert abs(coarse.extras["completeness_gap"]) > 10 * abs(fine.extras["completeness_gap"])


def test_integrated_gradients_with_the_padding_baseline(linear):
    ids = [2, 3, 4]
    (result,) = integrated_gradients(linear, [ids], steps=64, baseline="padding")
    c = result.target
    p = _softmax(EMBEDDINGS[ids].mean(axis=0) @ KERNEL + BIAS)[c]
    p_pad = _softmax(EMBEDDINGS[0] @ KERNEL + BIAS)[c]   # id 0's vector at every real position
    assert result.extras["baseline_probability"] == pytest.approx(p_pad, abs=1e-6)
    assert result.scores.sum() == pytest.approx(p - p_pad, abs=2e-4)
    with pytest.raises(ValueError, match="baseline"):
        integrated_gradients(linear, [ids], baseline="unk")


def test_integrated_gradients_are_complete_on_a_zoo_model():
    keras.utils.set_random_seed(3)
    model = kerasattn.models.get("transformer", vocab_size=30, num_classes=2,
                                 embedding_dim=16, ff_dim=8)   # a sigmoid head
    results = integrated_gradients(model, [[3, 4, 5, 6, 7, 8], [9, 10]], steps=32,
                                   target=[1, 0])
    assert [r.target for r in results] == [1, 0]
    for r in results:
        assert len(r.scores) == len(r.ids)
        assert abs(r.extras["completeness_gap"]) < 2e-3


@pytest.fixture(scope="module")
def decider():
    """Masked max of one number per token: token 5 (value 10) decides; others are -1."""
    ids = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(8, 1, mask_zero=True, name="embedding")(ids)
    x = MaskedGlobalMaxPooling1D()(x)
    out = keras.layers.Dense(2, activation="softmax")(x)
    model = keras.Model(ids, out)
    table = np.full((8, 1), -1.0, np.float32)
    table[5] = 10.0
    model.get_layer("embedding").set_weights([table])
    model.layers[-1].set_weights([np.array([[-1.0, 1.0]], np.float32), np.zeros(2, np.float32)])
    return model


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def test_leave_one_out_finds_the_deciding_token(decider):
    (result,) = leave_one_out(decider, [[2, 3, 5, 4, 6]])
    assert result.label == result.target == 1
    expected = np.zeros(5)
    expected[2] = _sigmoid(20.0) - _sigmoid(-2.0)   # max 10 -> max -1
    np.testing.assert_allclose(result.scores, expected, atol=1e-6)


def test_leave_one_out_removes_the_token_rather_than_replacing_it():
    keras.utils.set_random_seed(5)
    model = kerasattn.models.get("sanet-base", vocab_size=30, num_classes=2, embedding_dim=8,
                                 d=8)   # sinusoidal positions: shifting changes the output
    ids = [3, 4, 5, 6, 7, 8]
    (result,) = leave_one_out(model, np.array([ids + [0, 0]]))
    full = np.asarray(model(np.array([ids])))[0, result.target]
    for i in range(len(ids)):
        shorter = ids[:i] + ids[i + 1:]
        alone = np.asarray(model(np.array([shorter])))[0, result.target]
        assert result.scores[i] == pytest.approx(full - alone, abs=1e-5)
    # not what replacing the token by the OOV id or masking it in place gives
    replaced = np.asarray(model(np.array([[1] + ids[1:]])))[0, result.target]
    masked = np.asarray(model(np.array([[0] + ids[1:]])))[0, result.target]
    assert abs(result.scores[0] - (full - replaced)) > 1e-4
    assert abs(result.scores[0] - (full - masked)) > 1e-4


def test_remove_and_keep_tokens_shorten_sentences_and_drop_emptied_ones():
    assert remove_tokens([4, 5, 6, 7], [1, 3]) == [4, 6]
    assert keep_tokens([4, 5, 6, 7], [3, 1]) == [5, 7]
    doc = [[4, 5], [6], [7, 8, 9]]
    assert remove_tokens(doc, [2], hierarchical=True) == [[4, 5], [7, 8, 9]]
    assert remove_tokens(doc, [0, 4], hierarchical=True) == [[5], [6], [7, 9]]
    assert keep_tokens(doc, [5, 1], hierarchical=True) == [[5], [9]]
    assert remove_tokens(doc, range(6), hierarchical=True) == []


def test_rollout_of_hand_made_matrices():
    a1_heads = np.array([[[1.0, 0.0], [1.0, 0.0]],
                         [[1.0, 0.0], [0.0, 1.0]]])       # mean [[1, 0], [.5, .5]]
    a2 = np.array([[0.5, 0.5], [0.0, 1.0]])
    # Ā1 = [[1, 0], [.25, .75]], Ā2 = [[.75, .25], [0, 1]], R = Ā2 Ā1
    np.testing.assert_allclose(attention_rollout([a1_heads, a2]),
                               [[0.8125, 0.1875], [0.25, 0.75]])
    np.testing.assert_allclose(attention_rollout([a2], add_identity=False), a2)
    with pytest.raises(ValueError):
        attention_rollout([])


def test_iram_effective_weights_by_hand():
    a = np.array([[0.8, 0.2, 0.0, 0.0],
                  [0.1, 0.3, 0.6, 0.0],
                  [0.2, 0.2, 0.3, 0.3]])   # 2 tokens, then the summaries s1, s2
    # e1 = [.8, .2]; e2 = [.1, .3] + .6 e1 = [.58, .42]; e3 = [.2, .2] + .3 e1 + .3 e2
    np.testing.assert_allclose(_iram_token_weights(a, 2), [0.614, 0.386])


def test_rollout_and_attention_scores_read_the_extracted_weights():
    keras.utils.set_random_seed(2)
    sanet = kerasattn.models.get("sanet-base", vocab_size=30, num_classes=2, embedding_dim=8,
                                 d=8, num_blocks=2)
    ids = [[3, 4, 5, 6], [7, 8]]
    ex = extract_attention(sanet, ids)
    for r, e in zip(explain_tokens(sanet, ids, method="rollout"), ex):
        matrices = [e.attention["self_attention_block_1"], e.attention["self_attention_block_2"]]
        np.testing.assert_allclose(r.scores, attention_rollout(matrices).mean(axis=0), atol=1e-6)
        assert r.scores.sum() == pytest.approx(1.0, abs=1e-5)
        # no pooling attention: attention = what each token receives in the last block
        np.testing.assert_allclose(r.extras["attention"], matrices[1].mean(axis=0), atol=1e-6)

    transformer = kerasattn.models.get("transformer", vocab_size=30, num_classes=2,
                                       embedding_dim=16, ff_dim=8, num_layers=2)
    ex = extract_attention(transformer, ids)
    for r, e in zip(explain_tokens(transformer, ids, method="rollout"), ex):
        pooled = e.attention["inter_attention"]
        rollout = attention_rollout([e.attention["encoder_1"], e.attention["encoder_2"]])
        np.testing.assert_allclose(r.scores, pooled @ rollout, atol=1e-6)
        np.testing.assert_allclose(r.extras["attention"], pooled, atol=1e-6)


def test_hierarchical_attention_is_word_weight_times_sentence_weight():
    keras.utils.set_random_seed(4)
    han = kerasattn.models.get("han", vocab_size=30, num_classes=2, embedding_dim=8, units=4,
                               attention_units=4)
    docs = [[[3, 4, 5], [6, 7]], [[8]]]
    ex = extract_attention(han, docs)
    results = explain_tokens(han, docs, method="attention")
    for r, e in zip(results, ex):
        assert r.hierarchical and [len(s) for s in r.scores] == [len(s) for s in r.ids]
        for s, sentence in enumerate(r.ids):
            expected = e.attention["word_attention"][s, :len(sentence)] * \
                e.attention["sentence_attention"][s]
            np.testing.assert_allclose(r.scores[s], expected, atol=1e-6)
        assert r.flat_scores.sum() == pytest.approx(1.0, abs=1e-5)
    with pytest.raises(ValueError, match="rollout needs self-attention"):
        explain_tokens(han, docs, method="rollout")


def test_models_without_embeddings_or_attention_are_refused_clearly():
    ids = keras.Input((None,), dtype="int32")
    x = keras.layers.Lambda(lambda t: keras.ops.cast(t, "float32")[..., None])(ids)
    x = keras.layers.GlobalAveragePooling1D()(x)
    plain = keras.Model(ids, keras.layers.Dense(2, activation="softmax")(x))
    with pytest.raises(ValueError, match="no token-embedding layer"):
        embedding_layers(plain)
    with pytest.raises(ValueError, match="no token-embedding layer"):
        explain_tokens(plain, [[3, 4]], method="gradient_x_input")
    assert applicable_methods(plain) == ["leave_one_out"]
    cnn = kerasattn.models.get("cnn", vocab_size=30, num_classes=2, embedding_dim=8, filters=4)
    with pytest.raises(ValueError, match="no attention layer"):
        explain_tokens(cnn, [[3, 4, 5, 6, 7]], method="attention")
    with pytest.raises(ValueError, match="method"):
        explain_tokens(cnn, [[3, 4]], method="saliency")


def test_texts_through_the_preprocessor():
    keras.utils.set_random_seed(6)
    pre = TextPreprocessor().adapt(["a good film", "a bad film"])
    model = kerasattn.models.get("mlp", vocab_size=pre.vocabulary_size, num_classes=2,
                                 embedding_dim=8, hidden_units=8)
    results = explain_tokens(model, ["A good film!", ""], pre, method="gradient_x_input")
    assert results[0].tokens == ["a", "good", "film", "!"] and len(results[0].scores) == 4
    assert results[1].tokens == [] and len(results[1].scores) == 0
    with pytest.raises(ValueError, match="preprocessor"):
        explain_tokens(model, ["a good film"], method="leave_one_out")


def test_a_text_classifier_is_explained_on_raw_hierarchical_texts():
    from kerasattn.tasks import TextClassifier

    keras.utils.set_random_seed(7)
    vocabulary = ["", "[UNK]", "a", "good", "film", "bad", "one", "."]
    clf = TextClassifier.from_preset("han", num_classes=2, vocabulary=vocabulary,
                                     compile=False, embedding_dim=8, units=4,
                                     attention_units=4)
    texts = ["A good film. A bad one!", "bad"]
    for method in ("attention", "leave_one_out"):
        first, second = explain_tokens(clf, texts, method=method)
        assert first.tokens == [["a", "good", "film", "."], ["a", "bad", "one", "!"]]
        assert first.ids == [[2, 3, 4, 7], [2, 5, 6, 1]]
        assert [len(s) for s in first.scores] == [4, 4] and second.tokens == [["bad"]]
        np.testing.assert_allclose(first.probabilities,
                                   np.asarray(clf.backbone(np.array([first.ids])))[0],
                                   atol=1e-6)


SMALL = {
    "sanet-base": dict(embedding_dim=8, d=8),
    "hcan-2sa-target": dict(d=16, embedding_dim=8, num_heads=2),
    "han": dict(embedding_dim=8, units=4, attention_units=4),
    "iram-vanilla": dict(embedding_dim=8, units=8, maxout_units=6),
    "iram-full": dict(embedding_dim=8, units=8, maxout_units=6, ngram_dim=4, ngram_buckets=64,
                      context_layers=1),
    "transformer": dict(embedding_dim=16, ff_dim=8),
    "cnn": dict(embedding_dim=8, filters=4),
    "mlp": dict(embedding_dim=8, hidden_units=8),
    "gru": dict(embedding_dim=8, units=8),
}
EXPECTED = {  # the methods that apply to each family
    "sanet-base": METHODS, "hcan-2sa-target": METHODS, "transformer": METHODS,
    "han": METHODS[:4], "iram-vanilla": METHODS[:4], "iram-full": METHODS[:4],
    "cnn": METHODS[:3], "mlp": METHODS[:3], "gru": METHODS[:3],
}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_every_method_gives_one_finite_score_per_token(name):
    keras.utils.set_random_seed(0)
    vocabulary = ["", "[UNK]"] + [f"w{i}" for i in range(28)]
    model = kerasattn.models.get(name, vocab_size=30, num_classes=2, vocabulary=vocabulary,
                                 **SMALL[name])
    assert tuple(applicable_methods(model)) == EXPECTED[name]
    hierarchical = len(model.inputs[0].shape) == 3
    docs = [[[3, 4, 5], [6, 7]], [[8, 9]]] if hierarchical else [[3, 4, 5, 6, 7], [8, 9]]
    if name == "iram-full":
        assert len(embedding_layers(model)) == 2       # word and character n-gram vectors
    for method in EXPECTED[name]:
        results = explain_tokens(model, docs, method=method, steps=3)
        for r, doc in zip(results, docs):
            assert r.method == method and r.ids == doc
            if hierarchical:
                assert [len(s) for s in r.scores] == [len(s) for s in doc]
            else:
                assert len(r.scores) == len(doc)
            assert np.all(np.isfinite(r.flat_scores)), (name, method)
            assert np.all(np.isfinite(r.probabilities))
