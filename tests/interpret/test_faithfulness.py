"""Faithfulness (ERASER) and Jain & Wallace's tests, on models whose answers are known."""

import keras
import numpy as np
import pytest
from scipy.stats import kendalltau

import kerasattn.models
from kerasattn.interpret.attributions import TokenAttribution, explain_tokens
from kerasattn.interpret.faithfulness import (aopc, erasure, faithfulness_report, format_report,
                                              kendall_tau, permutation_test,
                                              permuted_probabilities, pooling_layers,
                                              random_erasure, rank_agreement, rank_tokens,
                                              removal_counts, total_variation)
from kerasattn.layers import AttentionPooling, MaskedGlobalMaxPooling1D
from kerasattn.heads import as_probabilities

# ids 2..11 carry these per-token numbers; the model's p(class 1) = sigmoid(masked max)
VALUES = np.array([3.0, -1.0, 2.0, 0.5, -2.0, 1.0, -0.5, 0.0, 1.5, -3.0])
IDS = list(range(2, 12))


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@pytest.fixture(scope="module")
def max_model():
    ids = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(12, 1, mask_zero=True, name="embedding")(ids)
    x = MaskedGlobalMaxPooling1D()(x)
    out = keras.layers.Dense(2, activation="softmax")(x)   # logits [-m/2, m/2]
    model = keras.Model(ids, out)
    table = np.zeros((12, 1), np.float32)
    table[2:, 0] = VALUES
    model.get_layer("embedding").set_weights([table])
    model.layers[-1].set_weights([np.array([[-0.5, 0.5]], np.float32), np.zeros(2, np.float32)])
    return model


def _explanation(ids, scores, target=1, probabilities=(0.0, 1.0)):
    return TokenAttribution(tokens=[str(i) for i in ids], scores=np.asarray(scores, float),
                            probabilities=np.asarray(probabilities), target=target,
                            method="hand", ids=list(ids))


def test_removal_counts_round_half_up_and_remove_at_least_one():
    assert removal_counts(10) == [1, 1, 1, 2, 5]
    assert removal_counts(3) == [1, 1, 1, 1, 2]        # 50 % of 3 = 1.5 -> 2
    assert removal_counts(7, (50,)) == [4]             # 3.5 -> 4
    assert removal_counts(5, (50,)) == [3]             # 2.5 -> 3 (round() would give 2)
    assert removal_counts(1) == [1] * 5
    assert removal_counts(0) == [0] * 5
    assert removal_counts(200, (1, 100)) == [2, 200]
    with pytest.raises(ValueError):
        removal_counts(10, (0,))


def test_rank_tokens_highest_first_ties_in_text_order():
    assert rank_tokens([0.1, 0.5, 0.5, -0.9]).tolist() == [1, 2, 0, 3]
    assert rank_tokens([0.1, 0.5, 0.5, -0.9], magnitude=True).tolist() == [3, 1, 2, 0]


def test_comprehensiveness_and_sufficiency_on_a_masked_max(max_model):
    p = _sigmoid(3.0)
    good = erasure(max_model, [_explanation(IDS, VALUES)])
    # counts 1, 1, 1, 2, 5: the max left after removing the top 1 / 2 / 5 values
    expected = p - _sigmoid(np.array([2.0, 2.0, 2.0, 1.5, 0.0]))
    np.testing.assert_allclose(good.probabilities, [p], atol=1e-6)
    np.testing.assert_allclose(good.comprehensiveness[0], expected, atol=1e-6)
    np.testing.assert_allclose(good.sufficiency[0], 0.0, atol=1e-6)   # the max is kept
    assert good.comprehensiveness_aopc[0] == pytest.approx(expected.mean(), abs=1e-6)
    # the reverse ranking: removing the lowest changes nothing, keeping them loses the max
    bad = erasure(max_model, [_explanation(IDS, -VALUES)])
    np.testing.assert_allclose(bad.comprehensiveness[0], 0.0, atol=1e-6)
    kept_max = np.array([-3.0, -3.0, -3.0, -2.0, 0.0])    # max of the lowest 1 / 2 / 5
    np.testing.assert_allclose(bad.sufficiency[0], p - _sigmoid(kept_max), atol=1e-6)
    assert aopc(bad.sufficiency)[0] > aopc(good.sufficiency)[0]


