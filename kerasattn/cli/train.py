"""Train any registered model on any dataset, end to end.

    python -m training.train --model gru --dataset imdb --max-length 400 --epochs 4

Loads the dataset, builds the vocabulary on the training split, trains with
``model.fit`` on bucketed tf.data batches, keeps the best epoch by validation
accuracy, and writes a run directory (see :mod:`kerasattn.runs`) with the
config, vocabulary, best model, history, TensorBoard logs, metrics and plots.
Classical presets (``nb``, ``lr``) go through the same command and output.
"""

import argparse
import json
import os
import shlex
import sys
import time

# Quieter TensorFlow start-up; users can still override this.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter,
                     argparse.RawDescriptionHelpFormatter):
    """Defaults shown, and the epilog's lists kept as written."""


def build_parser():
    from kerasattn import models
    from kerasattn.data import datasets

    epilog = ["models:"] + [f"  {n:<14} {models.get_preset(n).description}"
                            for n in models.names()]
    epilog += ["", "datasets:"] + [f"  {n:<20} {d}" for n, d in datasets.describe().items()]
    epilog += [f"  {'csv:PATH, jsonl:PATH':<20} your own data (text, label[, split] columns)"]
    p = argparse.ArgumentParser(
        prog="python -m training.train",
        description="Train a kerasattn model and write a run directory.",
        epilog="\n".join(epilog), formatter_class=_HelpFormatter)
    p.add_argument("--model", required=True, choices=models.names(), metavar="NAME",
                   help="model preset: " + ", ".join(models.names()))
    p.add_argument("--dataset", required=True, metavar="NAME",
                   help="dataset: " + ", ".join(datasets.names()) + ", csv:PATH or jsonl:PATH")
    p.add_argument("--data-dir", help="directory to look for datasets in first "
                   f"(then ${datasets.ENV_VAR}, then ~/.keras/datasets, then download)")
    p.add_argument("--no-download", action="store_true", help="never download datasets")
    p.add_argument("--output-dir", default="runs", help="parent directory of run directories")
    p.add_argument("--run-name", help="run directory name (default MODEL-DATASET-TIMESTAMP)")
    p.add_argument("--epochs", type=int, help="epochs (preset default otherwise)")
    p.add_argument("--batch-size", type=int)
    p.add_argument("--learning-rate", type=float)
    p.add_argument("--optimizer", help="Keras optimizer name, e.g. adam, sgd, rmsprop")
    p.add_argument("--max-length", type=int, help="truncate texts to this many tokens")
    p.add_argument("--max-sentences", type=int, help="hierarchical models: sentences per text")
    p.add_argument("--max-words", type=int, help="hierarchical models: words per sentence")
    p.add_argument("--val-fraction", type=float,
                   help="fraction of train held out for validation when the dataset has no "
                        "validation split (stratified, seeded by --seed)")
    p.add_argument("--vocab-size", type=int, help="maximum vocabulary size (incl. pad, OOV)")
    p.add_argument("--min-freq", type=int, help="minimum training frequency of a word")
    p.add_argument("--embeddings", metavar="FILE",
                   help="initialise the word embeddings from a GloVe text file (fine-tuned; "
                        "words it lacks get random vectors of the same scale)")
    p.add_argument("--text-mode", choices=["default", "hcan"])
    p.add_argument("--remove-punctuation", action="store_true", default=None)
    p.add_argument("--remove-stopwords", action="store_true", default=None)
    p.add_argument("--layers", type=int, metavar="N",
                   help="encoder layers (the model option num_layers, e.g. transformer)")
    p.add_argument("--heads", type=int, metavar="H",
                   help="attention heads (the model option num_heads)")
    p.add_argument("--model-option", action="append", default=[], metavar="KEY=JSON",
                   help="override a model option, e.g. --model-option units=64 (repeatable)")
    p.add_argument("--seed", type=int, default=0,
                   help="seeds the validation split, initialisation, shuffling and dropout")
    p.add_argument("--early-stopping", type=int, metavar="PATIENCE",
                   help="stop after this many epochs without better validation accuracy")
    p.add_argument("--mixed-precision", default="auto",
                   choices=["auto", "off", "float16", "bfloat16"],
                   help="auto = mixed_float16 on a GPU, off on CPU")
    p.add_argument("--jit-compile", action="store_true", help="compile train steps with XLA")
    p.add_argument("--distribution", default="none", choices=["none", "mirrored", "multiworker"],
                   help="mirrored: tf.distribute.MirroredStrategy over this machine's GPUs "
                        "(model.fit); multiworker: MultiWorkerMirroredStrategy configured by "
                        "TF_CONFIG (a custom loop; needs --run-name)")
    p.add_argument("--stream", action="store_true",
                   help="read a large CSV dataset (yelp_*, amazon_*, yahoo_answers, ...) with "
                        "tf.data as it trains instead of into memory")
    p.add_argument("--shuffle-buffer", type=int, default=100_000, metavar="ROWS",
                   help="with --stream: rows in the shuffle buffer")
    p.add_argument("--deterministic", action="store_true",
                   help="TensorFlow op determinism: with the same --seed, bit-identical runs")
    p.add_argument("--restart", action="store_true",
                   help="ignore the backup of an interrupted run with the same command and "
                        "start from epoch 1 (by default it is resumed)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace the finished run in --output-dir/--run-name (by default "
                        "a finished run is never overwritten)")
    p.add_argument("--verbose", default="auto", help="Keras verbosity: auto, 0, 1 or 2")
    return p


