"""The one training path: a :class:`RunConfig` in, a finished run directory out.

    from kerasattn.training import RunConfig, train
    config = RunConfig.create("gru", "imdb", max_length=400, epochs=4)
    run_dir, metrics = train(config, output_dir="runs")

Loads the dataset (verified) before anything is written, claims the run
directory (resumes an interrupted run of the same configuration, never
overwrites a finished one), builds the vocabulary on the training split, trains
with ``model.fit`` on bucketed tf.data batches (or, for ``distribution=
"multiworker"``, :func:`kerasattn.training.distributed.fit`), keeps the best epoch by
validation accuracy, and writes the run directory (see :mod:`kerasattn.runs`, which
also claims and locks it):
config, vocabulary, best model, history, TensorBoard logs, plots and, last,
``metrics.json``. Classical presets (``nb``, ``lr``) go through the same path.
``python -m training.train`` / ``kerasattn train`` parse flags into a
:class:`RunConfig` and call :func:`train`.
"""

import json
import os
import time
import warnings

import keras
import tensorflow as tf

from kerasattn import (embeddings, heads, models, ownership, prediction, provenance, recipes,
                       run_data, runs)
from kerasattn.callbacks import AtomicBackupAndRestore
from kerasattn.data import datasets
from kerasattn.data.pipeline import batches_per_epoch, make_dataset, make_stream_dataset
from kerasattn.data.preprocessing import TextPreprocessor
from kerasattn.metrics import classification_metrics
from kerasattn.models import tfidf as classical
from kerasattn.tasks import TextClassifier
from kerasattn.training import core, distributed, resume
from kerasattn.training.config import ConfigError, check_run_name


def _print(msg):
    print(msg, flush=True)


def _train_classical(config, ds, run_dir):
    options = {**config.preprocessor_options(), "max_length": None}
    model = models.get(config.model, num_classes=ds.num_classes,
                       preprocessor_config=options, **config.model_overrides)
    start = time.perf_counter()
    model.fit(ds.train.texts, ds.train.labels)
    seconds = time.perf_counter() - start
    classical.save(model, os.path.join(run_dir, runs.CLASSICAL_MODEL))  # skops, not pickle
    probs = {s: model.predict_proba(ds.split(s).texts) for s in ("val", "test")}
    results = {s: classification_metrics(ds.split(s).labels, p, ds.class_names)
               for s, p in probs.items()}
    return core.FitResult(results, seconds, roc=(ds.test.labels, probs["test"][:, -1])), \
        len(ds.train)


