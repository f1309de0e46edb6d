"""``training.portable fit``: a prepared run trained on any Keras backend.

:func:`kerasattn.training.prepared.prepare` writes a run directory with every
split's token ids where TensorFlow is; :func:`fit` needs only Keras, NumPy and
scikit-learn. It builds the preset with the same optimizer, loss and model
options as ``training.train`` and trains through the same core
(:mod:`kerasattn.training.core`) on length-bucketed NumPy batches
(:mod:`kerasattn.training.buckets`), so the run directory is completed exactly
alike (``model.keras``, ``history.csv``, ``metrics.json``, plots), and
``metrics.json`` records the backend, device and dtype policy under
``"trained_with"``. A prepared run's ``embeddings.npy`` (from ``--embeddings``)
is where its embedding layer starts.
"""

import os
import shlex

import keras
import numpy as np

from kerasattn import embeddings, models, provenance, runs
from kerasattn.heads import as_probabilities, loss_and_accuracy
from kerasattn.recipes import optimizer_for, set_precision
from kerasattn.training import core
from kerasattn.training.buckets import (BUCKET_STEP, Split, batch_arrays, batch_sequence,
                                        shapes_line)
from kerasattn.training.errors import ConfigError

PREPARED_BY = "`training.portable prepare`"


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
    if not os.path.isfile(os.path.join(run_dir, runs.CONFIG)):
        raise ConfigError(f"{run_dir} was not written by {PREPARED_BY}")
    try:
        lock = runs.RunLock.acquire(run_dir)
    except runs.RunDirectoryLocked as e:
        raise ConfigError(str(e)) from None
    with lock:
        return _fit(run_dir, mixed_precision, verbose, time_limit, bucket_step)


def predict_split(model, split, batch_size, step=BUCKET_STEP):
    """Class probabilities of a split, in dataset order."""
    out = None
    for index, width in split.batches(batch_size, step):
        ids, _, _ = batch_arrays(split, index, width, batch_size)
        p = as_probabilities(model.predict_on_batch(ids))[:len(index)]
        if out is None:
            out = np.zeros((len(split), p.shape[1]))
        out[index] = p
    return out if out is not None else np.zeros((0, 2))


def load_arrays(run_dir, config):
    """``{"train", "val", "test"}`` -> :class:`~kerasattn.training.buckets.Split` of a
    prepared run (``config``: its ``config.json``)."""
    path = os.path.join(run_dir, config["arrays"])
    with np.load(path) as f:
        # a hierarchical run's arrays hold its sentences' lengths too (a SentenceSplit)
        if bool(config.get("hierarchical")) != ("train_sentence_lengths" in f.files):
            raise ConfigError(f"{path}: the arrays are not laid out as the run's model "
                              "reads them (hierarchical or not): prepare the run again")
        return {s: Split(f[f"{s}_ids"], f[f"{s}_lengths"], f[f"{s}_labels"],
                         sentence_lengths=f.get(f"{s}_sentence_lengths"),
                         max_sentences=config["train"].get("max_sentences"),
                         max_words=config["train"].get("max_words"))
                for s in ("train", "val", "test")}


def device_description():
    """The device Keras's backend trains on, in a few words."""
    backend = keras.backend.backend()
    if backend == "jax":
        import jax  # optional: the backend's own library, only Keras's backend is installed

        d = jax.devices()[0]
        return f"{d.platform}: {getattr(d, 'device_kind', d)}"
    if backend == "torch":
        import torch  # optional: the same (the PyTorch backend)

        return f"cuda: {torch.cuda.get_device_name()}" if torch.cuda.is_available() else "cpu"
    if backend == "tensorflow":
        import tensorflow as tf  # optional: the same (absent on a JAX or PyTorch machine)

        gpus = tf.config.list_physical_devices("GPU")
        return f"gpu: {gpus[0].name}" if gpus else "cpu"
    return backend


