"""One harness every Keras preset goes through, built small (as keras-hub's
``run_preset_test`` and ``run_model_saving_test``). ``tests/models/test_presets.py``,
``test_preset_training.py`` and ``test_preset_serving.py`` run it over every registered
preset (three files, so that test workers share them);
``tests/models/test_adding_a_family.py`` over a family written outside the package.

The presets are found in the registry (:func:`zoo`), and each is built small with the
options its family's test file gives: ``tests/models/test_<family>.py`` defines
``small_options(name)``, the model options that make preset ``name`` small with its
architecture unchanged. The same file may also define

- ``FIT_OPTIONS``: preset -> more options for the training checks (e.g. weights drawn
  wider, so that one step's gradients are told apart from none);
- ``OPTION_VARIANTS``: id -> ``(preset, options)``, option variants that change the
  graph, run through the padding and training checks as presets are;
- ``TRAINED_IN_GRAPH_MODE``: preset -> ``"path::test"``, a default test elsewhere that
  trains that preset in graph mode, so that the harness takes its own train step
  eagerly (tracing one costs 5-20x the step; by default one preset of every builder,
  its representative, is traced, here or there);
- ``SERVED``: the family's preset exported and served by default (else its first
  preset by name; the others with ``-m slow``).

The checks: seeds (one seed builds the same weights and predictions twice, another other
weights, and no two weights drawn at random start equal), probabilities of the right
shape, the attention weights' axes and sums, padding invariance (more padding, or a text
alone, gives the same prediction), finite probabilities for an empty text, a training
step with the optimizer of the preset's recipe that moves every weight, the ``.keras``
round trip in safe mode (predictions, attention, optimizer), training under mixed
precision, loading in a fresh process, and ``TextClassifier.from_preset`` -> ``fit`` on
strings -> an exported SavedModel that serves raw text.
"""

import functools
import importlib
import json
import subprocess
import sys
import textwrap
import types

import keras
import numpy as np
import pytest

from kerasattn import heads, models, recipes
from tests.layers.harness import equal_drawn_weights

VOCAB = 50
# for presets that derive something from the words (iram-full's character n-grams)
WORDS = ["", "[UNK]"] + [f"word{i}" for i in range(2, VOCAB)]
# a few texts and labels for TextClassifier.fit (twice: some recipes keep only words seen
# twice)
TEXTS = ["a good film . really good !", "a bad film", "not good at all . bad", "great fun",
         "dull and slow . boring", "good good fun", "bad bad film . awful",
         "a gorgeous film", "dull and long", "witty , warm", "not good at all"] * 2
LABELS = [1, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0] * 2
SERVE = ["a good film . not bad at all", "dull", "", "great fun . really ! a bad film"]


# -- the family's test file ----------------------------------------------------------------

def family_tests(family):
    """``tests/models/test_<family>.py``, whose ``small_options`` the harness reads."""
    try:
        module = importlib.import_module(f"tests.models.test_{family}")
    except ModuleNotFoundError as error:
        raise AssertionError(f"family {family!r} has no test file tests/models/test_{family}.py "
                             "(it defines small_options(name) for the shared harness)") from error
    if not callable(getattr(module, "small_options", None)):
        raise AssertionError(f"tests/models/test_{family}.py defines no small_options(name)")
    return module


@functools.lru_cache(maxsize=None)
def zoo():
    """The registered Keras presets (when first asked: at collection) and what their
    families' test files say of them: ``presets``, ``families``, ``tests`` (family -> its
    test module), ``variants`` ((preset, options, test id) of every preset and option
    variant), ``trained_elsewhere`` (preset -> the default test that trains it in graph
    mode), ``representatives`` (one preset a builder: one trained elsewhere, else its
    first by name), ``traced_here`` (the representatives not trained elsewhere) and
    ``served`` (one preset a family)."""
    presets = models.names("keras")
    families = models.families("keras")
    tests = {family: family_tests(family) for family in families}
    variants = [(n, {}, n) for n in presets] + [
        (name, options, vid) for module in tests.values()
        for vid, (name, options) in getattr(module, "OPTION_VARIANTS", {}).items()]
    elsewhere = {name: where for module in tests.values()
                 for name, where in getattr(module, "TRAINED_IN_GRAPH_MODE", {}).items()}
    by_builder = {}
    for name in presets:
        by_builder.setdefault(models.get_preset(name).where("builder"), []).append(name)
    representatives = {builder: next((n for n in names if n in elsewhere), names[0])
                       for builder, names in by_builder.items()}
    served = {getattr(tests[family], "SERVED", None) or next(
        n for n in presets if models.get_preset(n).family == family) for family in families}
    return types.SimpleNamespace(
        presets=presets, families=families, tests=tests, variants=variants,
        trained_elsewhere=elsewhere, representatives=set(representatives.values()),
        builders=len(by_builder),
        traced_here=set(representatives.values()) - set(elsewhere), served=served)


