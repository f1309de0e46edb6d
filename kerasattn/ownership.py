"""Files on a user's disk: kerasattn deletes, replaces or writes only what it made.

Every directory kerasattn creates (a run, a preset, an export version, an explanation
output) gets a marker file first, :data:`MARKER` (``.kerasattn``), naming its kind
and a random id that the directory's own record repeats (``config.json``'s
``run_id``, ``metadata.json``'s ``preset_id``)::

    {"format": "kerasattn.owned/1", "kind": "run", "id": "3f2a..."}

and kerasattn deletes, replaces, resumes or restarts only a directory whose marker
names the kind it expects (:func:`require_owned`): anything else is refused with
one :class:`OwnershipError` line that names the folder and says nothing was touched.
Directories made before markers existed are recognised by their full set of files
(the ``legacy`` test each caller passes), or refused.

Writes follow no symbolic link and are whole or absent: :func:`write_bytes` writes a
new file beside its place (``O_CREAT | O_EXCL | O_NOFOLLOW``: never through a link,
never over another file), flushes it and renames it over the place (a rename
replaces a link itself, never its target). :func:`replace_dir` replaces a directory
by building the new one beside, renaming the old one aside, renaming the new one in,
then deleting the old one: a kill at any point leaves the old or the new directory
whole, and :func:`recover` puts a directory left aside back (or deletes a leftover)
on the next run.

Fault injection (the crash-point and disk-full harnesses of
``tests/test_crash_points.py``): every write and rename made here first calls
:func:`fault_point`. With ``KERASATTN_FAULT=N:ACTION`` in the environment the N-th
call (counted per process, from 1) acts: ``kill`` sends the process SIGKILL,
``enospc`` and ``erofs`` raise ``OSError`` (disk full, read-only file system).
``KERASATTN_FAULT_LOG=PATH`` appends one line per call (``N OP PATH``), so a harness
learns how many points a command passes.

Standard library only (imported by commands that never load TensorFlow).
"""

import contextlib
import errno
import json
import os
import re
import shutil
import signal
import uuid

MARKER = ".kerasattn"
FORMAT = "kerasattn.owned/1"
KINDS = ("run", "preset", "export", "explain")
_ASIDE, _NEW = ".old-", ".new-"  # sibling names: .NAME.old-ID, .NAME.new-ID

_calls = 0


class OwnershipError(ValueError):
    """A directory kerasattn did not make (or of another kind), refused untouched."""


# -- fault injection ----------------------------------------------------------------
def fault_point(op, path):
    """Count a write or rename (``op``) of ``path``; act on it when
    ``KERASATTN_FAULT`` names this call (see the module docstring)."""
    global _calls
    log, spec = os.environ.get("KERASATTN_FAULT_LOG"), os.environ.get("KERASATTN_FAULT")
    if not log and not spec:
        return
    _calls += 1
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(f"{_calls} {op} {path}\n")
    if not spec:
        return
    at, _, action = spec.partition(":")
    if _calls != int(at):
        return
    if action == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if action == "erofs":
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), path)
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)


# -- markers ------------------------------------------------------------------------
def new_id():
    return uuid.uuid4().hex


