"""Run directories: what a training run leaves behind, and how it is read back.

A run directory holds::

    .kerasattn           the marker that makes it kerasattn's run directory
    config.json          everything needed to rebuild data, preprocessing and model
    preprocessor.json    text options of the preprocessor
    vocab.txt            its vocabulary (id = line number - 1; line 1, padding, is empty)
    model.keras          the best epoch's model (Keras models): a TextClassifier
                         (raw strings in), the backbone alone from training.portable
    model.skops          the fitted pipeline (classical models; skops, never a pickle)
    history.csv          per-epoch loss/accuracy (Keras CSVLogger)
    tensorboard/         TensorBoard logs
    metrics.json         "val" and "test" metrics, train_seconds, train_examples_per_second
    learning_curves.png, confusion_matrix.png, roc_curve.png (binary tasks)
    test_scores.npz      binary tasks: the test labels and positive-class scores
                         (for ROC curves of several runs on one plot)
    run.lock             held by the one process writing the directory

This module owns those files: their names, what a run trained on (its data
fingerprint), one writer at a time (:class:`RunLock`), claiming a directory for a
run (:func:`claim_run_dir`, :func:`take_run_dir`), the one check every command
makes before it reads a run (:func:`open_run`), the one loader of its model
(:func:`load_run`), and the records and plots written into it. A run's dataset is
loaded by :mod:`kerasattn.run_data`, its predictions made by
:mod:`kerasattn.prediction` and its metrics recomputed by :mod:`kerasattn.evaluation`.
"""

import csv
import dataclasses
import errno
import fcntl
import functools
import hashlib
import io
import json
import os
import platform
import shutil

import numpy as np

import kerasattn.models  # noqa: F401  (registers the zoo's models: _read_model loads them)
from kerasattn import ownership
from kerasattn._quiet import physical_gpus
from kerasattn.data import datasets

CONFIG, METRICS, HISTORY = "config.json", "metrics.json", "history.csv"
KERAS_MODEL, CLASSICAL_MODEL = "model.keras", "model.skops"  # kerasattn.classical.save
TEST_SCORES = "test_scores.npz"
VOCAB = "vocab.txt"  # written by TextPreprocessor.save (its VOCAB_FILE)
LOCK = "run.lock"  # held (flock) by the one process writing the run directory
PREPROCESSOR = "preprocessor.json"  # written by TextPreprocessor.save (its CONFIG_FILE)
EMBEDDINGS = "embeddings.npy"  # a prepared run's starting word vectors (training.portable)
FIT_LOG = "fit.log"  # a run's output when fit --parallel runs it in a process of its own
# every name a run directory of kerasattn may hold (training.train, training.portable):
# a directory without a marker is taken for an old run only when it holds nothing else
RUN_FILES = frozenset({
    CONFIG, METRICS, HISTORY, KERAS_MODEL, CLASSICAL_MODEL, TEST_SCORES, VOCAB, LOCK,
    PREPROCESSOR, "tensorboard", "backup", "learning_curves.png", "confusion_matrix.png",
    "roc_curve.png", ".classifier.keras", "model.partial.keras", EMBEDDINGS, FIT_LOG,
    "model.joblib", "config.json.tmp", "metrics.json.tmp", "history.csv.tmp"})


def finished_run_of(run_dir, config):
    """Whether ``run_dir`` holds a finished run (``metrics.json``) of ``config`` (a
    :class:`kerasattn.training.RunConfig`): its stored configuration is the same run
    (model, dataset, seed, settings, model options, ...), whatever command wrote it
    (``training.train``, ``training.portable``, flags or a named recipe)."""
    if not os.path.exists(os.path.join(run_dir, METRICS)):
        return False
    return config.same_run(run_dir)


