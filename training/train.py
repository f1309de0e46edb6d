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
    p.add_argument("--verbose", default="auto", help="Keras verbosity: auto, 0, 1 or 2")
    return p


def _parse_model_options(items):
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--model-option expects KEY=VALUE, got {item!r}")
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
    for key in ("epochs", "batch_size"):
        if train[key] < 1:
            raise SystemExit(f"--{key.replace('_', '-')} must be >= 1")
    model_options = _parse_model_options(args.model_option)
    for flag, key in (("layers", "num_layers"), ("heads", "num_heads")):
        value = getattr(args, flag, None)
        if value is None:
            continue
        if key not in preset.model_config:
            raise SystemExit(f"--{flag}: model {args.model} has no option {key}")
        if value < 1:
            raise SystemExit(f"--{flag} must be >= 1")
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
    from kerasattn import runs

    path = os.path.join(run_dir, runs.CONFIG)
    if not os.path.exists(path):
        return False
    old = runs.read_json(path)
    return all(old.get(k) == config[k] for k in _RESUME_KEYS)


def _unfinished_runs(output_dir, config):
    """Run directories under ``output_dir`` with a backup of this same command."""
    from kerasattn import resume, runs

    if not os.path.isdir(output_dir):
        return []
    found = []
    for name in os.listdir(output_dir):
        d = os.path.join(output_dir, name)
        if resume.backed_up_epochs(d) and not os.path.exists(os.path.join(d, runs.METRICS)) \
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
    import joblib

    from kerasattn import models, runs
    from kerasattn.metrics import classification_metrics

    options = {**preprocessor_options(config), "max_length": None}
    model = models.get(config["model"], num_classes=ds.num_classes,
                       preprocessor_config=options, **config["model_overrides"])
    start = time.perf_counter()
    model.fit(ds.train.texts, ds.train.labels)
    seconds = time.perf_counter() - start
    joblib.dump(model, os.path.join(run_dir, runs.CLASSICAL_MODEL))
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
        pre = TextPreprocessor(**preprocessor_options(config)).adapt(
            texts, min_freq=train["min_freq"], max_size=train["vocab_size"],
            progress=streamed and verbose != 0)
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
        model = models.get(config["model"], vocab_size=pre.vocabulary_size,
                           num_classes=ds.num_classes, vocabulary=pre.vocabulary,
                           **config["model_overrides"])
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
    past = resume.truncate_history(history_path, done) if resuming else []
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
    # last, so that an epoch's backup is written after its checkpoint and history row
    callbacks.append(keras.callbacks.BackupAndRestore(resume.backup_dir(run_dir),
                                                      double_checkpoint=True))
    if streamed:
        import warnings

        # Keras learns the number of batches of a stream at the end of its first
        # epoch and warns that the data "ran out"; nothing is interrupted.
        warnings.filterwarnings("ignore", message="Your input ran out of data")
    start = time.perf_counter()
    if multiworker:
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


def _run_dir(args, config, log):
    """The run directory: ``--run-name``, else the newest interrupted run of the
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
    run_dir = os.path.abspath(run_dir)
    os.makedirs(run_dir, exist_ok=True)
    return run_dir


def _prepare_resume(args, config, run_dir, log):
    """Whether ``run_dir`` holds a backup to resume (after checking that it is a
    backup of this same command); ``--restart`` deletes it instead."""
    import shutil

    from kerasattn import resume

    if not resume.backed_up_epochs(run_dir):
        return False
    if args.restart:
        shutil.rmtree(resume.backup_dir(run_dir))
        log(f"--restart: deleted the backup in {run_dir}; starting from epoch 1")
        return False
    if not _same_run(config, run_dir):
        raise SystemExit(
            f"error: {run_dir} holds an interrupted run of a different command (see its "
            "config.json); resume it with that command, pass --restart to discard it, or "
            "choose another --run-name")
    log(f"resuming the interrupted run in {run_dir} after epoch "
        f"{resume.backed_up_epochs(run_dir)} (--restart to start again)")
    return True


def train(argv=None):
    """Run the command; returns (run directory, metrics dict)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    from kerasattn.data.datasets import names as dataset_names

    if args.dataset not in dataset_names() and not args.dataset.startswith(
            ("csv:", "jsonl:", "tsv:")):
        parser.error(f"unknown dataset {args.dataset!r}; choose one of "
                     f"{', '.join(dataset_names())}, or csv:PATH / jsonl:PATH")
    if args.embeddings and not os.path.isfile(args.embeddings):
        parser.error(f"--embeddings: no such file {args.embeddings!r}")
    import keras

    from kerasattn import runs
    from kerasattn.data import datasets
    from kerasattn.metrics import format_metrics

    def log(msg):
        print(msg, flush=True)

    if args.verbose not in ("auto", "0", "1", "2"):
        parser.error("--verbose must be auto, 0, 1 or 2")
    config = resolve_config(args, argv)
    if args.embeddings and config["kind"] == "classical":
        parser.error(f"--embeddings: {args.model!r} is a scikit-learn model with no embeddings")
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
    run_dir = _run_dir(args, config, log)
    resuming = _prepare_resume(args, config, run_dir, log)

    if args.stream:
        from kerasattn.data import streaming

        if config["kind"] == "classical":
            parser.error(f"--stream: {args.model!r} is a scikit-learn model that needs "
                         "its data in memory")

        try:
            ds = streaming.load(args.dataset, data_dir=args.data_dir,
                                val_fraction=config["train"]["val_fraction"], seed=args.seed,
                                download=not args.no_download)
        except ValueError as e:
            parser.error(str(e))
        sizes = None  # not known before a pass over the rows
    else:
        ds = datasets.load(args.dataset, data_dir=args.data_dir,
                           val_fraction=config["train"]["val_fraction"], seed=args.seed,
                           download=not args.no_download)
        sizes = {s: len(ds.split(s)) for s in datasets.SPLITS}
    log(ds.summary())
    for note in ds.notes:
        log(f"  note: {note}")
    config.update(class_names=ds.class_names, dataset_notes=ds.notes,
                  dataset_sizes=sizes, environment=runs.environment())
    runs.write_json(os.path.join(run_dir, runs.CONFIG), config)
    log(f"run directory: {run_dir}")

    if config["kind"] == "classical":
        results, seconds, examples, info, roc = _train_classical(config, ds, run_dir, log)
    else:
        results, seconds, examples, info, roc = _train_keras(
            config, ds, run_dir, log, verbose, strategy=strategy, resuming=resuming)

    metrics = {
        "model": args.model, "dataset": args.dataset, "dataset_notes": ds.notes,
        "val": results["val"], "test": results["test"],
        "train_seconds": round(seconds, 3),
        "train_examples_per_second": round(examples / max(seconds, 1e-9), 2),
        **(info or {}),
    }
    runs.write_json(os.path.join(run_dir, runs.METRICS), metrics)
    runs.write_plots(run_dir, f"{args.model} on {args.dataset}", ds.class_names,
                     results["test"], roc)
    for s in ("val", "test"):
        log(f"{s:>4}: {format_metrics(results[s])}")
    log(f"trained in {seconds:.1f}s; run directory: {run_dir}")
    return run_dir, metrics


def main(argv=None):
    from kerasattn.data.datasets import DatasetError

    try:
        train(argv)
    except DatasetError as e:
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
