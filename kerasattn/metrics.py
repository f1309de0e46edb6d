"""Classification metrics (Hubli, §3.2): accuracy, loss, macro F1/precision/recall, ROC-AUC.

All from scikit-learn; nothing is reimplemented here. Beside them: spreads over
seeds, whether a run learned (against the majority class), what early stopping
would have done, and a run's time-limit record. A failed run told in one line (out
of memory, a full disk, a diverged loss): :mod:`kerasattn.training.diagnostics`.
"""

import numpy as np
from sklearn import metrics as skm


def classification_metrics(y_true, probabilities, class_names):
    """Metrics of predicted class probabilities against integer labels.

    Returns a JSON-serialisable dict with ``accuracy``, ``loss`` (cross-entropy),
    ``f1_macro``, ``precision_macro``, ``recall_macro``, ``roc_auc`` (binary
    tasks only), ``confusion_matrix`` (rows = true class), ``per_class`` (the
    classification report) and ``examples``.
    """
    y_true = np.asarray(y_true, dtype=np.int64)
    probs = np.asarray(probabilities, dtype=np.float64)
    k = len(class_names)
    if probs.ndim != 2 or probs.shape != (len(y_true), k):
        raise ValueError(f"probabilities must be ({len(y_true)}, {k}), got {probs.shape}")
    if not np.all(np.isfinite(probs)):
        raise ValueError("probabilities contain NaN or infinity")
    # float32 softmax rows sum to 1 only within rounding; scikit-learn checks
    probs = np.clip(probs, 1e-7, 1.0)
    probs = probs / probs.sum(axis=1, keepdims=True)
    y_pred = probs.argmax(axis=1)
    labels = list(range(k))
    out = {
        "examples": int(len(y_true)),
        "accuracy": float(skm.accuracy_score(y_true, y_pred)),
        "loss": float(skm.log_loss(y_true, probs, labels=labels)),
        "f1_macro": float(skm.f1_score(y_true, y_pred, labels=labels, average="macro",
                                       zero_division=0)),
        "precision_macro": float(skm.precision_score(y_true, y_pred, labels=labels,
                                                     average="macro", zero_division=0)),
        "recall_macro": float(skm.recall_score(y_true, y_pred, labels=labels, average="macro",
                                               zero_division=0)),
    }
    if k == 2 and len(set(y_true.tolist())) == 2:
        out["roc_auc"] = float(skm.roc_auc_score(y_true, probs[:, 1]))
    out["confusion_matrix"] = skm.confusion_matrix(y_true, y_pred, labels=labels).tolist()
    out["per_class"] = skm.classification_report(
        y_true, y_pred, labels=labels, target_names=list(class_names), output_dict=True,
        zero_division=0)
    return out


def format_metrics(m):
    """One line: accuracy, F1, precision, recall, loss (and AUC)."""
    s = (f"accuracy {m['accuracy']:.4f}  f1 {m['f1_macro']:.4f}  "
         f"precision {m['precision_macro']:.4f}  recall {m['recall_macro']:.4f}  "
         f"loss {m['loss']:.4f}")
    if "roc_auc" in m:
        s += f"  roc_auc {m['roc_auc']:.4f}"
    return s


def mean_std(values, ddof=1):
    """Mean and standard deviation of the finite ``values``: ``ddof=1`` (the sample
    standard deviation) for a spread over seeds, ``ddof=0`` for the spread of a whole
    population (e.g. over a fixed set of documents). One value has a spread of 0; no
    finite value gives ``(nan, nan)``."""
    v = np.asarray(values, np.float64)
    v = v[np.isfinite(v)]
    if not len(v):
        return float("nan"), float("nan")
    return float(v.mean()), float(v.std(ddof=ddof)) if len(v) > ddof else 0.0


def format_spread(values, digits=4):
    """``"mean ± std"`` over seeds (:func:`mean_std`), or the value alone for one run."""
    mean, std = mean_std(values)
    return f"{mean:.{digits}f} ± {std:.{digits}f}" if len(values) > 1 else f"{mean:.{digits}f}"