class ConfigError(ValueError):
    """An invalid command line or run directory: reported as one ``error:`` line,
    before anything is written."""


# flag: (smallest value, what it means); checked before anything is read or written
_LOWER_BOUNDS = {
    "epochs": (1, "epochs"), "batch_size": (1, "texts per batch"),
    "max_length": (1, "tokens"), "max_sentences": (1, "sentences"),
    "max_words": (1, "words per sentence"), "vocab_size": (3, "ids (padding, OOV and a word)"),
    "min_freq": (1, "occurrences"), "early_stopping": (1, "epochs of patience"),
    "shuffle_buffer": (1, "rows"), "layers": (1, "layers"), "heads": (1, "heads"),
}


def validate_args(args):
    """Raise :class:`ConfigError` for values no run can use."""
    for key, (low, unit) in _LOWER_BOUNDS.items():
        value = getattr(args, key, None)
        if value is not None and value < low:
            raise ConfigError(f"--{key.replace('_', '-')} must be >= {low} ({unit}), "
                              f"got {value}")
    if args.learning_rate is not None and not args.learning_rate > 0:
        raise ConfigError(f"--learning-rate must be > 0, got {args.learning_rate}")
    if args.val_fraction is not None and not 0 < args.val_fraction < 1:
        raise ConfigError(f"--val-fraction must be between 0 and 1 (exclusive), "
                          f"got {args.val_fraction}")
    if args.run_name is not None:
        name = args.run_name
        if not name or name in (".", "..") or "/" in name or os.sep in name \
                or (os.altsep and os.altsep in name):
            raise ConfigError(f"--run-name {name!r}: a run name is one directory name inside "
                              "--output-dir (no '/', '.' or '..')")
    if os.path.exists(args.output_dir) and not os.path.isdir(args.output_dir):
        raise ConfigError(f"--output-dir {args.output_dir!r} is a file, not a directory")


def _parse_model_options(items):
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--model-option expects KEY=VALUE, got {item!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def resolve_config(args, argv):
    """The run's full configuration: preset defaults overridden by the command line."""
    from kerasattn import models

    preset = models.get_preset(args.model)
    train = preset.training_defaults()
    for key in train:
        value = getattr(args, key, None)
        if value is not None:
            train[key] = value
    model_options = _parse_model_options(args.model_option)
    unknown = sorted(set(model_options) - set(preset.model_config))
    if unknown:
        raise ConfigError(f"--model-option {', '.join(unknown)}: model {args.model} has no "
                          f"such option; its options are {', '.join(preset.model_config)}")
    for flag, key in (("layers", "num_layers"), ("heads", "num_heads")):
        value = getattr(args, flag, None)
        if value is None:
            continue
        if key not in preset.model_config:
            raise ConfigError(f"--{flag}: model {args.model} has no option {key}")
        model_options[key] = value
    return {
        "model": args.model,
        "dataset": args.dataset,
        "kind": preset.kind,
        "hierarchical": preset.hierarchical,
        "seed": args.seed,
        "train": train,
        "model_config": {**preset.model_config, **model_options},
        "model_overrides": model_options,
        "mixed_precision": args.mixed_precision,
        "jit_compile": bool(args.jit_compile),
        "distribution": args.distribution,
        "deterministic": bool(args.deterministic),
        "stream": bool(args.stream),
        "shuffle_buffer": args.shuffle_buffer if args.stream else None,
        "early_stopping": args.early_stopping,
        "embeddings": args.embeddings,
        "command": "python -m training.train " + " ".join(
            shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)
            if a != "--restart"),
    }


