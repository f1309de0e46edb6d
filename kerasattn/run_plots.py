"""PNG plots of a run: learning curves, confusion matrix, ROC curve (matplotlib, no display)."""

import csv
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402
from sklearn.metrics import roc_auc_score, roc_curve  # noqa: E402

from kerasattn import ownership  # noqa: E402


def learning_curves(history_csv, path, title=""):
    """Loss and accuracy per epoch, train and validation, from Keras's CSVLogger file."""
    with open(history_csv) as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        return None
    epochs = [int(r["epoch"]) + 1 for r in rows]
    best = None
    if "val_accuracy" in rows[0]:
        val = [float(r["val_accuracy"]) for r in rows]
        best = epochs[val.index(max(val))]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, key in zip(axes, ("loss", "accuracy")):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if best is not None:
            ax.axvline(best, color="grey", ls=":", lw=1, label=f"best epoch ({best})")
        for prefix, style in (("", "-o"), ("val_", "-s")):
            if prefix + key in rows[0]:
                ax.plot(epochs, [float(r[prefix + key]) for r in rows], style,
                        label=("validation " if prefix else "train ") + key)
        ax.set_xlabel("epoch")
        ax.set_ylabel(key)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
    return path


def confusion_matrix(cm, class_names, path, title=""):
    cm = np.asarray(cm)
    k = len(class_names)
    fig, ax = plt.subplots(figsize=(1.2 * k + 3, 1.2 * k + 2))
    norm = cm / np.maximum(cm.sum(axis=1, keepdims=True), 1)
    im = ax.imshow(norm, cmap="Blues", vmin=0, vmax=1)
    for i in range(k):
        for j in range(k):
            ax.text(j, i, f"{cm[i, j]}\n{norm[i, j]:.0%}", ha="center", va="center",
                    color="white" if norm[i, j] > 0.5 else "black", fontsize=9)
    ax.set_xticks(range(k), class_names, rotation=30, ha="right")
    ax.set_yticks(range(k), class_names)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    ax.set_title(title)
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
    return path


def roc_curves(curves, path, title=""):
    """``curves``: {label: (y_true, positive-class scores)}; one ROC line each."""
    fig, ax = plt.subplots(figsize=(5.5, 5))
    for i, (label, (y, score)) in enumerate(curves.items()):
        fpr, tpr, _ = roc_curve(y, score)
        # the colour cycle has 10 colours: more curves change the line style too
        ax.plot(fpr, tpr, linestyle=("-", "--", ":")[i // 10 % 3],
                label=f"{label} (AUC {roc_auc_score(y, score):.3f})")
    ax.plot([0, 1], [0, 1], "k--", lw=0.8)
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title(title)
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
    return path


def validation_curves(histories, path, title=""):
    """Validation accuracy and loss per epoch of several runs on one figure (two panels).

    ``histories``: {label: path of the run's CSVLogger history}.
    """
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for label, history_csv in histories.items():
        with open(history_csv) as fh:
            rows = list(csv.DictReader(fh))
        if not rows or "val_accuracy" not in rows[0]:
            continue
        epochs = [int(r["epoch"]) + 1 for r in rows]
        for ax, key in zip(axes, ("val_accuracy", "val_loss")):
            ax.plot(epochs, [float(r[key]) for r in rows], "-o", ms=3, label=label)
    for ax, key in zip(axes, ("validation accuracy", "validation loss")):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("epoch")
        ax.set_ylabel(key)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
    return path


def save_figure(fig, path):
    """Draw ``fig`` as a PNG at ``path`` whole, following no link
    (:func:`kerasattn.ownership.write_bytes`)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=110, format="png")
    ownership.write_bytes(path, buffer.getvalue())
