"""The data side of :class:`kerasattn.tasks.TextClassifier`: what its preprocessor needs
around it to train and predict on raw strings.

- :func:`as_text_array` tells a list of texts from anything else (token ids);
- :func:`check_training_input` gives one clear ``ValueError`` for what ``fit`` cannot
  train on;
- :func:`label_ids` maps labels (integers or strings) to class ids, fixing a task's
  class names on first use;
- :func:`text_batches`, :func:`paired_batches` and :func:`prediction_batches` build the
  ``tf.data`` pipelines (texts through the preprocessor, string labels through a lookup
  table);
- :func:`adapt` fits a task's preprocessor (its vocabulary) and finds its classes on
  the training data before the first ``fit`` builds the backbone;
- :func:`batches` and :func:`validation_batches`: what ``fit`` and ``evaluate`` run
  the model on.

Under a backend that compiles once per input shape (JAX) the batches are bounded
(:mod:`kerasattn.data.widths`): a handful of widths, and training batches of one size.

The functions that take a ``task`` read its ``preprocessor``, ``class_names``,
``num_classes``, ``min_freq``, ``vocab_size`` and ``backbone``, and set its
``class_names`` and ``num_classes`` when the labels first give them.
"""

from collections.abc import Sequence
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from kerasattn._text_input import decoded
from kerasattn.data import widths
from kerasattn.data.pipeline import batches_per_epoch, make_dataset, pad_to_widths


def bounded():
    """Whether batches are bounded to a few shapes: under a backend that compiles once
    per input shape (:func:`kerasattn.data.widths.compiles_per_shape`)."""
    return widths.compiles_per_shape(keras.backend.backend())


def as_text_array(x):
    """A list/tuple/array of str (or bytes) -> a list of str; None otherwise (token ids).
    One string alone is refused (``ValueError``): texts come in a list."""
    if isinstance(x, str):
        raise ValueError("expected a list of texts, got one string; wrap it in a list")
    if isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.ndim == 1
                                        and x.dtype.kind in "OUS"):
        texts = [decoded(t) for t in x]
        if None not in texts:
            return texts
    return None


def _as_list(y):
    return list(np.asarray(y).tolist()) if not isinstance(y, list) else list(y)


def check_training_input(x, y, fitted):
    """One clear ``ValueError`` for what ``fit`` cannot train on: no texts, texts that
    are not strings (token ids need a fitted classifier: ``fitted``), labels missing,
    of another length, or all of one class."""
    if x is None:
        raise ValueError("fit needs training texts: fit(texts, labels), or a "
                         "tf.data.Dataset of (text, label) pairs")
    if isinstance(x, tf.data.Dataset):
        return
    if as_text_array(x) is None:
        if not fitted:
            kinds = sorted({type(t).__name__ for t in x}) if isinstance(
                x, (list, tuple)) else [type(x).__name__]
            raise ValueError("fit takes a list of strings (the texts); got "
                             f"{', '.join(kinds)} (token ids work only once the "
                             "classifier is fitted on texts)")
        return
    if y is None:
        raise ValueError("fit needs labels: fit(texts, labels)")
    labels = _as_list(y)
    if len(labels) != len(x):
        raise ValueError(f"{len(x)} texts but {len(labels)} labels")
    if len({str(v) for v in labels}) < 2 and not fitted:
        raise ValueError(f"every label is {labels[0]!r}: a classifier needs examples of "
                         "at least two classes")


def label_ids(task, y):
    """Labels (ints or strings) -> int32 ids. ``task`` (a ``TextClassifier``) gets its
    ``class_names`` (string labels, sorted) and ``num_classes`` on first use."""
    y = _as_list(y)
    if not y:
        raise ValueError("no labels")
    if all(isinstance(v, str) for v in y):
        return _string_label_ids(task, y)
    return _integer_label_ids(task, y)


def _string_label_ids(task, y):
    unfitted_default = task.backbone is None and task.class_names == [
        str(i) for i in range(task.num_classes or 0)]
    if task.class_names is None or unfitted_default:
        names = sorted(set(y))
        if task.num_classes is not None and len(names) > task.num_classes:
            raise ValueError(f"{len(names)} distinct labels but num_classes="
                             f"{task.num_classes}")
        task.class_names = names if task.num_classes is None or \
            len(names) == task.num_classes else None
        if task.class_names is None:
            raise ValueError(f"{len(names)} distinct string labels but num_classes="
                             f"{task.num_classes}; pass class_names=")
        task.num_classes = len(names)
    index = {n: i for i, n in enumerate(task.class_names)}
    unknown = sorted(set(y) - set(index))
    if unknown:
        raise ValueError(f"unknown labels {unknown[:5]}; the classes are "
                         f"{task.class_names}")
    return np.asarray([index[v] for v in y], np.int32)


