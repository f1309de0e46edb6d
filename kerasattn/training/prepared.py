"""Training on any Keras backend, from token ids prepared where TensorFlow is.

:func:`kerasattn.training.train` reads raw text through tf.data, so it needs
TensorFlow. A machine with an accelerator but no TensorFlow (a JAX or PyTorch
machine) can still train the zoo's flat and hierarchical models, because they
are written in ``keras.ops``:

    from kerasattn.training import prepared
    run_dir = prepared.prepare(["--model", "transformer", "--dataset", "imdb",
                                "--output-dir", "runs/portable"])   # where TensorFlow is
    metrics = prepared.fit(run_dir)                                 # KERAS_BACKEND=jax

:func:`prepare` takes exactly ``training.train``'s arguments, loads the dataset,
builds the vocabulary with the same :class:`TextPreprocessor` and writes a run
directory with the config, the preprocessor and every split's token ids
(``arrays.npz``, shared by runs with the same data, under
``OUTPUT_DIR/_arrays/``). :func:`fit` needs only Keras, NumPy and
scikit-learn: it builds the preset with the same optimizer, loss and model
options and trains through the same core as ``training.train``
(:mod:`kerasattn.training.core`) on length-bucketed NumPy batches, so the run
directory is completed exactly alike (``model.keras``, ``history.csv``,
``metrics.json``, plots) and ``metrics.json`` records the backend, device and
dtype policy under ``"trained_with"``. ``kerasattn portable`` /
``python -m training.portable`` is the command (:mod:`kerasattn.cli.portable`).

Batches are padded to multiples of :data:`BUCKET_STEP` tokens (a handful of
shapes, so XLA compiles few programs) and the batch dimension to the batch
size with zero-weight empty rows. A hierarchical model's (HAN, HCAN) batches
are (texts, sentences, words): the sentence axis is rounded up to a power of
two and the word axis is one width per split (its longest sentence, rounded
up the same way), both capped at the text limits. Classical, streamed and
multi-worker runs are not supported (a clear error says so). ``--embeddings``
is read by :func:`prepare`, which writes the run's embedding matrix
(``embeddings.npy``, drawn exactly as ``training.train`` draws it) for
:func:`fit` to start from.
"""

import hashlib
import json
import os
import shlex
import sys
import time

import numpy as np

from kerasattn import ownership
from kerasattn.training.errors import ConfigError

BUCKET_STEP = 64
ARRAYS_DIR = "_arrays"
EMBEDDINGS = "embeddings.npy"  # a run's starting word vectors (prepared from --embeddings)


# -- prepare (TensorFlow) ---------------------------------------------------------
def _encode(preprocessor, texts, chunk=2048):
    """Texts -> {"ids": flat int32 ids, "lengths": each text's tokens}, in dataset order;
    for a hierarchical preprocessor "lengths" counts each text's sentences and
    "sentence_lengths" each sentence's words."""
    import tensorflow as tf

    parts = {"ids": [], "lengths": [], **({"sentence_lengths": []}
                                          if preprocessor.hierarchical else {})}
    for i in range(0, len(texts), chunk):
        ids = preprocessor(tf.constant([str(t) for t in texts[i:i + chunk]], tf.string))
        parts["ids"].append(ids.flat_values.numpy())
        parts["lengths"].append(ids.row_lengths().numpy())
        if preprocessor.hierarchical:
            parts["sentence_lengths"].append(ids.values.row_lengths().numpy())
    return {k: np.concatenate(v).astype(np.int32) if v else np.zeros(0, np.int32)
            for k, v in parts.items()}


def _refuse(message):
    from kerasattn.training.arguments import one_line

    raise ConfigError(one_line(message))  # what was typed, quoted on one line


def parse_train_args(argv):
    """``training.train``'s arguments, parsed (a complaint: :class:`ConfigError`)."""
    from kerasattn.training import arguments

    parser = arguments.build_parser()
    parser.error = _refuse  # argparse's complaint, as one line
    return parser.parse_args(argv)