def fit_options(name):
    """The family's ``FIT_OPTIONS`` of preset ``name`` (none: {})."""
    tests = family_tests(models.get_preset(name).family)
    return dict(getattr(tests, "FIT_OPTIONS", {}).get(name, {}))


def slow_unless(default):
    """No mark for a check of the default suite, else ``slow``."""
    return () if default else pytest.mark.slow


def small_options(name, tests=None):
    """The options that build preset ``name`` small."""
    tests = tests or family_tests(models.get_preset(name).family)
    return dict(tests.small_options(name))


def build(name, seed=0, num_classes=3, tests=None, **options):
    """Preset ``name`` built small under global seed ``seed`` (``options`` over the small
    ones)."""
    keras.utils.set_random_seed(seed)
    return models.get(name, vocab_size=VOCAB, num_classes=num_classes, vocabulary=WORDS,
                      **{**small_options(name, tests), **options})


# -- token ids -----------------------------------------------------------------------------

def ids_batch(rng, lengths, pad_to):
    """Flat ids: one row per length, random word ids then padding (0)."""
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


def padded(x, extra):
    """``x`` with ``extra`` more padded positions (for hierarchical models: more padded
    sentences and longer padded sentences)."""
    if x.ndim == 2:
        return np.pad(x, [[0, 0], [0, extra]])
    return np.pad(x, [[0, 0], [0, extra], [0, extra]])


def _np(t):
    return keras.ops.convert_to_numpy(t)


def _weights(model):
    return [(w.path, _np(w).copy()) for w in model.weights]


# -- the checks ----------------------------------------------------------------------------

def check_probabilities(model, x, num_classes=3):
    """(n, num_classes) float32 probabilities summing to 1 (one sigmoid unit for two
    classes counts as two columns)."""
    p = _np(model(x, training=False))
    assert p.dtype == np.float32 and np.isfinite(p).all()
    p = heads.as_probabilities(p)
    assert p.shape == (len(x), num_classes)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-5)
    return p


def check_seeds(make):
    """``make(seed)`` builds a model: one seed builds the same weights and predictions
    twice, another seed other weights, and no two weights drawn at random (those the
    seed moves) start equal (a Keras 3 initializer instance handed to two weights starts
    them equal: query and key projections alike give symmetric scores peaked on the
    diagonal)."""
    x = np.array([[3, 4, 5, 6, 7, 8, 9, 10], [11, 12, 13, 14, 0, 0, 0, 0]], "int32")
    first = make(0)
    x = x.reshape(2, 2, 4) if len(first.inputs[0].shape) == 3 else x
    again, other = make(0), make(1)
    a, b, c = _weights(first), _weights(again), _weights(other)
    assert len(a) == len(b) == len(c)  # (the paths of unnamed layers count up)
    for (path, u), (_, v) in zip(a, b):
        np.testing.assert_array_equal(u, v, err_msg=f"{path} differs under one seed")
    np.testing.assert_array_equal(_np(first(x)), _np(again(x)))
    if a:
        assert any(not np.array_equal(u, w) for (_, u), (_, w) in zip(a, c)), \
            "seeds 0 and 1 build the same weights"
    pairs = equal_drawn_weights(a, c)
    assert not pairs, f"weights that start equal: {pairs}"
    return first


def check_padding(model, name, policy="float32"):
    """The same texts padded further, or a text alone, give the same probabilities."""
    rng = np.random.default_rng(0)
    short = shaped_for(name, ids_batch(rng, [1, 7, 12, 3], 12))
    longer = padded(short, 29)
    a = _np(model(short, training=False))
    b = _np(model(longer, training=False))
    assert a.dtype == np.float32 and len(a) == 4
    tol = 1e-5 if policy == "float32" else 2e-3
    np.testing.assert_allclose(a, b, atol=tol)
    np.testing.assert_allclose(heads.as_probabilities(a).sum(axis=1), 1.0, atol=1e-3)
    # alone (the first text has one word) or batched with longer texts: the same prediction
    alone = _np(model(short[:1, :1, :1] if short.ndim == 3 else short[:1, :1], training=False))
    np.testing.assert_allclose(alone, a[:1], atol=tol)


def check_empty_text(model, name):
    out = _np(model(shaped_for(name, np.zeros((2, 4), "int32"))))
    assert np.isfinite(out).all()
    np.testing.assert_allclose(heads.as_probabilities(out).sum(axis=1), 1.0, atol=1e-5)


