"""Verifying files: published checksums and counts, archives read to their end."""

import collections
import contextlib
import hashlib
import os
import tarfile
import zipfile
import zlib

import numpy as np

from kerasattn.data.datasets.definitions import (VERIFY_ENV, DatasetFormatError,
                                                DatasetIntegrityError)


PUBLISHED_FILES = {
    "imdb/aclImdb_v1_labeled.tar.gz": ("b9b32e9ae3ac64de0cd0dc1c578f3e6d", 30005643),
    "bbc/bbc.tar.gz": ("ac05b5ea0cbe45305d233e88b2229c67", 2029371),
    "ag_news/test.csv": ("d52ea96a97a2d943681189a97654912d", 1857427),
    "ag_news/classes.txt": ("eb57fd781a350c341c55d4dcfc46782a", 31),
    "sst/stsa.binary.train": ("fe0d92b0d9638921562e7082e0d6f137", 738844),
    "sst/stsa.binary.dev": ("b627414c0778ffbe284336ba2a34e518", 94400),
    "sst/stsa.binary.test": ("797f1305da9a23378a0168a387453dcf", 193562),
    "sst/stsa.fine.train": ("09d69926addc03894c0f7a282d50511e", 902818),
    "sst/stsa.fine.dev": ("22a483407dbb6be6a141d84ce669006f", 117239),
    "sst/stsa.fine.test": ("36e6cf007139356976533f9b0d0a7954", 233634),
    "sst/trees/train.txt": ("b12d531b1b913a3bb49719ba5cc1f67a", 2160058),
    "sst/trees/dev.txt": ("c405f1d724964e6f72314b5a51fea691", 280825),
    "sst/trees/test.txt": ("97b75f6ca1ae58b4d52fbf9381dc6f8c", 559614),
    "sst/glue_sst2/train.tsv": ("0f7c7389da97a0e006a89ffb5efbcaa5", 3806081),
    "sst/glue_sst2/dev.tsv": ("2b070f88622773268a9bb41c6e941e60", 94414),
    "sst/glue_sst2/test_labeled.tsv": ("01b2ebba955356bb04b1111887fdb5ae", 193576),
}

_SST2 = ("negative", "positive")
_SST5 = ("very negative", "negative", "neutral", "positive", "very positive")
# The published documents per split and class (class name: documents). For the
# derived datasets the source is checked: IMDB's official splits, the trees'
# sentences (by root label), AG News' test rows. Zhang et al.: ZHANG_COUNTS.
PUBLISHED_COUNTS = {
    "imdb": {s: {"neg": 12500, "pos": 12500} for s in ("train", "test")},
    "bbc": {"all": {"business": 510, "entertainment": 386, "politics": 417, "sport": 511,
                    "tech": 401}},
    "sst2": {"train": dict(zip(_SST2, (3310, 3610))), "val": dict(zip(_SST2, (428, 444))),
             "test": dict(zip(_SST2, (912, 909)))},
    "sst5": {"train": dict(zip(_SST5, (1092, 2218, 1624, 2322, 1288))),
             "val": dict(zip(_SST5, (139, 289, 229, 279, 165))),
             "test": dict(zip(_SST5, (279, 633, 389, 510, 399)))},
    "sst2-glue": {"train": dict(zip(_SST2, (29780, 37569))),
                  "val": dict(zip(_SST2, (428, 444))), "test": dict(zip(_SST2, (912, 909)))},
}
PUBLISHED_COUNTS["sst-trees"] = PUBLISHED_COUNTS["sst5"]  # one tree per SST-5 sentence


def _verify_enabled(verify=None):
    """``verify`` if given, else whether $KERASATTN_VERIFY is not "0"/"false"/"no"/"off"."""
    if verify is not None:
        return bool(verify)
    return os.environ.get(VERIFY_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


def verification_enabled():
    """Whether built-in datasets' files are checked against their published checksums
    ($KERASATTN_VERIFY is not "0", "false", "no" or "off")."""
    return _verify_enabled()



_MD5_CACHE = {}  # (real path, size, mtime_ns) -> md5: each file is hashed once per process


def _hash_file(path):
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "md5").hexdigest()


def file_md5(path):
    """The md5 of a file, cached by path, size and modification time."""
    st = os.stat(path)
    key = (os.path.realpath(path), st.st_size, st.st_mtime_ns)
    if key not in _MD5_CACHE:
        _MD5_CACHE[key] = _hash_file(path)
    return _MD5_CACHE[key]


def verify_file(path, md5, size=None):
    """Raise :class:`DatasetIntegrityError` unless ``path`` has this size and md5."""
    if size is not None and os.path.getsize(path) != size:
        raise DatasetIntegrityError(
            f"{path}: {os.path.getsize(path):,} bytes, expected {size:,} "
            "(truncated or not the published file)"
        )
    if md5 is not None:
        got = file_md5(path)
        if got != md5.lower():
            raise DatasetIntegrityError(
                f"{path}: checksum mismatch: expected md5 {md5.lower()}, got {got} "
                "(damaged or not the published file)"
            )