# what must match for a run directory's backup to be resumed
_RESUME_KEYS = ("model", "dataset", "seed", "train", "model_config", "mixed_precision",
                "jit_compile", "distribution", "deterministic", "stream", "shuffle_buffer",
                "early_stopping", "embeddings")


def _same_run(config, run_dir):
    """Whether ``run_dir``'s config.json is of this same command. Compared as JSON
    (a tuple option, e.g. ``windows=(3, 4, 5)``, comes back from JSON as a list)."""
    from kerasattn import runs

    path = os.path.join(run_dir, runs.CONFIG)
    if not os.path.exists(path):
        return False
    try:
        old = runs.read_json(path)
    except (OSError, ValueError):
        return False
    return all(old.get(k) == runs.as_json(config[k]) for k in _RESUME_KEYS)


def _unfinished_runs(output_dir, config):
    """Unfinished run directories under ``output_dir`` of this same command (with a
    backup to resume, or killed before their first epoch's backup)."""
    from kerasattn import runs

    if not os.path.isdir(output_dir):
        return []
    found = []
    for name in os.listdir(output_dir):
        d = os.path.join(output_dir, name)
        if os.path.isdir(d) and not os.path.exists(os.path.join(d, runs.METRICS)) \
                and _same_run(config, d):
            found.append(d)
    return sorted(found, key=os.path.getmtime)


def preprocessor_options(config):
    t = config["train"]
    return {
        "mode": t["text_mode"],
        "remove_punctuation": t["remove_punctuation"],
        "remove_stopwords": t["remove_stopwords"],
        "hierarchical": config["hierarchical"],
        "max_length": None if config["hierarchical"] else t["max_length"],
        "max_sentences": t["max_sentences"] if config["hierarchical"] else None,
        "max_words": t["max_words"] if config["hierarchical"] else None,
    }


def set_precision(mode):
    """Set Keras's global dtype policy; returns its name."""
    import keras
    import tensorflow as tf

    if mode == "auto":
        mode = "float16" if tf.config.list_physical_devices("GPU") else "off"
    policy = {"off": "float32", "float16": "mixed_float16", "bfloat16": "mixed_bfloat16"}[mode]
    keras.mixed_precision.set_global_policy(policy)
    return policy


def make_optimizer(preset, train):
    import keras

    if preset.make_optimizer is not None and \
            train["optimizer"] == preset.training_defaults()["optimizer"]:
        # the preset's own recipe, unless --optimizer asked for another
        return preset.make_optimizer(train["learning_rate"])
    return keras.optimizers.get({"class_name": train["optimizer"],
                                 "config": {"learning_rate": train["learning_rate"]}})


def loss_and_accuracy(model):
    """The loss and accuracy metric for ``model``'s output: binary cross-entropy on one
    sigmoid unit, sparse categorical cross-entropy on a softmax."""
    import keras

    if model.output_shape[-1] == 1:
        return "binary_crossentropy", keras.metrics.BinaryAccuracy(name="accuracy")
    return "sparse_categorical_crossentropy", \
        keras.metrics.SparseCategoricalAccuracy(name="accuracy")


def _train_classical(config, ds, run_dir, log):
    from kerasattn import classical, models, runs
    from kerasattn.metrics import classification_metrics

    options = {**preprocessor_options(config), "max_length": None}
    model = models.get(config["model"], num_classes=ds.num_classes,
                       preprocessor_config=options, **config["model_overrides"])
    start = time.perf_counter()
    model.fit(ds.train.texts, ds.train.labels)
    seconds = time.perf_counter() - start
    classical.save(model, os.path.join(run_dir, runs.CLASSICAL_MODEL))  # skops, not pickle
    probs = {s: model.predict_proba(ds.split(s).texts) for s in ("val", "test")}
    results = {s: classification_metrics(ds.split(s).labels, p, ds.class_names)
               for s, p in probs.items()}
    return results, seconds, len(ds.train), None, (ds.test.labels, probs["test"][:, -1])


