"""Damaged or truncated dataset files: one clear DatasetIntegrityError naming the file,
never a smaller dataset. The damaged copies are made here, under tmp_path."""

import os
import shutil
import tarfile

import pytest

from kerasattn.data import datasets as d
from tests.conftest import write, write_yelp_polarity

BBC_MD5 = "ac05b5ea0cbe45305d233e88b2229c67"


def damaged_copy(src, dst, flip_at=None, truncate_to=None):
    """A copy of ``src`` with 64 bytes flipped at ``flip_at`` or cut at ``truncate_to``."""
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(src, "rb") as fh:
        data = bytearray(fh.read())
    if flip_at is not None:
        for i in range(flip_at, flip_at + 64):
            data[i] ^= 0xFF
    if truncate_to is not None:
        data = data[:truncate_to]
    with open(dst, "wb") as fh:
        fh.write(data)
    return str(dst)


@pytest.fixture
def mirror(shared_data, monkeypatch):
    monkeypatch.delenv(d.VERIFY_ENV, raising=False)
    return shared_data


def test_bbc_with_flipped_bytes_is_refused_by_checksum(mirror, tmp_path):
    path = damaged_copy(os.path.join(mirror, "bbc", "bbc.tar.gz"),
                        tmp_path / "bbc" / "bbc.tar.gz", flip_at=1_000_000)
    with pytest.raises(d.DatasetIntegrityError) as e:
        d.load("bbc", data_dir=tmp_path, download=False)
    assert str(e.value).startswith(
        f"{path}: checksum mismatch: expected md5 {BBC_MD5}, got ")


def test_truncated_bbc_is_refused(mirror, tmp_path):
    path = damaged_copy(os.path.join(mirror, "bbc", "bbc.tar.gz"),
                        tmp_path / "bbc" / "bbc.tar.gz", truncate_to=1_500_000)
    with pytest.raises(d.DatasetIntegrityError,
                       match=r"bbc\.tar\.gz: 1,500,000 bytes, expected 2,029,371 \(truncated"):
        d.load("bbc", data_dir=tmp_path, download=False)


@pytest.mark.parametrize("damage", [{"flip_at": 1_000_000}, {"truncate_to": 1_500_000},
                                    {"truncate_to": 1_000}])
def test_damaged_archive_is_refused_without_a_checksum(mirror, tmp_path, monkeypatch, damage):
    """With the published checksum and counts switched off, the archive's own structure
    (tar headers, gzip CRC and length) still catches the damage; tarfile alone stops
    quietly at the first bad header."""
    path = damaged_copy(os.path.join(mirror, "bbc", "bbc.tar.gz"),
                        tmp_path / "bbc" / "bbc.tar.gz", **damage)
    with pytest.raises(d.DatasetIntegrityError,
                       match=rf"^{path}: truncated or corrupt archive \("):
        d.load("bbc", data_dir=tmp_path, download=False, verify=False)
    monkeypatch.setenv(d.VERIFY_ENV, "0")  # the same switch for the command line
    with pytest.raises(d.DatasetIntegrityError, match="truncated or corrupt archive"):
        d.load("bbc", data_dir=tmp_path, download=False)


def test_imdb_with_flipped_bytes_is_refused(mirror, tmp_path):
    src = os.path.join(mirror, "imdb", "aclImdb_v1_labeled.tar.gz")
    path = damaged_copy(src, tmp_path / "imdb" / "aclImdb_v1_labeled.tar.gz",
                        flip_at=25_000_000)
    with pytest.raises(d.DatasetIntegrityError, match=rf"^{path}: checksum mismatch"):
        d.load("imdb-random-split", data_dir=tmp_path, download=False)
    # the archive structure alone: no longer 15,025 + 1,670 training reviews and no error
    with pytest.raises(d.DatasetIntegrityError, match=rf"^{path}: truncated or corrupt archive"):
        d.load("imdb", data_dir=tmp_path, download=False, verify=False)


def _bbc_directory(mirror, tmp_path):
    with tarfile.open(os.path.join(mirror, "bbc", "bbc.tar.gz")) as tar:
        tar.extractall(tmp_path / "bbc", filter="data")
    return tmp_path / "bbc" / "bbc"


def test_published_counts_are_checked(mirror, tmp_path):
    """An extracted directory has no checksum: the published counts catch a lost file
    or a file moved to another class."""
    root = _bbc_directory(mirror, tmp_path)
    assert d.load("bbc", data_dir=tmp_path, download=False).num_classes == 5
    os.rename(root / "tech" / "001.txt", root / "sport" / "901.txt")
    with pytest.raises(d.DatasetIntegrityError,
                       match=r"bbc: 512 documents of class 'sport', expected 511"):
        d.load("bbc", data_dir=tmp_path, download=False)
    os.remove(root / "sport" / "901.txt")
    with pytest.raises(d.DatasetIntegrityError, match=r"bbc: 2,224 documents, expected 2,225"):
        d.load("bbc", data_dir=tmp_path, download=False)
    shutil.rmtree(root / "tech")
    with pytest.raises(d.DatasetIntegrityError, match=r"bbc: 1,824 documents, expected 2,225"):
        d.load("bbc", data_dir=tmp_path, download=False)


