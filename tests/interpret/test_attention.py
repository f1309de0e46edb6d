"""extract_attention: the weights a model really uses, padding cut away."""

import keras
import numpy as np
import pytest

from kerasattn.data.preprocessing import TextPreprocessor
from kerasattn.interpret import attention_model, extract_attention
from kerasattn.interpret.attention import register_attention
from kerasattn.layers import SelfAttentionBlock
from kerasattn.models.sanet import build_sanet


@pytest.fixture(scope="module")
def model():
    keras.utils.set_random_seed(1)
    return build_sanet(40, 3, embedding_dim=8, d=16, num_blocks=2)


def test_the_weights_are_those_of_the_block_on_its_real_input(model):
    ids = np.array([[5, 6, 7, 8, 0, 0]])
    (ex,) = extract_attention(model, ids)
    assert ex.tokens == ["5", "6", "7", "8"]
    assert set(ex.attention) == {"self_attention_block_1", "self_attention_block_2"}
    assert ex.axes["self_attention_block_1"] == ("query", "key")
    # recompute block 1's weights from the projection's output by hand
    x = keras.Model(model.input, model.get_layer("projection").output)(ids[:, :4])
    _, expected = model.get_layer("self_attention_block_1")(
        x, mask=np.ones((1, 4), bool), return_attention_scores=True)
    np.testing.assert_allclose(ex.attention["self_attention_block_1"], np.asarray(expected)[0],
                               atol=1e-6)
    for a in ex.attention.values():
        assert a.shape == (4, 4)
        np.testing.assert_allclose(a.sum(axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(ex.probabilities, model.predict(ids, verbose=0)[0], atol=1e-6)


def test_padding_and_batch_neighbours_change_nothing(model):
    alone = extract_attention(model, [[5, 6, 7]])[0]
    padded = extract_attention(model, np.array([[5, 6, 7, 0, 0, 0, 0, 0, 0]]))[0]
    batched = extract_attention(model, [[5, 6, 7], list(range(2, 30))], batch_size=2)[0]
    for other in (padded, batched):
        assert other.tokens == alone.tokens
        np.testing.assert_allclose(other.probabilities, alone.probabilities, atol=1e-6)
        for name in alone.attention:
            np.testing.assert_allclose(other.attention[name], alone.attention[name], atol=1e-6)


def test_texts_through_the_preprocessor_keep_the_words_and_empty_texts_work(model):
    pre = TextPreprocessor(max_length=5).adapt(["a good film", "a bad film"])
    texts = ["A good film!", "", "unseen words a a a a a a"]
    out = extract_attention(model, texts, pre)
    assert out[0].tokens == ["a", "good", "film", "!"]
    assert out[2].tokens == ["unseen", "words", "a", "a", "a"]  # OOV words keep their text
    assert out[1].tokens == [] and out[1].attention["self_attention_block_1"].shape == (0, 0)
    assert all(np.all(np.isfinite(e.probabilities)) for e in out)
    with pytest.raises(ValueError, match="preprocessor"):
        extract_attention(model, texts)


def test_multi_head_weights_and_models_without_attention():
    keras.utils.set_random_seed(2)
    heads = build_sanet(30, 2, embedding_dim=8, d=16, num_heads=4)
    (ex,) = extract_attention(heads, [[3, 4, 5]])
    assert ex.axes["self_attention_block_1"] == ("head", "query", "key")
    assert ex.attention["self_attention_block_1"].shape == (4, 3, 3)
    baseline = build_sanet(30, 2, embedding_dim=8, d=16, attention=False)
    with pytest.raises(ValueError, match="no attention layer"):
        attention_model(baseline)


def test_the_probe_shares_weights_and_is_reusable(model):
    probe = attention_model(model)
    assert set(probe.output) == {"probabilities", "self_attention_block_1",
                                 "self_attention_block_2"}
    assert len(probe.weights) == len(model.weights)
    assert {id(v) for v in probe.weights} == {id(v) for v in model.weights}
    a = extract_attention(probe, [[9, 8, 7]])[0]
    b = extract_attention(model, [[9, 8, 7]])[0]
    np.testing.assert_allclose(a.attention["self_attention_block_2"],
                               b.attention["self_attention_block_2"])


def test_new_families_register_their_own_layers():
    @keras.saving.register_keras_serializable(package="kerasattn_test")
    class Pool(keras.layers.Layer):
        def call(self, x, return_attention_scores=False):
            w = keras.ops.softmax(keras.ops.sum(x, axis=-1), axis=-1)
            out = keras.ops.sum(x * w[..., None], axis=1)
            return (out, w) if return_attention_scores else out

        def compute_output_spec(self, x, return_attention_scores=False):
            out = keras.KerasTensor((x.shape[0], x.shape[2]))
            return (out, keras.KerasTensor(x.shape[:2])) if return_attention_scores else out

    register_attention(Pool, ("token",))
    ids = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(20, 4)(ids)
    m = keras.Model(ids, keras.layers.Dense(2, activation="softmax")(Pool(name="pool")(x)))
    (ex,) = extract_attention(m, [[1, 2, 3, 4]])
    assert ex.attention["pool"].shape == (4,)
    np.testing.assert_allclose(ex.attention["pool"].sum(), 1.0, atol=1e-6)
