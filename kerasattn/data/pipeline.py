"""tf.data pipelines: raw texts -> batches of token ids bucketed by length.

Models are length-agnostic, so batches are padded (with id 0) only to the
longest text in the batch, and texts of similar length are batched together
(``bucket_by_sequence_length``) so little compute goes to padding. Tokenising
happens once, in batches, and is cached. Training data is shuffled twice, seeded:
the texts before they are grouped, then the batches (so that the buckets' last,
partial batches do not all come at the end of an epoch).
"""

import numpy as np
import tensorflow as tf

from kerasattn.data import widths

AUTOTUNE = tf.data.AUTOTUNE


def bucket_boundaries(max_length, first=8, growth=2 ** 0.25):
    """Geometric bucket boundaries up to ``max_length``.

    A text shares its batch only with texts less than ``growth`` times as long
    (at most 19% padding per text). On IMDB (texts cut at 400 tokens, batches
    of 32) the padded tokens are 5.6% of the real ones with 2^(1/4) and 11.3%
    with the earlier √2 (``python -m benchmarks.pipeline_speed``).
    """
    bounds, b = [], float(first)
    limit = max_length if max_length else 4096
    while b < limit:
        if not bounds or int(b) > bounds[-1]:
            bounds.append(int(b))
        b *= growth
    return bounds


def _pad_to_min(x, min_length):
    """Pad the last axes of a batch to at least ``min_length`` (never 0-length)."""
    shape = tf.shape(x)
    pads = [[0, 0]] + [[0, tf.maximum(0, min_length - shape[i])]
                       for i in range(1, len(x.shape))]
    return tf.pad(x, pads)


def _width(n, step, cap):
    """:func:`kerasattn.data.widths.widths` of one length in a graph: ``n`` (at least 1)
    rounded up to a multiple of ``step`` (``None``: a power of two), at most ``cap``
    (never below ``n``)."""
    n = tf.maximum(tf.cast(n, tf.int32), 1)
    if step is None:
        up = tf.cast(tf.math.ceil(tf.math.log(tf.cast(n, tf.float64)) / np.log(2.0) - 1e-9),
                     tf.int32)
        w = tf.bitwise.left_shift(1, up)
    else:
        w = (n + step - 1) // step * step
    return w if cap is None else tf.maximum(tf.minimum(w, max(1, cap)), n)


def pad_to_widths(x, axes):
    """Pad each axis of a batch after the first to its bounded width (``axes``: a
    ``(step, cap)`` per axis, :meth:`kerasattn.data.layout.Layout.bounded_axes`)."""
    shape = tf.shape(x)
    return tf.pad(x, [[0, 0]] + [[0, _width(shape[i + 1], step, cap) - shape[i + 1]]
                                 for i, (step, cap) in enumerate(axes)])


def _full_batch(x, y, batch_size):
    """Pad a batch to ``batch_size`` rows of id 0 and label 0; returns ``(x, y, weights)``,
    the weights 1 for the real rows and 0 for the added ones."""
    pad = batch_size - tf.shape(x)[0]
    rows = [[0, pad]] + [[0, 0]] * (x.shape.rank - 1)
    weights = tf.pad(tf.ones(tf.shape(x)[:1], tf.float32), [[0, pad]])
    return tf.pad(x, rows), tf.pad(y, [[0, pad]]), weights


def _tokenize_batch(preprocessor, texts, labels):
    """Tokenise a batch; return dense ids plus each text's true extent: its length on
    each axis (tokens; or sentences and its longest sentence's words)."""
    ids = preprocessor(texts)
    extent = [ids.row_lengths(axis=1)] + [
        tf.maximum(tf.reduce_max(ids.row_lengths(axis=axis), axis=1), 0)  # the longest
        for axis in range(2, ids.shape.rank)]
    # At least one column: TF 2.21 crashes (segfault) unbatching a (batch, 0)
    # tensor, which a batch of only empty texts would give. _trim cuts it off.
    return _pad_to_min(ids.to_tensor(), 1), tf.cast(tf.stack(extent, 1), tf.int32), labels