def _parse_prepare(args, argv):
    """The :class:`RunConfig` of parsed ``prepare`` arguments, or :class:`ConfigError` for
    what ``prepare`` cannot carry (checked before anything is loaded or written)."""
    from kerasattn.training import arguments

    arguments.validate_args(args)  # the dataset's name, --embeddings, the settings
    # prepared here, fitted on an accelerator: a recipe is sized for the GPU
    typed = arguments.resolve_config(args, argv, device="gpu")
    unsupported = [(typed.kind == "classical", "a scikit-learn model"),
                   (args.stream, "--stream"), (args.distribution != "none", "--distribution")]
    for bad, what in unsupported:
        if bad:
            raise ConfigError(f"training.portable does not support {what}; "
                              "use python -m training.train")
    if args.time_limit is not None:
        raise ConfigError("prepare takes no --time-limit; give it to "
                          "python -m training.portable fit")
    return typed


def read_jobs(path, extra=()):
    """The runs of a jobs file, ``[(line number, run name, prepare's argv), ...]``: one run
    a line, its name, then ``training.train``'s arguments (``#`` starts a comment), each
    followed by ``extra``. Every line is checked first (its arguments parse and resolve to
    a configuration ``prepare`` can carry, its name is new), so a bad line stops the file
    before anything is written; :class:`ConfigError` names ``FILE:LINE``."""
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"--jobs: cannot read {path}: {e}") from None
    jobs, names = [], {}
    for number, line in enumerate(lines, 1):
        where = f"{path}:{number}"
        try:
            words = shlex.split(line, comments=True)
        except ValueError as e:
            raise ConfigError(f"{where}: {e}") from None
        if not words:
            continue
        name, argv = words[0], [*words[1:], *extra, "--run-name", words[0]]
        if name.startswith("-") or "/" in name or name in (".", ".."):
            raise ConfigError(f"{where}: a line starts with its run name (a folder name), "
                              f"not {name!r}")
        if name in names:
            raise ConfigError(f"{where}: run {name!r} is already on line {names[name]}")
        try:
            _parse_prepare(parse_train_args(argv), argv)
        except ConfigError as e:
            raise ConfigError(f"{where}: {e}") from None
        names[name] = number
        jobs.append((number, name, argv))
    if not jobs:
        raise ConfigError(f"--jobs: {path} lists no runs")
    return jobs


def prepare_jobs(path, extra=(), cache=None):
    """Prepare every run of a jobs file (:func:`read_jobs`, all checked before the first is
    written), sharing loaded datasets and vocabularies; returns the run directories. A
    dataset or word-vector file that cannot be read stops there, its error naming
    ``FILE:LINE``."""
    from kerasattn.data.datasets import DatasetError

    cache = {} if cache is None else cache
    done = []
    for number, _, argv in read_jobs(path, extra):
        try:
            done.append(prepare(argv, cache))
        except (ConfigError, DatasetError) as e:
            raise type(e)(f"{path}:{number}: {e}") from None
    return done


def _claim(run_dir):
    """Make ``run_dir`` (marked as kerasattn's run directory), or take an existing one
    only when kerasattn made it as a run (or it is an old run's files, or empty);
    :class:`ConfigError` otherwise, nothing touched."""
    from kerasattn import runs

    if os.path.islink(run_dir):
        raise ConfigError(f"{run_dir} is a symbolic link; kerasattn writes no run through "
                          "one (nothing was touched)")
    if not os.path.lexists(run_dir) or ownership.is_empty_dir(run_dir):
        try:
            ownership.make_dir(run_dir, "run")
        except OSError as e:
            raise ConfigError(f"cannot create the run directory {run_dir}: "
                              f"{e.strerror or e}") from None
        return
    try:
        ownership.require_owned(run_dir, "run", runs.is_legacy_run)
    except ownership.OwnershipError as e:
        raise ConfigError(f"{e}: choose another --run-name or --output-dir") from None
    if ownership.read_marker(run_dir) is None:
        ownership.write_marker(run_dir, "run")


