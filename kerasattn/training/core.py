"""The training core every run-directory path shares.

:func:`kerasattn.training.train` (tf.data batches, one process or a multi-worker
loop) and :func:`kerasattn.training.portable_fit.fit` (token ids prepared elsewhere,
any Keras backend) differ only in how they feed batches. Everything else is
here, once: the run's callbacks (best-epoch checkpoint, history, divergence
guard, early stopping, time limit), the best epoch restored, the validation
and test splits predicted and scored (:class:`FitResult`), ``metrics.json``
assembled, and the finished run written and reported.
"""

import dataclasses
import os
import time

import keras

from kerasattn import callbacks as callbacks_
from kerasattn import runs
from kerasattn.metrics import (classification_metrics, format_metrics, learning_banner,
                               learning_check, time_limit_record, time_limit_warning)
from kerasattn.training.diagnostics import diverged_message
from kerasattn.training.errors import DivergedError


@dataclasses.dataclass
class FitResult:
    """What one training produced.

    Attributes:
        results: ``{"val": metrics, "test": metrics}``
            (:func:`kerasattn.metrics.classification_metrics`).
        seconds: the time of ``model.fit`` (or of the scikit-learn fit).
        epochs: the epochs this training ran (a resumed run's earlier ones excluded).
        info: what ``metrics.json`` records beside the scores: ``best_epoch``,
            ``epochs_run``, ``parameters``, ``time_limit``, ...
        roc: ``(test labels, positive-class scores)`` for the ROC plot, or None.
    """

    results: dict
    seconds: float
    epochs: int = 1
    info: dict = dataclasses.field(default_factory=dict)
    roc: tuple = None


def fit_and_evaluate(model, fit, predict, run_dir, class_names, *, what, early_stopping=None,
                     time_limit=None, steps_per_epoch=None, past=(), first=(), last=(),
                     tensorboard=False, fitted=None, after_fit=None, log=print):
    """Train ``model`` with the run's callbacks, restore its best epoch (on validation
    accuracy), predict and score the validation and test splits.

    Args:
        model: a compiled Keras model.
        fit: ``fit(callbacks)`` trains it (``model.fit`` on the caller's batches, or
            the multi-worker loop).
        predict: ``predict(model, split)`` -> ``(probabilities, labels)`` of "val" or
            "test", in the caller's batches.
        run_dir: the run directory (``model.keras`` and ``history.csv`` go there).
        class_names: the label of each class.
        what: names the run in a divergence error.
        early_stopping: patience in epochs, or None.
        time_limit: seconds, or None (:class:`kerasattn.callbacks.TimeLimit`).
        steps_per_epoch: for the time limit's record, where Keras does not know it.
        past: the history rows of the epochs before an interruption (the checkpoint
            and early stopping count them; the history file is appended to).
        first, last: callbacks to put before and after the run's own.
        tensorboard: also write TensorBoard logs in ``run_dir/tensorboard``.
        fitted: ``{"train_seconds", "resumed_after_epoch", "time_limit"}`` of a
            training that had finished before an interruption: nothing is trained,
            its best epoch is scored.
        after_fit: ``after_fit(epochs_run, seconds, time_limit_record)``, called once
            training ended, before the best epoch is restored.
        log: where progress lines go.

    Returns:
        ``(best model, FitResult)``. Raises
        :class:`kerasattn.training.errors.DivergedError` when the loss diverged.
    """
    best_path = os.path.join(run_dir, runs.KERAS_MODEL)
    history_path = os.path.join(run_dir, runs.HISTORY)
    past = list(past)
    guard = callbacks_.DivergenceGuard()
    limit = callbacks_.TimeLimit(time_limit) if time_limit else None
    callbacks = [
        *first,
        callbacks_.AtomicModelCheckpoint(
            best_path, monitor="val_accuracy", mode="max", save_best_only=True,
            initial_value_threshold=max((r["val_accuracy"] for r in past), default=None)),
        keras.callbacks.CSVLogger(history_path, append=bool(past)),
        *([keras.callbacks.TensorBoard(os.path.join(run_dir, "tensorboard"),
                                       profile_batch=0)] if tensorboard else []),
        guard,
        *([callbacks_.ResumableEarlyStopping(past, monitor="val_accuracy", mode="max",
                                             patience=early_stopping)]
          if early_stopping else []),
        *([limit] if limit is not None else []),
        *last,
    ]
    if fitted is None:
        start = time.perf_counter()
        fit(callbacks)
        seconds = time.perf_counter() - start
        if guard.diverged:
            raise DivergedError(diverged_message(guard, what))
        cut = None if limit is None else time_limit_record(limit, steps_per_epoch)
    else:
        seconds, cut = fitted["train_seconds"], fitted.get("time_limit")
    # the whole history, the epochs before an interruption included
    val_acc = [r["val_accuracy"] for r in runs.read_history(history_path)]
    epochs_run = len(val_acc)
    if fitted is None and after_fit is not None:
        after_fit(epochs_run, seconds, cut)
    best_epoch = max(range(epochs_run), key=lambda i: val_acc[i]) + 1
    log(f"best epoch {best_epoch} (val accuracy {max(val_acc):.4f}); restoring it")
    model = keras.saving.load_model(best_path)
    results, roc = {}, None
    for split in ("val", "test"):
        probs, labels = predict(model, split)
        results[split] = classification_metrics(labels, probs, class_names)
        if split == "test":
            roc = (labels, probs[:, -1])
    info = {"best_epoch": best_epoch, "epochs_run": epochs_run,
            "parameters": int(model.count_params()),
            **({"time_limit": cut} if cut is not None else {})}
    before = fitted.get("resumed_after_epoch", 0) if fitted else len(past)
    return model, FitResult(results, seconds, epochs_run - before, info, roc)


def run_metrics(model_name, dataset, dataset_notes, result, class_names, train_size,
                **extra):
    """The ``metrics.json`` of a finished run: the scores of :class:`FitResult`
    ``result``, its time and speed over ``train_size`` training texts an epoch, what it
    recorded (best epoch, time limit, ...), ``extra``, and whether it learned
    (:func:`kerasattn.metrics.learning_check`)."""
    return {
        "model": model_name, "dataset": dataset, "dataset_notes": list(dataset_notes),
        "val": result.results["val"], "test": result.results["test"],
        "train_seconds": round(result.seconds, 3),
        "train_examples_per_second": round((train_size or 0) * result.epochs
                                           / max(result.seconds, 1e-9), 2),
        **result.info,
        **extra,
        "learning": learning_check(result.results["val"], class_names),
    }


def finish_run(run_dir, metrics, result, class_names, epochs, log=print):
    """Write the finished run: the test split's plots, then ``metrics.json`` (last: it
    marks the run finished), and report its scores, a time limit that cut it and a run
    that did not learn. ``epochs``: the configured epochs."""
    runs.write_plots(run_dir, f"{metrics['model']} on {metrics['dataset']}", class_names,
                     result.results["test"], result.roc)
    runs.write_json(os.path.join(run_dir, runs.METRICS), metrics)
    for split in ("val", "test"):
        log(f"{split:>4}: {format_metrics(result.results[split])}")
    best = f" (best epoch {metrics['best_epoch']})" if metrics.get("best_epoch") else ""
    log(f"trained in {result.seconds:.1f}s{best}; run directory: {run_dir}")
    if (metrics.get("time_limit") or {}).get("reached"):
        log(time_limit_warning(metrics["time_limit"], epochs))
    if not metrics["learning"]["learned"]:
        log(learning_banner(metrics["learning"]))
