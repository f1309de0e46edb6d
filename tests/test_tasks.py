"""TextClassifier: every registered Keras preset from raw strings to a served SavedModel.

The preset harness (like keras-hub's ``run_task_test``): ``from_preset`` at a
small size -> ``fit`` on strings -> ``predict`` on strings (n, num_classes) ->
``.keras`` round trip with equal predictions -> ``export`` with equal
predictions in a fresh process that never imports kerasattn.
"""

import json
import os
import subprocess
import sys
import textwrap
import warnings

import keras
import numpy as np
import pytest
import tensorflow as tf

import kerasattn
from kerasattn import models

TRAIN = ["a good film . really good !", "a bad film", "not good at all . bad", "great fun",
         "dull and slow . boring", "good good fun", "bad bad film . awful"]
LABELS = ["pos", "neg", "neg", "pos", "neg", "pos", "neg"]
TEXTS = ["a good film . not bad at all", "dull", "", "great fun . really ! a bad film"]


def small_options(name):
    """Model options that make ``name`` tiny (its architecture unchanged)."""
    if name.startswith("sanet"):
        return {"embedding_dim": 8, "d": 8}
    if name.startswith(("can-", "hcan-")):
        return {"d": 16, "embedding_dim": 8, "num_heads": 2}
    if name == "han":
        return {"embedding_dim": 8, "units": 4, "attention_units": 4}
    if name.startswith("iram"):
        small = {"embedding_dim": 8, "units": 8, "maxout_units": 6}
        if name == "iram-full":
            small.update(ngram_dim=4, ngram_buckets=64, context_layers=1)
        return small
    if name == "transformer":
        return {"embedding_dim": 16, "ff_dim": 8}
    if name == "cnn":
        return {"embedding_dim": 8, "filters": 4}
    if name == "mlp":
        return {"embedding_dim": 8, "hidden_units": 8}
    return {"embedding_dim": 8, "units": 8}  # rnn, gru, lstm, bilstm


KERAS_PRESETS = models.names("keras")
# The default suite takes a flat softmax baseline and the sigmoid head through the whole
# path, and fits the presets the other tests here read (each attention family but HAN,
# a hierarchical one); the rest run with -m slow. TextClassifier.export is
# kerasattn.export.export_model on the backbone, which tests/test_export.py checks in a
# fresh process for one preset of every family; tests/models/test_baselines.py trains
# every preset and round-trips it through the .keras format.
SERVED = ("cnn", "transformer")
FITTED = ("cnn", "sanet-base", "transformer", "hcan-2sa-target", "iram-vanilla")
PRESET_PARAMS = [pytest.param(n, marks=() if n in SERVED else pytest.mark.slow)
                 for n in KERAS_PRESETS]

FRESH = textwrap.dedent("""
    import json, os, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow as tf
    paths, texts = json.loads(sys.stdin.read())
    out = {name: tf.saved_model.load(p).signatures["serving_default"](
               text=tf.constant(texts))["probabilities"].numpy().tolist()
           for name, p in paths.items()}
    out["modules"] = sorted(m for m in sys.modules if m.split(".")[0] == "kerasattn")
    print(json.dumps(out))
""")


def _served_presets(session):
    """The presets of this session's test_preset_from_strings_to_a_served_model items
    (those -m left)."""
    names = {item.callspec.params["name"] for item in session.items
             if getattr(item, "originalname", None) == "test_preset_from_strings_to_a_served_model"}
    return [n for n in KERAS_PRESETS if n in names]


@pytest.fixture(scope="module")
def fitted(tmp_path_factory, request):
    """The presets the other tests read and the selected presets: fitted on strings,
    saved and loaded; the selected ones exported too."""
    root = tmp_path_factory.mktemp("tasks")
    served = _served_presets(request.session)
    made = {}
    for name in [n for n in KERAS_PRESETS if n in served or n in FITTED]:
        keras.utils.set_random_seed(0)
        clf = kerasattn.TextClassifier.from_preset(name, **small_options(name))
        # two steps: eagerly, as tracing them takes about ten times longer (these presets
        # train in graph mode in their learning tests and in tests/models/test_baselines.py)
        clf.run_eagerly = True
        with warnings.catch_warnings():
            # eagerly, a batch of one-sentence texts gives HCAN's sentence attention no
            # gradient at all (its weights over one sentence are 1), and Keras says so
            warnings.filterwarnings("ignore", "Gradients do not exist", UserWarning)
            history = clf.fit(TRAIN, LABELS, epochs=1, batch_size=4, verbose=0)
        probs = clf.predict(TEXTS, verbose=0)
        path = str(root / f"{name}.keras")
        clf.save(path)
        loaded = keras.saving.load_model(path)  # safe_mode=True
        exported = clf.export(str(root / "saved" / name / "1")) if name in served else None
        made[name] = dict(clf=clf, history=history.history, probs=probs, loaded=loaded,
                          loaded_probs=loaded.predict(TEXTS, verbose=0), exported=exported)
    return made


