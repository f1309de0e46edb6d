"""What a :class:`~kerasattn.tasks.TextClassifier` says about its own training: the
``training_summary`` one ``fit`` call leaves (:func:`of_fit`), kept as plain JSON values
(:func:`plain`) in the classifier's config, and the notebook view that shows it with the
preset, recipe, classes and parameter count (:func:`classifier_html`)."""

import html

import keras
import tensorflow as tf

from kerasattn.explanation_pages import fragment, fragment_root


def _early_stopping(callbacks):
    """The ``monitor``, ``patience`` and ``stopped_epoch`` of the last
    ``keras.callbacks.EarlyStopping`` among ``callbacks`` (None without one)."""
    found = [c for c in (callbacks or []) if isinstance(c, keras.callbacks.EarlyStopping)]
    if not found:
        return None
    stop = found[-1]
    return {"monitor": str(stop.monitor), "patience": int(stop.patience),
            "stopped_epoch": int(stop.stopped_epoch)}


def _number_of_texts(data):
    """How many texts ``data`` holds: a list/array of texts or ids (None for a dataset)."""
    if data is None or isinstance(data, tf.data.Dataset):
        return None
    try:
        return len(data)
    except TypeError:
        return None


def _validation_texts(validation_data):
    if isinstance(validation_data, (tuple, list)) and validation_data:
        return _number_of_texts(validation_data[0])
    return None


def _last_validation_accuracy(history):
    values = history.history.get("val_accuracy") if history is not None else None
    return float(values[-1]) if values else None


def of_fit(classifier, history, *, epochs, batch_size, seed, x, validation_data, dataset,
           callbacks):
    """What one ``fit`` call trained (``TextClassifier.training_summary``); the epochs
    of the earlier calls are added to this one's."""
    before = classifier.training_summary or {}
    validation_texts = _validation_texts(validation_data)
    accuracy = _last_validation_accuracy(history)
    return {
        "epochs": int(before.get("epochs", 0)) + len(history.epoch),
        "epochs_requested": int(epochs),
        "batch_size": int(batch_size),
        "recipe": str(classifier.recipe),
        "early_stopping": _early_stopping(callbacks),
        "seed": None if seed is None else int(seed),
        "train_texts": _number_of_texts(x),
        "validation_texts": validation_texts,
        "dataset": None if dataset is None else {
            "name": str(dataset.name),
            "sizes": {s: len(getattr(dataset, s)) for s in ("train", "val", "test")}},
        "validation": None if accuracy is None or validation_texts is None else {
            "accuracy": accuracy, "examples": validation_texts},
        "class_names": [str(c) for c in classifier.class_names],
    }


def plain(value):
    """A JSON-like value as plain dicts and lists (Keras tracks an attribute's dicts and
    lists in its own types)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


# the classifier's view: scoped to its fragment's root by explanation_pages.fragment
_STYLE = """
body { font-family: system-ui, sans-serif; border: 1px solid #ccc; border-radius: 6px;
       padding: .6em 1em; max-width: 48em; color: #111; }
.title { font-weight: 600; margin-bottom: .3em; }
table { border-collapse: collapse; font-size: .9em; }
th { text-align: left; color: #555; font-weight: normal; padding: 1px 1em 1px 0;
     vertical-align: top; }
td { padding: 1px 0; }
"""


def _html_rows(rows):
    return "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>"
                   for k, v in rows)


def _summary_rows(summary):
    """The training summary as ``(label, text)`` rows."""
    if summary is None:
        return [("trained", "not yet (call fit)")]
    epochs = f"{summary['epochs']} run ({summary['epochs_requested']} asked for in the " \
             f"latest fit)"
    rows = [("epochs", epochs), ("batch size", summary["batch_size"]),
            ("seed", summary["seed"]), ("training texts", summary["train_texts"])]
    dataset = summary.get("dataset")
    if dataset:
        sizes = ", ".join(f"{k} {v:,}" for k, v in dataset["sizes"].items())
        rows.append(("dataset", f"{dataset['name']} ({sizes})"))
    stop = summary.get("early_stopping")
    if stop:
        rows.append(("early stopping", f"on {stop['monitor']}, patience {stop['patience']}"
                     f", stopped at epoch {stop['stopped_epoch']}"))
    validation = summary.get("validation")
    if validation:
        rows.append(("validation accuracy", f"{validation['accuracy']:.4f} on "
                     f"{validation['examples']:,} texts (last epoch)"))
    return rows


def classifier_html(classifier, *, root_id: str | None = None) -> str:
    """``TextClassifier._repr_html_``: preset, recipe, classes, parameter count (or "not
    built yet") and the training summary as a notebook fragment, its styles scoped to its
    own root (``root_id``, or a fresh one per call) as an explanation's are
    (:func:`kerasattn.explanation_pages.fragment`)."""
    parameters = ("not built yet" if classifier.backbone is None
                  else f"{classifier.backbone.count_params():,}")
    classes = ", ".join(classifier.class_names) if classifier.class_names else \
        "not known yet (from the labels of the first fit)"
    rows = [("preset", classifier.preset), ("recipe", classifier.recipe),
            ("classes", classes), ("parameters", parameters)]
    rows += _summary_rows(classifier.training_summary)
    inner = (f"<div class='title'>TextClassifier {html.escape(classifier.preset)}</div>"
             f"<table>{_html_rows(rows)}</table>")
    return fragment(fragment_root(root_id), inner, _STYLE, "kerasattn-classifier")
