"""Token ids prepared where TensorFlow is, for training on any Keras backend.

:func:`kerasattn.training.train` reads raw text through tf.data, so it needs
TensorFlow. A machine with an accelerator but no TensorFlow (a JAX or PyTorch
machine) can still train the zoo's flat and hierarchical models, because they
are written in ``keras.ops``:

    from kerasattn.training import portable_fit, prepared
    run_dir = prepared.prepare(["--model", "transformer", "--dataset", "imdb",
                                "--output-dir", "runs/portable"])   # where TensorFlow is
    metrics = portable_fit.fit(run_dir)                             # KERAS_BACKEND=jax

:func:`prepare` takes exactly ``training.train``'s arguments, loads the dataset,
builds the vocabulary with the same :class:`TextPreprocessor` and writes a run
directory with the config, the preprocessor and every split's token ids
(``arrays.npz``, shared by runs with the same data, under
``OUTPUT_DIR/_arrays/``); :func:`prepare_jobs` prepares every run of a jobs file
(:func:`read_jobs`). :func:`kerasattn.training.portable_fit.fit` trains it
(``kerasattn portable`` / ``python -m training.portable`` is the command,
:mod:`kerasattn.cli.portable`). Classical, streamed and multi-worker runs are not
supported (a clear error says so). ``--embeddings`` is read here, which writes the
run's embedding matrix (``embeddings.npy``, drawn exactly as ``training.train``
draws it) for ``fit`` to start from.
"""

import hashlib
import io
import json
import os
import shlex

import numpy as np

from kerasattn import embeddings, ownership, provenance, runs
from kerasattn.data import datasets
from kerasattn.training import arguments
from kerasattn.training.errors import ConfigError

ARRAYS_DIR = "_arrays"


def _encode(preprocessor, texts, chunk=2048):
    """Texts -> {"ids": flat int32 ids, "lengths": each text's tokens}, in dataset order;
    for a hierarchical preprocessor "lengths" counts each text's sentences and
    "sentence_lengths" each sentence's words."""
    import tensorflow as tf  # late: prepare runs where TensorFlow is, fit's machine may lack it

    # a ragged axis's row lengths each: texts' tokens, or texts' sentences and their words
    names = ["lengths", "sentence_lengths"][:preprocessor.layout.rank - 1]
    parts = {"ids": [], **{name: [] for name in names}}
    for i in range(0, len(texts), chunk):
        ids = preprocessor(tf.constant([str(t) for t in texts[i:i + chunk]], tf.string))
        parts["ids"].append(ids.flat_values.numpy())
        for name, lengths in zip(names, ids.nested_row_lengths()):
            parts[name].append(lengths.numpy())
    return {k: np.concatenate(v).astype(np.int32) if v else np.zeros(0, np.int32)
            for k, v in parts.items()}


def _refuse(message):
    raise ConfigError(arguments.one_line(message))  # what was typed, quoted on one line


def parse_train_args(argv):
    """``training.train``'s arguments, parsed (a complaint: :class:`ConfigError`)."""
    parser = arguments.build_parser()
    parser.error = _refuse  # argparse's complaint, as one line
    return parser.parse_args(argv)


def _parse_prepare(args, argv):
    """The :class:`RunConfig` of parsed ``prepare`` arguments, or :class:`ConfigError` for
    what ``prepare`` cannot carry (checked before anything is loaded or written)."""
    arguments.validate_args(args)  # the dataset's name, --embeddings, the settings
    # prepared here, fitted on an accelerator: a recipe is sized for the GPU
    typed = arguments.resolve_config(args, argv, device="gpu")
    unsupported = [(typed.kind == "classical", "a scikit-learn model"),
                   (args.stream, "--stream"), (args.distribution != "none", "--distribution")]
    for bad, what in unsupported:
        if bad:
            raise ConfigError(f"training.portable does not support {what}; "
                              "use kerasattn train")
    if args.time_limit is not None:
        raise ConfigError("prepare takes no --time-limit; give it to "
                          "kerasattn portable fit")
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
    cache = {} if cache is None else cache
    done = []
    for number, _, argv in read_jobs(path, extra):
        try:
            done.append(prepare(argv, cache))
        except (ConfigError, datasets.DatasetError) as e:
            raise type(e)(f"{path}:{number}: {e}") from None
    return done