def _train_keras(config, ds, run_dir, log, verbose, strategy=None, resuming=False):
    import keras
    import tensorflow as tf

    from kerasattn import models, resume, runs
    from kerasattn.data.pipeline import make_dataset, make_stream_dataset
    from kerasattn.data.preprocessing import TextPreprocessor
    from kerasattn.metrics import classification_metrics

    train = config["train"]
    preset = models.get_preset(config["model"])
    streamed = config["stream"]
    multiworker = config["distribution"] == "multiworker"
    if multiworker:  # every worker, resuming or not: they must start at the same epoch
        from kerasattn import distributed

        resuming = distributed.agree_on_resume(strategy, run_dir) > 0
    if resuming:
        pre = TextPreprocessor.load(run_dir)
        log(f"vocabulary of the interrupted run: {pre.vocabulary_size:,} ids")
    else:
        log("building the vocabulary on the training split ...")
        texts = ds.split("train").map(lambda t, y: t) if streamed else ds.train.texts
        try:
            pre = TextPreprocessor(**preprocessor_options(config)).adapt(
                texts, min_freq=train["min_freq"], max_size=train["vocab_size"],
                progress=streamed and verbose != 0)
        except ValueError as e:
            raise ConfigError(f"{config['dataset']}: {e}") from None
        pre.save(run_dir)
        log(f"vocabulary: {pre.vocabulary_size:,} ids (padding 0, OOV 1)")

    seeds = resume.EpochSeeds()
    bs = train["batch_size"]
    pad_to_bucket = config["jit_compile"]
    if streamed:
        train_ds = make_stream_dataset(ds.split("train"), pre, bs, config["shuffle_buffer"],
                                       seed=config["seed"], shuffle_epoch=seeds.epoch,
                                       epochs=train["epochs"],
                                       pad_to_bucket_boundary=pad_to_bucket)
        val_ds = make_stream_dataset(ds.split("val"), pre, bs,
                                     pad_to_bucket_boundary=pad_to_bucket)
    else:
        train_ds = make_dataset(ds.train.texts, ds.train.labels, pre, bs, shuffle=True,
                                seed=config["seed"], pad_to_bucket_boundary=pad_to_bucket,
                                count_batches=True, shuffle_epoch=seeds.epoch,
                                epochs=train["epochs"])
        val_ds = make_dataset(ds.val.texts, ds.val.labels, pre, bs,
                              pad_to_bucket_boundary=pad_to_bucket, count_batches=True)

    if strategy is None:
        strategy = (tf.distribute.MirroredStrategy() if config["distribution"] == "mirrored"
                    else tf.distribute.get_strategy())
    with strategy.scope():
        try:
            model = models.get(config["model"], vocab_size=pre.vocabulary_size,
                               num_classes=ds.num_classes, vocabulary=pre.vocabulary,
                               **config["model_overrides"])
        except (ValueError, TypeError) as e:
            raise ConfigError(f"model {config['model']} with options "
                              f"{json.dumps(runs.as_json(config['model_overrides']))}: {e}") \
                from None
        if config.get("embeddings"):
            from kerasattn import embeddings

            found = embeddings.load_into(model, config["embeddings"], pre.vocabulary,
                                         seed=config["seed"])
            log(f"embeddings from {config['embeddings']}: {found:,} of "
                f"{pre.vocabulary_size - 2:,} words found, the rest random")
        loss, accuracy = loss_and_accuracy(model)
        model.compile(optimizer=make_optimizer(preset, train), loss=loss, metrics=[accuracy],
                      jit_compile=config["jit_compile"])
        # built here, in the strategy's scope (BackupAndRestore would build it outside)
        model.optimizer.build(model.trainable_variables)
    if verbose != 0:
        model.summary(print_fn=lambda s, **_: log(s))

    history_path = os.path.join(run_dir, runs.HISTORY)
    done = resume.backed_up_epochs(run_dir) if resuming else 0
    fitted = resume.read_fit_done(run_dir) if resuming else None
    past = resume.read_history(history_path) if fitted else \
        resume.truncate_history(history_path, done) if resuming else []
    best_so_far = max((r["val_accuracy"] for r in past), default=None)
    best_path = os.path.join(run_dir, runs.KERAS_MODEL)
    callbacks = [
        seeds,
        keras.callbacks.ModelCheckpoint(best_path, monitor="val_accuracy", mode="max",
                                        save_best_only=True,
                                        initial_value_threshold=best_so_far),
        keras.callbacks.CSVLogger(history_path, append=bool(past)),
        keras.callbacks.TensorBoard(os.path.join(run_dir, "tensorboard"), profile_batch=0),
    ]
    if config["early_stopping"]:
        callbacks.append(resume.ResumableEarlyStopping(
            past, monitor="val_accuracy", mode="max", patience=config["early_stopping"]))
    # last, so that an epoch's backup is written after its checkpoint and history row;
    # kept after fit (deleted once metrics.json is written), so that a crash while
    # predicting or writing does not send the run back to epoch 1
    callbacks.append(keras.callbacks.BackupAndRestore(resume.backup_dir(run_dir),
                                                      double_checkpoint=True,
                                                      delete_checkpoint=False))
    if streamed:
        import warnings

        # Keras learns the number of batches of a stream at the end of its first
        # epoch and warns that the data "ran out"; nothing is interrupted.
        warnings.filterwarnings("ignore", message="Your input ran out of data")
    start = time.perf_counter()
    if fitted:
        log(f"training had finished before the interruption ({fitted['epochs_run']} "
            "epochs); evaluating the best epoch")
    elif multiworker:
        from kerasattn import distributed

        distributed.fit(model, strategy, train_ds, val_ds, train["epochs"], callbacks,
                        verbose, model.output_shape[-1] == 1)
    else:
        model.fit(train_ds, validation_data=val_ds, epochs=train["epochs"],
                  callbacks=callbacks, verbose=verbose, shuffle=False)
    seconds = time.perf_counter() - start
    # the whole history, the epochs before an interruption included
    val_acc = [r["val_accuracy"] for r in resume.read_history(history_path)]
    epochs_run = len(val_acc)
    if fitted:  # the run's own figures, not this evaluation's
        seconds, done = fitted["train_seconds"], fitted["resumed_after_epoch"]
    else:
        resume.write_fit_done(run_dir, epochs_run=epochs_run, train_seconds=seconds,
                              resumed_after_epoch=done)
    best_epoch = int(max(range(epochs_run), key=lambda i: val_acc[i])) + 1
    log(f"best epoch {best_epoch} (val accuracy {max(val_acc):.4f}); restoring it")
    model = keras.saving.load_model(best_path)

    results, roc = {}, None
    for s in ("val", "test"):
        part = ds.split(s)
        if streamed:
            log(f"predicting the {s} split (streamed) ...")
            probs, y = runs.predict_batches(model, make_stream_dataset(part, pre, bs),
                                            verbose=0 if verbose == 0 else 1)
        else:
            log(f"predicting the {s} split ({len(part):,} texts) ...")
            probs, y = runs.predict_keras(model, part.texts, part.labels, pre, bs,
                                          verbose=0 if verbose == 0 else 1)
        results[s] = classification_metrics(y, probs, ds.class_names)
        if s == "test":
            roc = (y, probs[:, -1])
    info = {"best_epoch": best_epoch, "epochs_run": epochs_run,
            "parameters": int(model.count_params())}
    if done:
        info["resumed_after_epoch"] = done
    train_rows = pre.adapted_texts if streamed and not resuming else None
    if train_rows is not None:
        info["train_rows"] = train_rows
    n_train = train_rows if streamed else len(ds.train)
    return results, seconds, (n_train or 0) * (epochs_run - done), info, roc