def _open_prepared(run_dir):
    """The checked ``config.json`` of a run ``prepare`` wrote (:class:`ConfigError`
    otherwise)."""
    try:  # the one check of a run every command makes (marker, schema)
        config = runs.open_run(run_dir, finished=False)
    except runs.RunError as e:
        raise ConfigError(str(e)) from None
    if "arrays" not in config:
        raise ConfigError(f"{run_dir} was not written by {PREPARED_BY}")
    return config


def _compiled_model(run_dir, config, train_size):
    """The run's preset, built, started from its ``embeddings.npy`` if it was prepared
    with ``--embeddings``, and compiled as ``training.train`` compiles it."""
    train = config["train"]
    vocabulary = runs.read_vocabulary(run_dir)
    model = models.get(config["model"], vocab_size=len(vocabulary),
                       num_classes=len(config["class_names"]), vocabulary=vocabulary,
                       **config["model_overrides"])
    if config.get("embeddings"):
        matrix_path = os.path.join(run_dir, runs.EMBEDDINGS)
        if not os.path.exists(matrix_path):
            raise ConfigError(f"{run_dir} was prepared with --embeddings but has no "
                              f"{runs.EMBEDDINGS}; copy it along or prepare the run again")
        embeddings.assign(model, np.load(matrix_path), config["embeddings"])
    loss, accuracy = loss_and_accuracy(model)
    bs = train["batch_size"]
    # weighted: the zero-weight rows that pad a batch do not count
    model.compile(optimizer=optimizer_for(models.get_preset(config["model"]), train,
                                          -(-train_size // bs)),
                  loss=loss, weighted_metrics=[accuracy])
    return model


def _say(line):
    print(line, flush=True)


def _fit(run_dir, mixed_precision, verbose, time_limit, bucket_step):
    config = _open_prepared(run_dir)
    policy = set_precision(mixed_precision)
    keras.utils.set_random_seed(config["seed"])
    started = provenance.started(f"python -m training.portable fit {shlex.quote(run_dir)}",
                                 config["seed"])
    data = load_arrays(run_dir, config)
    train = config["train"]
    model = _compiled_model(run_dir, config, len(data["train"]))
    device = device_description()
    _say(f"{config['model']} on {config['dataset']}: keras {keras.__version__}, backend "
         f"{keras.backend.backend()}, {device}, {policy}")
    _say(shapes_line({k: data[k] for k in ("train", "val", "test")}, train["batch_size"],
                     bucket_step))
    result = _train(model, data, config, run_dir, verbose, time_limit, bucket_step)
    metrics = core.run_metrics(
        config["model"], config["dataset"], config.get("dataset_notes", []), result,
        config["class_names"], len(data["train"]),
        trained_with={"command": "python -m training.portable fit",
                      "backend": keras.backend.backend(), "keras": keras.__version__,
                      "device": device, "dtype_policy": policy})
    metrics["provenance"] = provenance.finished(started, provenance.cut_of(metrics,
                                                                           train["epochs"]))
    core.finish_run(run_dir, metrics, result, config["class_names"], train["epochs"], _say)
    return metrics


def _train(model, data, config, run_dir, verbose, time_limit, bucket_step):
    """:func:`kerasattn.training.core.fit_and_evaluate` on the run's bucketed batches;
    its :class:`~kerasattn.training.core.FitResult`."""
    bs, epochs = config["train"]["batch_size"], config["train"]["epochs"]
    train_batches = batch_sequence(data["train"], bs, seed=config["seed"], step=bucket_step)

    def fit_batches(callbacks):
        model.fit(train_batches, validation_data=batch_sequence(data["val"], bs,
                                                                step=bucket_step),
                  epochs=epochs, callbacks=callbacks, verbose=verbose)

    def predict(model, split):
        return predict_split(model, data[split], bs, step=bucket_step), data[split].labels

    _, result = core.fit_and_evaluate(
        model, fit_batches, predict, run_dir, config["class_names"], what=run_dir,
        early_stopping=config.get("early_stopping"), time_limit=time_limit,
        steps_per_epoch=len(train_batches), log=_say)
    return result
