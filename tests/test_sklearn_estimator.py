"""kerasattn.sklearn: a Keras preset as a scikit-learn classifier on raw texts, and the
scikit-learn tags and checks of nb / lr (TfidfClassifier). No dataset needed."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone, is_classifier
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.utils import get_tags

from kerasattn import models
from kerasattn.models import tfidf
from kerasattn.sklearn import EstimatorInputError, KerasTextClassifier, as_texts

# every word but "film"/"cast" gives the label; four texts a class, five times over
TEXTS = ["good film", "great film", "fine cast", "good cast",
         "bad film", "awful film", "dull cast", "bad cast"] * 5
WORDS = ["pos"] * 4 + ["neg"] * 4
LABELS = WORDS * 5
TINY = {"hidden_units": 8, "embedding_dim": 8}


def tiny(**params):
    """The mlp preset at its smallest, one epoch a fit."""
    return KerasTextClassifier(**{"preset": "mlp", "epochs": 1, "batch_size": 8,
                                  "model_options": dict(TINY), **params})


# -- the estimator's parameters: no Keras needed ------------------------------------

def test_parameters_are_stored_as_given_and_clone():
    est = KerasTextClassifier(preset="cnn", epochs=2, model_options={"filters": 4})
    assert is_classifier(est)
    assert est.get_params() == {"preset": "cnn", "recipe": "default", "epochs": 2,
                                "batch_size": None, "seed": 0,
                                "model_options": {"filters": 4}, "verbose": 0}
    twin = clone(est).set_params(epochs=3, preset="mlp")
    assert (twin.epochs, twin.preset, est.epochs, est.preset) == (3, "mlp", 2, "cnn")
    assert twin.model_options == {"filters": 4} and twin.model_options is not \
        est.model_options  # clone copies the dict
    assert pickle.loads(pickle.dumps(est)).get_params() == est.get_params()
    with pytest.raises(NotFittedError):
        est.predict(["a film"])


@pytest.mark.parametrize("estimator", [KerasTextClassifier(), tfidf.TfidfClassifier()],
                         ids=["keras", "tfidf"])
def test_both_declare_string_input(estimator):
    tags = get_tags(estimator)
    assert tags.input_tags.string and tags.input_tags.one_d_array
    assert not tags.input_tags.two_d_array


def test_seedless_is_declared_non_deterministic():
    assert not get_tags(KerasTextClassifier()).non_deterministic
    assert get_tags(KerasTextClassifier(seed=None)).non_deterministic


@pytest.mark.parametrize("X,message", [
    ("good film", "got one string"),
    (np.array([["good film"], ["bad film"]]), r"1-D sequence of texts .* shape \(2, 1\)"),
    (["good film", 3], "got int at index 1"),
    (7, "got int"),
])
def test_what_is_not_a_list_of_texts_is_refused(X, message):
    with pytest.raises(EstimatorInputError, match=message):
        as_texts(X, "fit")
    with pytest.raises(EstimatorInputError, match=message):
        tfidf.TfidfClassifier(min_df=1).fit(X, [0, 1])


def test_texts_come_as_strings():
    assert as_texts(np.array(["a", "b c"])) == ["a", "b c"]
    assert as_texts(("a", b"caf\xc3\xa9")) == ["a", "café"]
    assert as_texts(x for x in ["a"]) == ["a"]


@pytest.mark.parametrize("y,message", [
    (["pos"] * 8, r"at least two classes, y has only \['pos'\]"),
    ([0.5, 1.5] * 4, "Unknown label type"),
    ([0, 1] * 3, "8 texts but 6 labels"),
])
def test_labels_it_cannot_fit_are_refused(y, message):
    with pytest.raises(ValueError, match=message):
        tiny().fit(TEXTS[:8], y)


# -- scikit-learn's checks on TfidfClassifier -----------------------------------------

def test_check_estimator_skips_string_input_estimators():
    """scikit-learn's checks build 2-D numeric arrays; an estimator that declares string
    input (two_d_array False) is skipped whole, with a SkipTestWarning, and passes."""
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_estimator(tfidf.TfidfClassifier())
    assert any("Can't test estimator TfidfClassifier" in str(w.message) for w in caught)


@pytest.mark.parametrize("check", [
    "check_estimator_cloneable", "check_estimator_tags_renamed", "check_valid_tag_types",
    "check_estimator_repr", "check_no_attributes_set_in_init",
    "check_do_not_raise_errors_in_init_or_set_params", "check_mixin_order",
    "check_parameters_default_constructible", "check_get_params_invariance",
    "check_set_params"])
@pytest.mark.parametrize("estimator", [tfidf.TfidfClassifier(), KerasTextClassifier()],
                         ids=["tfidf", "keras"])
def test_scikit_learns_api_checks_that_need_no_numeric_data_pass(check, estimator):
    from sklearn.utils import estimator_checks

    getattr(estimator_checks, check)(type(estimator).__name__, estimator)


def test_tfidf_checks_of_fitting_on_texts():
    """What check_estimator would check with numbers, with texts: fit returns the
    estimator and leaves its parameters; predictions do not depend on the order or the
    company of the texts; string labels come back in classes_."""
    nb = tfidf.TfidfClassifier(min_df=1, ngram_range=(1, 1))
    before = clone(nb).get_params()
    assert nb.fit(TEXTS, LABELS) is nb
    assert nb.get_params().keys() == before.keys()
    assert all(nb.get_params()[k] == v for k, v in before.items() if k != "estimator")
    probs = nb.predict_proba(TEXTS[:8])
    np.testing.assert_allclose(nb.predict_proba(TEXTS[:8][::-1]), probs[::-1], rtol=1e-6)
    np.testing.assert_allclose(nb.predict_proba(TEXTS[2:4]), probs[2:4], rtol=1e-6)
    assert nb.predict(TEXTS[:8]).tolist() == WORDS


# -- lr converges, or says what to raise ------------------------------------------------

def test_lr_that_stops_early_says_what_to_raise():
    lr = models.get("lr", num_classes=2, min_df=1, max_iter=1, l1_ratio=0.0)
    with pytest.warns(tfidf.NotConvergedWarning,
                      match=r"stopped at max_iter=1 before converging: raise max_iter"):
        lr.fit(TEXTS, LABELS)
    assert list(lr.classes_) == ["neg", "pos"]  # fitted all the same


def test_other_warnings_of_the_fit_still_come_through():
    nb = tfidf.TfidfClassifier(estimator=tfidf.MultinomialNB(alpha=0.0, force_alpha=False),
                               min_df=1)
    with pytest.warns(UserWarning, match="alpha too small"):
        nb.fit(TEXTS, LABELS)


# -- KerasTextClassifier fitted: each fit builds, compiles and traces a model (a few
# seconds), so few fits a test, on many copies of the texts rather than many epochs

MANY, MANY_LABELS = TEXTS * 8, LABELS * 8


@pytest.mark.parametrize("labels,classes", [
    (MANY_LABELS, ["neg", "pos"]),
    ([7 if w == "pos" else 3 for w in MANY_LABELS], [3, 7]),  # integers, not 0..k-1
])
def test_fit_maps_labels_to_sorted_classes(labels, classes):
    est = tiny(epochs=3)
    # validation labels as the training labels are given (mapped like them)
    assert est.fit(MANY, labels, validation_data=(TEXTS, labels[:len(TEXTS)])) is est
    assert est.history_["val_accuracy"][-1] == 1.0
    assert est.classes_.tolist() == classes
    assert est.classifier_.class_names == [str(c) for c in classes]
    probs = est.predict_proba(["great cast", "awful cast"])
    assert probs.shape == (2, 2)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    # columns in classes_ order: "great" is the larger class (pos / 7), "awful" the smaller
    assert est.predict(["great cast", "awful cast"]).tolist() == classes[::-1]
    assert est.score(TEXTS, labels[:len(TEXTS)]) == 1.0
    assert len(est.history_["loss"]) == 3


def test_a_seed_repeats_a_fit_and_a_fitted_estimator_pickles():
    first = tiny().fit(TEXTS, LABELS)
    second = tiny().fit(TEXTS, LABELS)
    probs = first.predict_proba(TEXTS[:8])
    np.testing.assert_array_equal(second.predict_proba(TEXTS[:8]), probs)
    copy = pickle.loads(pickle.dumps(first))
    assert copy.classes_.tolist() == ["neg", "pos"] and copy.get_params() == first.get_params()
    np.testing.assert_allclose(copy.predict_proba(TEXTS[:8]), probs, rtol=1e-6)
    other = tiny(seed=1).fit(TEXTS, LABELS)
    assert not np.array_equal(other.predict_proba(TEXTS[:8]), probs)


def test_validation_labels_outside_the_classes_are_refused():
    with pytest.raises(EstimatorInputError, match=r"among the classes \['neg', 'pos'\]; "
                                                  r"got \['meh'\]"):
        tiny().fit(TEXTS, LABELS, validation_data=(["a film"], ["meh"]))


def test_a_scikit_learn_preset_is_pointed_at_models_get():
    with pytest.raises(ValueError, match="scikit-learn preset"):
        KerasTextClassifier(preset="nb").fit(TEXTS, LABELS)


def test_cross_val_score_and_pipeline_beside_nb_and_lr():
    keras_scores = cross_val_score(tiny(epochs=5), MANY, MANY_LABELS, cv=2)
    assert keras_scores.tolist() == [1.0, 1.0]
    for baseline in (models.get("nb", num_classes=2, min_df=1),
                     models.get("lr", num_classes=2, min_df=1)):
        assert cross_val_score(baseline, MANY, MANY_LABELS, cv=2).tolist() == [1.0, 1.0]
    piped = Pipeline([("classifier", tiny(epochs=3))]).fit(MANY, MANY_LABELS)
    assert piped.predict(["awful cast"]).tolist() == ["neg"]
    assert piped.classes_.tolist() == ["neg", "pos"]


def test_grid_search_over_the_estimators_parameters():
    """Two candidates on one split, then the refit with the best: three fits."""
    half = len(MANY) // 2
    split = [(np.arange(half), np.arange(half, len(MANY)))]
    search = GridSearchCV(tiny(epochs=3), {"model_options": [
        {**TINY, "hidden_units": 4}, TINY]}, cv=split).fit(MANY, MANY_LABELS)
    assert set(search.best_params_) == {"model_options"}
    assert search.best_estimator_.epochs == 3
    assert search.best_estimator_.classifier_.model_options["hidden_units"] \
        == search.best_params_["model_options"]["hidden_units"]
    assert search.best_estimator_.predict(["good film"]).tolist() == ["pos"]
    assert search.cv_results_["mean_test_score"].tolist() == [1.0, 1.0]


@pytest.mark.slow
def test_grid_search_in_worker_processes():
    """n_jobs=2 pickles the unfitted estimator into two processes (each imports
    TensorFlow), and the refit one comes back."""
    search = GridSearchCV(tiny(epochs=2), {"seed": [0, 1]}, cv=2, n_jobs=2)
    search.fit(MANY, MANY_LABELS)
    assert search.best_estimator_.predict(["good film"]).tolist() == ["pos"]
    assert pickle.loads(pickle.dumps(search.best_estimator_)).predict(
        ["bad film"]).tolist() == ["neg"]