def _run_dir(args, config):
    """The run directory: ``--run-name``, else the newest unfinished run of the
    same command (to resume it), else a new timestamped one. Workers other than
    the chief of a multi-worker run write into ``worker-N`` inside it."""
    if args.run_name:
        run_dir = os.path.join(args.output_dir, args.run_name)
    else:
        unfinished = [] if args.restart else _unfinished_runs(args.output_dir, config)
        run_dir = unfinished[-1] if unfinished else os.path.join(
            args.output_dir, f"{args.model}-{args.dataset.replace(':', '_').replace('/', '_')}-"
                             f"{time.strftime('%Y%m%d-%H%M%S')}")
    if args.distribution == "multiworker":
        from kerasattn import distributed

        task_type, task_id, _ = distributed.cluster()
        if not distributed.is_chief(task_type, task_id):
            run_dir = os.path.join(run_dir, f"{task_type}-{task_id}")
    return os.path.abspath(run_dir)


def _is_worker_dir(name):
    return name.startswith(("worker-", "chief-"))


def _clear_run_dir(run_dir):
    """Delete an unfinished run's files (not the directories of other workers)."""
    import shutil

    for name in os.listdir(run_dir):
        path = os.path.join(run_dir, name)
        if os.path.isdir(path) and not os.path.islink(path):
            if not _is_worker_dir(name):
                shutil.rmtree(path)
        else:
            os.remove(path)