def _integer_label_ids(task, y):
    try:
        ids = np.asarray(y, dtype=np.int64)
    except (TypeError, ValueError):
        raise ValueError("labels must be all integers or all strings") from None
    if not np.array_equal(ids, np.asarray(y, dtype=np.float64)) or ids.ndim != 1:
        raise ValueError("labels must be a flat list of integers or of strings")
    if ids.min() < 0:
        raise ValueError(f"integer labels must be >= 0, got {ids.min()}")
    if task.num_classes is None:
        task.num_classes = max(2, int(ids.max()) + 1)
    if ids.max() >= task.num_classes:
        if task.class_names is not None:
            raise ValueError(f"label {ids.max()} but the classes are {task.class_names} "
                             f"(integer labels 0 to {task.num_classes - 1})")
        raise ValueError(f"label {ids.max()} but num_classes={task.num_classes}")
    return ids.astype(np.int32)


def _default_names(n: int) -> list[str]:
    return [str(i) for i in range(n)]


def adopt_class_names(task: Any, names: Sequence[Any], source: str = "the data") -> None:
    """Give ``task`` the class names ``names`` (of integer labels 0 … n-1), e.g. a
    :class:`~kerasattn.data.datasets.TextDataset`'s: taken when the task has none yet or
    only the default "0", "1", … of as many classes; ``ValueError`` when they disagree
    with its own (``source`` names where they come from in the message)."""
    names = [str(n) for n in names]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"{source} names the class(es) {twice} more than once")
    if len(names) < 2:
        raise ValueError(f"{source} has {len(names)} class name(s) {names}; a classifier "
                         "needs at least two classes")
    current = None if task.class_names is None else [str(c) for c in task.class_names]
    if current == names:
        return
    if current is None or current == _default_names(len(names)):
        if task.num_classes is not None and task.num_classes != len(names):
            raise ValueError(f"{source} has {len(names)} classes {names} but this "
                             f"classifier has num_classes={task.num_classes}")
        task.class_names, task.num_classes = names, len(names)
        return
    raise ValueError(f"{source} has the classes {names} but this classifier's are "
                     f"{current}: fit it on data of its own classes, in its order")


def is_text_dataset(x: object) -> bool:
    """Whether ``x`` is a :class:`~kerasattn.data.datasets.TextDataset` (what
    ``kerasattn.datasets.load`` returns)."""
    from kerasattn.data.datasets.definitions import TextDataset  # late: a light module

    return isinstance(x, TextDataset)


def dataset_arguments(task: Any, ds: Any, y: object, validation_data: object
                      ) -> tuple[list[str], np.ndarray, object]:
    """``fit``'s ``(texts, labels, validation_data)`` for a ``TextDataset`` ``ds``: its
    train split, its val split unless ``validation_data`` is given (or the split is
    empty); its class names become the task's (:func:`adopt_class_names`)."""
    if y is not None:
        raise ValueError("fit(dataset) takes the labels from the dataset: pass no y")
    adopt_class_names(task, ds.class_names, f"dataset {ds.name!r}")
    if validation_data is None and len(ds.val):
        validation_data = (list(ds.val.texts), ds.val.labels)
    return list(ds.train.texts), ds.train.labels, validation_data


def label_table(class_names):
    """A ``tf.lookup`` table: class name -> its id (-1 for another string)."""
    names = tf.constant(class_names)
    return tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(names, tf.range(len(class_names),
                                                            dtype=tf.int32)), -1)


def text_batches(texts, labels, preprocessor, batch_size, shuffle, seed=None,
                 training=False):
    """A list of texts (and label ids, or None) -> ``(ids, labels)`` batches of texts of
    similar length, through the :class:`~kerasattn.tasks.TextClassifierPreprocessor`
    ``preprocessor`` (it has a vocabulary). :func:`bounded`: a few widths, and for
    ``training`` ``(ids, labels, weights)`` batches of ``batch_size`` rows."""
    bound = bounded()
    return make_dataset(texts, labels, preprocessor.text_preprocessor,
                        batch_size=batch_size, shuffle=shuffle, seed=seed,
                        count_batches=True, bounded=bound,
                        full_batches=bound and training and labels is not None)