# -- what a run trained on --------------------------------------------------------
def _file_sha256(path):
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def data_fingerprint(dataset, ds, streamed=False, extra_files=()):
    """What a run trains on, to refuse resuming it on other data: the SHA-256 of each
    file of a user's dataset (``csv:PATH``...) and of ``extra_files`` (its word vectors)
    and, unless streamed, each split's row count and the SHA-256 of its texts and labels
    in order."""
    fingerprint = {"files": {os.path.abspath(f): _file_sha256(f)
                             for f in [*datasets.user_files(dataset), *extra_files]}}
    if not streamed:
        splits = {}
        for s in datasets.SPLITS:
            part = ds.split(s)
            digest = hashlib.sha256()
            for text, label in zip(part.texts, np.asarray(part.labels).tolist()):
                digest.update(f"{label}\t{len(text)}\t{text}\n".encode("utf-8", "surrogatepass"))
            splits[s] = {"rows": len(part), "sha256": digest.hexdigest()}
        fingerprint["splits"] = splits
    return fingerprint


def fingerprint_changes(before, now):
    """Sentences naming what differs between two :func:`data_fingerprint` records
    (``[]``: the same data, or nothing recorded before)."""
    if not before:
        return []
    changes = []
    old_files, new_files = before.get("files") or {}, now.get("files") or {}
    for path in sorted(set(old_files) | set(new_files)):
        if path not in new_files:
            changes.append(f"{path} is no longer read")
        elif path not in old_files:
            changes.append(f"{path} is read now and was not")
        elif old_files[path] != new_files[path]:
            changes.append(f"{path} changed")
    old_splits, new_splits = before.get("splits") or {}, now.get("splits") or {}
    for s in old_splits:
        if s in new_splits and old_splits[s] != new_splits[s]:
            rows = (f" ({old_splits[s]['rows']:,} rows, now {new_splits[s]['rows']:,})"
                    if old_splits[s]["rows"] != new_splits[s]["rows"] else "")
            changes.append(f"the {s} split's texts or labels differ{rows}")
    return changes


def vocabulary_sha256(vocabulary):
    """The SHA-256 of a vocabulary (its tokens in id order)."""
    return hashlib.sha256("\n".join(vocabulary).encode("utf-8", "surrogatepass")).hexdigest()


# -- one writer per run directory -------------------------------------------------
class RunDirectoryLocked(RuntimeError):
    """Another live process holds the run directory's lock."""


class RunLock:
    """An exclusive ``flock`` on ``RUN_DIR/run.lock`` for as long as a process writes
    the run directory. The operating system releases it when the process ends, however
    it ends, so a crash never leaves a run locked; the file (holding the writer's pid)
    stays and is reused. :meth:`acquire` raises :class:`RunDirectoryLocked` naming the
    live process when another one holds it."""

    def __init__(self, fd, path):
        self._fd, self.path = fd, path

    @classmethod
    def acquire(cls, run_dir):
        path = os.path.join(run_dir, LOCK)
        try:
            fd = ownership.open_lock_file(path)  # never through a symbolic link
        except OSError as e:
            if e.errno == errno.ELOOP or os.path.islink(path):
                raise RunDirectoryLocked(f"{path} is a symbolic link, not kerasattn's lock "
                                         "file; nothing was touched") from None
            raise
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            holder = os.read(fd, 64).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise RunDirectoryLocked(
                    f"{run_dir} is being written by another process (pid {holder}); wait "
                    "for it to finish, or choose another --run-name") from None
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        return cls(fd, path)

    def release(self):
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


# -- claiming a run directory ------------------------------------------------------
class ClaimError(ValueError):
    """A directory a run may not be written into, or a run in it that this command may
    not replace (one line; nothing was touched). The training commands raise it as
    :class:`kerasattn.training.ConfigError`."""


def is_worker_dir(name):
    """Whether ``name`` is another worker's directory inside a multi-worker run's."""
    return name.startswith(("worker-", "chief-"))


def unfinished_runs(output_dir, config):
    """Unfinished run directories under ``output_dir`` of this same configuration (with a
    backup to resume, or killed before their first epoch's backup), oldest first."""
    if not os.path.isdir(output_dir):
        return []
    found = []
    for name in os.listdir(output_dir):
        d = os.path.join(output_dir, name)
        if os.path.isdir(d) and not os.path.exists(os.path.join(d, METRICS)) \
                and config.same_run(d):
            found.append(d)
    return sorted(found, key=os.path.getmtime)


