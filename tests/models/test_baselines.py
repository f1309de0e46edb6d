"""Every registered Keras model: builds, is padding-invariant, trains a step, saves and loads."""

import keras
import numpy as np
import pytest

from kerasattn import heads, models

KERAS_MODELS = models.names(kind="keras")
# every preset as registered, plus option variants that change the graph
VARIANTS = [(n, {}) for n in KERAS_MODELS] + [("gru", {"pooling": "max"}),
                                              ("bilstm", {"pooling": "last"}),
                                              ("bilstm", {"pooling": "max"})]
VARIANT_IDS = [n + "".join(f"-{k}={v}" for k, v in o.items()) for n, o in VARIANTS]
VOCAB = 50


def ids_batch(rng, lengths, pad_to):
    x = np.zeros((len(lengths), pad_to), "int32")
    for i, n in enumerate(lengths):
        x[i, :n] = rng.integers(2, VOCAB, size=n)
    return x


def shaped_for(name, x, words=4):
    """Flat ids for flat models; for hierarchical ones, each text cut into sentences of
    ``words`` words: (batch, length) -> (batch, length / words, words)."""
    if not models.get_preset(name).hierarchical:
        return x
    return x.reshape(x.shape[0], -1, words)


def padded(name, x, extra):
    """``x`` with ``extra`` more padded positions (for hierarchical models: more padded
    sentences and longer padded sentences)."""
    if x.ndim == 2:
        return np.pad(x, [[0, 0], [0, extra]])
    return np.pad(x, [[0, 0], [0, extra], [0, extra]])


def test_registry_lists_the_foundation_models():
    assert set(KERAS_MODELS) >= {"mlp", "cnn", "rnn", "lstm", "bilstm", "gru"}
    assert set(models.names(kind="classical")) == {"nb", "lr"}
    with pytest.raises(ValueError, match="unknown model"):
        models.get("nope", vocab_size=10)
    with pytest.raises(ValueError, match="has no option"):
        models.get("gru", vocab_size=10, wings=2)
    with pytest.raises(ValueError, match="vocab_size"):
        models.get("gru", vocab_size=0)
    with pytest.raises(ValueError, match="pooling"):
        models.get("gru", vocab_size=10, pooling="mean")


# In float16 by default: one preset of each builder (the one whose train step is traced,
# below) and every pooling variant; the other presets reuse those layers (with -m slow).
FLOAT16_DEFAULT = {"mlp", "cnn", "gru", "sanet-base", "transformer", "hcan-2sa-target", "han",
                   "iram-vanilla", "iram-full"}
PADDING_PARAMS = [pytest.param(policy, name, options, id=f"{policy}-{i}",
                               marks=pytest.mark.slow if policy == "mixed_float16" and not options
                               and name not in FLOAT16_DEFAULT else ())
                  for policy in ("float32", "mixed_float16")
                  for (name, options), i in zip(VARIANTS, VARIANT_IDS)]


@pytest.mark.parametrize("policy,name,options", PADDING_PARAMS)
def test_same_text_padded_to_different_lengths_gives_the_same_prediction(policy, name, options):
    keras.mixed_precision.set_global_policy(policy)
    keras.utils.set_random_seed(1)
    model = models.get(name, vocab_size=VOCAB, num_classes=3, **options)
    rng = np.random.default_rng(0)
    lengths = [1, 7, 12, 3]
    short = shaped_for(name, ids_batch(rng, lengths, 12))
    longer = padded(name, short, 29)
    a = keras.ops.convert_to_numpy(model(short, training=False))
    b = keras.ops.convert_to_numpy(model(longer, training=False))
    assert a.shape == (4, 3) and a.dtype == np.float32
    tol = 1e-5 if policy == "float32" else 2e-3
    np.testing.assert_allclose(a, b, atol=tol)
    np.testing.assert_allclose(a.sum(axis=1), 1.0, atol=1e-3)
    # alone or batched with longer texts, a text gets the same prediction
    alone = keras.ops.convert_to_numpy(model(short[:1, :1, :1] if short.ndim == 3
                                             else short[:1, :1], training=False))
    np.testing.assert_allclose(alone, a[:1], atol=tol)


@pytest.mark.parametrize("name,options", VARIANTS, ids=VARIANT_IDS)
def test_empty_text_gives_finite_probabilities(name, options):
    model = models.get(name, vocab_size=VOCAB, num_classes=2, **options)
    out = keras.ops.convert_to_numpy(model(shaped_for(name, np.zeros((2, 4), "int32"))))
    assert np.isfinite(out).all()


