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

        path = os.path.join(run_dir, LOCK)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
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
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(obj, fh, indent=2, default=_json_default)
        fh.write("\n")
    os.replace(tmp, path)


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
    with open(path) as fh:
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

    config = read_json(os.path.join(run_dir, CONFIG))
    if config["kind"] == "classical":
        raise ValueError(f"{run_dir} holds a {config['model']!r} run: a scikit-learn model "
                         f"with no Keras model or attention")
    return config, keras.saving.load_model(os.path.join(run_dir, KERAS_MODEL),
                                           compile=compile)


def load_keras_run(run_dir):
    """(config, model, preprocessor) of a Keras run directory: the trained backbone (token
    ids in, probabilities out) and its
    :class:`~kerasattn.data.preprocessing.TextPreprocessor`, whichever way the run saved
    them."""
    from kerasattn.data.preprocessing import TextPreprocessor

    config, model = load_saved_model(run_dir)
    if getattr(model, "backbone", None) is not None and hasattr(model, "preprocessor"):
        model = model.backbone  # the classifier training.train saves
    return config, model, TextPreprocessor.load(run_dir)


def evaluate_run(run_dir, data_dir=None, splits=("val", "test"), verbose=0):
    """Recompute a run's metrics from its directory: {split: metrics}."""
    from kerasattn.metrics import classification_metrics

    config = read_json(os.path.join(run_dir, CONFIG))
    ds = load_dataset(config, data_dir)
    out = {}
    if config["kind"] == "classical":
        from kerasattn.models import tfidf as classical

        model = classical.load(os.path.join(run_dir, CLASSICAL_MODEL))  # trusted types only
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
        np.savez(os.path.join(run_dir, TEST_SCORES), labels=roc[0], scores=roc[1])
        made.append(run_plots.roc_curves({title: roc}, os.path.join(run_dir, "roc_curve.png"),
                                     "ROC (test)"))
    return [m for m in made if m]