def clear_run_dir(run_dir, log=None):
    """Delete an unfinished or replaced run's own files: the names a run writes
    (:data:`RUN_FILES`), not the lock this process holds, the marker, the directories of
    other workers, nor any file of someone else's (named in ``log``)."""
    kept = []
    for name in sorted(os.listdir(run_dir)):
        path = os.path.join(run_dir, name)
        if name in (LOCK, ownership.MARKER) or is_worker_dir(name):
            continue
        if name not in RUN_FILES and not ownership.is_temporary(name):
            kept.append(name)
            continue
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
    if kept and log:
        log(f"  kept in {run_dir} (not kerasattn's): {', '.join(kept)}")


def links_inside(run_dir):
    """The symbolic links inside ``run_dir`` (relative paths; other workers' directories
    not searched)."""
    found = []
    for root, dirs, files in os.walk(run_dir):
        if root == run_dir:
            dirs[:] = [d for d in dirs if not is_worker_dir(d)]
        for name in dirs + files:
            if os.path.islink(os.path.join(root, name)):
                found.append(os.path.relpath(os.path.join(root, name), run_dir))
    return sorted(found)


def take_run_dir(run_dir):
    """Make ``run_dir`` (marked as kerasattn's run directory), or take an existing one
    only when kerasattn made it as a run (or it is an old run's files, or empty), for
    ``training.portable prepare``; :class:`ClaimError` otherwise, nothing touched."""
    if os.path.islink(run_dir):
        raise ClaimError(f"{run_dir} is a symbolic link; kerasattn writes no run through "
                         "one (nothing was touched)")
    if not os.path.lexists(run_dir) or ownership.is_empty_dir(run_dir):
        try:
            ownership.make_dir(run_dir, "run")
        except OSError as e:
            raise ClaimError(f"cannot create the run directory {run_dir}: "
                             f"{e.strerror or e}") from None
        return
    try:
        ownership.require_owned(run_dir, "run", is_legacy_run)
    except ownership.OwnershipError as e:
        raise ClaimError(f"{e}: choose another --run-name or --output-dir") from None
    if ownership.read_marker(run_dir) is None:
        ownership.write_marker(run_dir, "run")


def claim_run_dir(config, run_dir, restart=False, overwrite=False,
                  log=functools.partial(print, flush=True)):
    """Check what ``run_dir`` holds, take its lock and make it ready for a run of
    ``config`` (a :class:`kerasattn.training.RunConfig`). Returns ``(state, created,
    lock)``: state is "new", "unfinished" (an interrupted run of this same configuration
    on the same data, for the caller to resume from its backup or start again) or
    "finished" (a finished run of this same configuration: nothing to train); lock is
    the :class:`RunLock` the caller holds while it writes (one writer per run directory;
    released when the process ends, however it ends). Raises :class:`ClaimError`,
    before anything is changed, for a directory another process is writing, a finished
    run of another configuration (unless ``overwrite``), an unfinished run of another
    configuration (unless ``restart``), a run of this configuration on other data
    (``config.data_fingerprint``: which file or split changed), or a directory
    kerasattn did not make as a run directory (its marker, :mod:`kerasattn.ownership`;
    a run made before markers is recognised by its files): such a directory is never
    resumed, restarted, overwritten or written into."""
    created = _make_run_dir(run_dir)
    other_files = _owned_files(run_dir)
    has_config = os.path.exists(os.path.join(run_dir, CONFIG))
    try:
        lock = RunLock.acquire(run_dir)
    except RunDirectoryLocked as e:
        raise ClaimError(str(e)) from None
    try:
        if ownership.read_marker(run_dir) is None:  # empty, or a run made before markers
            ownership.write_marker(run_dir, "run")
        for name in os.listdir(run_dir):  # files a killed write left beside their place
            if ownership.is_temporary(name):
                os.remove(os.path.join(run_dir, name))
        state = _claim_state(config, run_dir, has_config, other_files, restart, overwrite,
                             log)
    except BaseException:
        lock.release()
        raise
    return state, created, lock