def early_stopping_replay(val_accuracy, patience):
    """What ``--early-stopping PATIENCE`` would have done to a run that trained every
    epoch: given its validation accuracy per epoch, the epochs it would have run, the
    best epoch it would have kept (1-based; the first of equal maxima, as Keras keeps
    it) and whether that is the full run's best epoch (then its test figures are the
    same)."""
    values = [float(v) for v in val_accuracy]
    if not values:
        raise ValueError("no epochs")
    if patience < 1:
        raise ValueError(f"patience must be >= 1, got {patience}")
    best, waited, ran = 0, 0, len(values)
    for epoch in range(1, len(values)):
        if values[epoch] > values[best]:
            best, waited = epoch, 0
        else:
            waited += 1
            if waited >= patience:
                ran = epoch + 1
                break
    full_best = int(max(range(len(values)), key=lambda e: (values[e], -e)))
    return {"epochs_run": ran, "best_epoch": best + 1, "val_accuracy": values[best],
            "full_best_epoch": full_best + 1, "full_val_accuracy": values[full_best],
            "same_epoch": best == full_best}


# a run whose best validation accuracy is no more than this above always predicting
# the most frequent class did not learn
LEARNING_MARGIN = 0.02


def learning_check(val_metrics, class_names=None, margin=LEARNING_MARGIN):
    """Whether a run learned: its (best epoch's) validation accuracy against the
    majority-class rate of the validation split (from the confusion matrix).

    Returns ``{"learned", "val_accuracy", "majority_rate", "majority_class",
    "margin", "warning"}``; ``warning`` is None when it learned.
    """
    cm = np.asarray(val_metrics["confusion_matrix"], dtype=np.int64)
    support = cm.sum(axis=1)
    total = int(support.sum())
    majority = int(np.argmax(support)) if total else 0
    rate = float(support[majority] / total) if total else 0.0
    accuracy = float(val_metrics["accuracy"])
    learned = accuracy > rate + margin
    name = class_names[majority] if class_names is not None else str(majority)
    where = (f"is within {margin:.2f} of" if accuracy >= rate - margin
             else "is below")  # below: worse than always predicting one class
    warning = None if learned else (
        f"this run did not learn: validation accuracy {accuracy:.4f} {where} the "
        f"majority-class rate {rate:.4f} (always predicting {name!r}); try another "
        "recipe (--recipe), learning rate or more epochs")
    return {"learned": bool(learned), "val_accuracy": accuracy, "majority_rate": rate,
            "majority_class": name, "margin": margin, "warning": warning}


def learning_banner(check):
    """The loud lines a log ends with when :func:`learning_check` says the run did not
    learn; None when it learned."""
    if check["learned"]:
        return None
    banner = "!" * 78
    return f"{banner}\nWARNING: {check['warning']}\n{banner}"


def time_limit(seconds):
    """A :class:`kerasattn.callbacks.TimeLimit` of ``seconds`` (see there)."""
    from kerasattn.callbacks import TimeLimit  # late: Keras; the scores (benchmarks) need none

    return TimeLimit(seconds)


def time_limit_record(callback, steps_per_epoch=None):
    """``metrics.json``'s ``"time_limit"`` for a :class:`~kerasattn.callbacks.TimeLimit` after
    ``fit``: ``{"seconds", "reached"}``, and where it stopped (``epoch``, ``steps`` done
    in it, ``steps_per_epoch``, which ``steps_per_epoch`` gives when Keras did not
    know it) when it did."""
    record = {"seconds": callback.seconds, "reached": callback.stopped_at is not None}
    if callback.stopped_at is not None:
        epoch, steps = callback.stopped_at
        record.update(epoch=epoch, steps=steps,
                      steps_per_epoch=callback.steps_per_epoch or steps_per_epoch)
    return record


def time_limit_warning(record, epochs):
    """The log's warning line for a run :func:`time_limit` stopped (``record``: its
    :func:`time_limit_record`), of ``epochs`` configured."""
    per = record.get("steps_per_epoch")
    if per and record["steps"] == per:
        return (f"warning: stopped by --time-limit {record['seconds']:g}s after epoch "
                f"{record['epoch']} of {epochs}; the run is shorter than its configuration")
    return (f"warning: stopped by --time-limit {record['seconds']:g}s in epoch "
            f"{record['epoch']} of {epochs} (after {record['steps']}"
            f"{f' of {per}' if per else ''} steps); the run is shorter than its "
            "configuration")