@pytest.fixture(scope="module")
def served(fitted):
    paths = {n: m["exported"] for n, m in fitted.items() if m["exported"]}
    result = subprocess.run([sys.executable, "-c", FRESH], input=json.dumps([paths, TEXTS]),
                            capture_output=True, text=True, timeout=600,
                            env={**os.environ, "PYTHONPATH": ""}, cwd="/")
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", PRESET_PARAMS)
def test_preset_from_strings_to_a_served_model(name, fitted, served):
    m = fitted[name]
    assert np.isfinite(m["history"]["loss"]).all()
    assert m["probs"].shape == (len(TEXTS), 2) and m["probs"].dtype == np.float32
    np.testing.assert_allclose(m["probs"].sum(axis=1), 1.0, atol=1e-5)
    # .keras round trip: the vocabulary, class names and weights come back
    loaded = m["loaded"]
    assert isinstance(loaded, kerasattn.TextClassifier)
    assert loaded.class_names == ["neg", "pos"] == m["clf"].class_names
    assert loaded.preprocessor.vocabulary == m["clf"].preprocessor.vocabulary
    np.testing.assert_allclose(m["loaded_probs"], m["probs"], atol=1e-6)
    # the raw-text SavedModel, in a process without kerasattn
    np.testing.assert_allclose(served[name], m["probs"], atol=1e-5)


def test_the_fresh_process_never_imported_kerasattn(served):
    assert served["modules"] == []


def test_a_binary_sigmoid_head_predicts_two_columns(fitted):
    clf = fitted["transformer"]["clf"]
    assert clf.backbone.output_shape[-1] == 1  # one sigmoid unit
    p = clf.predict(TEXTS, verbose=0)
    assert p.shape == (len(TEXTS), 2)
    np.testing.assert_allclose(p[:, 1], np.ravel(clf.backbone(
        clf.preprocessor(tf.constant(TEXTS)))), atol=1e-6)


def test_predict_is_in_input_order_and_padding_free(fitted):
    clf = fitted["sanet-base"]["clf"]
    one_by_one = np.concatenate([clf.predict([t], verbose=0) for t in TEXTS])
    np.testing.assert_allclose(clf.predict(TEXTS, batch_size=3, verbose=0), one_by_one,
                               atol=1e-5)
    assert clf.predict([], verbose=0).shape == (0, 2)


def test_explain_gives_the_attention_of_extract_attention(fitted):
    from kerasattn.interpret import extract_attention

    clf = fitted["sanet-base"]["clf"]
    ours = clf.explain(TEXTS[:2])
    theirs = extract_attention(clf.backbone, TEXTS[:2], clf.preprocessor.text_preprocessor)
    assert [e.tokens for e in ours] == [e.tokens for e in theirs]
    for a, b in zip(ours, theirs):
        for layer in a.attention:
            np.testing.assert_allclose(a.attention[layer], b.attention[layer])
    hier = fitted["hcan-2sa-target"]["clf"].explain(["good film . bad plot"])[0]
    assert hier.hierarchical and [s[:2] for s in hier.tokens] == [["good", "film"],
                                                                   ["bad", "plot"]]
    # in a notebook: coloured words, the prediction by its class name
    names = list(clf.class_names)
    assert ours[0].class_names == names
    label = names[int(np.argmax(ours[0].probabilities))]
    assert f"prediction: {label} (" in ours[0]._repr_html_()
    attribution = clf.attribute(TEXTS[:1], method="gradient_x_input")[0]
    assert attribution.class_names == names and "title='" in attribution._repr_html_()
    assert "prediction:" in hier._repr_html_()


def test_explain_on_cnn_draws_a_gradient_attribution_and_the_summary_is_saved(fitted):
    m = fitted["cnn"]
    clf = m["clf"]
    (ex,) = clf.explain(["a good film"])
    assert ex.tokens == ["a", "good", "film"]
    assert ex.attention == {} and ex.attribution.method == "gradient_x_input"
    assert ex.attribution.tokens == ex.tokens and ex.attribution.scores.shape == (3,)
    page = ex._repr_html_()
    assert all(f">{w}</span>" in page for w in ex.tokens)
    # what fit trained comes back from the .keras file
    assert clf.training_summary["epochs"] == len(m["history"]["loss"]) == 1
    assert clf.training_summary["class_names"] == ["neg", "pos"]
    assert m["loaded"].training_summary == clf.training_summary