def _train_keras(config, ds, run_dir, log, verbose, strategy=None, resuming=False):
    train = config.train
    preset = models.get_preset(config.model)
    streamed = config.stream
    multiworker = config.distribution == "multiworker"
    if multiworker:  # every worker, resuming or not: they must start at the same epoch
        resuming = distributed.agree_on_resume(strategy, run_dir) > 0
    if resuming:
        pre = TextPreprocessor.load(run_dir)
        if config.vocabulary_sha256 not in (None, runs.vocabulary_sha256(pre.vocabulary)):
            raise ConfigError(f"{run_dir}: {runs.VOCAB} is not the vocabulary the "
                              "interrupted run built (changed since); pass --restart to "
                              "train from epoch 1")
        log(f"vocabulary of the interrupted run: {pre.vocabulary_size:,} ids")
    else:
        log("building the vocabulary on the training split ...")
        texts = ds.split("train").map(lambda t, y: t) if streamed else ds.train.texts
        try:
            pre = TextPreprocessor(**config.preprocessor_options()).adapt(
                texts, min_freq=train.min_freq, max_size=train.vocab_size,
                progress=streamed and verbose != 0)
        except ValueError as e:
            raise ConfigError(f"{config.dataset}: {e}") from None
        pre.save(run_dir)
        config = config.replace(vocabulary_sha256=runs.vocabulary_sha256(pre.vocabulary))
        runs.write_config(run_dir, config.to_json())
        log(f"vocabulary: {pre.vocabulary_size:,} ids (padding 0, OOV 1)")

    seeds = resume.EpochSeeds()
    bs = train.batch_size
    pad_to_bucket = config.jit_compile
    if streamed:
        train_ds = make_stream_dataset(ds.split("train"), pre, bs, config.shuffle_buffer,
                                       seed=config.seed, shuffle_epoch=seeds.epoch,
                                       epochs=train.epochs,
                                       pad_to_bucket_boundary=pad_to_bucket)
        val_ds = make_stream_dataset(ds.split("val"), pre, bs,
                                     pad_to_bucket_boundary=pad_to_bucket)
    else:
        train_ds = make_dataset(ds.train.texts, ds.train.labels, pre, bs, shuffle=True,
                                seed=config.seed, pad_to_bucket_boundary=pad_to_bucket,
                                count_batches=True, shuffle_epoch=seeds.epoch,
                                epochs=train.epochs)
        val_ds = make_dataset(ds.val.texts, ds.val.labels, pre, bs,
                              pad_to_bucket_boundary=pad_to_bucket, count_batches=True)

    if strategy is None:
        strategy = (tf.distribute.MirroredStrategy() if config.distribution == "mirrored"
                    else tf.distribute.get_strategy())
    with strategy.scope():
        try:
            model = models.get(config.model, vocab_size=pre.vocabulary_size,
                               num_classes=ds.num_classes, vocabulary=pre.vocabulary,
                               **config.model_overrides)
        except (ValueError, TypeError) as e:
            raise ConfigError(f"model {config.model} with options "
                              f"{json.dumps(runs.as_json(config.model_overrides))}: {e}") \
                from None
        if config.embeddings:
            found = embeddings.load_into(model, config.embeddings, pre.vocabulary,
                                         seed=config.seed)
            log(f"embeddings from {config.embeddings}: {found:,} of "
                f"{pre.vocabulary_size - 2:,} words found, the rest random")
        loss, accuracy = heads.loss_and_accuracy(model)
        per_epoch = None
        if recipes.is_scheduled(train.lr_schedule, train.warmup):  # not streamed (RunConfig)
            # the batches fit will take: grouped by length, more than len / batch size
            per_epoch = batches_per_epoch(train_ds)
            log(f"learning rate: {train.lr_schedule}, peak {train.learning_rate:g}, warm-up "
                f"{train.warmup:g} of {train.epochs * per_epoch:,} steps")
        try:
            optimizer = recipes.optimizer_for(preset, train, per_epoch)
        except ValueError as e:
            raise ConfigError(str(e)) from None
        model.compile(optimizer=optimizer,
                      loss=loss, metrics=[accuracy], jit_compile=config.jit_compile)
        # built here, in the strategy's scope (BackupAndRestore would build it outside)
        model.optimizer.build(model.trainable_variables)
    if verbose != 0:
        model.summary(print_fn=lambda s, **_: log(s))

    history_path = os.path.join(run_dir, runs.HISTORY)
    done = resume.backed_up_epochs(run_dir) if resuming else 0
    fitted = resume.read_fit_done(run_dir) if resuming else None
    past = resume.read_history(history_path) if fitted else \
        resume.truncate_history(history_path, done) if resuming else []
    if streamed:
        # Keras learns the number of batches of a stream at the end of its first
        # epoch and warns that the data "ran out"; nothing is interrupted.
        warnings.filterwarnings("ignore", message="Your input ran out of data")
    if fitted:
        log(f"training had finished before the interruption ({fitted['epochs_run']} "
            "epochs); evaluating the best epoch")
        done = fitted["resumed_after_epoch"]

    def fit(callbacks):
        if multiworker:
            distributed.fit(model, strategy, train_ds, val_ds, train.epochs, callbacks,
                            verbose)
        else:
            model.fit(train_ds, validation_data=val_ds, epochs=train.epochs,
                      callbacks=callbacks, verbose=verbose, shuffle=False)

    def predict(model, split):
        part = ds.split(split)
        if streamed:
            log(f"predicting the {split} split (streamed) ...")
            return prediction.predict_batches(model, make_stream_dataset(part, pre, bs),
                                              verbose=0 if verbose == 0 else 1)
        log(f"predicting the {split} split ({len(part):,} texts) ...")
        return prediction.predict_keras(model, part.texts, part.labels, pre, bs,
                                        verbose=0 if verbose == 0 else 1)

    def after_fit(epochs_run, seconds, cut):
        resume.write_fit_done(run_dir, epochs_run=epochs_run, train_seconds=seconds,
                              resumed_after_epoch=done, time_limit=cut)

    # the run's callbacks between the epoch seeds (first) and the backup (last, so that
    # an epoch's backup is written after its checkpoint and history row; kept after fit,
    # deleted once metrics.json is written, so that a crash while predicting or writing
    # does not send the run back to epoch 1); a resumed run gets the whole time limit again
    backup = AtomicBackupAndRestore(resume.backup_dir(run_dir), double_checkpoint=True,
                                    delete_checkpoint=False)
    best, result = core.fit_and_evaluate(
        model, fit, predict, run_dir, ds.class_names, what=f"{config.model} on {config.dataset}",
        early_stopping=config.early_stopping, time_limit=config.time_limit, past=past,
        first=[seeds], last=[backup], tensorboard=True, fitted=fitted, after_fit=after_fit,
        log=log)
    save_classifier(run_dir, config.to_json(), best, pre)
    if done:
        result.info["resumed_after_epoch"] = done
    train_rows = pre.adapted_texts if streamed and not resuming else None
    if train_rows is not None:
        result.info["train_rows"] = train_rows
    return result, train_rows if streamed else len(ds.train)