def _claim_run_dir(args, config, run_dir, log):
    """Check what ``run_dir`` holds and make it ready. Returns ``(state, created)``:
    state is "new", "resume" (a backup of this same command) or "finished" (a
    finished run of this same command: nothing to train). Raises ConfigError,
    before anything is changed, for a finished run of another command (unless
    --overwrite), an unfinished run of another command (unless --restart), or a
    directory that is not a run directory."""
    from kerasattn import resume, runs

    if not os.path.exists(run_dir):
        try:
            os.makedirs(run_dir)
        except OSError as e:
            raise ConfigError(f"cannot create the run directory {run_dir}: "
                              f"{e.strerror or e}") from None
        return "new", True
    if not os.path.isdir(run_dir):
        raise ConfigError(f"{run_dir} is a file, not a run directory")
    if not os.access(run_dir, os.W_OK | os.X_OK):
        raise ConfigError(f"the run directory {run_dir} is not writable")
    has_config = os.path.exists(os.path.join(run_dir, runs.CONFIG))
    other_files = [n for n in os.listdir(run_dir) if not _is_worker_dir(n)]
    if other_files and not has_config:
        raise ConfigError(f"{run_dir} is not empty and is not a kerasattn run directory "
                          "(no config.json); choose another --run-name or --output-dir")
    same = has_config and _same_run(config, run_dir)
    if os.path.exists(os.path.join(run_dir, runs.METRICS)):
        if args.overwrite:
            _clear_run_dir(run_dir)
            log(f"--overwrite: deleted the finished run in {run_dir}")
            return "new", False
        if same:
            return "finished", False
        raise ConfigError(
            f"{run_dir} holds a finished run of a different command (see its config.json); "
            "choose another --run-name, or pass --overwrite to replace it")
    if not other_files:
        return "new", False
    if args.restart:
        _clear_run_dir(run_dir)
        log(f"--restart: deleted the unfinished run in {run_dir}; starting from epoch 1")
        return "new", False
    if not same:
        raise ConfigError(
            f"{run_dir} holds an interrupted run of a different command (see its "
            "config.json); resume it with that command, pass --restart to discard it, or "
            "choose another --run-name")
    epochs = resume.backed_up_epochs(run_dir)
    if not epochs:  # killed before its first epoch ended: nothing to keep
        _clear_run_dir(run_dir)
        log(f"the interrupted run in {run_dir} had not finished an epoch; starting it again")
        return "new", False
    log(f"resuming the interrupted run in {run_dir} after epoch {epochs} "
        "(--restart to start again)")
    return "resume", False


def _finished(run_dir, log):
    """The metrics of a finished run of this same command (nothing is trained)."""
    import shutil

    from kerasattn import resume, runs

    if os.path.isdir(resume.backup_dir(run_dir)):  # killed after metrics.json was written
        shutil.rmtree(resume.backup_dir(run_dir))
    log(f"{run_dir} already holds this finished run; nothing to do (--overwrite to "
        "train it again)")
    return run_dir, runs.read_json(os.path.join(run_dir, runs.METRICS))


