"""The other published layouts of each dataset, on small files made here."""

import os
import tarfile
import zipfile

import pytest

from kerasattn.data import datasets as d
from tests.conftest import write_aclimdb, write_yelp_polarity


@pytest.fixture(autouse=True)
def _no_mirror(monkeypatch):
    monkeypatch.delenv(d.ENV_VAR, raising=False)
    # small stand-ins under the published names: their checksums and counts are not
    # the published ones (archives are still read whole and checked)
    monkeypatch.setenv(d.VERIFY_ENV, "0")


def test_imdb_extracted_directory(tmp_path):
    write_aclimdb(tmp_path, drop={(s, p) for s in ("train", "test") for p in ("pos", "neg")})
    ds = d.load("imdb", data_dir=tmp_path, download=False, val_fraction=1 / 3)
    assert len(ds.train) + len(ds.val) == 6 and len(ds.test) == 6
    assert sorted(ds.test.labels.tolist()) == [0, 0, 0, 1, 1, 1]
    assert all(t.startswith(("pos", "neg")) for t in ds.test.texts)


def test_bbc_zip_and_latin1(tmp_path):
    with zipfile.ZipFile(tmp_path / "bbc-fulltext.zip", "w") as z:
        z.writestr("bbc/README.TXT", "readme")
        for topic in ("sport", "tech"):
            for i in range(10):
                z.writestr(f"bbc/{topic}/{i:03d}.txt", f"{topic} title {i}\n\nCosts \xa35m".encode("latin-1"))
    ds = d.load("bbc", data_dir=tmp_path, download=False)
    assert ds.class_names == ["sport", "tech"]
    assert len(ds.test) == 4 and len(ds.train) + len(ds.val) == 16
    assert "£5m" in ds.test.texts[0]


def test_zhang_tgz_archive(tmp_path):
    folder = write_yelp_polarity(tmp_path / "src")
    with tarfile.open(tmp_path / "yelp_review_polarity_csv.tgz", "w:gz") as tar:
        tar.add(folder, arcname="yelp_review_polarity_csv")
    ds = d.load("yelp_polarity", data_dir=tmp_path, download=False)
    assert ds.class_names == ["negative", "positive"]
    assert ds.test.texts == ["bad", "good"] and ds.test.labels.tolist() == [0, 1]
    assert len(ds.train) + len(ds.val) == 20


def test_sst_trees_zip(tmp_path):
    with zipfile.ZipFile(tmp_path / "trainDevTestTrees_PTB.zip", "w") as z:
        z.writestr("trees/train.txt", "(3 (2 It) (4 (3 works) (2 .)))\n(1 (1 Bad) (2 .))\n")
        z.writestr("trees/dev.txt", "(2 (2 Meh) (2 .))\n(4 (4 Great) (2 .))\n")
        z.writestr("trees/test.txt", "(0 (0 Awful) (2 .))\n")
    ds = d.load("sst2-phrases", data_dir=tmp_path, download=False)
    # train phrases: "It works ." 3, "works ." 4, "works" 3, "Bad ." 1, "Bad" 1 (neutral dropped)
    assert sorted(zip(ds.train.texts, ds.train.labels.tolist())) == [
        ("Bad", 0), ("Bad .", 0), ("It works .", 1), ("works", 1), ("works .", 1)]
    assert ds.val.texts == ["Great ."] and ds.test.labels.tolist() == [0]
    assert os.path.isdir(tmp_path / "sst_trees_extracted" / "trees")
