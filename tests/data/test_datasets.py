"""Loaders: the counts of ../shared/datasets/README.md exactly, and bad data handling."""

import collections
import os

import numpy as np
import pytest

from kerasattn.data import datasets as d
from tests.conftest import write

pytestmark = pytest.mark.usefixtures("shared_data")


def counts(split):
    return dict(collections.Counter(split.labels.tolist()))


@pytest.fixture(scope="module")
def imdb():
    """The official IMDB split at seed 0, read once for the tests below (each read of the
    archive takes about 12 s)."""
    return d.load("imdb")


def test_imdb_official_split(imdb):
    ds = imdb
    assert len(ds.train) + len(ds.val) == 25000 and len(ds.test) == 25000
    assert counts(ds.test) == {0: 12500, 1: 12500}
    assert counts(ds.train)[1] + counts(ds.val)[1] == 12500
    # the validation split is stratified 10% of train
    assert counts(ds.val) == {0: 1250, 1: 1250}
    assert ds.class_names == ["neg", "pos"]
    assert all(isinstance(t, str) and t for t in ds.test.texts[:50])
    # the films of the url lists: 3,456 in train, 3,581 in test, one of them in both
    train_films = set(ds.train.groups) | set(ds.val.groups)
    assert (len(train_films), len(set(ds.test.groups))) == (3456, 3581)
    assert len(train_films & set(ds.test.groups)) == 1
    # a stratified validation review nearly always has its film in training
    shared = sum(f in set(ds.train.groups) for f in ds.val.groups)
    assert shared > 0.9 * len(ds.val)
    assert f"{shared:,} of its 2,500 texts share their group with a training text" in ds.notes[-1]


def test_imdb_validation_grouped_by_film(imdb):
    # what load(..., val_split="grouped") holds out of the 25,000 training reviews
    # (tests/data/test_grouped_split.py loads a generated aclImdb/ that way)
    whole = d.Split(imdb.train.texts + imdb.val.texts,
                    np.concatenate([imdb.train.labels, imdb.val.labels]),
                    np.concatenate([imdb.train.groups, imdb.val.groups]))
    train, val, note = d.hold_out_validation(whole, 0.1, 0, "grouped")
    assert len(train) + len(val) == 25000
    assert not set(train.groups) & set(val.groups)
    assert 2300 < len(val) < 2700  # one fold of ten: whole films, about a tenth
    assert abs(counts(val)[1] / len(val) - 0.5) < 0.02  # stratified by class
    assert "no group is on both sides" in note


def test_imdb_random_split_is_the_transformer_papers_protocol(imdb):
    official = imdb
    ds = d.load("imdb-random-split")
    assert (len(ds.train), len(ds.val), len(ds.test)) == (40000, 5000, 5000)
    assert counts(ds.test) == {0: 2500, 1: 2500} and counts(ds.val) == {0: 2500, 1: 2500}
    # every labelled review exactly once, official train and test reviews on each side
    pooled = official.train.texts + official.val.texts + official.test.texts
    ours = ds.train.texts + ds.val.texts + ds.test.texts
    assert sorted(ours) == sorted(pooled)
    official_test = set(official.test.texts)
    assert 0 < sum(t in official_test for t in ds.test.texts) < len(ds.test)
    assert any("NOT the official split" in n for n in ds.notes)
    assert d.load("imdb-random-split").test.texts[:5] == ds.test.texts[:5]  # fixed seed


@pytest.mark.parametrize("name,sizes,classes", [
    ("sst2", (6920, 872, 1821), 2),
    ("sst5", (8544, 1101, 2210), 5),
    ("sst2-glue", (67349, 872, 1821), 2),
])
def test_sst_sentence_files(name, sizes, classes):
    ds = d.load(name)
    assert (len(ds.train), len(ds.val), len(ds.test)) == sizes
    assert ds.num_classes == classes
    assert set(ds.train.labels.tolist()) == set(range(classes))


def test_sst_tree_files_have_the_published_counts(shared_data):
    trees = os.path.join(shared_data, "sst", "trees")
    counts = {s: len(d._read_trees(os.path.join(trees, f"{s}.txt")))
              for s in ("train", "dev", "test")}
    assert counts == {"train": 8544, "dev": 1101, "test": 2210}