def read_marker(directory):
    """The marker of ``directory`` as a dict, or None (no marker, a link, or not ours)."""
    try:
        fd = os.open(os.path.join(directory, MARKER), os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as fh:
            data = json.loads(fh.read(4096).decode("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT \
            or data.get("kind") not in KINDS or not isinstance(data.get("id"), str):
        return None
    return data


def write_marker(directory, kind, owner_id=None):
    """Write ``directory``'s marker (kind ``kind``); returns its id."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    owner_id = owner_id or new_id()
    write_json(os.path.join(directory, MARKER),
               {"format": FORMAT, "kind": kind, "id": owner_id}, indent=None)
    return owner_id


def owner_of(directory, kind):
    """The id of ``directory``'s marker when it names ``kind``; else None."""
    marker = read_marker(directory)
    return marker["id"] if marker and marker["kind"] == kind else None


def _describe(kind):
    return {"run": "run directory", "preset": "preset directory",
            "export": "SavedModel version", "explain": "explanation output"}[kind]


def require_owned(directory, kind, legacy=None, what=None):
    """Raise :class:`OwnershipError` unless ``directory`` is a real directory (not a
    link) that kerasattn made as a ``kind`` (its marker), or, without a marker, one for
    which ``legacy(directory)`` is true (made before markers, recognised by its files).
    Returns the marker's id (None for a legacy directory)."""
    what = what or _describe(kind)
    if os.path.islink(directory):
        raise OwnershipError(f"{directory} is a symbolic link, not a kerasattn {what}; "
                             "nothing was touched")
    if not os.path.isdir(directory):
        raise OwnershipError(f"{directory} is not a directory; nothing was touched")
    marker = read_marker(directory)
    if marker is not None:
        if marker["kind"] != kind:
            raise OwnershipError(f"{directory} is a kerasattn "
                                 f"{_describe(marker['kind'])}, not a {what}; nothing was "
                                 "touched")
        return marker["id"]
    if os.path.lexists(os.path.join(directory, MARKER)) or legacy is None \
            or not legacy(directory):
        raise OwnershipError(f"{directory} was not made by kerasattn as a {what} (no "
                             f"{MARKER} marker of its own, and not the files of one); "
                             "nothing was touched")
    return None


def is_empty_dir(path):
    """A real directory (not a link) holding nothing, or only files a killed write of
    kerasattn's left (:func:`is_temporary`)."""
    return os.path.isdir(path) and not os.path.islink(path) \
        and all(is_temporary(n) for n in os.listdir(path))


def make_dir(path, kind, owner_id=None):
    """Create the directory ``path`` (its parents as needed) with its marker first;
    an existing empty directory (not a link) is taken. Returns the marker's id.
    Raises ``FileExistsError`` for anything else at ``path``."""
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    made = False
    try:
        os.mkdir(path)
        made = True
    except FileExistsError:
        if not is_empty_dir(path):
            raise
    try:
        return write_marker(path, kind, owner_id)
    except BaseException:
        if made and is_empty_dir(path):  # the marker could not be written: nothing made
            os.rmdir(path)
        raise


# -- whole writes that follow no link ---------------------------------------------------
def _check_parent(path):
    parent = os.path.dirname(os.path.abspath(path))
    if os.path.islink(parent):
        raise OSError(errno.ELOOP, f"{parent} is a symbolic link; kerasattn writes no file "
                                   "through one", path)


@contextlib.contextmanager
def atomic_file(path, text=False):
    """A file handle to write ``path`` whole: a new file beside it (never through a
    link, never over another file: ``O_CREAT | O_EXCL | O_NOFOLLOW``), flushed and
    renamed over ``path`` when the block ends without an error (a link at ``path`` is
    replaced, its target untouched); on an error it is deleted and ``path`` is as it
    was. (The folder itself may be a link a user made; kerasattn's own directories
    are refused when they are one.)"""
    fault_point("write", path)
    tmp = os.path.join(os.path.dirname(os.path.abspath(path)),
                       f".{os.path.basename(path)}.{new_id()[:12]}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") if text \
                else os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        rename(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _drop_stale(path)


def _drop_stale(path):
    """Delete the files an earlier, killed write of ``path`` left beside it, in a
    directory kerasattn owns (its marker)."""
    folder, name = os.path.split(os.path.abspath(path))
    if name != MARKER and read_marker(folder) is None:
        return
    for n in os.listdir(folder):
        if is_temporary(n) and n.startswith(f".{name}.") and len(n) == len(name) + 18:
            try:
                os.unlink(os.path.join(folder, n))
            except OSError:
                pass


def is_temporary(name):
    """Whether ``name`` is one of :func:`atomic_file`'s files (``.NAME.ID.tmp``)."""
    return re.fullmatch(r"\..+\.[0-9a-f]{12}\.tmp", name) is not None


def write_bytes(path, data):
    """Write ``data`` to ``path`` whole, following no link (:func:`atomic_file`)."""
    with atomic_file(path) as fh:
        fh.write(data)


def copy_file(src, dst):
    """Copy ``src`` over ``dst`` whole, following no link (:func:`atomic_file`)."""
    with open(src, "rb") as fh, atomic_file(dst) as out:
        shutil.copyfileobj(fh, out)


def write_text(path, text):
    write_bytes(path, text.encode("utf-8"))


def write_json(path, obj, indent=2, default=None):
    write_text(path, json.dumps(obj, indent=indent, default=default, ensure_ascii=False)
               + "\n")


def rename(src, dst):
    """``os.replace`` with a fault point (a rename replaces a link at ``dst`` itself)."""
    fault_point("rename", dst)
    os.replace(src, dst)


def open_lock_file(path):
    """A descriptor of the lock file ``path``, created if missing, never through a
    symbolic link (``O_NOFOLLOW``): a link there is an ``OSError`` (ELOOP)."""
    _check_parent(path)
    if not os.path.lexists(path):
        fault_point("write", path)
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)


# -- directories ----------------------------------------------------------------------
def work_dir(target, kind):
    """A new, marked directory beside ``target`` (``.NAME.new-ID``) to build a
    replacement in; returns ``(path, id)``. Its parent is made if missing."""
    target = os.path.abspath(target)
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    owner_id = new_id()
    path = os.path.join(parent, f".{os.path.basename(target)}{_NEW}{owner_id[:12]}")
    make_dir(path, kind, owner_id)
    return path, owner_id


def _leftovers(target):
    parent, name = os.path.split(os.path.abspath(target))
    if not os.path.isdir(parent):
        return []
    found = []
    for n in sorted(os.listdir(parent)):
        for tag in (_ASIDE, _NEW):
            if n.startswith(f".{name}{tag}") and not os.path.islink(os.path.join(parent, n)):
                found.append((tag, os.path.join(parent, n)))
    return found


def recover(target, kind):
    """After a kill during :func:`replace_dir` (or a build): put an old ``target`` left
    aside back when ``target`` is gone, and delete kerasattn's own leftovers beside it
    (marked directories of ``kind`` only). Returns sentences saying what it did."""
    said = []
    for tag, path in _leftovers(target):
        if tag == _NEW and owner_of(path, kind) is None and is_empty_dir(path):
            for n in os.listdir(path):  # killed while its marker was written
                os.unlink(os.path.join(path, n))
            os.rmdir(path)
            continue
        if owner_of(path, kind) is None:
            continue  # not ours: never touched
        if tag == _ASIDE and not os.path.lexists(target):
            rename(path, target)
            said.append(f"{target}: put back the copy left aside by an interrupted replace")
        else:
            shutil.rmtree(path)
            said.append(f"{target}: deleted {os.path.basename(path)}, left by an interrupted "
                        "write")
    return said


def replace_dir(new, target, kind, legacy=None):
    """Move the finished directory ``new`` (from :func:`work_dir`) to ``target``. An
    existing ``target`` must be kerasattn's own of ``kind`` (:func:`require_owned`,
    checked first: otherwise nothing is touched); it is renamed aside, ``new`` is
    renamed in, then the old one is deleted."""
    target = os.path.abspath(target)
    aside = None
    if os.path.lexists(target):
        if not is_empty_dir(target):
            require_owned(target, kind, legacy)
        aside = os.path.join(os.path.dirname(target),
                             f".{os.path.basename(target)}{_ASIDE}{new_id()[:12]}")
        if is_empty_dir(target):
            os.rmdir(target)
            aside = None
        else:
            if read_marker(target) is None:  # a legacy directory: mark it ours to move it
                write_marker(target, kind)
            rename(target, aside)
    rename(new, target)
    if aside:
        shutil.rmtree(aside)


def remove_dir(path, kind, legacy=None):
    """Delete the directory ``path`` only when it is kerasattn's own of ``kind``
    (:class:`OwnershipError` otherwise, nothing touched). Links inside are removed,
    never followed."""
    require_owned(path, kind, legacy)
    shutil.rmtree(path)