def _make_run_dir(run_dir):
    """Make ``run_dir`` (marked) unless it exists; whether this process made it.
    :class:`ClaimError` for a link, a file, or a directory it cannot write."""
    created = False
    if os.path.islink(run_dir):
        raise ClaimError(f"{run_dir} is a symbolic link; kerasattn writes no run through "
                         "one (nothing was touched): choose another --run-name or "
                         "--output-dir")
    if not os.path.exists(run_dir):
        try:
            ownership.make_dir(run_dir, "run")
            created = True
        except FileExistsError:
            pass  # made meanwhile: another worker of a multi-worker run made its worker-N in it
        except OSError as e:
            raise ClaimError(f"cannot create the run directory {run_dir}: "
                             f"{e.strerror or e}") from None
    if not os.path.isdir(run_dir):
        raise ClaimError(f"{run_dir} is a file, not a run directory")
    if not os.access(run_dir, os.W_OK | os.X_OK):
        raise ClaimError(f"the run directory {run_dir} is not writable")
    return created


def _owned_files(run_dir):
    """The files of ``run_dir`` besides the lock, the marker, other workers' directories
    and temporary files, once it is known to be kerasattn's run directory holding no
    symbolic link (:class:`ClaimError` otherwise)."""
    other_files = [n for n in os.listdir(run_dir)
                   if not is_worker_dir(n) and n not in (LOCK, ownership.MARKER)
                   and not ownership.is_temporary(n)]
    if ownership.read_marker(run_dir) is None and (other_files or os.path.lexists(
            os.path.join(run_dir, ownership.MARKER))):
        try:
            ownership.require_owned(run_dir, "run", is_legacy_run)
        except ownership.OwnershipError:
            raise ClaimError(
                f"{run_dir} is not a kerasattn run directory (no {ownership.MARKER} marker, "
                "and files a run does not write); nothing was touched: choose another "
                "--run-name or --output-dir") from None
    elif ownership.read_marker(run_dir) is not None:
        try:
            ownership.require_owned(run_dir, "run")
        except ownership.OwnershipError as e:
            raise ClaimError(str(e)) from None
    links = links_inside(run_dir)
    if links:
        raise ClaimError(f"{run_dir} holds a symbolic link ({links[0]}); kerasattn writes "
                         "no file through one and touched nothing: remove it, or choose "
                         "another --run-name")
    return other_files


def _other_data(config, run_dir, what, remedy):
    """ClaimError naming what changed when ``run_dir``'s run (``what``) trained on
    other data than ``config.data_fingerprint``; None when the same (or not recorded)."""
    stored = read_json(os.path.join(run_dir, CONFIG)).get("data_fingerprint")
    changes = fingerprint_changes(stored, config.data_fingerprint or {})
    if not changes:
        return None
    return ClaimError(f"{run_dir} holds {what} of this command on other data: "
                      f"{'; '.join(changes)}; {remedy}")


def _claim_state(config, run_dir, has_config, other_files, restart, overwrite, log):
    """:func:`claim_run_dir`'s state of the locked ``run_dir`` (a run replaced by
    ``overwrite`` or ``restart`` is deleted first)."""
    differ = config.differences(run_dir) if has_config else None
    same = differ == []
    # what differs, for the refusals below
    which = (f"it differs in {', '.join(differ)}" if differ
             else "see its config.json")
    if os.path.exists(os.path.join(run_dir, METRICS)):
        if overwrite:
            clear_run_dir(run_dir, log)
            log(f"--overwrite: deleted the finished run in {run_dir}")
            return "new"
        if not same:
            raise ClaimError(
                f"{run_dir} holds a finished run of a different command ({which}); "
                "choose another --run-name, or pass --overwrite to replace it")
        error = _other_data(config, run_dir, "a finished run",
                            "pass --overwrite to train it again on this data, or "
                            "choose another --run-name")
        if error:
            raise error
        return "finished"
    if not other_files:
        return "new"
    if restart:
        clear_run_dir(run_dir, log)
        log(f"--restart: deleted the unfinished run in {run_dir}; starting from epoch 1")
        return "new"
    if not same:
        raise ClaimError(
            f"{run_dir} holds an interrupted run of a different command ({which}); "
            "resume it with that command, pass --restart to discard it, or choose another "
            "--run-name")
    error = _other_data(config, run_dir, "an interrupted run",
                        "restore that data to resume it, pass --restart to train from "
                        "epoch 1 on this data, or choose another --run-name")
    if error:
        raise error
    return "unfinished"