def test_the_preset_recipe_is_the_compile_default(fitted):
    from kerasattn.optimizers import GroupedSGD

    # the default recipe of SANet is the one that learns here: Adam; the paper's is SGD
    assert isinstance(fitted["sanet-base"]["clf"].optimizer, keras.optimizers.Adam)
    paper = kerasattn.TextClassifier.from_preset("sanet-base", num_classes=2, recipe="paper",
                                                 vocabulary=["", "[UNK]", "a"])
    assert isinstance(paper.optimizer, GroupedSGD)
    assert fitted["transformer"]["clf"].loss == "binary_crossentropy"
    assert fitted["cnn"]["clf"].loss == "sparse_categorical_crossentropy"
    iram = fitted["iram-vanilla"]["clf"].optimizer
    assert iram.amsgrad and iram.global_clipnorm


def test_fit_on_a_dataset_of_strings_and_integer_labels():
    keras.utils.set_random_seed(0)
    ds = tf.data.Dataset.from_tensor_slices((TRAIN, [1, 0, 0, 1, 0, 1, 0]))
    clf = kerasattn.TextClassifier.from_preset("cnn", num_classes=2, **small_options("cnn"))
    clf.fit(ds, epochs=2, batch_size=3, verbose=0, validation_data=ds)
    assert clf.class_names == ["0", "1"]
    assert clf.predict(tf.data.Dataset.from_tensor_slices(TEXTS), verbose=0).shape == (4, 2)
    loss, accuracy = clf.evaluate(TRAIN, [1, 0, 0, 1, 0, 1, 0], verbose=0)
    assert 0 <= accuracy <= 1 and np.isfinite(loss)


def test_fit_on_a_dataset_infers_the_classes():
    keras.utils.set_random_seed(0)
    names = tf.data.Dataset.from_tensor_slices((TRAIN, LABELS))
    clf = kerasattn.TextClassifier.from_preset("mlp", **small_options("mlp"))
    clf.fit(names, epochs=1, batch_size=4, verbose=0)
    assert clf.class_names == ["neg", "pos"] and clf.num_classes == 2
    ints = tf.data.Dataset.from_tensor_slices((TRAIN, [0, 1, 2, 0, 1, 2, 0])).batch(3)
    three = kerasattn.TextClassifier.from_preset("mlp", **small_options("mlp"))
    three.fit(ints, epochs=1, verbose=0)
    assert three.num_classes == 3 and three.predict(TEXTS, verbose=0).shape == (4, 3)


def test_a_scheduled_recipe_spans_the_steps_of_the_first_fit():
    # sanet-big's default warms up over 10 % of the steps and decays by a cosine: 7 texts
    # in batches of 3 are 3 steps an epoch, 6 over 2 epochs (1 of warm-up, 5 of decay)
    keras.utils.set_random_seed(0)
    clf = kerasattn.TextClassifier.from_preset("sanet-big", **small_options("sanet-big"))
    clf.fit(TRAIN, LABELS, epochs=2, batch_size=3, verbose=0)
    schedule = clf.optimizer._learning_rate
    assert isinstance(schedule, keras.optimizers.schedules.CosineDecay)
    assert (schedule.warmup_steps, schedule.decay_steps) == (1, 5)
    assert float(schedule(1)) == pytest.approx(5e-4) and float(schedule(6)) == 0.0


def test_run_eagerly_set_before_the_first_fit_is_kept():
    """fit compiles with the recipe when the classifier is not compiled yet, and Keras's
    compile resets run_eagerly to False: what the user set must survive it."""
    cases = [("mlp", {}, "set"),  # the recipe's compile waits for the vocabulary
             ("mlp", {}, "compile"),  # compile(run_eagerly=True) before the vocabulary
             ("mlp", {"compile": False, "vocabulary": ["", "[UNK]", "good", "bad"],
                      "class_names": ["neg", "pos"]}, "set"),  # built, not compiled
             ("sanet-big", {}, "set")]  # a scheduled recipe compiles again in fit
    for name, options, how in cases:
        clf = kerasattn.TextClassifier.from_preset(name, **options, **small_options(name))
        if how == "set":
            clf.run_eagerly = True
        else:
            clf.compile(run_eagerly=True)
        clf.fit(TRAIN, LABELS, epochs=1, batch_size=4, verbose=0)
        assert clf.run_eagerly is True, (name, options, how)
        # an eager train step is a plain function, a traced one a tf.function
        assert not hasattr(clf.train_function, "get_concrete_function"), (name, options, how)
    clf.compile()  # an explicit compile is Keras's: eager only when asked
    assert clf.run_eagerly is False