def train(argv=None):
    """Run the command; returns (run directory, metrics dict). Raises
    :class:`ConfigError` or a ``DatasetError`` for bad input, before writing anything."""
    parser = build_parser()
    args = parser.parse_args(argv)
    from kerasattn.data.datasets import names as dataset_names

    if args.dataset not in dataset_names() and not args.dataset.startswith(
            ("csv:", "jsonl:", "tsv:")):
        parser.error(f"unknown dataset {args.dataset!r}; choose one of "
                     f"{', '.join(dataset_names())}, or csv:PATH / jsonl:PATH")
    if args.embeddings and not os.path.isfile(args.embeddings):
        parser.error(f"--embeddings: no such file {args.embeddings!r}")
    if args.verbose not in ("auto", "0", "1", "2"):
        parser.error("--verbose must be auto, 0, 1 or 2")
    validate_args(args)
    config = resolve_config(args, argv)
    if args.embeddings and config["kind"] == "classical":
        parser.error(f"--embeddings: {args.model!r} is a scikit-learn model with no embeddings")
    if args.stream and config["kind"] == "classical":
        parser.error(f"--stream: {args.model!r} is a scikit-learn model that needs "
                     "its data in memory")
    import keras

    from kerasattn import resume, runs
    from kerasattn.data import datasets
    from kerasattn.metrics import format_metrics

    def log(msg):
        print(msg, flush=True)

    verbose = args.verbose if args.verbose == "auto" else int(args.verbose)
    strategy = None
    if args.distribution == "multiworker":
        if config["kind"] == "classical":
            parser.error(f"--distribution multiworker: {args.model!r} is a scikit-learn model")
        if not args.run_name:
            parser.error("--distribution multiworker needs --run-name (the same on every worker)")
        from kerasattn import distributed

        try:
            strategy = distributed.make_strategy()  # before any other TensorFlow op
        except ValueError as e:
            parser.error(str(e))
    if args.deterministic:
        import tensorflow as tf

        tf.config.experimental.enable_op_determinism()
    keras.utils.set_random_seed(args.seed)
    config["dtype_policy"] = set_precision(args.mixed_precision)

    # the data before the run directory: a dataset that cannot be read writes nothing
    try:
        if args.stream:
            from kerasattn.data import streaming

            ds = streaming.load(args.dataset, data_dir=args.data_dir,
                                val_fraction=config["train"]["val_fraction"], seed=args.seed,
                                download=not args.no_download)
            sizes = None  # not known before a pass over the rows
        else:
            ds = datasets.load(args.dataset, data_dir=args.data_dir,
                               val_fraction=config["train"]["val_fraction"], seed=args.seed,
                               download=not args.no_download)
            sizes = {s: len(ds.split(s)) for s in datasets.SPLITS}
    except datasets.DatasetError:
        raise
    except ValueError as e:
        raise ConfigError(str(e)) from None

    run_dir = _run_dir(args, config)
    state, created = _claim_run_dir(args, config, run_dir, log)
    if state == "finished":
        return _finished(run_dir, log)
    log(ds.summary())
    for note in ds.notes:
        log(f"  note: {note}")
    config.update(class_names=ds.class_names, dataset_notes=ds.notes,
                  dataset_sizes=sizes, environment=runs.environment())
    runs.write_json(os.path.join(run_dir, runs.CONFIG), config)
    log(f"run directory: {run_dir}")

    try:
        if config["kind"] == "classical":
            results, seconds, examples, info, roc = _train_classical(config, ds, run_dir, log)
        else:
            results, seconds, examples, info, roc = _train_keras(
                config, ds, run_dir, log, verbose, strategy=strategy,
                resuming=state == "resume")
    except ConfigError:
        if created and not resume.backed_up_epochs(run_dir):
            import shutil

            shutil.rmtree(run_dir)  # nothing was trained: leave nothing behind
        raise

    metrics = {
        "model": args.model, "dataset": args.dataset, "dataset_notes": ds.notes,
        "val": results["val"], "test": results["test"],
        "train_seconds": round(seconds, 3),
        "train_examples_per_second": round(examples / max(seconds, 1e-9), 2),
        **(info or {}),
    }
    runs.write_plots(run_dir, f"{args.model} on {args.dataset}", ds.class_names,
                     results["test"], roc)
    # metrics.json last: it marks the run finished; the backup goes only after it
    runs.write_json(os.path.join(run_dir, runs.METRICS), metrics)
    resume.delete_backup(run_dir)
    for s in ("val", "test"):
        log(f"{s:>4}: {format_metrics(results[s])}")
    log(f"trained in {seconds:.1f}s; run directory: {run_dir}")
    return run_dir, metrics


def main(argv=None):
    from kerasattn.data.datasets import DatasetError

    try:
        train(argv)
    except (ConfigError, DatasetError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except Exception as e:
        # a malformed row found by a streamed pipeline surfaces as a tf.data error
        from kerasattn.data import streaming

        if not streaming.is_format_error(e):
            raise
        print(f"error: {streaming.format_error(e)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