def save_classifier(run_dir, config, backbone, preprocessor):
    """Make the run's ``model.keras`` the classifier: the best epoch's ``backbone`` with
    the run's ``preprocessor`` and class names (``config``: the run's ``config.json``),
    compiled with the backbone's optimizer, its state included, so
    ``keras.saving.load_model`` gives a :class:`~kerasattn.TextClassifier` on raw strings
    and :meth:`~kerasattn.TextClassifier.from_run` is that load. Written aside and
    renamed: a crash leaves the backbone, which loads as well."""
    if isinstance(backbone, TextClassifier):  # resumed after it was saved: nothing to do
        return
    clf = TextClassifier.of_run(config, backbone, preprocessor)
    loss, accuracy = heads.loss_and_accuracy(backbone)
    # the optimizer moves to the classifier: Keras saves an object once, under the first
    # owner it meets, and the classifier's compiled state is what loads back
    optimizer, backbone.optimizer = backbone.optimizer, None
    clf.compile(optimizer=optimizer, loss=loss, metrics=[accuracy])
    path = os.path.join(run_dir, runs.KERAS_MODEL)
    aside = os.path.join(run_dir, ".classifier.keras")
    if os.path.lexists(aside):
        os.remove(aside)  # left by an interrupted save (a link is removed, not followed)
    clf.save(aside)
    ownership.rename(aside, path)


# -- the run directory: chosen here, claimed and locked by kerasattn.runs ---------------
def run_directory(config, output_dir="runs", run_name=None, restart=False):
    """The run directory: ``run_name``, else the newest unfinished run of the same
    configuration (:func:`kerasattn.runs.unfinished_runs`, to resume it), else a new
    timestamped one. Workers other than the chief of a multi-worker run write into
    ``worker-N`` inside it."""
    check_run_name(run_name)
    if run_name:
        run_dir = os.path.join(output_dir, run_name)
    else:
        unfinished = [] if restart else runs.unfinished_runs(output_dir, config)
        run_dir = unfinished[-1] if unfinished else os.path.join(
            output_dir, f"{config.model}-{config.dataset.replace(':', '_').replace('/', '_')}-"
                        f"{time.strftime('%Y%m%d-%H%M%S')}")
    if config.distribution == "multiworker":
        task_type, task_id, _ = distributed.cluster()
        if not distributed.is_chief(task_type, task_id):
            run_dir = os.path.join(run_dir, f"{task_type}-{task_id}")
    return os.path.abspath(run_dir)