def prepare(argv, cache=None):
    """Write a run directory with token ids for ``fit``; returns its path.

    ``cache`` (a dict) keeps loaded datasets and vocabularies between calls,
    so many runs over the same data are prepared quickly.
    """
    from kerasattn import runs
    from kerasattn.data import datasets
    from kerasattn.data.preprocessing import TextPreprocessor
    from kerasattn.training.trainer import load_data

    cache = {} if cache is None else cache
    args = parse_train_args(argv)
    typed = _parse_prepare(args, argv)
    config = typed.to_json()
    config["command"] = "python -m training.portable prepare " + " ".join(
        shlex.quote(a) for a in argv)
    config["train_args"] = list(argv)
    t = config["train"]
    data_key = (args.dataset, args.data_dir, t["val_fraction"], t["val_split"], args.seed)
    if data_key not in cache:  # split as training.train splits it
        cache[data_key] = load_data(typed, data_dir=args.data_dir,
                                    download=not args.no_download)
    ds = cache[data_key]
    print(ds.summary(), flush=True)
    default_name = f"{args.model}-{args.dataset.replace(':', '_').replace('/', '_')}-portable"
    run_dir = os.path.abspath(os.path.join(args.output_dir, args.run_name or default_name))
    options = typed.preprocessor_options()
    vocab_key = (data_key, json.dumps(options, sort_keys=True), t["min_freq"], t["vocab_size"])
    if vocab_key not in cache:
        cache[vocab_key] = TextPreprocessor(**options).adapt(
            ds.train.texts, min_freq=t["min_freq"], max_size=t["vocab_size"])
    pre = cache[vocab_key]
    matrix = None
    if args.embeddings:  # read (and checked) before anything is written
        from kerasattn import embeddings

        # a malformed file: DatasetFormatError, naming the file and line
        matrix, found = embeddings.embedding_matrix(args.embeddings, pre.vocabulary,
                                                    seed=config["seed"])
        dim = config["model_config"].get("embedding_dim", matrix.shape[1])
        if dim != matrix.shape[1]:
            raise ConfigError(f"{args.embeddings} has {matrix.shape[1]}-d vectors but "
                              f"{args.model}'s embeddings are {dim}-d; add --model-option "
                              f"embedding_dim={matrix.shape[1]}")
    _claim(run_dir)
    pre.save(run_dir)
    print(f"vocabulary: {pre.vocabulary_size:,} ids", flush=True)
    if matrix is not None:
        import io

        buffer = io.BytesIO()
        np.save(buffer, matrix)
        ownership.write_bytes(os.path.join(run_dir, EMBEDDINGS), buffer.getvalue())
        print(f"embeddings from {args.embeddings}: {found:,} of {pre.vocabulary_size - 2:,} "
              f"words found, the rest random", flush=True)
    elif os.path.exists(os.path.join(run_dir, EMBEDDINGS)):
        os.remove(os.path.join(run_dir, EMBEDDINGS))
    # (a stratified split keeps the key it had before grouped splits existed)
    split = [] if t["val_split"] == "stratified" else [t["val_split"]]
    key = hashlib.sha1(json.dumps([args.dataset, args.seed, t["val_fraction"], *split,
                                   pre.get_config(), pre.vocabulary]).encode()).hexdigest()[:16]
    arrays = os.path.join(os.path.abspath(args.output_dir), ARRAYS_DIR, f"{key}.npz")
    if not os.path.exists(arrays):
        os.makedirs(os.path.dirname(arrays), exist_ok=True)
        parts = {}
        # ids in 16 bits where the vocabulary fits (a sixth smaller compressed: 3 seeds of
        # a family's IMDB ids fit one transfer to an accelerator machine)
        ids_dtype = np.uint16 if pre.vocabulary_size <= 2 ** 16 else np.int32
        for s in datasets.SPLITS:
            part = ds.split(s)
            parts.update({f"{s}_{k}": v for k, v in _encode(pre, part.texts).items()})
            parts[f"{s}_ids"] = parts[f"{s}_ids"].astype(ids_dtype)
            parts[f"{s}_labels"] = np.asarray(part.labels, np.int32)
            print(f"  {s}: {len(part):,} texts, {parts[f'{s}_ids'].size:,} tokens", flush=True)
        with ownership.atomic_file(arrays) as fh:  # whole, following no link
            np.savez_compressed(fh, **parts)
    from kerasattn import provenance

    config.update(class_names=ds.class_names, dataset_notes=ds.notes,
                  dataset_sizes={s: len(ds.split(s)) for s in datasets.SPLITS},
                  environment=runs.environment(),
                  provenance=provenance.finished(
                      provenance.started(config["command"], config["seed"])),
                  arrays=os.path.relpath(arrays, run_dir))
    runs.write_config(run_dir, config)
    print(f"prepared {run_dir} (token ids: {arrays})", flush=True)
    return run_dir


