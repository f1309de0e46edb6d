"""TextClassifier (issue 79, item 3): class names flow from the data, ``explain`` draws
words for a model without attention, ``training_summary`` records what ``fit`` trained,
and the notebook view (``_repr_html_``)."""

import json
import re

import keras
import numpy as np
import pytest

import kerasattn
from kerasattn.data.datasets.definitions import Split, TextDataset

TRAIN = ["a good film . really good !", "a bad film", "not good at all . bad", "great fun",
         "dull and slow . boring", "good good fun", "bad bad film . awful", "good fun"]
INTS = [1, 0, 0, 1, 0, 1, 0, 1]
VAL = ["good", "bad film", "fun"]
TEST = ["great", "awful"]
NAMES = ["negative", "positive"]
MLP = {"embedding_dim": 8, "hidden_units": 8}


def toy(names=NAMES, name="toy"):
    return TextDataset(name, Split(TRAIN, INTS), Split(VAL, [1, 0, 1]), Split(TEST, [1, 0]),
                       list(names))


def mlp(**kwargs):
    keras.utils.set_random_seed(0)
    clf = kerasattn.TextClassifier.from_preset("mlp", **MLP, **kwargs)
    clf.run_eagerly = True  # a few steps: tracing them would take longer than running
    return clf


@pytest.fixture(scope="module")
def from_dataset():
    clf = mlp()
    history = clf.fit(toy(), epochs=2, batch_size=4, seed=3, verbose=0)
    return clf, history


def test_fit_on_a_text_dataset_takes_its_names_and_its_val_split(from_dataset):
    clf, history = from_dataset
    assert clf.class_names == NAMES and clf.num_classes == 2
    assert set(clf.predict_labels(["good fun", "awful"], verbose=0)) <= set(NAMES)
    assert len(history.history["val_accuracy"]) == 2  # the val split was validated on
    summary = clf.training_summary
    assert summary == {
        "epochs": 2, "epochs_requested": 2, "batch_size": 4, "recipe": "default",
        "early_stopping": None, "seed": 3, "train_texts": 8, "validation_texts": 3,
        "dataset": {"name": "toy", "sizes": {"train": 8, "val": 3, "test": 2}},
        "validation": {"accuracy": history.history["val_accuracy"][-1], "examples": 3},
        "class_names": NAMES}
    assert json.loads(json.dumps(summary)) == summary  # plain data


def test_the_names_of_the_data_reach_the_export_and_the_card(from_dataset, tmp_path):
    clf, _ = from_dataset
    path = clf.export(str(tmp_path / "served" / "1"))
    assert (tmp_path / "served" / "1" / "assets" / "labels.txt").read_text() == \
        "negative\npositive\n"
    clf.save_to_preset(str(tmp_path / "preset"))
    assert "Classes: negative, positive." in (tmp_path / "preset" / "README.md").read_text()
    again = kerasattn.TextClassifier.from_preset(str(tmp_path / "preset"))
    assert again.class_names == NAMES
    assert again.training_summary == clf.training_summary
    assert path.endswith("1")


def test_class_names_name_integer_labels():
    given = mlp(class_names=NAMES)
    given.fit(TRAIN, INTS, epochs=1, batch_size=4, verbose=0)
    assert given.class_names == NAMES
    assert set(given.predict_labels(TRAIN[:3], verbose=0)) <= set(NAMES)
    in_fit = mlp()
    in_fit.fit(TRAIN, INTS, epochs=1, batch_size=4, verbose=0, class_names=("bad", "good"))
    assert in_fit.class_names == ["bad", "good"]
    assert in_fit.training_summary["class_names"] == ["bad", "good"]
    # a classifier with only the default names takes the data's later
    unnamed = mlp(num_classes=2)
    unnamed.fit(TRAIN, INTS, epochs=1, batch_size=4, verbose=0)
    assert unnamed.class_names == ["0", "1"]
    unnamed.fit(toy(), epochs=1, batch_size=4, verbose=0)
    assert unnamed.class_names == NAMES == unnamed.training_summary["class_names"]