def test_a_one_token_text_emptied_gives_the_empty_output(max_model):
    scores = erasure(max_model, [_explanation([2], [1.0])], ks=(10, 50))
    # the empty text is all padding: the masked max gives 0, p = 0.5
    np.testing.assert_allclose(scores.comprehensiveness[0], _sigmoid(3.0) - 0.5, atol=1e-6)
    np.testing.assert_allclose(scores.sufficiency[0], 0.0, atol=1e-6)


def test_random_baseline_is_seeded_and_below_the_true_ranking(max_model):
    docs = [IDS, IDS[::-1], IDS[2:8]]
    a = random_erasure(max_model, docs, ks=(10, 20, 50), draws=3, seed=7)
    b = random_erasure(max_model, docs, ks=(10, 20, 50), draws=3, seed=7)
    c = random_erasure(max_model, docs, ks=(10, 20, 50), draws=3, seed=8)
    np.testing.assert_array_equal(a.comprehensiveness, b.comprehensiveness)
    np.testing.assert_array_equal(a.sufficiency, b.sufficiency)
    assert not np.array_equal(a.comprehensiveness, c.comprehensiveness)
    truth = erasure(max_model, [_explanation(d, VALUES[np.asarray(d) - 2]) for d in docs],
                    ks=(10, 20, 50))
    assert np.all(truth.comprehensiveness_aopc >= a.comprehensiveness_aopc - 1e-9)
    assert truth.comprehensiveness_aopc.mean() > a.comprehensiveness_aopc.mean() + 0.05


def test_leave_one_out_explanations_are_the_most_comprehensive_here(max_model):
    (loo,) = explain_tokens(max_model, [IDS], method="leave_one_out")
    assert rank_tokens(loo.flat_scores)[0] == 0      # the token holding the max
    scores = erasure(max_model, [loo], ks=(1,))
    assert scores.comprehensiveness[0, 0] == pytest.approx(_sigmoid(3.0) - _sigmoid(2.0),
                                                           abs=1e-6)


def test_kendall_tau_matches_scipy_and_a_hand_count():
    a, b = [1, 2, 3, 4], [1, 3, 2, 4]                  # 5 concordant pairs, 1 discordant
    assert kendall_tau(a, b) == pytest.approx(4 / 6)
    assert kendall_tau(a, b) == pytest.approx(kendalltau(a, b).statistic)
    x, y = [0.3, 0.1, 0.9, 0.5, 0.2], [2.0, -1.0, 2.0, 0.1, 0.0]  # with a tie: tau-b
    assert kendall_tau(x, y) == pytest.approx(kendalltau(x, y).statistic)
    assert np.isnan(kendall_tau([1.0], [2.0])) and np.isnan(kendall_tau([1, 1], [1, 2]))
    first = [_explanation([2, 3, 4, 5], a), _explanation([2], [1.0])]
    second = [_explanation([2, 3, 4, 5], [-1, -3, 2, 4]), _explanation([2], [0.5])]
    tau = rank_agreement(first, second)                # by magnitude: [1, 3, 2, 4]
    assert tau[0] == pytest.approx(4 / 6) and np.isnan(tau[1])
    assert rank_agreement(first, second, magnitude=False)[0] == pytest.approx(
        kendalltau(a, [-1, -3, 2, 4]).statistic)


def test_total_variation():
    assert total_variation([0.2, 0.8], [0.6, 0.4]) == pytest.approx(0.4)
    np.testing.assert_allclose(total_variation([[1, 0], [0.5, 0.5]], [0.5, 0.5]), [0.5, 0.0])


EMB = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 3.0], [-1.0, -3.0], [-1.0, 0.5]], np.float32)