def prepare(argv, cache=None):
    """Write a run directory with token ids for ``fit``; returns its path.

    ``cache`` (a dict) keeps loaded datasets and vocabularies between calls,
    so many runs over the same data are prepared quickly.
    """
    cache = {} if cache is None else cache
    args = parse_train_args(argv)
    typed = _parse_prepare(args, argv)
    config = typed.to_json()
    config["command"] = "python -m training.portable prepare " + " ".join(
        shlex.quote(a) for a in argv)
    config["train_args"] = list(argv)
    ds, pre = _data_and_vocabulary(args, typed, config["train"], cache)
    default_name = f"{args.model}-{args.dataset.replace(':', '_').replace('/', '_')}-portable"
    run_dir = os.path.abspath(os.path.join(args.output_dir, args.run_name or default_name))
    vectors = _embedding_matrix(args, config, pre)  # read (and checked) before any write
    try:
        runs.take_run_dir(run_dir)
    except runs.ClaimError as e:
        raise ConfigError(str(e)) from None
    pre.save(run_dir)
    print(f"vocabulary: {pre.vocabulary_size:,} ids", flush=True)
    _write_embeddings(run_dir, vectors, args.embeddings, pre)
    arrays = _write_arrays(args, config["train"], pre, ds)
    config.update(class_names=ds.class_names, dataset_notes=ds.notes,
                  dataset_sizes={s: len(ds.split(s)) for s in datasets.SPLITS},
                  environment=runs.environment(),
                  provenance=provenance.finished(
                      provenance.started(config["command"], config["seed"])),
                  arrays=os.path.relpath(arrays, run_dir))
    runs.write_config(run_dir, config)
    print(f"prepared {run_dir} (token ids: {arrays})", flush=True)
    return run_dir


def _data_and_vocabulary(args, typed, t, cache):
    """(dataset, :class:`TextPreprocessor` adapted on its training split) of a run,
    each from ``cache`` when an earlier run loaded or built the same."""
    # TensorFlow (the tf.data pipeline and text ops): what prepare runs on, fit need not
    from kerasattn.data.preprocessing import TextPreprocessor  # late: TensorFlow (as above)
    from kerasattn.training.trainer import load_data  # late: TensorFlow (as above)

    data_key = (args.dataset, args.data_dir, t["val_fraction"], t["val_split"], args.seed)
    if data_key not in cache:  # split as training.train splits it
        cache[data_key] = load_data(typed, data_dir=args.data_dir,
                                    download=not args.no_download)
    ds = cache[data_key]
    print(ds.summary(), flush=True)
    options = typed.preprocessor_options()
    vocab_key = (data_key, json.dumps(options, sort_keys=True), t["min_freq"], t["vocab_size"])
    if vocab_key not in cache:
        cache[vocab_key] = TextPreprocessor(**options).adapt(
            ds.train.texts, min_freq=t["min_freq"], max_size=t["vocab_size"])
    return ds, cache[vocab_key]


def _embedding_matrix(args, config, pre):
    """(matrix, words found) of ``--embeddings`` over the run's vocabulary, or None."""
    if not args.embeddings:
        return None
    # a malformed file: DatasetFormatError, naming the file and line
    matrix, found = embeddings.embedding_matrix(args.embeddings, pre.vocabulary,
                                                seed=config["seed"])
    dim = config["model_config"].get("embedding_dim", matrix.shape[1])
    if dim != matrix.shape[1]:
        raise ConfigError(f"{args.embeddings} has {matrix.shape[1]}-d vectors but "
                          f"{args.model}'s embeddings are {dim}-d; add --model-option "
                          f"embedding_dim={matrix.shape[1]}")
    return matrix, found


def _write_embeddings(run_dir, vectors, source, pre):
    """The run's ``embeddings.npy`` (``vectors``: :func:`_embedding_matrix`'s), or none
    (one an earlier prepare wrote is removed)."""
    path = os.path.join(run_dir, runs.EMBEDDINGS)
    if vectors is None:
        if os.path.exists(path):
            os.remove(path)
        return
    matrix, found = vectors
    buffer = io.BytesIO()
    np.save(buffer, matrix)
    ownership.write_bytes(path, buffer.getvalue())
    print(f"embeddings from {source}: {found:,} of {pre.vocabulary_size - 2:,} "
          f"words found, the rest random", flush=True)


def _write_arrays(args, t, pre, ds):
    """Every split's token ids, in ``OUTPUT_DIR/_arrays/KEY.npz`` (shared by the runs of
    the same data and vocabulary: written once); returns its path."""
    # (a stratified split keeps the key it had before grouped splits existed)
    split = [] if t["val_split"] == "stratified" else [t["val_split"]]
    key = hashlib.sha1(json.dumps([args.dataset, args.seed, t["val_fraction"], *split,
                                   pre.get_config(), pre.vocabulary]).encode()).hexdigest()[:16]
    arrays = os.path.join(os.path.abspath(args.output_dir), ARRAYS_DIR, f"{key}.npz")
    if os.path.exists(arrays):
        return arrays
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
    return arrays