def _trim(ids, extent, label):
    """Cut one text's ids back to its own extent (it is padded per batch later)."""
    return tf.slice(ids, tf.zeros_like(extent), extent), label


_GRAPH_SEED = 1  # the graph-level seed of the function that builds an epoch's pipeline


def _per_epoch(make, seed, epoch, epochs):
    """One epoch's pipeline, ``make(text_seed, batch_seed, reshuffle)``, shuffled anew
    every epoch: by ``seed`` and the number of epochs this process has iterated, or,
    with the ``epoch`` variable, by ``seed`` and that epoch alone.

    With ``epoch`` it is one pipeline whatever the number of epochs: when an epoch's
    iterator starts (after ``on_epoch_begin`` set the variable) it reads the epoch and
    builds that epoch's pipeline, its shuffle seeds drawn in the graph from
    ``(seed, epoch)`` by a stateless random op. Nothing is built per epoch in advance,
    so the memory and time before the first step do not grow with the epochs (they
    did, when there was one pipeline per epoch, chosen among), and an epoch's order
    does not depend on how many epochs there are: the first five epochs of a run of
    ten are a run of five's, batch for batch, and a run resumed at epoch k in a fresh
    process sees epoch k's order. ``epochs`` is only checked, for compatibility."""
    if epoch is None:
        return make(seed, None if seed is None else seed + 1, True)
    if not epochs:
        raise ValueError("shuffle_epoch needs epochs (the number of epochs to shuffle for)")

    def one_epoch(e):
        # Dataset.shuffle takes tensor seeds; it pairs them with the graph-level seed,
        # which in this function's graph would be the process's global seed (and a
        # global seed of 0 makes tf.data compare the tensor in Python, an error).
        # Fixed here, the order is a function of (seed, epoch) alone.
        tf.compat.v1.set_random_seed(_GRAPH_SEED)
        key = tf.stack([tf.constant(int(seed or 0), tf.int64), e])
        text_seed, batch_seed = tf.unstack(tf.random.stateless_uniform(
            [2], key, minval=0, maxval=2 ** 31 - 1, dtype=tf.int64))
        return make(text_seed, batch_seed, False)

    return tf.data.Dataset.from_tensors(0).map(lambda _: epoch.read_value()).flat_map(
        one_epoch)


def batches_per_epoch(ds):
    """The batches one pass over the finite dataset ``ds`` takes: its cardinality where
    known (``make_dataset`` asserts it for bucketed batches, which outnumber
    ``len / batch size``), else counted in one pass."""
    n = int(ds.cardinality())
    if n == tf.data.INFINITE_CARDINALITY:
        raise ValueError("an endless dataset has no batches per epoch")
    if n == tf.data.UNKNOWN_CARDINALITY:
        n = int(ds.reduce(np.int64(0), lambda c, _: c + 1))
    return n