def read_vocabulary(run_dir):
    """The id -> token list of a run (no TensorFlow needed)."""
    with open(os.path.join(run_dir, VOCAB), encoding="utf-8") as fh:
        return fh.read().split("\n")[:-1]


def read_test_scores(run_dir):
    """(labels, positive-class scores) of a binary run's test split."""
    with np.load(os.path.join(run_dir, TEST_SCORES)) as f:
        return f["labels"], f["scores"]


def write_json(path, obj):
    """Write ``obj`` as JSON to ``path`` whole, following no link
    (:func:`kerasattn.ownership.write_json`)."""
    ownership.write_json(path, obj, default=_json_default)


def write_config(run_dir, config):
    """Write a run's ``config.json`` (a dictionary), repeating the id of the run
    directory's marker as ``run_id``."""
    owner = ownership.owner_of(run_dir, "run")
    write_json(os.path.join(run_dir, CONFIG), {**config, "run_id": owner} if owner else config)


# -- reading a run back: one function checks it for every command ------------------
class RunError(ValueError):
    """A run directory that cannot be read as one (one line, nothing written)."""


def is_legacy_run(run_dir):
    """Whether ``run_dir``, without a marker, is a run directory made before markers
    existed: a ``config.json`` of kerasattn's and nothing but a run's files."""
    try:
        config = read_json(os.path.join(run_dir, CONFIG))
    except (OSError, ValueError):
        return False
    if not isinstance(config, dict) or not {"model", "dataset", "kind", "train"} <= set(config):
        return False
    return all(n in RUN_FILES or ownership.is_temporary(n) or is_worker_dir(n)
               for n in os.listdir(run_dir))


_CONFIG_SCHEMA = {"model": str, "dataset": str, "kind": str, "seed": int, "train": dict}


def check_config(config, where):
    """Raise :class:`RunError` unless ``config`` (a run's ``config.json``) has the keys
    and types every command reads."""
    if not isinstance(config, dict):
        raise RunError(f"{where} is not a run configuration (a JSON object)")
    for key, kind in _CONFIG_SCHEMA.items():
        if not isinstance(config.get(key), kind) or isinstance(config.get(key), bool):
            raise RunError(f"{where}: {key!r} is missing or not a {kind.__name__}; the run "
                           "directory is damaged")
    if config["kind"] not in ("keras", "classical"):
        raise RunError(f"{where}: unknown kind {config['kind']!r}")
    train = config["train"]
    for key in ("batch_size", "val_fraction"):
        if key not in train:
            raise RunError(f"{where}: train.{key} is missing; the run directory is damaged")
    names = config.get("class_names")
    if names is not None and (not isinstance(names, list) or len(names) < 2):
        raise RunError(f"{where}: class_names must be a list of at least two names")