def test_the_preprocessor_is_a_keras_layer_for_tf_data():
    pre = kerasattn.TextClassifierPreprocessor(max_length=3).adapt(["c b a", "c b", "c"])
    assert pre.vocabulary == ["", "[UNK]", "c", "b", "a"]
    ds = tf.data.Dataset.from_tensor_slices(["c b a z", ""]).batch(2).map(pre)
    assert next(iter(ds)).numpy().tolist() == [[2, 3, 4], [0, 0, 0]]
    again = keras.layers.deserialize(keras.layers.serialize(pre))
    assert again.vocabulary == pre.vocabulary and again.get_config() == pre.get_config()
    # the end of a long text instead, kept through serialisation
    tail = kerasattn.TextClassifierPreprocessor(vocabulary=pre.vocabulary, max_length=2,
                                                truncation="tail")
    again = keras.layers.deserialize(keras.layers.serialize(tail))
    assert again.get_config()["truncation"] == "tail"
    assert again(["a z b c"]).numpy().tolist() == [[3, 2]]


def test_clear_errors():
    with pytest.raises(ValueError, match="scikit-learn preset"):
        kerasattn.TextClassifier.from_preset("nb")
    with pytest.raises(ValueError, match="no option"):
        kerasattn.TextClassifier.from_preset("cnn", nosuch=1)
    clf = kerasattn.TextClassifier.from_preset("cnn", num_classes=2, **small_options("cnn"))
    with pytest.raises(ValueError, match="not been fitted"):
        clf.save("x.keras")
    with pytest.raises(ValueError, match="one string"):
        clf.fit("a single text", [1])
    with pytest.raises(ValueError, match="label 3 but num_classes=2"):
        clf.fit(TRAIN[:2], [0, 3], epochs=1, verbose=0)


def test_a_named_recipe_sets_the_defaults():
    from kerasattn.optimizers import GroupedSGD

    paper = kerasattn.TextClassifier.from_preset("sanet-base", num_classes=2, recipe="paper",
                                                 vocabulary=["", "[UNK]", "a"])
    adjusted = kerasattn.TextClassifier.from_preset("sanet-base", num_classes=2,
                                                    vocabulary=["", "[UNK]", "a"],
                                                    recipe="adjusted", d=8)
    assert isinstance(paper.optimizer, GroupedSGD)
    assert isinstance(adjusted.optimizer, keras.optimizers.Adam)
    assert adjusted.model_options == {"scaled": True, "embedding_scale": 10, "d": 8}
    assert adjusted.get_config()["recipe"] == "adjusted"
    with pytest.raises(ValueError, match="no recipe 'nosuch'"):
        kerasattn.TextClassifier.from_preset("cnn", recipe="nosuch")


def test_from_run_opens_a_run_of_the_command_line(tmp_path):
    from kerasattn import heads, runs
    from kerasattn.cli import train

    path = tmp_path / "d.csv"
    path.write_text("text,label\n" + "".join(
        f"{'good fine' if i % 2 else 'bad poor'} {i},{'pos' if i % 2 else 'neg'}\n"
        for i in range(60)))
    run_dir, _ = train.train(["--model", "cnn", "--dataset", f"csv:{path}", "--epochs", "1",
                              "--model-option", "filters=4", "--model-option", "embedding_dim=8",
                              "--output-dir", str(tmp_path / "runs"), "--verbose", "0"])
    clf = kerasattn.TextClassifier.from_run(run_dir)
    _, model, pre = runs.load_keras_run(run_dir)
    expected = heads.as_probabilities(model(pre(tf.constant(TEXTS)).to_tensor()))
    np.testing.assert_allclose(clf.predict(TEXTS, verbose=0), expected, atol=1e-5)
    # the run's model.keras is the classifier itself (raw strings in): from_run is a load
    saved = keras.saving.load_model(os.path.join(run_dir, runs.KERAS_MODEL))
    assert isinstance(saved, kerasattn.TextClassifier) and saved.class_names == ["neg", "pos"]
    np.testing.assert_allclose(saved.predict(TEXTS, verbose=0), expected, atol=1e-5)
    assert int(saved.optimizer.iterations) > 0  # the best epoch's optimizer state with it
    assert clf.class_names == ["neg", "pos"]
