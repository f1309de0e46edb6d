"""The one place that knows a model's output head.

Every classifier in the zoo ends in a softmax over its classes except the
``transformer`` preset, which follows its paper: one sigmoid unit ``p`` for two
classes, trained with binary cross-entropy. Callers never check for it; they ask
this module:

- :func:`is_binary_head`: whether a model ends in one sigmoid unit;
- :func:`loss_and_accuracy`: the loss and accuracy metric that train its head;
- :func:`as_probabilities` (NumPy) and :func:`probability_tensor` (a backend
  tensor, inside a graph or a gradient tape): the outputs as ``(n, classes)``
  probabilities, a sigmoid unit's ``p`` as ``[1 - p, p]``;
- :func:`per_example_loss` and :func:`correct`: the loss per example and the
  number of right answers, for a hand-written training step (the multi-worker loop).

Runs saved by either kind of head load and explain alike, so old run directories
keep working.
"""

import keras
import numpy as np


def is_binary_head(model):
    """Whether ``model`` ends in one sigmoid unit (probabilities are ``[1 - p, p]``)."""
    return model.output_shape[-1] == 1


def loss_and_accuracy(model):
    """The loss and accuracy metric for ``model``'s output: binary cross-entropy on one
    sigmoid unit, sparse categorical cross-entropy on a softmax."""
    if is_binary_head(model):
        return "binary_crossentropy", keras.metrics.BinaryAccuracy(name="accuracy")
    return "sparse_categorical_crossentropy", \
        keras.metrics.SparseCategoricalAccuracy(name="accuracy")


def as_probabilities(outputs):
    """Model outputs -> (n, classes) float64 probabilities; one sigmoid unit -> [1-p, p]."""
    p = np.asarray(outputs, dtype=np.float64)
    if p.ndim == 2 and p.shape[1] == 1:
        p = np.concatenate([1.0 - p, p], axis=1)
    return p


def probability_tensor(outputs):
    """:func:`as_probabilities` for a backend tensor (float32), so it can sit inside a
    traced function or a gradient tape."""
    p = keras.ops.cast(outputs, "float32")
    if p.shape[-1] == 1:
        p = keras.ops.concatenate([1.0 - p, p], axis=-1)
    return p


def per_example_loss(model):
    """``loss(y, outputs)`` per example (float32) for ``model``'s head: what
    :func:`loss_and_accuracy`'s loss computes before its mean."""
    if is_binary_head(model):
        return lambda y, p: keras.losses.binary_crossentropy(
            keras.ops.cast(y, "float32")[:, None], keras.ops.cast(p, "float32"))
    return lambda y, p: keras.losses.sparse_categorical_crossentropy(
        y, keras.ops.cast(p, "float32"))


def correct(y, outputs):
    """How many of the labels ``y`` the outputs get right (a float32 scalar tensor)."""
    guess = keras.ops.argmax(probability_tensor(outputs), axis=-1)
    return keras.ops.sum(keras.ops.cast(guess == keras.ops.cast(y, guess.dtype), "float32"))