def open_run(run_dir, finished=True, need=None):
    """The checked ``config.json`` of the run directory ``run_dir``; every command that
    reads a run opens it here. Raises :class:`RunError` (one line, nothing written) for
    a path that is not a directory or is a link, a directory kerasattn did not make as
    a run (no marker and not an old run's files), a marker whose id is not the one its
    ``config.json`` repeats, a ``config.json`` missing, unreadable or without the keys
    commands read, a run that has not finished (``finished``: no whole
    ``metrics.json``), and missing files of its model (``model.keras``,
    ``vocab.txt`` and ``preprocessor.json``, or ``model.skops``); ``need``: more file
    names that must be there."""
    if os.path.islink(run_dir):
        raise RunError(f"{run_dir} is a symbolic link, not a run directory")
    if not os.path.isdir(run_dir):
        raise RunError(f"{run_dir}: no such run directory")
    try:
        owner = ownership.require_owned(run_dir, "run", is_legacy_run)
    except ownership.OwnershipError as e:
        if not os.path.exists(os.path.join(run_dir, CONFIG)):
            raise RunError(f"{run_dir} is not a run directory (no {CONFIG})") from None
        raise RunError(str(e)) from None
    path = os.path.join(run_dir, CONFIG)
    try:
        config = read_json(path)
    except FileNotFoundError:
        raise RunError(f"{run_dir} is not a run directory (no {CONFIG})") from None
    except (OSError, ValueError) as e:
        raise RunError(f"{path} cannot be read: {e}") from None
    check_config(config, path)
    if owner and config.get("run_id") not in (None, owner):
        raise RunError(f"{path} belongs to another run directory (its run_id is not the "
                       f"one of {run_dir}/{ownership.MARKER}); it was copied in")
    files = list(need or ())
    if finished:
        metrics_path = os.path.join(run_dir, METRICS)
        if not os.path.exists(metrics_path):
            raise RunError(f"{run_dir} holds a run that has not finished (no {METRICS}): "
                           "it is still training or was interrupted; finish it with the "
                           "command that started it")
        try:
            metrics = read_json(metrics_path)
        except (OSError, ValueError) as e:
            raise RunError(f"{metrics_path} cannot be read: {e}") from None
        if not isinstance(metrics, dict):
            raise RunError(f"{metrics_path} is not a metrics record (a JSON object)")
        legacy = os.path.join(run_dir, "model.joblib")  # a pickle: refused by name below
        if config["kind"] == "classical" and not os.path.exists(
                os.path.join(run_dir, CLASSICAL_MODEL)) and os.path.exists(legacy):
            from kerasattn.models import tfidf  # late: scikit-learn, slow: a legacy run only

            tfidf.load(os.path.join(run_dir, CLASSICAL_MODEL))  # raises UnsafeModelError
        files += [CLASSICAL_MODEL] if config["kind"] == "classical" else \
            [KERAS_MODEL, VOCAB, PREPROCESSOR]
    missing = [f for f in files if not os.path.isfile(os.path.join(run_dir, f))]
    if missing:
        raise RunError(f"{run_dir} is damaged: {', '.join(missing)} "
                       f"{'is' if len(missing) == 1 else 'are'} missing")
    return config