def claim_run_dir(config, run_dir, restart=False, overwrite=False, log=_print):
    """:func:`kerasattn.runs.claim_run_dir` for training: ``(state, created, lock)``,
    state "new", "resume" (an interrupted run of this same configuration with a backup
    to resume from, repaired if its last write was cut off) or "finished" (nothing to
    train); an interrupted run killed before its first epoch's backup is started
    again ("new"). Its refusals are raised as :class:`ConfigError`, before anything is
    changed (see there)."""
    try:
        state, created, lock = runs.claim_run_dir(config, run_dir, restart, overwrite, log)
    except runs.ClaimError as e:
        raise ConfigError(str(e)) from None
    if state == "unfinished":
        try:
            state = _resume_or_start_again(run_dir, log)
        except BaseException:
            lock.release()
            raise
    return state, created, lock


def _resume_or_start_again(run_dir, log):
    """"resume" for the interrupted run in ``run_dir`` (locked) when its backup holds an
    epoch, else "new" (its files deleted)."""
    repaired = resume.repair_backup(run_dir)
    if repaired:
        log(repaired)
    epochs = resume.backed_up_epochs(run_dir)
    if not epochs:  # killed before its first epoch ended: nothing to keep
        runs.clear_run_dir(run_dir, log)
        log(f"the interrupted run in {run_dir} had not finished an epoch; starting it again")
        return "new"
    log(f"resuming the interrupted run in {run_dir} after epoch {epochs} "
        "(--restart to start again)")
    return "resume"


def _finished(run_dir, log):
    """The metrics of a finished run of this same configuration (nothing is trained)."""
    resume.delete_backup(run_dir)  # killed after metrics.json was written
    log(f"{run_dir} already holds this finished run; nothing to do (--overwrite to "
        "train it again)")
    return run_dir, runs.read_json(os.path.join(run_dir, runs.METRICS))


def load_data(config, data_dir=None, download=True):
    """The run's dataset (streamed if configured), split as the run splits it; bad
    data raises a ``DatasetError``, other bad values :class:`ConfigError`."""
    try:  # one place splits a run's data, for training and for evaluate, explain, reproduce
        return run_data.load_dataset(config.to_json(), data_dir=data_dir, download=download)
    except datasets.DatasetError:
        raise
    except ValueError as e:
        raise ConfigError(str(e)) from None