TOKEN_AXES = ("query", "key", "token")


def check_attention(model, x, atol=1e-5):
    """Every attention layer's weights through :func:`kerasattn.interpret.extract_attention`:
    one array per layer with its declared axes, each token axis cut to the document's
    real length (a word-level layer's to its longest sentence, a sentence-level layer's to
    its sentences, IRAM's ``"memory"`` one longer per step but the last), finite, >= 0,
    summing to 1 over the last axis (0 for an empty sentence); the probabilities are the
    model's. Returns the explanations (attention: {} for a model without)."""
    from kerasattn.interpret import extract_attention
    from kerasattn.interpret.attention import attention_axes, attention_layers

    hierarchical = x.ndim == 3
    # the model's own attention layers (not those inside them, e.g. HCAN's two branches)
    layers = {layer.name for layer in model.layers if attention_axes(layer) is not None}
    if not attention_layers(model):  # a model without attention says so
        with pytest.raises(ValueError, match="has no attention layer"):
            extract_attention(model, x)
        return []
    explanations = extract_attention(model, x)
    expected = heads.as_probabilities(_np(model(x, training=False)))
    assert len(explanations) == len(x)
    for ex, row, p in zip(explanations, x, expected):
        np.testing.assert_allclose(ex.probabilities, p, atol=atol)
        assert set(ex.attention) == layers == set(ex.axes)
        if hierarchical:  # the sentences up to the last with a word
            sentences = [s[s != 0] for s in row]
            while sentences and not len(sentences[-1]):
                sentences.pop()
            words = max((len(s) for s in sentences), default=0)
        else:
            tokens = int((row != 0).sum())
        for layer, w in ex.attention.items():
            axes = ex.axes[layer]
            assert w.ndim == len(axes), (layer, w.shape, axes)
            assert np.isfinite(w).all() and (w >= 0).all(), layer
            word_level = hierarchical and axes[0] == "sentence"
            length = (words if word_level else len(sentences)) if hierarchical else tokens
            for axis, size in zip(axes, w.shape):
                if axis in TOKEN_AXES:
                    assert size == length, (layer, axis, w.shape, length)
                elif axis == "sentence":
                    assert size == len(sentences), (layer, w.shape)
                elif axis == "memory":
                    steps = w.shape[axes.index("step")]
                    assert size == length + steps - 1, (layer, w.shape)
            if axes[-1] in (*TOKEN_AXES, "memory") and w.size:
                _check_sums(w.sum(axis=-1), axes[:-1], word_level,
                            [len(s) for s in sentences] if hierarchical else None,
                            1e-4 if atol <= 1e-5 else 5e-3, layer)
    return explanations


def _check_sums(sums, axes, word_level, lengths, rtol, layer):
    """The weights of each query (each row) sum to 1; in a hierarchical model, those of
    an empty sentence and of a padded word's query may be 0."""
    one = np.ones(sums.shape, bool)
    if lengths is not None:
        index = np.indices(sums.shape)
        lengths = np.asarray(lengths)
        if word_level:  # (sentence, ..., [query])
            one &= lengths[index[0]] > 0
            if "query" in axes:
                one &= index[axes.index("query")] < lengths[index[0]]
        elif "query" in axes:  # sentence-level queries: the sentences
            one &= lengths[index[axes.index("query")]] > 0
    np.testing.assert_allclose(sums[one], 1.0, rtol=rtol, err_msg=layer)
    rest = sums[~one]
    assert np.all(np.isclose(rest, 0.0, atol=rtol) | np.isclose(rest, 1.0, rtol=rtol)), layer


def _same_attention(a, b, atol=1e-6):
    for ea, eb in zip(a, b):
        assert set(ea.attention) == set(eb.attention)
        for layer in ea.attention:
            np.testing.assert_allclose(ea.attention[layer], eb.attention[layer], atol=atol,
                                       err_msg=layer)


