"""TextClassifier refuses what it cannot honour with one clear ValueError: arguments of
the wrong type, duplicate class names, labels of one class, no texts or texts that are
not strings, predicting before fitting, and saving to a format that cannot load back."""

import numpy as np
import pytest

from kerasattn import TextClassifier

TEXTS = ["a good film", "a bad film", "good fun", "bad plot"] * 3


@pytest.mark.parametrize("num_classes", ["2", 2.5, True])
def test_num_classes_must_be_an_integer(num_classes):
    with pytest.raises(ValueError, match="num_classes must be an integer >= 2"):
        TextClassifier.from_preset("mlp", num_classes=num_classes)


def test_numpy_integers_are_integers():
    assert TextClassifier.from_preset("mlp", num_classes=np.int64(3)).num_classes == 3


def test_duplicate_class_names_are_refused():
    with pytest.raises(ValueError, match=r"class_names names \['a'\] more than once"):
        TextClassifier.from_preset("mlp", class_names=["a", "a"])


@pytest.mark.parametrize("labels", [[1] * 12, ["pos"] * 12])
def test_labels_of_one_class_are_refused(labels):
    clf = TextClassifier.from_preset("mlp")
    with pytest.raises(ValueError, match="a classifier needs examples of at least two"):
        clf.fit(TEXTS, labels, epochs=1, verbose=0)


def test_fit_without_texts_or_with_non_strings_says_so():
    clf = TextClassifier.from_preset("mlp", num_classes=2)
    with pytest.raises(ValueError, match="fit needs training texts"):
        clf.fit(None, [0, 1])
    with pytest.raises(ValueError, match="fit takes a list of strings .*int"):
        clf.fit([1, 2, 3, 4], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="fit needs labels"):
        clf.fit(TEXTS)
    with pytest.raises(ValueError, match="12 texts but 2 labels"):
        clf.fit(TEXTS, [0, 1])


def test_predict_and_evaluate_before_fit_say_not_fitted():
    clf = TextClassifier.from_preset("mlp", num_classes=2)
    with pytest.raises(ValueError, match="predict: this classifier has not been fitted"):
        clf.predict(["a good film"])
    with pytest.raises(ValueError, match="evaluate: this classifier has not been fitted"):
        clf.evaluate(["a good film"], [1])
    assert clf.preprocessor.vocabulary is None  # nothing was adapted on evaluation texts


def test_save_refuses_a_format_that_cannot_load_back(tmp_path):
    clf = TextClassifier.from_preset("mlp", num_classes=2,
                                     model_options={"embedding_dim": 4, "hidden_units": 4})
    clf.fit(TEXTS, [1, 0, 1, 0] * 3, epochs=1, verbose=0)
    with pytest.raises(ValueError, match=r"x\.h5: a TextClassifier saves to a \.keras file"):
        clf.save(str(tmp_path / "x.h5"))
    assert not (tmp_path / "x.h5").exists()
    clf.save(str(tmp_path / "x.keras"))
    assert (tmp_path / "x.keras").exists()


def test_loading_never_opens_a_path_named_in_the_config(tmp_path, monkeypatch):
    import json
    import zipfile

    import keras

    clf = TextClassifier.from_preset("mlp", num_classes=2,
                                     model_options={"embedding_dim": 4, "hidden_units": 4})
    clf.fit(TEXTS, [1, 0, 1, 0] * 3, epochs=1, verbose=0)
    path = tmp_path / "x.keras"
    clf.save(str(path))
    secret = tmp_path / "secret.txt"
    secret.write_text("good 1 2 3 4\n")
    tampered = tmp_path / "tampered.keras"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tampered, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "config.json":
                config = json.loads(data)
                config["config"]["embeddings"] = str(secret)
                data = json.dumps(config).encode()
            dst.writestr(item, data)
    opened = []
    real_open = open

    def watching(file, *args, **kwargs):
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", watching)
    loaded = keras.saving.load_model(str(tampered))
    assert str(secret) not in opened
    np.testing.assert_allclose(loaded.predict(TEXTS[:2], verbose=0),
                               clf.predict(TEXTS[:2], verbose=0), atol=1e-6)
