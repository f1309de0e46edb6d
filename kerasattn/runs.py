"""Run directories: what a training run leaves behind, and how it is read back.

A run directory holds::

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

``training.train`` writes it, ``training.evaluate`` recomputes the metrics
from it. The functions here are shared by both.
"""

import errno
import hashlib
import json
import os
import platform

import numpy as np

CONFIG, METRICS, HISTORY = "config.json", "metrics.json", "history.csv"
KERAS_MODEL, CLASSICAL_MODEL = "model.keras", "model.skops"  # kerasattn.classical.save
TEST_SCORES = "test_scores.npz"
VOCAB = "vocab.txt"  # written by TextPreprocessor.save (its VOCAB_FILE)
LOCK = "run.lock"  # held (flock) by the one process writing the run directory
PREPROCESSOR = "preprocessor.json"  # written by TextPreprocessor.save (its CONFIG_FILE)
# every name a run directory of kerasattn may hold (training.train, training.portable):
# a directory without a marker is taken for an old run only when it holds nothing else
RUN_FILES = frozenset({
    CONFIG, METRICS, HISTORY, KERAS_MODEL, CLASSICAL_MODEL, TEST_SCORES, VOCAB, LOCK,
    PREPROCESSOR, "tensorboard", "backup", "learning_curves.png", "confusion_matrix.png",
    "roc_curve.png", ".classifier.keras", "model.partial.keras", "embeddings.npy", "fit.log",
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
    from kerasattn.data import datasets

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
        import fcntl

        from kerasattn import ownership

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
    from kerasattn import ownership

    ownership.write_json(path, obj, default=_json_default)


def write_config(run_dir, config):
    """Write a run's ``config.json`` (a dictionary), repeating the id of the run
    directory's marker as ``run_id``."""
    from kerasattn import ownership

    owner = ownership.owner_of(run_dir, "run")
    write_json(os.path.join(run_dir, CONFIG), {**config, "run_id": owner} if owner else config)


# -- reading a run back: one function checks it for every command ------------------
class RunError(ValueError):
    """A run directory that cannot be read as one (one line, nothing written)."""


def _is_temporary(name):
    from kerasattn import ownership

    return ownership.is_temporary(name)


def is_legacy_run(run_dir):
    """Whether ``run_dir``, without a marker, is a run directory made before markers
    existed: a ``config.json`` of kerasattn's and nothing but a run's files."""
    try:
        config = read_json(os.path.join(run_dir, CONFIG))
    except (OSError, ValueError):
        return False
    if not isinstance(config, dict) or not {"model", "dataset", "kind", "train"} <= set(config):
        return False
    return all(n in RUN_FILES or _is_temporary(n) or n.startswith(("worker-", "chief-"))
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
    from kerasattn import ownership

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
            from kerasattn.models import tfidf

            tfidf.load(os.path.join(run_dir, CLASSICAL_MODEL))  # raises UnsafeModelError
        files += [CLASSICAL_MODEL] if config["kind"] == "classical" else \
            [KERAS_MODEL, VOCAB, PREPROCESSOR]
    missing = [f for f in files if not os.path.isfile(os.path.join(run_dir, f))]
    if missing:
        raise RunError(f"{run_dir} is damaged: {', '.join(missing)} "
                       f"{'is' if len(missing) == 1 else 'are'} missing")
    return config


def check_same_data(run_dir, config, ds):
    """Raise :class:`RunError` when ``ds`` (the run's dataset, loaded again) is not the
    data the run trained on (its ``data_fingerprint``)."""
    stored = config.get("data_fingerprint")
    if not stored:
        return
    if config.get("embeddings"):  # the starting vectors are not read again
        vectors = os.path.abspath(config["embeddings"])
        stored = {**stored, "files": {k: v for k, v in (stored.get("files") or {}).items()
                                      if k != vectors}}
    changes = fingerprint_changes(stored, data_fingerprint(config["dataset"], ds,
                                                           bool(config.get("stream"))))
    if changes:
        raise RunError(f"{run_dir} was trained on other data: {'; '.join(changes)}; its "
                       "recorded metrics stay as they are")


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
    import csv

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
    import keras
    import sklearn

    from kerasattn._quiet import physical_gpus

    try:
        import tensorflow as tf
    except ImportError:  # a JAX or PyTorch machine (training.portable fit)
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


def load_dataset(config, data_dir=None, download=True):
    """The dataset of a run (its ``config.json`` dictionary), split exactly as in training
    (streamed if it was); training loads through here too
    (:func:`kerasattn.training.trainer.load_data`)."""
    from kerasattn.data import datasets

    if config.get("stream"):
        from kerasattn.data import streaming

        return streaming.load(config["dataset"], data_dir=data_dir,
                              val_fraction=config["train"]["val_fraction"], seed=config["seed"],
                              download=download)
    return datasets.load(config["dataset"], data_dir=data_dir,
                         val_fraction=config["train"]["val_fraction"],
                         # runs made before the setting existed drew it stratified
                         val_split=config["train"].get("val_split", "stratified"),
                         seed=config["seed"], download=download)


def predict_keras(model, texts, labels, preprocessor, batch_size, verbose=0):
    """Probabilities and labels in dataset order (batches are bucketed by length)."""
    from kerasattn.data.pipeline import make_dataset

    ds = make_dataset(texts, labels, preprocessor, batch_size=batch_size)
    return predict_batches(model, ds, len(texts), verbose)


def predict_batches(model, batches, total=None, verbose=0):
    """Probabilities and labels of a dataset of ``(ids, labels)`` batches (``total``
    texts, None when unknown, e.g. streamed)."""
    import keras

    bar = keras.utils.Progbar(total, unit_name="text") if verbose else None
    probs, ys = [], []
    for x, y in batches:
        probs.append(model.predict_on_batch(x))
        ys.append(y.numpy())
        if bar is not None:
            bar.add(len(ys[-1]))
    if not probs:
        return np.zeros((0, 2)), np.zeros(0, np.int64)
    from kerasattn.heads import as_probabilities

    return as_probabilities(np.concatenate(probs)), np.concatenate(ys).astype(np.int64)


def load_saved_model(run_dir, compile=True):
    """(config, the run's ``model.keras`` as saved) of a Keras run directory: a
    :class:`kerasattn.TextClassifier` for a run of ``training.train``, the backbone alone
    for a run of ``training.portable`` (trained where TensorFlow's text ops may be
    missing) or one made before runs saved their classifier."""
    import keras

    import kerasattn.layers  # noqa: F401  (registers the custom layers)
    import kerasattn.models  # noqa: F401

    config = open_run(run_dir, finished=False, need=[KERAS_MODEL])
    if config["kind"] == "classical":
        raise RunError(f"{run_dir} holds a {config['model']!r} run: a scikit-learn model "
                       f"with no Keras model or attention")
    path = os.path.join(run_dir, KERAS_MODEL)
    try:
        return config, keras.saving.load_model(path, compile=compile)
    except Exception as e:  # a damaged archive: zipfile, h5py, JSON or Keras errors
        raise RunError(f"{path} cannot be loaded (damaged?): "
                       f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None


def load_keras_run(run_dir):
    """(config, model, preprocessor) of a Keras run directory: the trained backbone (token
    ids in, probabilities out) and its
    :class:`~kerasattn.data.preprocessing.TextPreprocessor`, whichever way the run saved
    them."""
    from kerasattn.data.preprocessing import TextPreprocessor

    open_run(run_dir, finished=False, need=[KERAS_MODEL, VOCAB, PREPROCESSOR])
    config, model = load_saved_model(run_dir)
    if getattr(model, "backbone", None) is not None and hasattr(model, "preprocessor"):
        model = model.backbone  # the classifier training.train saves
    return config, model, load_preprocessor(run_dir)


def load_preprocessor(run_dir):
    """The run's :class:`~kerasattn.data.preprocessing.TextPreprocessor`;
    :class:`RunError` when its files are missing or damaged."""
    from kerasattn.data.preprocessing import TextPreprocessor

    try:
        return TextPreprocessor.load(run_dir)
    except (OSError, ValueError, TypeError, KeyError) as e:
        raise RunError(f"{run_dir}: its preprocessor ({PREPROCESSOR}, {VOCAB}) cannot be "
                       f"read: {e}") from None


def evaluate_run(run_dir, data_dir=None, splits=("val", "test"), verbose=0,
                 same_data=False):
    """Recompute a run's metrics from its directory: {split: metrics}. The run is opened
    with :func:`open_run` (a finished run of kerasattn's, its files whole);
    ``same_data``: also refuse (:class:`RunError`) data that is not what it trained on
    (before the metrics are to replace the recorded ones)."""
    from kerasattn.metrics import classification_metrics

    config = open_run(run_dir)
    ds = load_dataset(config, data_dir)
    if same_data:
        check_same_data(run_dir, config, ds)
    out = {}
    if config["kind"] == "classical":
        from kerasattn.models import tfidf as classical

        try:
            model = classical.load(os.path.join(run_dir, CLASSICAL_MODEL))  # trusted only
        except classical.UnsafeModelError:
            raise
        except Exception as e:  # a damaged skops archive
            raise RunError(f"{run_dir}/{CLASSICAL_MODEL} cannot be loaded (damaged?): "
                           f"{e}") from None
        for s in splits:
            part = ds.split(s)
            out[s] = classification_metrics(part.labels, model.predict_proba(part.texts),
                                            ds.class_names)
        return out
    _, model, preprocessor = load_keras_run(run_dir)
    bs = config["train"]["batch_size"]
    for s in splits:
        part = ds.split(s)
        if config.get("stream"):
            from kerasattn.data.pipeline import make_stream_dataset

            probs, y = predict_batches(model, make_stream_dataset(part, preprocessor, bs),
                                       verbose=verbose)
        else:
            probs, y = predict_keras(model, part.texts, part.labels, preprocessor, bs, verbose)
        out[s] = classification_metrics(y, probs, ds.class_names)
    return out


def write_plots(run_dir, title, class_names, test_metrics, roc=None):
    """learning_curves.png, confusion_matrix.png and (binary) roc_curve.png."""
    from kerasattn import run_plots

    made = []
    history = os.path.join(run_dir, HISTORY)
    if os.path.exists(history):
        made.append(run_plots.learning_curves(history, os.path.join(run_dir, "learning_curves.png"),
                                          title))
    made.append(run_plots.confusion_matrix(test_metrics["confusion_matrix"], class_names,
                                       os.path.join(run_dir, "confusion_matrix.png"),
                                       f"{title} (test)"))
    if roc is not None and len(class_names) == 2:
        import io

        from kerasattn import ownership

        buffer = io.BytesIO()
        np.savez(buffer, labels=roc[0], scores=roc[1])
        ownership.write_bytes(os.path.join(run_dir, TEST_SCORES), buffer.getvalue())
        made.append(run_plots.roc_curves({title: roc}, os.path.join(run_dir, "roc_curve.png"),
                                     "ROC (test)"))
    return [m for m in made if m]