def _json_default(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, (np.ndarray, tuple)):
        return list(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def as_json(obj):
    """``obj`` as it comes back from ``config.json`` (tuples become lists, NumPy
    scalars Python numbers): compare live configurations with stored ones this way."""
    return json.loads(json.dumps(obj, default=_json_default))


def read_history(path):
    """Rows of a run's ``history.csv`` (Keras's ``CSVLogger``) as dicts of floats
    (``epoch`` as int); ``[]`` when there is none."""
    if not os.path.exists(path):
        return []
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [{k: (int(v) if k == "epoch" else float(v)) for k, v in r.items()} for r in rows]


def read_json(path):
    with open(path, encoding="utf-8") as fh:  # written as UTF-8 (ownership.write_json)
        return json.load(fh)


def environment():
    """Versions and machine, recorded with every run."""
    import keras  # late: Keras; the rest of this module reads runs without it
    import sklearn  # late: slow to import, and only its version is read

    try:
        import tensorflow as tf  # optional: absent on a JAX or PyTorch machine (portable fit)
    except ImportError:
        tf = None
    return {
        "python": platform.python_version(),
        "tensorflow": tf.__version__ if tf else None,
        "keras": keras.__version__,
        "scikit_learn": sklearn.__version__,
        "machine": f"{platform.machine()} {platform.system()}, {os.cpu_count()} CPUs, "
                   + (f"GPUs: {len(physical_gpus())}" if tf
                      else f"Keras backend {keras.backend.backend()}"),
    }


# -- the model of a Keras run: loaded once, as it was saved ------------------------
@dataclasses.dataclass(frozen=True)
class KerasRun:
    """A Keras run directory loaded by :func:`load_run`.

    Attributes:
        config: its checked ``config.json`` (a dict).
        model: its ``model.keras`` as saved: a :class:`kerasattn.TextClassifier` (raw
            strings in) for a run of ``training.train``, the backbone alone for a run
            of ``training.portable`` or one made before runs saved their classifier.
        preprocessor: its :class:`~kerasattn.data.preprocessing.TextPreprocessor`
            (``preprocessor.json`` and ``vocab.txt``).
    """

    config: dict
    model: object
    preprocessor: object

    @property
    def backbone(self):
        """The trained model on token ids (probabilities out): the classifier's
        backbone, or :attr:`model` itself where the run saved the backbone alone."""
        if getattr(self.model, "backbone", None) is not None \
                and hasattr(self.model, "preprocessor"):
            return self.model.backbone
        return self.model


def load_run(run_dir, compile=True):
    """The Keras run in ``run_dir``, loaded once (a :class:`KerasRun`): checked by
    :func:`open_run` (finished or not, its model, vocabulary and preprocessor there),
    :class:`RunError` for a classical run or a file that cannot be read."""
    config = open_run(run_dir, finished=False, need=[KERAS_MODEL, VOCAB, PREPROCESSOR])
    model = _read_model(run_dir, config, compile)
    return KerasRun(config, model, load_preprocessor(run_dir))


def load_keras_run(run_dir):
    """(config, model, preprocessor) of a Keras run directory: the trained backbone (token
    ids in, probabilities out) and its
    :class:`~kerasattn.data.preprocessing.TextPreprocessor`, whichever way the run saved
    them; :func:`load_run`'s :class:`KerasRun` as a tuple."""
    run = load_run(run_dir)
    return run.config, run.backbone, run.preprocessor


def load_saved_model(run_dir, compile=True):
    """(config, the run's ``model.keras`` as saved) of a Keras run directory: a
    :class:`kerasattn.TextClassifier` for a run of ``training.train``, the backbone alone
    for a run of ``training.portable`` (trained where TensorFlow's text ops may be
    missing) or one made before runs saved their classifier."""
    config = open_run(run_dir, finished=False, need=[KERAS_MODEL])
    return config, _read_model(run_dir, config, compile)


def _read_model(run_dir, config, compile):
    """``model.keras`` of the run ``open_run`` gave ``config`` for, as saved."""
    import keras  # late: Keras and TensorFlow; the rest of this module reads runs without them

    import kerasattn.layers  # noqa: F401  late: Keras (registers the custom layers with it)

    if config["kind"] == "classical":
        raise RunError(f"{run_dir} holds a {config['model']!r} run: a scikit-learn model "
                       f"with no Keras model or attention")
    path = os.path.join(run_dir, KERAS_MODEL)
    try:
        return keras.saving.load_model(path, compile=compile)
    except Exception as e:  # a damaged archive: zipfile, h5py, JSON or Keras errors
        raise RunError(f"{path} cannot be loaded (damaged?): "
                       f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None


def load_preprocessor(run_dir):
    """The run's :class:`~kerasattn.data.preprocessing.TextPreprocessor`;
    :class:`RunError` when its files are missing or damaged."""
    from kerasattn.data.preprocessing import TextPreprocessor  # late: TensorFlow (text ops)

    try:
        return TextPreprocessor.load(run_dir)
    except (OSError, ValueError, TypeError, KeyError) as e:
        raise RunError(f"{run_dir}: its preprocessor ({PREPROCESSOR}, {VOCAB}) cannot be "
                       f"read: {e}") from None


def write_plots(run_dir, title, class_names, test_metrics, roc=None):
    """learning_curves.png, confusion_matrix.png and (binary) roc_curve.png."""
    from kerasattn import run_plots  # late: matplotlib (switched to Agg), plots only

    made = []
    history = os.path.join(run_dir, HISTORY)
    if os.path.exists(history):
        made.append(run_plots.learning_curves(history, os.path.join(run_dir, "learning_curves.png"),
                                          title))
    made.append(run_plots.confusion_matrix(test_metrics["confusion_matrix"], class_names,
                                       os.path.join(run_dir, "confusion_matrix.png"),
                                       f"{title} (test)"))
    if roc is not None and len(class_names) == 2:
        buffer = io.BytesIO()
        np.savez(buffer, labels=roc[0], scores=roc[1])
        ownership.write_bytes(os.path.join(run_dir, TEST_SCORES), buffer.getvalue())
        made.append(run_plots.roc_curves({title: roc}, os.path.join(run_dir, "roc_curve.png"),
                                     "ROC (test)"))
    return [m for m in made if m]
