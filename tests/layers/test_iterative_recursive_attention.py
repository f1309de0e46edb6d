"""IterativeRecursiveAttention (IRAM §3.1–3.2): the layout of A (Equation 4), masking with
variable lengths, the regulariser (Equation 3) against numpy, extraction, serialisation and
mixed precision. (It takes two inputs, so it has its own tests instead of the harness.)"""

import keras
import numpy as np
import pytest

from kerasattn.interpret import extract_attention
from kerasattn.layers import IterativeRecursiveAttention, MaskedGlobalMaxPooling1D
from kerasattn.layers.iterative_recursive_attention import attention_regularizer
from tests.layers.harness import check_seeds, equal_initial_weights

RNG = np.random.default_rng(0)
H = RNG.normal(size=(2, 5, 8)).astype("float32")
Q = RNG.normal(size=(2, 6)).astype("float32")
MASK = np.array([[True, True, True, False, False], [True] * 5])


def test_attention_layout_follows_equation_4():
    layer = IterativeRecursiveAttention(steps=3)
    s, a = layer([H, Q], mask=MASK, return_attention_scores=True)
    a = np.asarray(a)
    assert s.shape == (2, 8) and a.shape == (2, 3, 5 + 2)
    np.testing.assert_allclose(a.sum(-1), 1, rtol=1e-5)
    assert (a[0, :, 3:5] == 0).all()                 # padding
    assert (a[:, 0, 5:] == 0).all() and (a[:, 1, 6] == 0).all()  # summaries not yet made
    assert (a[:, 1, 5] > 0).all() and (a[:, 2, 5:] > 0).all()    # summaries made are attended


def test_padding_and_batch_neighbours_change_nothing():
    layer = IterativeRecursiveAttention(steps=3)
    s, a = layer([H, Q], mask=MASK, return_attention_scores=True)
    garbage = np.concatenate([H[:1, :3], 50 * np.ones((1, 6, 8), "float32")], axis=1)
    mask = np.arange(9)[None] < 3
    s2, a2 = layer([garbage, Q[:1]], mask=mask, return_attention_scores=True)
    np.testing.assert_allclose(np.asarray(s2), np.asarray(s)[:1], atol=1e-5)
    a, a2 = np.asarray(a)[0], np.asarray(a2)[0]
    np.testing.assert_allclose(a2[:, :3], a[:, :3], atol=1e-6)
    np.testing.assert_allclose(a2[:, 9:], a[:, 5:], atol=1e-6)  # the summaries' columns


def test_regulariser_matches_numpy_on_a_hand_made_matrix():
    a = np.array([[[0.5, 0.5, 0.0, 0.0], [0.0, 0.5, 0.5, 0.0], [0.2, 0.2, 0.2, 0.4]]],
                 "float32")
    gram = a[0] @ a[0].T
    expected = 3e-4 / (2 * 3) * (gram.sum() - np.trace(gram))  # = 3e-4/6 * 2*(0.25+0.2+0.2)
    np.testing.assert_allclose(float(attention_regularizer(a, 3e-4)), expected, rtol=1e-6)
    np.testing.assert_allclose(expected, 3e-4 / 6 * 1.3, rtol=1e-6)
    layer = IterativeRecursiveAttention(steps=3, gamma=0.5)
    _, weights = layer([H, Q], mask=MASK, return_attention_scores=True)
    assert len(layer.losses) == 1
    np.testing.assert_allclose(float(layer.losses[0]),
                               float(attention_regularizer(weights, 0.5)), rtol=1e-5)
    silent = IterativeRecursiveAttention(gamma=0.0)
    silent([H, Q], mask=MASK)
    assert not silent.losses