def test_data_of_other_classes_is_refused_in_one_line():
    named = mlp(class_names=["bad", "good"])
    with pytest.raises(ValueError) as e:
        named.fit(toy(), epochs=1, verbose=0)
    assert str(e.value) == ("dataset 'toy' has the classes ['negative', 'positive'] but "
                            "this classifier's are ['bad', 'good']: fit it on data of its "
                            "own classes, in its order")
    with pytest.raises(ValueError, match=r"^dataset 'toy' has 2 classes .* num_classes=3$"):
        mlp(num_classes=3).fit(toy(), epochs=1, verbose=0)
    with pytest.raises(ValueError, match="takes the labels from the dataset"):
        mlp().fit(toy(), INTS, epochs=1, verbose=0)
    with pytest.raises(ValueError, match=r"^label 2 but the classes are \['negative', "
                                         r"'positive'\] \(integer labels 0 to 1\)$"):
        mlp(class_names=NAMES).fit(TRAIN[:2], [0, 2], epochs=1, verbose=0)
    with pytest.raises(ValueError, match="more than once"):
        mlp().fit(toy(names=["a", "a"]), epochs=1, verbose=0)
    assert named.class_names == ["bad", "good"] and named.backbone is None  # untouched


def test_the_training_summary_adds_up_epochs_and_keeps_the_latest_settings():
    clf = mlp()
    assert clf.training_summary is None
    clf.fit(TRAIN, INTS, epochs=2, batch_size=4, verbose=0)
    stop = keras.callbacks.EarlyStopping(monitor="loss", patience=0, min_delta=10.0)
    clf.fit(TRAIN, INTS, epochs=5, batch_size=8, verbose=0, callbacks=[stop],
            validation_data=(VAL, [1, 0, 1]))
    summary = clf.training_summary
    # min_delta=10: no epoch improves on the first, so patience 0 stops after the second
    assert summary["epochs"] == 2 + 2 and summary["epochs_requested"] == 5
    assert summary["early_stopping"] == {"monitor": "loss", "patience": 0,
                                         "stopped_epoch": 1}
    assert (summary["batch_size"], summary["seed"], summary["dataset"]) == (8, None, None)
    assert (summary["train_texts"], summary["validation_texts"]) == (8, 3)
    assert summary["validation"]["examples"] == 3
    assert 0.0 <= summary["validation"]["accuracy"] <= 1.0
    assert summary["class_names"] == ["0", "1"]
    # the config keeps it: a .keras file and from_config give it back
    again = kerasattn.TextClassifier.from_config(clf.get_config())
    assert again.training_summary == summary


def test_the_training_summary_survives_a_keras_file(from_dataset, tmp_path):
    clf, _ = from_dataset
    clf.save(str(tmp_path / "m.keras"))
    loaded = keras.saving.load_model(str(tmp_path / "m.keras"))
    assert loaded.training_summary == clf.training_summary
    assert loaded.class_names == NAMES