# IRAM's presets draw their weights from N(0, 0.01) (its §4.2); one step's gradients
# through the attention are then ~1e-10, below what allclose tells apart, so this
# one-step check starts them from N(0, 0.1).
ONE_STEP_OPTIONS = {name: {"init_stddev": 0.1}
                    for name in ("iram-vanilla", "iram-baseline", "iram-full")}
# iram-full's traced step is the costliest here: one of each of its layers (one attention
# step, context, highway and maxout layer) has the same graph pieces at 60 % of the time
ONE_STEP_OPTIONS["iram-full"].update(steps=1, context_layers=1, highway_layers=1,
                                     maxout_layers=1)
# for presets that derive something from the words (iram-full's character n-grams)
WORDS = ["", "[UNK]"] + [f"word{i}" for i in range(2, VOCAB)]


# Tracing a preset's train step (graph mode) costs 5-20x its eager step. By default each
# builder's train step is traced once: here for the builders no other default test trains
# in graph mode, and for the others by the default test named below, which trains that
# preset through the command line (graph mode). Every other step here is taken eagerly,
# and traced with -m slow.
TRACED_BY = {
    "mlp": "tests/training/test_commands.py::test_train_mlp_on_sst2_learns_and_evaluate_reproduces",
    "cnn": "tests/training/test_faithfulness_commands.py::test_explain_works_for_models_without_attention",
    "gru": "tests/training/test_faithfulness_commands.py::test_explain_works_for_models_without_attention",
    "sanet-base": "tests/training/test_sanet_commands.py::test_sanet_base_learns_sst2",
    "transformer": "tests/models/test_transformer.py::test_transformer_learns_sst2_and_explain_draws_the_colour_map",
    "hcan-2sa-target": "tests/training/test_hcan_commands.py::test_hcan_learns_bbc",
    "iram-vanilla": "tests/models/test_iram.py::test_iram_vanilla_learns_sst2_and_explain_and_reproduce_read_it",
}
TRACED = {"han", "iram-full"}
STEP_PARAMS = []
for (_name, _options), _id in zip(VARIANTS, VARIANT_IDS):
    if _name in TRACED and not _options:
        STEP_PARAMS.append(pytest.param(_name, _options, False, id=_id))
    else:  # eager by default, its traced step with -m slow
        STEP_PARAMS.append(pytest.param(_name, _options, True, id=_id + "-eager"))
        STEP_PARAMS.append(pytest.param(_name, _options, False, id=_id, marks=pytest.mark.slow))


def test_one_traced_step_for_each_builder():
    import importlib

    from kerasattn.models import registry

    # float16 padding by default for one preset of every builder too
    assert {registry.get_preset(n).builder for n in FLOAT16_DEFAULT} == \
        {registry.get_preset(n).builder for n in KERAS_MODELS}

    traced = {registry.get_preset(n).builder for n in TRACED | set(TRACED_BY)}
    assert traced == {registry.get_preset(n).builder for n in KERAS_MODELS}
    assert not TRACED & set(TRACED_BY)
    for preset, where in TRACED_BY.items():  # a default test that trains it in graph mode
        path, name = where.split("::")
        test = getattr(importlib.import_module(path[:-3].replace("/", ".")), name)
        assert not [m for m in getattr(test, "pytestmark", []) if m.name == "slow"], where
        source = open(path, encoding="utf-8").read()
        assert f'"--model", "{preset}"' in source or f'"{preset}"' in source, where
    assert len(STEP_PARAMS) == len(VARIANTS) + sum(n not in TRACED or bool(o)
                                                   for n, o in VARIANTS)


@pytest.mark.parametrize("name,options,eager", STEP_PARAMS)
def test_trains_and_round_trips_through_keras_format(name, options, eager, tmp_path):
    keras.utils.set_random_seed(2)
    model = models.get(name, vocab_size=VOCAB, num_classes=2, vocabulary=WORDS,
                       **{**ONE_STEP_OPTIONS.get(name, {}), **options})
    model.compile("adam", heads.loss_and_accuracy(model)[0], run_eagerly=eager)
    rng = np.random.default_rng(1)
    x = shaped_for(name, ids_batch(rng, [5, 9, 2, 11], 12))
    y = np.array([0, 1, 0, 1])
    before = [keras.ops.convert_to_numpy(w).copy() for w in model.trainable_weights]
    model.fit(x, y, epochs=1, verbose=0)
    changed = [not np.allclose(b, keras.ops.convert_to_numpy(w))
               for b, w in zip(before, model.trainable_weights)]
    assert sum(changed) >= len(changed) - 1  # everything trains (padding row may not)
    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = keras.saving.load_model(path)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(loaded(x)),
                               keras.ops.convert_to_numpy(model(x)), rtol=1e-5, atol=1e-6)
