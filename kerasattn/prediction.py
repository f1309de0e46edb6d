"""Class probabilities of a trained Keras model (token ids in) over a dataset, in
dataset order, with the labels beside them: what training scores its best epoch by
and ``evaluate`` recomputes a run's metrics from."""

import keras
import numpy as np

from kerasattn.data.pipeline import make_dataset
from kerasattn.heads import as_probabilities


def predict_keras(model, texts, labels, preprocessor, batch_size, verbose=0):
    """Probabilities and labels in dataset order (batches are bucketed by length)."""
    ds = make_dataset(texts, labels, preprocessor, batch_size=batch_size)
    return predict_batches(model, ds, len(texts), verbose)


def predict_batches(model, batches, total=None, verbose=0):
    """Probabilities and labels of a dataset of ``(ids, labels)`` batches (``total``
    texts, None when unknown, e.g. streamed)."""
    bar = keras.utils.Progbar(total, unit_name="text") if verbose else None
    probs, ys = [], []
    for x, y in batches:
        probs.append(model.predict_on_batch(x))
        ys.append(y.numpy())
        if bar is not None:
            bar.add(len(ys[-1]))
    if not probs:
        return np.zeros((0, 2)), np.zeros(0, np.int64)
    return as_probabilities(np.concatenate(probs)), np.concatenate(ys).astype(np.int64)