def _model(steps=3, gamma=3e-4):
    ids = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(20, 8, mask_zero=True, name="embedding")(ids)
    h = keras.layers.LSTM(8, return_sequences=True)(x)
    q = keras.layers.Dense(6)(MaskedGlobalMaxPooling1D()(h))
    s = IterativeRecursiveAttention(steps=steps, gamma=gamma, name="iram")([h, q])
    return keras.Model(ids, keras.layers.Dense(2, activation="softmax", dtype="float32")(s))


def test_in_a_model_extraction_trims_padding_and_keeps_the_summaries(tmp_path):
    keras.utils.set_random_seed(0)
    model = _model()
    ids = np.array([[3, 4, 5, 0, 0, 0], [6, 7, 8, 9, 10, 11]], "int32")
    ex = extract_attention(model, ids)
    assert ex[0].axes["iram"] == ("step", "memory")
    assert ex[0].attention["iram"].shape == (3, 3 + 2) and ex[1].attention["iram"].shape == (3, 8)
    np.testing.assert_allclose(ex[0].attention["iram"].sum(-1), 1, rtol=1e-5)
    alone, = extract_attention(model, ids[:1, :3])
    np.testing.assert_allclose(alone.attention["iram"], ex[0].attention["iram"], atol=1e-6)
    # trains (the regulariser is part of the loss) and round-trips in safe mode
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(ids, np.array([0, 1]), epochs=1, verbose=0)
    model(ids)  # losses of the last call (JAX keeps none from inside its compiled step)
    assert len(model.losses) == 1
    path = str(tmp_path / "iram.keras")
    model.save(path)
    loaded = keras.saving.load_model(path, safe_mode=True)
    np.testing.assert_allclose(np.asarray(loaded(ids)), np.asarray(model(ids)), atol=1e-6)
    assert loaded.get_layer("iram").get_config() == model.get_layer("iram").get_config()


@pytest.mark.parametrize("policy", ["mixed_float16", "mixed_bfloat16"])
def test_mixed_precision_is_finite(policy):
    keras.mixed_precision.set_global_policy(policy)
    try:
        layer = IterativeRecursiveAttention()
        s, a = layer([H, Q], mask=MASK, return_attention_scores=True)
        assert keras.backend.standardize_dtype(s.dtype) == layer.compute_dtype
        assert np.isfinite(np.asarray(s, "float32")).all()
        np.testing.assert_allclose(np.asarray(a, "float32").sum(-1), 1, rtol=1e-2)
    finally:
        keras.mixed_precision.set_global_policy("float32")


def test_an_all_padding_sequence_gives_no_nan():
    s, a = IterativeRecursiveAttention()([H, Q], mask=np.zeros((2, 5), bool),
                                         return_attention_scores=True)
    assert np.isfinite(np.asarray(s)).all() and np.isfinite(np.asarray(a)).all()
    assert (np.asarray(a)[:, :, :5] == 0).all()


def test_validation():
    with pytest.raises(ValueError, match="steps"):
        IterativeRecursiveAttention(steps=0)
    with pytest.raises(ValueError, match="gamma"):
        IterativeRecursiveAttention(gamma=-1)
    with pytest.raises(ValueError, match="highway_gate"):
        IterativeRecursiveAttention(highway_gate="open")


def test_the_summary_highway_takes_the_gate_asked_for():
    layer = IterativeRecursiveAttention(highway_gate="carry")
    layer([H, Q], mask=MASK)
    assert layer._highway.gate == "carry"
    clone = IterativeRecursiveAttention.from_config(layer.get_config())
    assert clone.highway_gate == "carry"
    assert IterativeRecursiveAttention().highway_gate == "transform"


def test_every_weight_starts_apart_and_seeds_repeat():
    # the bilinear W, the controller's kernels and the summary highway's two kernels are
    # all (8, 8) here: one shared initializer instance would start them equal
    def build():
        layer = IterativeRecursiveAttention(
            kernel_initializer=keras.initializers.RandomNormal(stddev=0.01))
        layer([H, H[:, 0]])
        return layer

    assert not equal_initial_weights(build)
    check_seeds(build)
