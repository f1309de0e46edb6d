"""Classification metrics (seed 004 §3.2): accuracy, loss, macro F1/precision/recall, ROC-AUC.

All from scikit-learn; nothing is reimplemented here.
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
    warning = None if learned else (
        f"this run did not learn: validation accuracy {accuracy:.4f} is within {margin:.2f} "
        f"of the majority-class rate {rate:.4f} (always predicting {name!r}); try another "
        "recipe (--recipe), learning rate or more epochs")
    return {"learned": bool(learned), "val_accuracy": accuracy, "majority_rate": rate,
            "majority_class": name, "margin": margin, "warning": warning}
