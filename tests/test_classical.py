"""NB / LR on TF-IDF: they learn on real held-out data, and they pickle without TF state."""

import pickle

import numpy as np
import pytest

from kerasattn import models
from kerasattn.data import datasets

pytestmark = pytest.mark.usefixtures("shared_data")


@pytest.mark.parametrize("dataset,name,threshold", [
    # chance is 0.5; L1 with C=1.0 regularises hard on 6,920 short sentences (0.749 measured)
    ("sst2", "nb", 0.77), ("sst2", "lr", 0.72),
    # the foundation issue's acceptance on the official IMDB test split (66 s together on
    # 2 cores: run with -m slow; recorded by python -m benchmarks.baselines)
    pytest.param("imdb", "nb", 0.865, marks=pytest.mark.slow),
    pytest.param("imdb", "lr", 0.875, marks=pytest.mark.slow),
])
def test_learns(dataset, name, threshold):
    ds = datasets.load(dataset)
    model = models.get(name, num_classes=2).fit(ds.train.texts, ds.train.labels)
    probs = model.predict_proba(ds.test.texts)
    assert (probs.argmax(1) == ds.test.labels).mean() >= threshold
    clone = pickle.loads(pickle.dumps(model))
    np.testing.assert_allclose(clone.predict_proba(ds.test.texts[:20]), probs[:20])


def test_lr_is_l1():
    model = models.get("lr", num_classes=2)
    clf = model.pipeline.named_steps["classifier"]
    assert clf.l1_ratio == 1.0 and clf.C == 1.0 and clf.solver == "saga"
    tfidf = model.pipeline.named_steps["tfidf"]
    assert tfidf.ngram_range == (1, 2) and tfidf.min_df == 5
    l2 = models.get("lr", num_classes=2, l1_ratio=0, C=10).pipeline.named_steps["classifier"]
    assert (l2.l1_ratio, l2.C) == (0.0, 10)
    with pytest.raises(ValueError, match="l1_ratio must be in"):
        models.get("lr", num_classes=2, l1_ratio=2)


def test_l2_fits_what_l1_zeroes():
    # on four texts whose words each predict the label, L1 at a small C zeroes every
    # weight (a constant prediction) while L2 keeps them all (each text right)
    texts = ["good film", "great film", "bad film", "awful film"] * 5
    labels = np.array([1, 1, 0, 0] * 5)
    probs = {}
    for ratio in (1.0, 0.0):
        model = models.get("lr", num_classes=2, l1_ratio=ratio, C=0.1, min_df=1,
                           ngram_range=(1, 1)).fit(texts, labels)
        probs[ratio] = model.predict_proba(texts[:4])[:, 1]
    np.testing.assert_allclose(probs[1.0], probs[1.0][0])  # L1: the same for every text
    assert (probs[0.0] > 0.5).tolist() == [True, True, False, False]


def test_nb_and_lr_are_scikit_learn_estimators(tmp_path):
    """clone, get/set_params, is_classifier, Pipeline, GridSearchCV and cross_val_score
    take them; string labels come back as classes_; the skops file still round-trips."""
    from sklearn.base import clone, is_classifier
    from sklearn.model_selection import GridSearchCV, cross_val_score
    from sklearn.pipeline import Pipeline

    from kerasattn.models import tfidf

    texts = ["good film", "great film", "fine acting", "a good cast", "bad film",
             "awful film", "dull acting", "a bad cast"] * 3
    labels = ["pos"] * 4 + ["neg"] * 4
    labels = labels * 3
    nb = models.get("nb", num_classes=2, min_df=1, ngram_range=(1, 1))
    assert is_classifier(nb) and nb.get_params()["estimator__alpha"] == 1.0
    twin = clone(nb).set_params(estimator__alpha=0.5)
    assert twin.get_params()["estimator__alpha"] == 0.5 and nb.estimator.alpha == 1.0
    nb.fit(texts, labels)
    assert list(nb.classes_) == ["neg", "pos"]
    assert list(nb.predict(["a good film", "an awful cast"])) == ["pos", "neg"]
    assert nb.score(texts, labels) == 1.0
    assert not hasattr(clone(nb), "pipeline_")  # clone: the parameters, unfitted
    lr = models.get("lr", num_classes=2, min_df=1, ngram_range=(1, 1), l1_ratio=0.0, C=10)
    scores = cross_val_score(lr, texts, labels, cv=3)
    assert scores.shape == (3,) and scores.min() >= 0.75
    search = GridSearchCV(nb, {"estimator__alpha": [0.1, 1.0], "ngram_range": [(1, 1),
                                                                              (1, 2)]}, cv=2)
    search.fit(texts, labels)
    assert set(search.best_params_) == {"estimator__alpha", "ngram_range"}
    assert search.best_estimator_.score(texts, labels) == 1.0
    piped = Pipeline([("classifier", tfidf.TfidfClassifier(min_df=1))]).fit(texts, labels)
    assert list(piped.predict(["a great cast"])) == ["pos"]
    path = str(tmp_path / "model.skops")
    nb.save(path)
    loaded = tfidf.load(path)
    np.testing.assert_allclose(loaded.predict_proba(texts), nb.predict_proba(texts))
    assert list(loaded.classes_) == ["neg", "pos"] and loaded.min_df == 1
    with pytest.raises(Exception, match="not fitted"):
        tfidf.TfidfClassifier().predict(["a film"])


@pytest.mark.parametrize("dataset,texts", [
    ("sst2", 2000),  # the case: 2,000 SST-2 sentences
    # BBC's long articles: L1 takes more passes than the former bound of 200 (20 s on 2
    # cores: run with -m slow)
    pytest.param("bbc", None, marks=pytest.mark.slow),
])
def test_lr_converges_with_its_defaults(dataset, texts):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    ds = datasets.load(dataset)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = models.get("lr", num_classes=ds.num_classes).fit(
            ds.train.texts[:texts], ds.train.labels[:texts])
    classifier = model.pipeline_.named_steps["classifier"]
    assert classifier.n_iter_.max() < classifier.max_iter