def test_sst_phrases_train_on_phrases_test_on_sentences():
    fine = d.load("sst5-phrases")
    assert (len(fine.val), len(fine.test)) == (1101, 2210)  # one sentence per tree
    binary = d.load("sst2-phrases")
    assert (len(binary.val), len(binary.test)) == (872, 1821)  # neutral sentences dropped
    # the sentence-level test sets are the same sentences as Kim's files
    kim = d.load("sst2")
    assert sorted(binary.test.labels.tolist()) == sorted(kim.test.labels.tolist())
    # train: every distinct phrase, far more than the 8,544 sentences; sentences included
    assert len(fine.train) > 100_000 and len(set(fine.train.texts)) == len(fine.train)
    assert len(binary.train) < len(fine.train)  # neutral phrases dropped
    # (the trees keep case; Kim's files are lower-cased)
    assert kim.train.texts[0] in {t.lower() for t in binary.train.texts}


def test_ag_news_test_split_is_stratified_and_labelled_as_such():
    ds = d.load("ag_news-test-split")
    assert len(ds.train) + len(ds.val) + len(ds.test) == 7600
    total = collections.Counter()
    for s in (ds.train, ds.val, ds.test):
        total.update(s.labels.tolist())
    assert dict(total) == {0: 1900, 1: 1900, 2: 1900, 3: 1900}
    assert counts(ds.test) == {0: 190, 1: 190, 2: 190, 3: 190}
    assert ds.class_names == ["World", "Sports", "Business", "Sci/Tech"]
    assert any("NOT the official split" in n for n in ds.notes)


def test_ag_news_full_needs_train_split():
    with pytest.raises(d.DatasetNotFoundError, match="ag_news-test-split"):
        d.load("ag_news", download=False)


def test_bbc():
    ds = d.load("bbc")
    total = collections.Counter()
    for s in (ds.train, ds.val, ds.test):
        total.update(s.labels.tolist())
    assert sum(total.values()) == 2225
    assert ds.class_names == ["business", "entertainment", "politics", "sport", "tech"]
    assert [total[i] for i in range(5)] == [510, 386, 417, 511, 401]


def test_missing_dataset_names_every_place_and_the_address(tmp_path, monkeypatch):
    monkeypatch.setenv(d.ENV_VAR, str(tmp_path / "env"))
    with pytest.raises(d.DatasetNotFoundError) as e:
        d.load("yelp_full", data_dir=tmp_path / "mine", download=False)
    msg = str(e.value)
    for place in (tmp_path / "mine", tmp_path / "env", os.path.expanduser("~/.keras/datasets")):
        assert str(place) in msg
    assert "https://s3.amazonaws.com/fast-ai-nlp/yelp_review_full_csv.tgz" in msg


def test_failed_download_is_reported(tmp_path, monkeypatch):
    import keras

    def offline(**kwargs):
        raise OSError("network unreachable")

    monkeypatch.setattr(keras.utils, "get_file", offline)
    monkeypatch.delenv(d.ENV_VAR)
    with pytest.raises(d.DatasetNotFoundError, match="download failed: OSError: network unreachable"):
        d.load("yelp_full", data_dir=tmp_path)


def test_data_dir_comes_first(tmp_path, monkeypatch):
    monkeypatch.setenv(d.VERIFY_ENV, "0")  # a stand-in, not the published file
    for split, rows in (("train", "1 good\n0 bad\n1 fine\n0 awful\n"), ("dev", "1 ok\n"),
                        ("test", "0 no\n")):
        write(tmp_path / f"stsa.binary.{split}", rows)
    ds = d.load("sst2", data_dir=tmp_path)
    assert ds.train.texts == ["good", "bad", "fine", "awful"]
    assert ds.test.labels.tolist() == [0]


def test_every_built_in_dataset_declares_its_domain_and_language():
    found = {name: d.facts(name) for name in d.names()}
    assert [n for n, f in found.items() if not (f and f.domain and f.language)] == []
    assert found["imdb"] == d.DatasetFacts(
        "IMDB movie reviews, binary, official 25k/25k split", "movie reviews (IMDB)",
        "English")
    assert found["sst2-phrases"].domain == found["sst5"].domain
    assert found["yelp_full"].domain == "business reviews (Yelp)"
    assert {n: f.description for n, f in found.items()} == d.describe()
    # a user's file, or a name nobody registered: no facts
    assert d.facts("csv:reviews.csv") is None and d.facts("nope") is None


def test_a_registered_dataset_brings_its_own_facts(monkeypatch):
    from kerasattn.data.datasets import catalogue

    monkeypatch.setattr(catalogue, "_LOADERS", dict(catalogue._LOADERS))
    d.register("allocine", "Allociné film reviews, binary", domain="film reviews (Allociné)",
               language="French")(lambda **_: None)
    assert d.facts("allocine") == d.DatasetFacts("Allociné film reviews, binary",
                                                 "film reviews (Allociné)", "French")
    assert "allocine" in d.names()