def test_explain_without_attention_draws_a_gradient_attribution(from_dataset):
    clf, _ = from_dataset
    texts = ["a good film", "awful", ""]
    explanations = clf.explain(texts)
    attributions = clf.attribute(texts, method="gradient_x_input")
    np.testing.assert_allclose([e.probabilities for e in explanations],
                               clf.predict(texts, verbose=0), atol=1e-5)
    assert [e.tokens for e in explanations] == [["a", "good", "film"], ["awful"], []]
    for ex, attribution in zip(explanations, attributions):
        # no attention to show: the gradient attribution stands in its place
        assert ex.attention == {} and ex.axes == {}
        assert ex.attribution.method == "gradient_x_input"
        assert ex.attribution.target == ex.label
        assert ex.attribution.tokens == ex.tokens
        np.testing.assert_allclose(ex.attribution.scores, attribution.scores, atol=1e-6)
        assert ex.class_names == NAMES
    scores = np.asarray(explanations[0].attribution.scores)
    assert np.any(scores != 0)
    page = explanations[0]._repr_html_()
    assert "gradient × input" in page
    assert [w for w in ("a", "good", "film") if f">{w}</span>" not in page] == []
    assert "prediction: negative (" in page or "prediction: positive (" in page
    # each word in the signed palette: green for a positive score, purple for a negative
    # one, so a word against the prediction is coloured too, not left blank
    for word, score in zip(("a", "good", "film"), scores):
        colour = re.search(rf"background:([^']*)' title='[^']*'>{word}</span>", page).group(1)
        rgb = "27, 120, 55" if score > 0 else "118, 42, 131" if score < 0 else None
        assert (rgb in colour) if rgb else colour == "transparent", (word, score, colour)


def test_a_negative_gradient_score_is_drawn_not_blank():
    from kerasattn.interpret.attention import Explanation
    from kerasattn.interpret.attributions import TokenAttribution

    attribution = TokenAttribution(tokens=["fine", "but", "dull"],
                                   scores=np.array([0.5, 0.0, -1.0], np.float32),
                                   probabilities=np.array([0.2, 0.8], np.float32), target=1,
                                   method="gradient_x_input", ids=[3, 4, 5])
    ex = Explanation(tokens=attribution.tokens, probabilities=attribution.probabilities,
                     attention={}, axes={}, attribution=attribution)
    page = ex._repr_html_()
    colours = dict((w, c) for c, w in re.findall(
        r"background:([^']*)' title='[^']*'>(\w+)</span>", page))
    # |score| over the largest |score|: 0.5 -> opacity 0.05 + 0.85 * 0.5, 1.0 -> 0.9
    assert colours == {"fine": "rgba(27, 120, 55, 0.475)", "but": "transparent",
                       "dull": "rgba(118, 42, 131, 0.900)"}


def _rules(fragment):
    style = re.search(r"<style>(.*?)</style>", fragment, re.S).group(1)
    return [r.strip() for r in re.findall(r"([^{}]+)\{", style)]


def test_the_notebook_view_before_and_after_fit(from_dataset):
    fresh = mlp(class_names=["<b>bad</b>", "good"])
    a, b = fresh._repr_html_(), fresh._repr_html_()
    ids = [re.search(r"<div class='kerasattn-root' id='(kerasattn-[0-9a-f]{32})'>",
                     view).group(1) for view in (a, b)]
    assert ids[0] != ids[1]
    for view, root in zip((a, b), ids):
        rules = _rules(view)
        assert rules and all(s.strip().startswith(f"#{root}")
                             for rule in rules for s in rule.split(","))
    assert "<tr><th>parameters</th><td>not built yet</td></tr>" in a
    assert "<tr><th>preset</th><td>mlp</td></tr>" in a
    assert "<tr><th>recipe</th><td>default</td></tr>" in a
    assert "&lt;b&gt;bad&lt;/b&gt;, good" in a and "<b>bad</b>" not in a
    assert "<tr><th>trained</th><td>not yet (call fit)</td></tr>" in a

    clf, history = from_dataset
    view = clf._repr_html_()
    assert f"<tr><th>parameters</th><td>{clf.backbone.count_params():,}</td></tr>" in view
    assert "<tr><th>classes</th><td>negative, positive</td></tr>" in view
    assert "<tr><th>epochs</th><td>2 run (2 asked for in the latest fit)</td></tr>" in view
    assert "<tr><th>dataset</th><td>toy (train 8, val 3, test 2)</td></tr>" in view
    accuracy = history.history["val_accuracy"][-1]
    assert (f"<tr><th>validation accuracy</th><td>{accuracy:.4f} on 3 texts (last epoch)"
            "</td></tr>") in view