@pytest.mark.parametrize("damage, message", [
    ({"flip_at": 300_000}, r"stsa\.binary\.train: checksum mismatch: expected md5 "
                           r"fe0d92b0d9638921562e7082e0d6f137, got [0-9a-f]{32}"),
    ({"truncate_to": 700_000}, r"stsa\.binary\.train: 700,000 bytes, expected 738,844"),
])
def test_damaged_sentence_file_is_refused(mirror, tmp_path, damage, message):
    for split in ("train", "dev", "test"):
        name = f"stsa.binary.{split}"
        src = os.path.join(mirror, "sst", name)
        damaged_copy(src, tmp_path / name, **(damage if split == "train" else {}))
    with pytest.raises(d.DatasetIntegrityError, match=message):
        d.load("sst2", data_dir=tmp_path, download=False)


def test_damaged_ag_news_test_file_is_refused(mirror, tmp_path):
    src = os.path.join(mirror, "ag_news")
    for f in ("classes.txt", "test.csv"):
        damaged_copy(os.path.join(src, f), tmp_path / "ag_news" / f,
                     **({"truncate_to": 1_000_000} if f == "test.csv" else {}))
    with pytest.raises(d.DatasetIntegrityError,
                       match=r"ag_news/test\.csv: 1,000,000 bytes, expected 1,857,427"):
        d.load("ag_news-test-split", data_dir=tmp_path, download=False)


def test_damaged_file_on_the_command_line_is_one_error_line(mirror, tmp_path, capsys):
    from kerasattn.cli import train

    path = damaged_copy(os.path.join(mirror, "bbc", "bbc.tar.gz"),
                        tmp_path / "bbc" / "bbc.tar.gz", flip_at=1_000_000)
    code = train.main(["--model", "nb", "--dataset", "bbc", "--data-dir", str(tmp_path),
                       "--no-download", "--output-dir", str(tmp_path / "runs")])
    assert code == 2
    err = capsys.readouterr().err
    assert f"error: {path}: checksum mismatch" in err and "Traceback" not in err


def test_verification_is_cached_by_path_size_and_mtime(tmp_path, monkeypatch):
    path = write(tmp_path / "f.txt", "abc")
    first = d.file_md5(path)
    assert first == "900150983cd24fb0d6963f7d28e17f72"
    calls = []
    from kerasattn.data.datasets import integrity

    real = integrity._hash_file
    monkeypatch.setattr(integrity, "_hash_file", lambda p: calls.append(p) or real(p))
    assert d.file_md5(path) == first and not calls  # cached
    write(tmp_path / "f.txt", "abd")
    os.utime(path, ns=(1, 1))  # same size, new mtime: hashed again
    assert d.file_md5(path) == "4911e516e5aa21d327512e0c8b197616" and calls == [path]


# Zhang et al. CSV datasets: made here, no mirror needed


def test_zhang_counts_are_checked(tmp_path, monkeypatch):
    monkeypatch.delenv(d.ENV_VAR, raising=False)
    monkeypatch.delenv(d.VERIFY_ENV, raising=False)
    folder = write_yelp_polarity(tmp_path)
    with pytest.raises(d.DatasetIntegrityError,
                       match=rf"^{folder / 'train.csv'}: 20 train documents, expected 560,000"):
        d.load("yelp_polarity", data_dir=tmp_path, download=False)
    assert len(d.load("yelp_polarity", data_dir=tmp_path, download=False, verify=False).test) == 2


def test_zhang_archive_checksum_and_damage(tmp_path, monkeypatch):
    monkeypatch.delenv(d.ENV_VAR, raising=False)
    monkeypatch.delenv(d.VERIFY_ENV, raising=False)
    folder = write_yelp_polarity(tmp_path / "src", n_train=3000)
    archive = tmp_path / "data" / "yelp_review_polarity_csv.tgz"
    archive.parent.mkdir()
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname="yelp_review_polarity_csv")
    md5 = d.ZHANG_DATASETS["yelp_polarity"][1]
    with pytest.raises(d.DatasetIntegrityError,
                       match=rf"^{archive}: checksum mismatch: expected md5 {md5}, got "):
        d.load("yelp_polarity", data_dir=archive.parent, download=False)
    damaged_copy(archive, archive, truncate_to=os.path.getsize(archive) // 2)
    with pytest.raises(d.DatasetIntegrityError, match=rf"^{archive}: truncated or corrupt"):
        d.load("yelp_polarity", data_dir=archive.parent, download=False, verify=False)
    # nothing half-extracted is left to be found next time
    assert os.listdir(archive.parent) == ["yelp_review_polarity_csv.tgz"]


def test_damaged_zip_is_refused(tmp_path, monkeypatch):
    import zipfile

    monkeypatch.delenv(d.ENV_VAR, raising=False)
    path = tmp_path / "bbc-fulltext.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(20):
            z.writestr(f"bbc/sport/{i:03d}.txt", f"title {i}\n\n" + "words " * 2000 + str(i))
    size = os.path.getsize(path)
    damaged_copy(path, path, flip_at=size // 3)
    with pytest.raises(d.DatasetIntegrityError, match=rf"^{path}: truncated or corrupt archive"):
        d.load("bbc", data_dir=tmp_path, download=False, verify=False)
    damaged_copy(path, path, truncate_to=size // 2)
    with pytest.raises(d.DatasetIntegrityError, match=r"truncated or corrupt archive \(BadZipFile"):
        d.load("bbc", data_dir=tmp_path, download=False, verify=False)