def train(config, output_dir="runs", run_name=None, data_dir=None, download=True,
          restart=False, overwrite=False, verbose="auto", strategy=None, log=_print):
    """Train ``config`` into a run directory; returns ``(run_dir, metrics)``.

    Args:
        config: a :class:`RunConfig`.
        output_dir: the parent of run directories.
        run_name: the run directory's name (default: resume the newest unfinished run
            of the same configuration, else ``MODEL-DATASET-TIMESTAMP``).
        data_dir: where to look for the dataset first.
        download: download a built-in dataset that is not found locally.
        restart: discard an unfinished run in the directory instead of resuming it.
        overwrite: replace a finished run of another configuration.
        verbose: Keras verbosity ("auto", 0, 1, 2).
        strategy: a ``tf.distribute`` strategy made beforehand (multi-worker: it must
            be made before any other TensorFlow op; see :mod:`kerasattn.training.distributed`).
        log: where progress lines go.

    Raises:
        ConfigError, DatasetError: before anything is written.
    """
    check_run_name(run_name)
    if config.distribution == "multiworker":
        if config.kind == "classical":
            raise ConfigError(f"--distribution multiworker: {config.model!r} is a "
                              "scikit-learn model")
        if not run_name:
            raise ConfigError("--distribution multiworker needs --run-name (the same on "
                              "every worker)")
        if strategy is None:
            try:
                strategy = distributed.make_strategy()  # before any other TensorFlow op
            except ValueError as e:
                raise ConfigError(str(e)) from None
    if config.kind == "classical" and (config.stream or config.embeddings):
        raise ConfigError(f"{'--stream' if config.stream else '--embeddings'}: "
                          f"{config.model!r} is a scikit-learn model")
    if os.path.exists(output_dir) and not os.path.isdir(output_dir):
        raise ConfigError(f"--output-dir {output_dir!r} is a file, not a directory")
    if config.deterministic:
        tf.config.experimental.enable_op_determinism()
    keras.utils.set_random_seed(config.seed)
    config = config.replace(dtype_policy=recipes.set_precision(config.mixed_precision))

    # the data before the run directory: a dataset that cannot be read writes nothing
    ds = load_data(config, data_dir, download)
    sizes = None if config.stream else {s: len(ds.split(s)) for s in datasets.SPLITS}
    config = config.replace(
        data_fingerprint=runs.data_fingerprint(config.dataset, ds, config.stream,
                                               extra_files=[config.embeddings] if
                                               config.embeddings else ()),
        data_verified=None if datasets.is_user_dataset(config.dataset)
        else datasets.verification_enabled())

    if config.embeddings:  # a bad vectors file is refused before a directory is made
        try:
            embeddings.check_file(config.embeddings, config.model_config.get("embedding_dim"))
        except OSError as e:
            raise ConfigError(f"--embeddings {config.embeddings}: {e.strerror or e}") from None
        except datasets.DatasetFormatError:
            raise
        except ValueError as e:
            raise ConfigError(f"--embeddings {e}") from None

    run_dir = run_directory(config, output_dir, run_name, restart)
    state, created, lock = claim_run_dir(config, run_dir, restart, overwrite, log)
    with lock:
        if state == "finished":
            return _finished(run_dir, log)
        return _train_claimed(config, ds, run_dir, state, created, sizes, verbose, strategy,
                              log)


def _train_claimed(config, ds, run_dir, state, created, sizes, verbose, strategy, log):
    """:func:`train` once the run directory is claimed and locked."""
    started = provenance.started(config.command or None, config.seed)
    log(ds.summary())
    for note in ds.notes:
        log(f"  note: {note}")
    if config.data_verified is False:
        log("  note: KERASATTN_VERIFY=0: the dataset's files were not checked against "
            "their published checksums (recorded in config.json and metrics.json)")
    if state == "resume":  # the vocabulary the interrupted run built, to check it again
        stored = runs.read_json(os.path.join(run_dir, runs.CONFIG))
        config = config.replace(vocabulary_sha256=stored.get("vocabulary_sha256"))
    config = config.replace(class_names=ds.class_names, dataset_notes=ds.notes,
                            dataset_sizes=sizes, environment=runs.environment(),
                            provenance=started)
    runs.write_config(run_dir, config.to_json())
    log(f"run directory: {run_dir}")
    if config.sized_for:
        log(f"no GPU: recipe {config.recipe!r}, sized for the CPU: "
            f"{config.recipe_summary()}; --recipe default trains the model a GPU would")

    try:
        if config.kind == "classical":
            result, train_size = _train_classical(config, ds, run_dir)
        else:
            result, train_size = _train_keras(config, ds, run_dir, log, verbose,
                                              strategy=strategy, resuming=state == "resume")
    except ConfigError:
        if created and not resume.backed_up_epochs(run_dir):
            ownership.remove_dir(run_dir, "run")  # nothing was trained: leave nothing behind
        raise

    metrics = core.run_metrics(
        config.model, config.dataset, ds.notes, result, ds.class_names, train_size,
        **({"data_verified": False} if config.data_verified is False else {}))
    metrics["provenance"] = provenance.finished(started, provenance.cut_of(
        metrics, config.train.epochs if config.kind != "classical" else None))
    core.finish_run(run_dir, metrics, result, ds.class_names, config.train.epochs, log)
    resume.delete_backup(run_dir)  # only once metrics.json is written
    return run_dir, metrics