# -- fit (any backend) -------------------------------------------------------------
def _starts(lengths):
    return np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)


class Split:
    """One split's token ids as a ragged array: flat ids + each text's length, and for
    a hierarchical model each sentence's length (``lengths`` then counts sentences).

    ``max_sentences`` and ``max_words`` cap a hierarchical batch's axes (the text
    limits the ids were cut at); its word axis is the longest sentence's length
    rounded up to a power of two."""

    def __init__(self, ids, lengths, labels, sentence_lengths=None, max_sentences=None,
                 max_words=None):
        self.ids, self.lengths, self.labels = ids, lengths.astype(np.int64), labels
        self.starts = _starts(self.lengths)
        self.hierarchical = sentence_lengths is not None
        self.max_sentences = max_sentences
        if self.hierarchical:
            self.sentence_lengths = np.asarray(sentence_lengths, np.int64)
            self.word_starts = _starts(self.sentence_lengths)
            longest = int(self.sentence_lengths.max(initial=1))
            self.word_width = int(_widths([longest], None, max_words)[0])

    def __len__(self):
        return len(self.labels)

    def batches(self, batch_size, step=BUCKET_STEP, rng=None):
        """:func:`bucketed_batches` of this split (a hierarchical one's by sentences, in
        powers of two: ``step`` is for tokens)."""
        if self.hierarchical:
            return bucketed_batches(self.lengths, batch_size, None, rng, self.max_sentences)
        return bucketed_batches(self.lengths, batch_size, step, rng)

    def shape(self, width):
        """A batch's shape after the batch axis: (width,) or (width, words)."""
        return (width, self.word_width) if self.hierarchical else (width,)

    def batch_ids(self, index, width):
        """(len(index), width) int32 ids of these texts, zero-padded (hierarchical:
        (len(index), width, words), ``width`` sentences)."""
        out = np.zeros((len(index), *self.shape(width)), np.int32)
        for row, i in enumerate(index):
            n = min(int(self.lengths[i]), width)
            if not self.hierarchical:
                out[row, :n] = self.ids[self.starts[i]:self.starts[i] + n]
                continue
            for j in range(self.starts[i], self.starts[i] + n):  # its sentences
                words = min(int(self.sentence_lengths[j]), self.word_width)
                first = self.word_starts[j]
                out[row, j - self.starts[i], :words] = self.ids[first:first + words]
        return out