def paired_batches(ds, preprocessor, class_names, batch_size):
    """A ``tf.data.Dataset`` of ``(text, label)`` (batched or not) -> ``(ids, label
    ids)`` batches; string labels are looked up in ``class_names``. None for a dataset
    of token ids (e.g. ``fit``'s own validation batches)."""
    spec = ds.element_spec
    if not isinstance(spec, tuple) or getattr(spec[0], "dtype", None) != tf.string:
        return None
    if len(spec) != 2:
        raise ValueError("a tf.data.Dataset of texts for a TextClassifier yields "
                         "(text, label) pairs")
    batched = ds if spec[0].shape.rank == 1 else ds.batch(batch_size)
    table = label_table(class_names) if spec[1].dtype == tf.string else None

    axes = preprocessor.layout.bounded_axes(preprocessor.text_preprocessor)
    bound = bounded()

    def prepare(texts, labels):
        if table is not None:
            labels = table.lookup(labels)
        ids = preprocessor(texts)
        return (pad_to_widths(ids, axes) if bound else ids), labels

    return batched.map(prepare, num_parallel_calls=tf.data.AUTOTUNE) \
        .prefetch(tf.data.AUTOTUNE)


def prediction_batches(x, texts, preprocessor, batch_size):
    """What ``predict`` runs the model on: ``texts`` (``x`` as a list of texts, or None)
    or a dataset of strings ``x`` as batches of ids; anything else (ids) as it is."""
    axes = preprocessor.layout.bounded_axes(preprocessor.text_preprocessor)
    bound = bounded()  # a few widths (the last batch's size is its own)

    def ids(texts):
        return pad_to_widths(preprocessor(texts), axes) if bound else preprocessor(texts)

    if texts is not None:
        return tf.data.Dataset.from_tensor_slices(
            tf.constant(texts, tf.string, shape=[len(texts)])).batch(batch_size).map(ids)
    if isinstance(x, tf.data.Dataset) and x.element_spec.dtype == tf.string:
        return (x if x.element_spec.shape.rank == 1 else x.batch(batch_size)).map(ids)
    return x


def _unbatched_pairs(ds):
    """A dataset of ``(text, label)`` pairs, batched or not -> one pair an element."""
    return ds.unbatch() if ds.element_spec[0].shape.rank == 1 else ds


def _pair_labels(pairs):
    """The labels of an unbatched dataset of ``(text, label)`` pairs, in one pass (string
    labels decoded)."""
    return [v.decode("utf-8") if isinstance(v, bytes) else v
            for v in pairs.map(lambda _, y: y).as_numpy_iterator()]


def adapt(task, x, y):
    """Before the first ``fit``: adapt the task's preprocessor on the training texts
    (unless it has a vocabulary) and take its classes from the labels (unless known).
    ``x``, ``y``: texts and labels, or ``x`` a dataset of ``(text, label)`` pairs."""
    if isinstance(x, tf.data.Dataset):
        _adapt_on_pairs(task, _unbatched_pairs(x))
        return
    label_ids(task, y)  # the classes, from the labels
    _adapt_vocabulary(task, as_text_array(x))
    if task.num_classes is None:
        raise ValueError("num_classes is unknown: pass it to from_preset or fit on labels")


def _adapt_vocabulary(task, texts):
    if task.preprocessor.vocabulary is None:
        task.preprocessor.adapt(texts, min_freq=task.min_freq, max_size=task.vocab_size)


def _adapt_on_pairs(task, pairs):
    _adapt_vocabulary(task, pairs.map(lambda t, _: t))
    if task.num_classes is None:  # one pass over the labels
        label_ids(task, _pair_labels(pairs))


def batches(task, x, y, batch_size, shuffle, seed=None, training=False):
    """Strings + labels, or a ``tf.data.Dataset`` of ``(string, label)`` -> ``(ids,
    labels)`` batches through the task's preprocessor (it has a vocabulary); None for
    other inputs (token ids). ``training``: ``fit``'s (see :func:`text_batches`)."""
    if isinstance(x, tf.data.Dataset):
        return paired_batches(x, task.preprocessor, task.class_names, batch_size)
    texts = as_text_array(x)
    if texts is None:
        return None
    labels = None if y is None else label_ids(task, y)
    return text_batches(texts, labels, task.preprocessor, batch_size, shuffle, seed,
                        training)


def validation_batches(task, validation_data, batch_size):
    """``fit``'s ``validation_data``: ``(texts, labels)`` or a dataset of pairs as
    batches of ids; anything else as it is."""
    if isinstance(validation_data, tf.data.Dataset):
        return batches(task, validation_data, None, batch_size, False)
    if isinstance(validation_data, (tuple, list)) and \
            as_text_array(validation_data[0]) is not None:
        return batches(task, validation_data[0], validation_data[1], batch_size, False)
    return validation_data


def steps_per_epoch(data, batch_size):
    """The batches of one epoch over ``data``: a finite dataset of batches, or ids in
    batches of ``batch_size``."""
    if isinstance(data, tf.data.Dataset):
        return batches_per_epoch(data)
    return -(-len(data) // batch_size)
