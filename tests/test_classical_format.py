"""Classical models are saved with skops and loaded only from trusted types.

A run directory may come from someone else: loading its model must never run
their code, so no pickle is read and a skops file naming any type outside
``classical.TRUSTED_TYPES`` is refused.
"""

import os
import pickle

import numpy as np
import pytest
import skops.io as sio

from kerasattn import models, runs
from kerasattn.models import tfidf as classical
from kerasattn.data import datasets

TEXTS = ["good great fine film", "bad awful poor plot", "great good acting", "awful bad ending",
         "fine good fun", "poor bad dull"] * 3
LABELS = [1, 0, 1, 0, 1, 0] * 3


class _Payload:
    """Unpickling this creates a directory: a stand-in for someone else's code."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.mkdir, (self.marker,)


def _fit(name, **options):
    return models.get(name, num_classes=2, min_df=1, **options).fit(TEXTS, LABELS)


@pytest.mark.parametrize("name", ["nb", "lr"])
def test_round_trip_gives_identical_probabilities_and_options(tmp_path, name):
    options = {"mode": "hcan", "remove_punctuation": True, "remove_stopwords": False,
               "max_length": None}
    model = _fit(name, preprocessor_config=options)
    path = classical.save(model, str(tmp_path / "model.skops"))
    assert set(sio.get_untrusted_types(file=path)) <= classical.TRUSTED_TYPES
    again = classical.load(path)
    assert isinstance(again, classical.TfidfClassifier)
    assert again.preprocessor_config == options
    texts = TEXTS[:6] + ["unseen words, good!"]
    np.testing.assert_array_equal(again.predict_proba(texts), model.predict_proba(texts))


@pytest.mark.usefixtures("shared_data")
def test_whitespace_token_pattern_gives_the_same_features_as_str_split():
    from sklearn.feature_extraction.text import TfidfVectorizer

    ds = datasets.load("sst2")
    model = models.get("nb", num_classes=2)
    docs = model.tokenize(ds.train.texts[:3000])
    new = model.pipeline.named_steps["tfidf"].fit(docs)
    old = TfidfVectorizer(tokenizer=str.split, token_pattern=None, lowercase=False,
                          ngram_range=(1, 2), min_df=5, dtype=np.float32).fit(docs)
    assert new.vocabulary_ == old.vocabulary_ and len(new.vocabulary_) > 1000
    assert (new.transform(docs) != old.transform(docs)).nnz == 0


def test_a_file_naming_os_system_is_refused(tmp_path):
    path = str(tmp_path / "model.skops")
    model = _fit("nb")
    sio.dump({"format": classical.FORMAT, "preprocessor_config": "{}",
              "pipeline": model.pipeline, "hook": os.system}, path)
    with pytest.raises(classical.UnsafeModelError, match=r"not trusted.*posix\.system"):
        classical.load(path)


def test_types_skops_trusts_by_default_but_the_pipeline_never_uses_are_refused(tmp_path):
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import FunctionTransformer

    path = str(tmp_path / "model.skops")
    model = _fit("nb")
    tampered = Pipeline([("tfidf", model.pipeline.named_steps["tfidf"]),
                         ("hook", FunctionTransformer()),
                         ("classifier", model.pipeline.named_steps["classifier"])])
    sio.dump({"format": classical.FORMAT, "preprocessor_config": "{}", "pipeline": tampered},
             path)
    assert sio.get_untrusted_types(file=path) == []  # skops alone would load it
    with pytest.raises(classical.UnsafeModelError, match="FunctionTransformer"):
        classical.load(path)


def test_something_else_than_a_saved_model_is_refused(tmp_path):
    path = str(tmp_path / "model.skops")
    sio.dump({"format": classical.FORMAT, "preprocessor_config": "{}", "pipeline": "x"}, path)
    with pytest.raises(classical.UnsafeModelError, match="does not hold"):
        classical.load(path)
    (tmp_path / "model.skops").write_bytes(pickle.dumps(_Payload(str(tmp_path / "ran"))))
    with pytest.raises(classical.UnsafeModelError, match="not a skops model file"):
        classical.load(path)
    assert not (tmp_path / "ran").exists()


@pytest.mark.usefixtures("shared_data")
def test_evaluate_a_classical_run_and_refuse_a_legacy_joblib(tmp_path, capsys):
    from kerasattn.cli import evaluate, train

    run_dir, m = train.train(["--model", "nb", "--dataset", "sst2",
                              "--output-dir", str(tmp_path), "--run-name", "nb"])
    model_path = os.path.join(run_dir, runs.CLASSICAL_MODEL)
    assert model_path.endswith(".skops") and os.path.exists(model_path)
    assert not os.path.exists(os.path.join(run_dir, "model.joblib"))
    capsys.readouterr()
    assert evaluate.main(["--run", run_dir]) == 0
    out = capsys.readouterr().out
    assert f"accuracy {m['test']['accuracy']:.4f}" in out.splitlines()[-1]

    # a run directory from before: only a pickle, which would run code if loaded
    os.remove(model_path)
    marker = os.path.join(str(tmp_path), "ran")
    with open(os.path.join(run_dir, "model.joblib"), "wb") as fh:
        pickle.dump(_Payload(marker), fh)
    assert evaluate.main(["--run", run_dir]) == 2
    err = capsys.readouterr().err
    assert "unsafe legacy format" in err and "Retrain" in err and "model.joblib" in err
    assert not os.path.exists(marker)


@pytest.mark.parametrize("reads", ["filename", "file"])
def test_a_vectorizer_that_reads_files_is_refused(tmp_path, reads):
    path = str(tmp_path / "model.skops")
    model = _fit("nb")
    model.pipeline.named_steps["tfidf"].set_params(input=reads)
    sio.dump({"format": classical.FORMAT, "preprocessor_config": "{}",
              "pipeline": model.pipeline}, path)
    with pytest.raises(classical.UnsafeModelError, match=f"reads input='{reads}'"):
        classical.load(path)