def _pooling_model(peaked):
    """ids -> embedding -> AttentionPooling -> dense on the pooled vector's second feature.
    Peaked: token 2 (first feature 1) gets nearly all the weight; else all weights are equal."""
    ids = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(5, 2, mask_zero=True, name="embedding")(ids)
    x = AttentionPooling(2, name="pooling")(x)
    model = keras.Model(ids, keras.layers.Dense(2, activation="softmax", name="out")(x))
    model.get_layer("embedding").set_weights([EMB])
    pooling = model.get_layer("pooling")
    context = np.array([10.0, 0.0] if peaked else [0.0, 0.0], np.float32)
    pooling.set_weights([context, np.eye(2, dtype=np.float32) * 5, np.zeros(2, np.float32)])
    model.get_layer("out").set_weights([np.array([[0, 0], [-1, 1]], np.float32),
                                        np.zeros(2, np.float32)])
    return model


def test_permuting_uniform_weights_changes_nothing():
    model = _pooling_model(peaked=False)
    results = permutation_test(model, [[2, 3, 4], [4, 2]], num_permutations=6, seed=1)
    for r in results:
        np.testing.assert_allclose(r.tvd, 0.0, atol=1e-6)
        assert not r.flipped.any()
    assert results[0].max_attention == pytest.approx(1 / 3, abs=1e-6)
    assert results[1].max_attention == pytest.approx(1 / 2, abs=1e-6)


def test_permuting_peaked_weights_moves_the_output():
    model = _pooling_model(peaked=True)
    ids = np.array([[2, 3, 4, 0]])
    # the identity reproduces the model; an explicit permutation is computed by hand
    same = permuted_probabilities(model, ids, [[0, 1, 2, 3]])
    np.testing.assert_allclose(same, as_probabilities(model(ids)), atol=1e-6)
    from kerasattn.interpret import extract_attention

    (ex,) = extract_attention(model, ids)
    w = ex.attention["pooling"]
    assert w[0] > 0.99
    swapped = permuted_probabilities(model, ids, [[1, 0, 2, 3]])       # w' = [w1, w0, w2]
    pooled = w[1] * EMB[2] + w[0] * EMB[3] + w[2] * EMB[4]
    z = pooled[1] * np.array([-1.0, 1.0])
    np.testing.assert_allclose(swapped[0], np.exp(z) / np.exp(z).sum(), atol=1e-5)
    # seeded random permutations among the 3 real tokens (the padding stays put)
    results = permutation_test(model, ids, num_permutations=10, seed=0)
    again = permutation_test(model, ids, num_permutations=10, seed=0)
    np.testing.assert_array_equal(results[0].tvd, again[0].tvd)
    assert results[0].tvd.max() > 0.9 and results[0].flip_rate > 0
    assert results[0].max_attention > 0.99 and results[0].layer == "pooling"


def test_target_attention_and_word_level_pooling_are_reproduced_by_the_identity():
    keras.utils.set_random_seed(1)
    can = kerasattn.models.get("can-1sa-target", vocab_size=30, num_classes=2, d=16,
                               embedding_dim=8, num_heads=2)
    ids = np.array([[3, 4, 5, 6], [7, 8, 0, 0]])
    np.testing.assert_allclose(permuted_probabilities(can, ids, np.tile(np.arange(4), (2, 1))),
                               as_probabilities(can(ids)), atol=1e-6)
    assert not np.allclose(permuted_probabilities(can, ids, [[3, 2, 1, 0], [1, 0, 2, 3]]),
                           as_probabilities(can(ids)), atol=1e-7)
    han = kerasattn.models.get("han", vocab_size=30, num_classes=2, embedding_dim=8, units=4,
                               attention_units=4)
    docs = np.array([[[3, 4, 5], [6, 7, 0]], [[8, 0, 0], [0, 0, 0]]])
    assert [l.name for l in pooling_layers(han)] == ["word_attention", "sentence_attention"]
    identity = np.broadcast_to(np.arange(3), docs.shape)
    np.testing.assert_allclose(permuted_probabilities(han, docs, identity, "word_attention"),
                               as_probabilities(han(docs)), atol=1e-6)
    np.testing.assert_allclose(
        permuted_probabilities(han, docs, [[0, 1], [0, 1]], "sentence_attention"),
        as_probabilities(han(docs)), atol=1e-6)
    results = permutation_test(han, [[[3, 4, 5], [6, 7]], [[8]]], layer="sentence_attention",
                               num_permutations=3)
    np.testing.assert_allclose(results[1].tvd, 0.0)    # one sentence: nothing to permute