def make_dataset(texts, labels, preprocessor, batch_size=32, shuffle=False, seed=None,
                 bucket=True, cache=True, min_length=1, pad_to_bucket_boundary=False,
                 tokenize_batch_size=1024, count_batches=False, shuffle_epoch=None,
                 epochs=None, shuffle_batches=True, bounded=False, full_batches=False):
    """Build a dataset of ``(ids, labels)`` batches.

    Args:
        texts: a list/array of strings.
        labels: integer labels (same length), or None for a dataset of ids only.
        preprocessor: a :class:`~kerasattn.data.preprocessing.TextPreprocessor`
            with a vocabulary.
        batch_size: texts per batch.
        shuffle: shuffle the texts every epoch, then the batches (seeded by ``seed``).
        shuffle_batches: with ``shuffle``, shuffle the batches after grouping the
            texts by length (``False``: each bucket's partial batch comes at the end
            of the epoch, as ``bucket_by_sequence_length`` gives them; for
            ``python -m benchmarks.batch_order``).
        shuffle_epoch: with ``shuffle``, an int64 ``tf.Variable`` holding the
            epoch (see :class:`EpochCounter`): each epoch's order is then a
            function of ``(seed, epoch)`` only, so a run resumed at epoch k in a
            fresh process sees the same order as an uninterrupted run. Without
            it the order depends on how many epochs this process has iterated.
        epochs: with ``shuffle_epoch``, the number of epochs: required, for
            compatibility, but nothing depends on it (one pipeline, whatever the
            number; an epoch's order is built when its iterator starts).
        bucket: batch texts of similar length together. Without it batches
            keep the input order (still padded per batch only).
        cache: cache the tokenised texts in memory after the first pass.
        min_length: pad every axis to at least this length, so an empty text
            never gives a zero-length batch.
        pad_to_bucket_boundary: pad to the bucket boundary instead of the batch
            maximum (fewer distinct shapes, for ``jit_compile``).
        bounded: group and pad batches to the few widths of :mod:`kerasattn.data.widths`
            (tokens to multiples of 64, sentences and words to powers of two, each at
            most its text limit): for a backend that compiles once per shape (JAX).
        full_batches: with labels, pad every batch to ``batch_size`` rows of weight 0;
            the batches are then ``(ids, labels, sample_weights)``: one batch size, so
            a compiling backend traces one program per width.

    Returns:
        A ``tf.data.Dataset`` of int32 ids shaped (batch, length) or, for a
        hierarchical preprocessor, (batch, sentences, words), with labels.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    # a tf.string tensor straight from the list: a numpy unicode array would be
    # fixed-width (the longest text x 4 bytes for every text)
    texts = tf.constant([str(t) for t in texts], dtype=tf.string, shape=[len(texts)])
    if labels is None:
        labels, with_labels = tf.zeros([texts.shape[0]], tf.int32), False
    else:
        labels, with_labels = np.asarray(labels, dtype=np.int32), True
        if len(labels) != texts.shape[0]:
            raise ValueError(f"{texts.shape[0]} texts but {len(labels)} labels")
    if full_batches and not with_labels:
        raise ValueError("full_batches pads batches with weight-0 rows: it needs labels")
    ds = tf.data.Dataset.from_tensor_slices((texts, labels))
    return _batches(ds, preprocessor, batch_size, int(texts.shape[0]) if shuffle else 0, seed,
                    shuffle_epoch, epochs, bucket, cache, min_length, pad_to_bucket_boundary,
                    tokenize_batch_size, count_batches, with_labels, shuffle_batches,
                    bounded=bounded, full_batches=full_batches)


def make_stream_dataset(rows, preprocessor, batch_size=32, shuffle_buffer=0, seed=None,
                        shuffle_epoch=None, epochs=None, bucket=True, min_length=1,
                        pad_to_bucket_boundary=False, tokenize_batch_size=1024):
    """:func:`make_dataset` for rows that do not fit in memory.

    ``rows`` is a ``tf.data.Dataset`` of scalar ``(text, label)`` (for example
    :meth:`kerasattn.data.streaming.StreamingDataset.split`). Nothing is cached;
    with ``shuffle_buffer`` > 0 the texts are shuffled in a buffer of that many
    rows before tokenising (memory grows with the buffer, not with the rows).
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    rows = rows.map(lambda t, y: (t, tf.cast(y, tf.int32)))
    return _batches(rows, preprocessor, batch_size, shuffle_buffer, seed, shuffle_epoch,
                    epochs, bucket, False, min_length, pad_to_bucket_boundary,
                    tokenize_batch_size, False, True)


