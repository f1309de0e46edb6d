"""Finding a dataset's files: the places looked in, and the download."""

import dataclasses
import os

from kerasattn.data.datasets.definitions import DatasetFormatError, DatasetNotFoundError, ENV_VAR


@dataclasses.dataclass(frozen=True)
class Remote:
    """One downloadable file: address, file name in the cache, checksum."""

    url: str
    fname: str
    file_hash: str | None = None  # md5 or sha256, as keras.utils.get_file takes


def search_roots(data_dir=None):
    """The directories looked in, in order: data_dir, $KERASATTN_DATA_DIR, Keras cache."""
    roots = []
    if data_dir:
        roots.append(os.path.abspath(os.path.expanduser(str(data_dir))))
    if os.environ.get(ENV_VAR):
        roots.append(os.path.abspath(os.path.expanduser(os.environ[ENV_VAR])))
    roots.append(os.path.join(os.path.expanduser("~"), ".keras", "datasets"))
    seen, unique = set(), []
    for r in roots:
        if r not in seen:
            seen.add(r)
            unique.append(r)
    return unique


def locate(name, candidates, remotes, data_dir=None, download=True):
    """Return the first existing ``root/candidate`` path, downloading if allowed.

    Args:
        name: the dataset name, for messages.
        candidates: relative paths (files or directories) to try in each root.
        remotes: the files to download when nothing is found; the first one's
            cache path is returned (after download) as the dataset path.
        data_dir: the user's ``--data-dir``.
        download: whether to try downloading.
    """
    roots = search_roots(data_dir)
    looked = []
    for root in roots:
        for cand in candidates:
            path = os.path.join(root, cand)
            looked.append(path)
            if os.path.exists(path):
                return path
    error = None
    if download and remotes:
        import keras  # imported late: loaders do not need Keras otherwise

        try:
            paths = [
                keras.utils.get_file(
                    fname=r.fname, origin=r.url, file_hash=r.file_hash,
                    cache_subdir="datasets",
                )
                for r in remotes
            ]
            return paths[0]
        except Exception as e:  # network errors come in many types
            error = e
    lines = [f"Dataset {name!r} was not found. Looked in:"]
    lines += [f"  - {p}" for p in looked]
    if remotes:
        lines.append("Download it from:")
        lines += [f"  - {r.url}" + (f" (checksum {r.file_hash})" if r.file_hash else "")
                  for r in remotes]
        lines.append(
            "and put it in one of the places above, or point --data-dir or "
            f"${ENV_VAR} at the directory that holds it."
        )
    if error is not None:
        lines.append(f"The download failed: {type(error).__name__}: {error}")
    elif not download:
        lines.append("(downloading was disabled)")
    raise DatasetNotFoundError("\n".join(lines))


def _decode(raw, where):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DatasetFormatError(f"{where}: not valid UTF-8 ({e})") from None