def _verify_published(path, key, verify):
    """Verify ``path`` against ``PUBLISHED_FILES[key]`` when verifying and the key is known."""
    if verify and key in PUBLISHED_FILES:
        verify_file(path, *PUBLISHED_FILES[key])


def check_counts(where, labels, class_names, expected, split=None):
    """Raise :class:`DatasetIntegrityError` unless the documents per class are ``expected``.

    Args:
        where: the file or directory, for the message.
        labels: the integer labels of the split.
        class_names: the names of the label ids.
        expected: {class name: documents}.
        split: the split's name, for the message.
    """
    what = f"{split} documents" if split else "documents"
    total, want = len(labels), sum(expected.values())
    if total != want:
        raise DatasetIntegrityError(f"{where}: {total:,} {what}, expected {want:,}")
    if sorted(class_names) != sorted(expected):
        raise DatasetIntegrityError(
            f"{where}: classes {list(class_names)}, expected {list(expected)}")
    got = collections.Counter(np.asarray(labels).tolist())
    for i, name in enumerate(class_names):
        if got.get(i, 0) != expected[name]:
            raise DatasetIntegrityError(
                f"{where}: {got.get(i, 0):,} {what} of class {name!r}, "
                f"expected {expected[name]:,}")


class _CorruptTar(tarfile.TarError):
    pass


class _CheckedTarInfo(tarfile.TarInfo):
    """Tar headers that raise on damage: ``tarfile`` ends the archive quietly at an
    invalid, truncated or missing header after the first; only the end-of-archive
    marker (a zero block) may end it."""

    @classmethod
    def fromtarfile(cls, tar):
        try:
            return super().fromtarfile(tar)
        except tarfile.EOFHeaderError:
            raise
        except tarfile.HeaderError as e:
            raise _CorruptTar(
                f"bad tar header at byte {tar.offset:,} of the tar stream: {e}") from None


def _read_to_end(tar):
    """Read what follows the end-of-archive marker: for a .tar.gz this checks the
    gzip CRC and length of the whole stream."""
    while tar.fileobj.read(1 << 20):
        pass


@contextlib.contextmanager
def _archive_errors(path):
    """Turn the errors of reading a damaged archive into DatasetIntegrityError."""
    try:
        yield
    except _CorruptTar as e:
        raise DatasetIntegrityError(f"{path}: truncated or corrupt archive ({e})") from None
    except OSError as e:
        if e.errno is not None:  # a real I/O error (permissions, disk full): not the data
            raise
        raise DatasetIntegrityError(
            f"{path}: truncated or corrupt archive ({type(e).__name__}: {e})") from None
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error) as e:
        raise DatasetIntegrityError(
            f"{path}: truncated or corrupt archive ({type(e).__name__}: {e})") from None


def _open_tar(path):
    return tarfile.open(path, "r:*", tarinfo=_CheckedTarInfo)


def check_archive(path):
    """Read a .tar(.gz) / .zip archive whole; raise DatasetIntegrityError if damaged."""
    with _archive_errors(path):
        if path.endswith(".zip"):
            with zipfile.ZipFile(path) as z:
                for info in z.infolist():
                    with z.open(info) as fh:  # read to the end: checks the member's CRC
                        while fh.read(1 << 20):
                            pass
        else:
            with _open_tar(path) as tar:
                for m in tar:
                    if m.isfile():
                        fh = tar.extractfile(m)
                        while fh.read(1 << 20):
                            pass
                _read_to_end(tar)


def _extract(path, dest):
    """Extract an archive into ``dest`` after checking it whole."""
    check_archive(path)
    with _archive_errors(path):
        if path.endswith(".zip"):
            with zipfile.ZipFile(path) as z:
                z.extractall(dest)
        else:
            with _open_tar(path) as tar:
                tar.extractall(dest, filter="data")


class _Tree:
    """Read files from a directory or from a .tar.gz / .zip archive alike."""

    def __init__(self, path):
        self.path = path

    def files(self):
        """Yield (relative path, bytes) for every regular file, in sorted order.

        An archive is read whole first, so a damaged one raises
        :class:`DatasetIntegrityError` before anything is yielded.
        """
        p = self.path
        if os.path.isdir(p):
            for dirpath, dirnames, filenames in os.walk(p):
                dirnames.sort()
                for f in sorted(filenames):
                    full = os.path.join(dirpath, f)
                    rel = os.path.relpath(full, p).replace(os.sep, "/")
                    with open(full, "rb") as fh:
                        yield rel, fh.read()
        elif p.endswith((".tar.gz", ".tgz", ".tar")):
            # Read in archive order (a .tar.gz cannot seek cheaply), then sort.
            with _archive_errors(p):
                with _open_tar(p) as tar:
                    entries = [(m.name, tar.extractfile(m).read()) for m in tar if m.isfile()]
                    _read_to_end(tar)
            yield from sorted(entries, key=lambda e: e[0])
        elif p.endswith(".zip"):
            with _archive_errors(p):
                with zipfile.ZipFile(p) as z:
                    entries = [(n, z.read(n)) for n in sorted(z.namelist())
                               if not n.endswith("/")]
            yield from entries
        else:
            raise DatasetFormatError(f"{p}: not a directory, .tar.gz or .zip archive")