def _widths(lengths, step, cap=None):
    """Each length (at least 1) rounded up to a multiple of ``step`` (``None``: to a
    power of two), at most ``cap``."""
    lengths = np.maximum(1, np.asarray(lengths, np.int64))
    if step is None:
        widths = 2 ** np.ceil(np.log2(lengths)).astype(np.int64)
    else:
        widths = -(-lengths // step) * step
    return widths if cap is None else np.minimum(widths, max(1, cap))


def bucketed_batches(lengths, batch_size, step=BUCKET_STEP, rng=None, cap=None):
    """Index batches grouped by padded width (a multiple of ``step``; ``None``: a power
    of two), at most ``cap``.

    Returns a list of ``(indices, width)``; with ``rng`` the texts inside each
    bucket and the order of the batches are shuffled.
    """
    widths = _widths(lengths, step, cap)
    batches = []
    for w in np.unique(widths):
        members = np.flatnonzero(widths == w)
        if rng is not None:
            members = rng.permutation(members)
        batches += [(members[i:i + batch_size], int(w))
                    for i in range(0, len(members), batch_size)]
    if rng is not None:
        batches = [batches[i] for i in rng.permutation(len(batches))]
    return batches


def _batch_arrays(split, index, width, batch_size):
    """ids, labels and sample weights with the batch padded to ``batch_size`` rows."""
    ids = np.zeros((batch_size, *split.shape(width)), np.int32)
    ids[:len(index)] = split.batch_ids(index, width)
    labels = np.zeros(batch_size, np.int32)
    labels[:len(index)] = split.labels[index]
    weights = np.zeros(batch_size, np.float32)
    weights[:len(index)] = 1.0
    return ids, labels, weights


def _widths_first(batches):
    """Put a batch of another width second (in place). On TensorFlow, Keras fixes a
    PyDataset's signature from its first two batches: two widths there leave the width
    open, one would refuse every wider batch after it."""
    other = next((i for i, (_, w) in enumerate(batches) if w != batches[0][1]), None)
    if other is not None and other != 1:
        batches.insert(1, batches.pop(other))
    return batches


def batch_shapes(split, batch_size, step=BUCKET_STEP):
    """The distinct batch shapes (after the batch axis) of ``split``, widest last: XLA
    compiles a program for each on first use, for training and again for evaluation."""
    return sorted({split.shape(int(w)) for _, w in split.batches(batch_size, step)})


def shapes_line(splits, batch_size, step=BUCKET_STEP):
    """One log line: how many batch shapes each of ``splits`` (name -> Split) has, and
    their range, e.g. ``batch shapes: train 8 (128..1024), val 8 (128..1024)``."""
    def say(shapes):
        show = ["x".join(map(str, s)) for s in (shapes[0], shapes[-1])]
        return f"{len(shapes)} ({show[0]}..{show[1]})" if len(shapes) > 1 else f"1 ({show[0]})"

    parts = [f"{name} {say(batch_shapes(split, batch_size, step))}"
             for name, split in splits.items() if len(split)]
    return ("batch shapes: " + ", ".join(parts) + "; each is compiled on its first batch "
            "(fewer with a larger --bucket-step)")


def _py_dataset(split, batch_size, seed=None, step=BUCKET_STEP):
    import keras

    class Batches(keras.utils.PyDataset):
        """Bucketed batches; reshuffled every epoch when seeded."""

        def __init__(self):
            super().__init__()
            self.epoch = 0
            self._plan()

        def _plan(self):
            rng = None if seed is None else np.random.default_rng([seed, self.epoch])
            self.batches = split.batches(batch_size, step, rng)
            if keras.backend.backend() == "tensorflow":
                _widths_first(self.batches)

        def __len__(self):
            return len(self.batches)

        def __getitem__(self, i):
            index, width = self.batches[i]
            return _batch_arrays(split, index, width, batch_size)

        def on_epoch_end(self):
            if seed is not None:
                self.epoch += 1
                self._plan()

    return Batches()


def predict_split(model, split, batch_size, step=BUCKET_STEP):
    """Class probabilities of a split, in dataset order."""
    from kerasattn import heads

    out = None
    for index, width in split.batches(batch_size, step):
        ids, _, _ = _batch_arrays(split, index, width, batch_size)
        p = heads.as_probabilities(model.predict_on_batch(ids))[:len(index)]
        if out is None:
            out = np.zeros((len(split), p.shape[1]))
        out[index] = p
    return out if out is not None else np.zeros((0, 2))


def load_arrays(run_dir, config):
    hierarchical = config.get("hierarchical", False)
    caps = dict(max_sentences=config["train"].get("max_sentences"),
                max_words=config["train"].get("max_words")) if hierarchical else {}
    with np.load(os.path.join(run_dir, config["arrays"])) as f:
        return {s: Split(f[f"{s}_ids"], f[f"{s}_lengths"], f[f"{s}_labels"],
                         sentence_lengths=f[f"{s}_sentence_lengths"] if hierarchical else None,
                         **caps)
                for s in ("train", "val", "test")}


def device_description():
    import keras

    backend = keras.backend.backend()
    if backend == "jax":
        import jax

        d = jax.devices()[0]
        return f"{d.platform}: {getattr(d, 'device_kind', d)}"
    if backend == "torch":
        import torch

        return f"cuda: {torch.cuda.get_device_name()}" if torch.cuda.is_available() else "cpu"
    if backend == "tensorflow":
        import tensorflow as tf

        gpus = tf.config.list_physical_devices("GPU")
        return f"gpu: {gpus[0].name}" if gpus else "cpu"
    return backend


def fit(run_dir, mixed_precision="off", verbose=2, time_limit=None, bucket_step=BUCKET_STEP):
    """Train a prepared run under its lock (one writer per run directory); returns its
    metrics dict.

    ``time_limit`` (seconds) stops training after the batch in progress once that long
    has passed (for a machine lent by the hour; at an epoch's end if it passed while
    validating); the partial epoch is validated, and ``metrics.json`` records under
    ``"time_limit"`` where it stopped. ``bucket_step`` rounds batch widths up to its
    multiples (smaller: less padding, more programs for XLA to compile; a hierarchical
    model's axes are rounded to powers of two). Raises :class:`ConfigError` for a
    directory ``prepare`` did not write or another process is writing."""
    from kerasattn import runs

    if not os.path.isfile(os.path.join(run_dir, runs.CONFIG)):
        raise ConfigError(f"{run_dir} was not written by `training.portable prepare`")
    try:
        lock = runs.RunLock.acquire(run_dir)
    except runs.RunDirectoryLocked as e:
        raise ConfigError(str(e)) from None
    with lock:
        return _fit(run_dir, mixed_precision, verbose, time_limit, bucket_step)


def _fit(run_dir, mixed_precision, verbose, time_limit, bucket_step):
    import keras

    from kerasattn import models, provenance, runs
    from kerasattn.heads import loss_and_accuracy
    from kerasattn.recipes import optimizer_for, set_precision
    from kerasattn.training import core

    try:  # the one check of a run every command makes (marker, schema)
        config = runs.open_run(run_dir, finished=False)
    except runs.RunError as e:
        raise ConfigError(str(e)) from None
    if "arrays" not in config:
        raise ConfigError(f"{run_dir} was not written by `training.portable prepare`")
    policy = set_precision(mixed_precision)
    keras.utils.set_random_seed(config["seed"])
    started = provenance.started(f"python -m training.portable fit {shlex.quote(run_dir)}",
                                 config["seed"])
    data = load_arrays(run_dir, config)
    train = config["train"]
    vocabulary = runs.read_vocabulary(run_dir)
    model = models.get(config["model"], vocab_size=len(vocabulary),
                       num_classes=len(config["class_names"]), vocabulary=vocabulary,
                       **config["model_overrides"])
    if config.get("embeddings"):
        from kerasattn import embeddings

        matrix_path = os.path.join(run_dir, EMBEDDINGS)
        if not os.path.exists(matrix_path):
            raise ConfigError(f"{run_dir} was prepared with --embeddings but has no "
                              f"{EMBEDDINGS}; copy it along or prepare the run again")
        embeddings.assign(model, np.load(matrix_path), config["embeddings"])
    loss, accuracy = loss_and_accuracy(model)
    bs = train["batch_size"]
    # weighted: the zero-weight rows that pad a batch do not count
    model.compile(optimizer=optimizer_for(models.get_preset(config["model"]), train,
                                          -(-len(data["train"]) // bs)),
                  loss=loss, weighted_metrics=[accuracy])
    device = device_description()
    print(f"{config['model']} on {config['dataset']}: keras {keras.__version__}, backend "
          f"{keras.backend.backend()}, {device}, {policy}", flush=True)
    print(shapes_line({k: data[k] for k in ("train", "val", "test")}, bs, bucket_step),
          flush=True)
    train_batches = _py_dataset(data["train"], bs, seed=config["seed"], step=bucket_step)

    def fit_batches(callbacks):
        model.fit(train_batches, validation_data=_py_dataset(data["val"], bs, step=bucket_step),
                  epochs=train["epochs"], callbacks=callbacks, verbose=verbose)

    def predict(model, split):
        return predict_split(model, data[split], bs, step=bucket_step), data[split].labels

    log = lambda line: print(line, flush=True)  # noqa: E731
    _, result = core.fit_and_evaluate(
        model, fit_batches, predict, run_dir, config["class_names"], what=run_dir,
        early_stopping=config.get("early_stopping"), time_limit=time_limit,
        steps_per_epoch=len(train_batches), log=log)
    metrics = core.run_metrics(
        config["model"], config["dataset"], config.get("dataset_notes", []), result,
        config["class_names"], len(data["train"]),
        trained_with={"command": "python -m training.portable fit",
                      "backend": keras.backend.backend(), "keras": keras.__version__,
                      "device": device, "dtype_policy": policy})
    metrics["provenance"] = provenance.finished(started, provenance.cut_of(metrics,
                                                                           train["epochs"]))
    core.finish_run(run_dir, metrics, result, config["class_names"], train["epochs"], log)
    return metrics


FIT_LOG = "fit.log"  # a run's output when fit --parallel runs it in a process of its own


def fit_parallel(run_dirs, parallel, flags, poll_seconds=1.0):
    """Fit each run in a process of its own, at most ``parallel`` at once, for one
    accelerator shared by small models. Each process writes its output to the run's
    ``fit.log``; under JAX it takes a fixed share of the GPU's memory
    (``XLA_PYTHON_CLIENT_MEM_FRACTION`` = 0.9 / ``parallel``, preallocated), under
    TensorFlow it grows into what it needs, unless those variables are set already
    (each JAX process otherwise keeps the memory it has once used, and the last ones
    to grow run out). ``flags``: the other ``fit`` arguments, given to each process.
    Returns the number of runs that failed; a line is printed as each run ends."""
    import subprocess

    from kerasattn import runs

    env = dict(os.environ)
    env.setdefault("XLA_PYTHON_CLIENT_MEM_FRACTION", f"{0.9 / parallel:.3f}")
    env.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "true")
    env.setdefault("TF_FORCE_GPU_ALLOW_GROWTH", "true")
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    waiting, running, failed, done = list(run_dirs), {}, 0, 0
    try:
        while waiting or running:
            while waiting and len(running) < parallel:
                run_dir = waiting.pop(0)
                log = open(os.path.join(run_dir, FIT_LOG), "w")
                running[run_dir] = (subprocess.Popen(
                    [sys.executable, "-m", "kerasattn.cli.portable", "fit", "--run", run_dir,
                     *flags], stdout=log, stderr=subprocess.STDOUT, env=env), log,
                    time.perf_counter())
                print(f"started {run_dir} (output: {os.path.join(run_dir, FIT_LOG)})",
                      flush=True)
            time.sleep(poll_seconds)
            for run_dir, (process, log, start) in list(running.items()):
                if process.poll() is None:
                    continue
                log.close()
                del running[run_dir]
                done += 1
                seconds = time.perf_counter() - start
                where = f"[{done}/{len(run_dirs)}] {run_dir}"
                metrics_path = os.path.join(run_dir, runs.METRICS)
                if process.returncode == 0 and os.path.exists(metrics_path):
                    m = runs.read_json(metrics_path)
                    print(f"{where}: test accuracy {m['test']['accuracy']:.4f}, validation "
                          f"{m['val']['accuracy']:.4f} (best epoch {m['best_epoch']}) in "
                          f"{seconds:.0f}s", flush=True)
                    continue
                failed += 1
                with open(os.path.join(run_dir, FIT_LOG), errors="replace") as fh:
                    said = [line.strip() for line in fh.read().replace("\r", "\n").splitlines()
                            if line.strip().startswith("error:")]
                reason = said[-1][len("error:"):].strip() if said else (
                    f"exit code {process.returncode}")
                print(f"error: {where} failed after {seconds:.0f}s: {reason} (see "
                      f"{os.path.join(run_dir, FIT_LOG)})", file=sys.stderr, flush=True)
    finally:  # interrupted: stop the runs still going
        for process, log, _ in running.values():
            process.terminate()
            process.wait()
            log.close()
    return failed