def check_fit_and_round_trip(model, name, tmp_path, eager):
    """One epoch on four texts with the optimizer of the preset's recipe moves every
    weight (the padding row of an embedding may stay); the ``.keras`` file loads in safe
    mode with the same predictions, attention and optimizer."""
    from kerasattn.interpret import extract_attention
    from kerasattn.interpret.attention import attention_layers

    preset = models.get_preset(name)
    optimizer = recipes.make_optimizer(preset, learning_rate=1e-2)
    model.compile(optimizer, heads.loss_and_accuracy(model)[0], run_eagerly=eager)
    rng = np.random.default_rng(1)
    x = shaped_for(name, ids_batch(rng, [5, 9, 2, 11], 12))
    y = np.array([0, 1, 0, 1])
    before = [_np(w).copy() for w in model.trainable_weights]
    history = model.fit(x, y, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    changed = [not np.allclose(b, _np(w)) for b, w in zip(before, model.trainable_weights)]
    assert sum(changed) >= len(changed) - 1, [  # everything trains (padding row may not)
        w.path for w, c in zip(model.trainable_weights, changed) if not c]
    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = keras.saving.load_model(path, safe_mode=True)
    np.testing.assert_allclose(_np(loaded(x)), _np(model(x)), rtol=1e-5, atol=1e-6)
    assert type(loaded.optimizer) is type(model.optimizer)
    assert loaded.optimizer.get_config() == model.optimizer.get_config()
    if attention_layers(model):
        _same_attention(extract_attention(loaded, x), extract_attention(model, x))
    return loaded


def check_mixed_precision(make, name, policy):
    """Under a mixed policy (set by the caller before ``make()`` builds the model), a few
    steps with the optimizer of the preset's recipe (in a loss-scale optimizer under
    float16) keep the loss finite and lower it, and keep the probabilities float32 and
    the attention finite."""
    model = make()
    optimizer = recipes.make_optimizer(models.get_preset(name), learning_rate=1e-2)
    if policy == "mixed_float16":  # from a scale that overflows none of these few steps
        optimizer = keras.optimizers.LossScaleOptimizer(optimizer, initial_scale=2.0 ** 10)
    # eagerly: the same ops in the same dtypes, without tracing the steps
    model.compile(optimizer, heads.loss_and_accuracy(model)[0], run_eagerly=True)
    rng = np.random.default_rng(1)
    x = shaped_for(name, ids_batch(rng, [5, 9, 2, 11], 12))
    y = np.array([0, 1, 0, 1])
    before = model.evaluate(x, y, verbose=0, return_dict=True)["loss"]
    history = model.fit(x, y, epochs=4, batch_size=2, verbose=0)
    after = model.evaluate(x, y, verbose=0, return_dict=True)["loss"]
    assert np.isfinite(history.history["loss"]).all() and after < before, (before, after)
    check_probabilities(model, x, num_classes=2)
    check_attention(model, x, atol=2e-3)


FRESH = textwrap.dedent("""
    import json, os, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import numpy as np
    import kerasattn  # noqa: F401  (registers the zoo's layers)
    import keras
    out = {}
    for name, (path, x) in json.loads(sys.stdin.read()).items():
        model = keras.saving.load_model(path, safe_mode=True)
        out[name] = np.asarray(model(np.array(x, "int32"))).tolist()
    print(json.dumps(out))
""")


def check_fresh_process_loads(saved, expected):
    """``saved``: name -> (path of a .keras file, ids); each loads in a fresh process that
    imports only kerasattn, with safe_mode=True (no Lambda layer or pickled code anywhere),
    and predicts ``expected[name]``."""
    result = subprocess.run([sys.executable, "-c", FRESH], input=json.dumps(saved),
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    got = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(got) == set(expected)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-5, atol=1e-6,
                                   err_msg=name)


def check_from_preset_and_serve(name, tmp_path, options):
    """As a new user: ``TextClassifier.from_preset`` (small), ``fit`` on strings (under two
    seeds: every weight drawn at random starts apart when training begins), ``predict``,
    and ``export``: the SavedModel serves raw text with the same probabilities."""
    import tensorflow as tf

    from kerasattn import TextClassifier

    start = []
    for seed in (0, 1):
        keras.utils.set_random_seed(seed)
        clf = TextClassifier.from_preset(name, num_classes=2, **options)
        clf.run_eagerly = True  # two steps: tracing them takes about ten times longer
        grab = keras.callbacks.LambdaCallback(on_train_begin=lambda logs, clf=clf: start.append(
            [(w.path, _np(w).copy()) for w in clf.backbone.weights]))
        history = clf.fit(TEXTS, LABELS, epochs=1, batch_size=len(TEXTS) // 2, verbose=0,
                          callbacks=[grab])
        assert np.isfinite(history.history["loss"]).all()
    assert equal_drawn_weights(*start) == []
    probs = clf.predict(SERVE, verbose=0)
    assert probs.shape == (len(SERVE), 2) and probs.dtype == np.float32
    path = clf.export(str(tmp_path / name / "1"))
    serve = tf.saved_model.load(path).signatures["serving_default"]
    served = serve(text=tf.constant(SERVE))["probabilities"].numpy()
    np.testing.assert_allclose(served, probs, atol=1e-5)
    return clf