def _batches(ds, preprocessor, batch_size, shuffle_buffer, seed, shuffle_epoch, epochs,
             bucket, cache, min_length, pad_to_bucket_boundary, tokenize_batch_size,
             count_batches, with_labels, shuffle_batches=True, bounded=False,
             full_batches=False):
    """(text, label) rows -> bucketed batches of ids (shared by both entry points)."""
    lay = preprocessor.layout
    axes = lay.bounded_axes(preprocessor)

    def tokenized(rows):
        rows = rows.batch(tokenize_batch_size).map(
            lambda t, y: _tokenize_batch(preprocessor, t, y), num_parallel_calls=AUTOTUNE)
        return rows.unbatch().map(_trim, num_parallel_calls=AUTOTUNE)

    shapes = ([None] * (lay.rank - 1), [])
    bounds, to_boundary = [], False
    if bucket:
        # texts are grouped by their outer axis: tokens, or a hierarchical text's sentences
        step, max_len = axes[0]  # the outer axis's cap: tokens, or sentences
        bounds = bucket_boundaries(max_len, first=lay.first_bucket)
        if bounded:  # one bucket per width: a text of length n goes to width(n)'s
            bounds = [w + 1 for w in widths.all_widths(max_len, step)
                      if max_len is None or w < max_len]
        to_boundary = pad_to_bucket_boundary and max_len is not None and not bounded
        if to_boundary:
            # a closed last bucket: texts are at most max_len long
            bounds.append(max_len + 1)

    def grouped(texts):
        if bucket:
            texts = texts.bucket_by_sequence_length(
                lambda x, y: tf.shape(x)[0], bounds, [batch_size] * (len(bounds) + 1),
                padded_shapes=shapes, pad_to_bucket_boundary=to_boundary,
                drop_remainder=False)
        else:
            texts = texts.padded_batch(batch_size, padded_shapes=shapes)
        texts = texts.map(lambda x, y: (_pad_to_min(x, min_length), y),
                          num_parallel_calls=AUTOTUNE)
        if bounded:
            texts = texts.map(lambda x, y: (pad_to_widths(x, axes), y),
                              num_parallel_calls=AUTOTUNE)
        if full_batches:
            texts = texts.map(lambda x, y: _full_batch(x, y, batch_size),
                              num_parallel_calls=AUTOTUNE)
        return texts

    # Bucketing holds back each bucket's last, partial batch until the texts run out,
    # so an epoch of grouped batches ends with a burst of small batches of one length
    # after another (21 on IMDB), each as large an Adam step as a full batch, just
    # before the epoch's validation: the transformer's first-epoch validation accuracy
    # on IMDB was 0.673 to 0.874 over three orders of the texts (0.863 to 0.876 with
    # the batches shuffled; python -m benchmarks.batch_order). Training batches
    # are shuffled after grouping too; that buffer holds a whole epoch's batches
    # (a stream: as many texts as its shuffle buffer).
    most_batches = shuffle_buffer // batch_size + len(bounds) + 2

    def epoch_of(texts, reshuffle, text_seed, batch_seed, tokenize):
        texts = texts.shuffle(shuffle_buffer, seed=text_seed,
                              reshuffle_each_iteration=reshuffle)
        batches = grouped(tokenized(texts) if tokenize else texts)
        if shuffle_batches:
            batches = batches.shuffle(most_batches, seed=batch_seed,
                                      reshuffle_each_iteration=reshuffle)
        return batches

    if not shuffle_buffer:
        ds = tokenized(ds)
        ds = grouped(ds.cache() if cache else ds)
    elif cache:  # tokenise once; shuffle the cached ids every epoch
        ids = tokenized(ds).cache()
        ds = _per_epoch(lambda t, b, again: epoch_of(ids, again, t, b, tokenize=False),
                        seed, shuffle_epoch, epochs)
    else:  # a stream: shuffle the texts, tokenise after
        rows = ds
        ds = _per_epoch(lambda t, b, again: epoch_of(rows, again, t, b, tokenize=True),
                        seed, shuffle_epoch, epochs)
    if count_batches:
        # Bucketed batches have unknown cardinality; count them once so Keras
        # shows a real progress bar. Each bucket gets the same texts whatever
        # the shuffle order, so the count is the same every epoch; the counting
        # pass also fills the tokenisation cache.
        ds = ds.apply(tf.data.experimental.assert_cardinality(batches_per_epoch(ds)))
    if not with_labels:
        ds = ds.map(lambda x, y: x)
    return ds.prefetch(AUTOTUNE)