def test_unsupported_attention_is_refused():
    keras.utils.set_random_seed(0)
    iram = kerasattn.models.get("iram-vanilla", vocab_size=30, num_classes=2, embedding_dim=8,
                                units=8, maxout_units=6)
    with pytest.raises(ValueError, match="no pooling attention"):
        permutation_test(iram, [[3, 4, 5]])
    with pytest.raises(ValueError, match="not a supported pooling"):
        permuted_probabilities(iram, np.array([[3, 4]]), [[1, 0]], layer="iterative_attention")


def test_the_report_has_every_row_and_is_reproducible():
    keras.utils.set_random_seed(0)
    model = kerasattn.models.get("transformer", vocab_size=30, num_classes=2, embedding_dim=16,
                                 ff_dim=8)
    docs = [[3, 4, 5, 6, 7, 8], [9, 10, 11], [12]]
    kwargs = dict(ks=(10, 50), steps=3, num_permutations=3, random_draws=2, seed=3)
    rows = faithfulness_report(model, docs, labels=[1, 0, 1], **kwargs)
    erasure_rows = {r["method"]: r for r in rows if r["kind"] == "erasure"}
    assert set(erasure_rows) == {"gradient_x_input", "integrated_gradients", "leave_one_out",
                                 "attention", "rollout", "random"}
    for r in erasure_rows.values():
        assert r["documents"] == 3 and 0.0 <= r["accuracy"] <= 1.0
        for key in ("comprehensiveness_aopc", "comprehensiveness_aopc_std", "sufficiency_aopc",
                    "sufficiency_aopc_std", "comprehensiveness@10", "sufficiency@50"):
            assert np.isfinite(r[key]), key
        assert r["comprehensiveness_aopc"] == pytest.approx(
            (r["comprehensiveness@10"] + r["comprehensiveness@50"]) / 2)
    agreement = [r for r in rows if r["kind"] == "agreement"]
    assert {r["method"] for r in agreement} == {
        "attention~gradient_x_input", "attention~integrated_gradients",
        "attention~leave_one_out", "attention~rollout"}
    assert all(-1 <= r["kendall_tau"] <= 1 and r["documents"] == 2 for r in agreement)
    (perm,) = [r for r in rows if r["kind"] == "permutation"]
    assert perm["method"] == "permute inter_attention" and np.isfinite(perm["median_tvd"])
    again = faithfulness_report(model, docs, methods=["leave_one_out"], **kwargs)
    assert [r for r in again if r["method"] == "random"][0] == \
        {k: v for k, v in erasure_rows["random"].items() if k != "accuracy"}
    assert "| random |" in format_report(rows)


def test_the_report_on_a_hierarchical_model_and_a_model_without_attention():
    keras.utils.set_random_seed(0)
    han = kerasattn.models.get("han", vocab_size=30, num_classes=2, embedding_dim=8, units=4,
                               attention_units=4)
    rows = faithfulness_report(han, [[[3, 4, 5], [6, 7]], [[8, 9]]], ks=(20, 50), steps=2,
                               num_permutations=2, random_draws=1)
    kinds = {r["kind"] for r in rows}
    assert kinds == {"erasure", "agreement", "permutation"}
    assert all(np.isfinite(r["comprehensiveness_aopc"]) for r in rows if r["kind"] == "erasure")
    cnn = kerasattn.models.get("cnn", vocab_size=30, num_classes=2, embedding_dim=8, filters=4)
    rows = faithfulness_report(cnn, [[3, 4, 5, 6, 7]], methods=["leave_one_out"], ks=(50,))
    assert [r["method"] for r in rows] == ["leave_one_out", "random"]
    with pytest.raises(ValueError, match="does not apply"):
        faithfulness_report(cnn, [[3, 4, 5, 6, 7]], methods=["attention"])
