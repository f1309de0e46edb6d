"""tf.data pipelines: every text exactly once, bucketing, padding per batch, seeding."""

import collections

import numpy as np
import pytest

from kerasattn.data.pipeline import batches_per_epoch, bucket_boundaries, make_dataset
from kerasattn.data.preprocessing import TextPreprocessor

TEXTS = [" ".join(f"w{j % 7}" for j in range(n)) for n in
         [1, 3, 50, 2, 0, 120, 7, 9, 33, 64, 65, 5, 12, 80, 2, 17, 40, 3, 99, 1]]
LABELS = list(range(len(TEXTS)))  # a unique label per text to track it


def pre(**kw):
    return TextPreprocessor(**kw).adapt(TEXTS)


def collect(ds):
    seen = []
    for x, y in ds:
        x, y = x.numpy(), y.numpy()
        assert x.dtype == np.int32
        for row, label in zip(x, y):
            seen.append((int(label), tuple(row[row > 0].tolist())))
    return seen


def test_every_text_once_with_its_own_ids():
    p = pre()
    seen = collect(make_dataset(TEXTS, LABELS, p, batch_size=4, shuffle=True, seed=3))
    expected = [(i, tuple(p([t]).to_list()[0])) for i, t in enumerate(TEXTS)]
    assert sorted(seen) == sorted(expected)


def test_batches_are_padded_only_to_their_longest_text_and_bucketed():
    p = pre()
    widths, wastes = [], []
    for x, _ in make_dataset(TEXTS, LABELS, p, batch_size=4):
        x = x.numpy()
        lengths = (x > 0).sum(axis=1)
        assert x.shape[1] == max(1, lengths.max())  # no padding beyond the batch max
        widths.append(x.shape[1])
        wastes.append(1 - lengths.sum() / x.size)
    unbucketed = make_dataset(TEXTS, LABELS, p, batch_size=4, bucket=False)
    plain = sum(x.numpy().size for x, _ in unbucketed)
    bucketed = sum(x.numpy().size for x, _ in make_dataset(TEXTS, LABELS, p, batch_size=4))
    assert bucketed < plain  # bucketing wastes less padding


def test_empty_texts_give_min_length_batches():
    p = pre()
    (x, y), = list(make_dataset(["", ""], [0, 1], p, batch_size=2))
    assert x.shape == (2, 1) and not x.numpy().any()


def test_seeded_shuffle_is_reproducible_and_reshuffles():
    p = pre()
    first = [y.numpy().tolist() for _, y in make_dataset(TEXTS, LABELS, p, 4, shuffle=True,
                                                          seed=7)]
    again = [y.numpy().tolist() for _, y in make_dataset(TEXTS, LABELS, p, 4, shuffle=True,
                                                          seed=7)]
    assert first == again
    ds = make_dataset(TEXTS, LABELS, p, 4, shuffle=True, seed=7)
    e1 = [y.numpy().tolist() for _, y in ds]
    e2 = [y.numpy().tolist() for _, y in ds]
    assert e1 != e2 and sorted(sum(e1, [])) == sorted(sum(e2, []))


def test_partial_batches_are_spread_over_the_epoch_not_flushed_at_its_end():
    # 300 texts of 1 to 60 words in batches of 8: each length bucket leaves one
    # partial batch, which bucketing emits only when the texts run out
    import tensorflow as tf

    rng = np.random.default_rng(0)
    texts = [" ".join("w" for _ in range(n)) for n in rng.integers(1, 61, 300)]
    p = TextPreprocessor().adapt(texts)
    epoch = tf.Variable(0, dtype="int64")
    keyed = make_dataset(texts, list(range(300)), p, 8, shuffle=True, seed=0,
                         shuffle_epoch=epoch, epochs=2)
    for ds in (make_dataset(texts, list(range(300)), p, 8, shuffle=True, seed=0), keyed):
        sizes = [len(y) for _, y in ds]
        partial = [i for i, n in enumerate(sizes) if n < 8]
        assert sum(sizes) == 300 and len(partial) >= 5
        # flushed at the end they would be the last len(partial) batches
        assert partial != list(range(len(sizes) - len(partial), len(sizes)))
        assert np.mean(partial) < 0.75 * len(sizes)
    # evaluation batches are left as bucketing gives them, the partial ones last, and so
    # are shuffled texts with shuffle_batches=False
    for ds in (make_dataset(texts, list(range(300)), p, 8),
               make_dataset(texts, list(range(300)), p, 8, shuffle=True, seed=0,
                            shuffle_batches=False)):
        sizes = [len(y) for _, y in ds]
        partial = [i for i, n in enumerate(sizes) if n < 8]
        assert len(partial) >= 5
        assert partial == list(range(len(sizes) - len(partial), len(sizes)))


def test_epoch_keyed_shuffle_depends_on_the_epoch_only():
    import keras
    import tensorflow as tf

    p = pre()
    keras.utils.set_random_seed(0)  # a global seed of 0 once broke tensor seeds

    def make():
        epoch = tf.Variable(0, dtype=tf.int64)
        return epoch, make_dataset(TEXTS, LABELS, p, 4, shuffle=True, seed=0,
                                   shuffle_epoch=epoch, epochs=3, count_batches=True)

    def order(ds):
        return [y.numpy().tolist() for _, y in ds]

    epoch, ds = make()
    straight = []
    for e in range(3):
        epoch.assign(e)
        straight.append(order(ds))
        assert sorted(sum(straight[-1], [])) == LABELS  # every text once
    assert straight[0] != straight[1] != straight[2]
    assert int(ds.cardinality()) == len(straight[0])
    fresh_epoch, fresh = make()  # a resumed process: its first iteration is epoch 2
    fresh_epoch.assign(2)
    assert order(fresh) == straight[2]
    # a longer run starts as the shorter one did, epoch for epoch
    longer_epoch = tf.Variable(0, dtype=tf.int64)
    longer = make_dataset(TEXTS, LABELS, p, 4, shuffle=True, seed=0,
                          shuffle_epoch=longer_epoch, epochs=5)
    for e in range(3):
        longer_epoch.assign(e)
        assert order(longer) == straight[e]
    with pytest.raises(ValueError, match="needs epochs"):
        make_dataset(TEXTS, LABELS, p, 4, shuffle=True, shuffle_epoch=epoch)


def test_count_batches_sets_cardinality():
    p = pre()
    ds = make_dataset(TEXTS, LABELS, p, 4, shuffle=True, seed=1, count_batches=True)
    assert int(ds.cardinality()) == len(list(ds)) == len(list(ds))


def test_batches_per_epoch_counts_grouped_batches_and_refuses_an_endless_dataset():
    p = pre()
    # bucketed by length, 20 texts in batches of 4 take more than 5 batches
    grouped = make_dataset(TEXTS, LABELS, p, 4, shuffle=True, seed=1)
    assert int(grouped.cardinality()) < 0  # unknown: counted in a pass
    n = len(list(grouped))
    assert n > 5 and batches_per_epoch(grouped) == n
    counted = make_dataset(TEXTS, LABELS, p, 4, shuffle=True, seed=1, count_batches=True)
    assert batches_per_epoch(counted) == n
    with pytest.raises(ValueError, match="endless"):
        batches_per_epoch(counted.repeat())


def test_truncation_and_no_labels():
    p = pre(max_length=10)
    xs = list(make_dataset(TEXTS, None, p, batch_size=8, bucket=False))
    assert all(x.shape[1] <= 10 for x in xs)
    assert sum(x.shape[0] for x in xs) == len(TEXTS)


def test_hierarchical_batches():
    texts = ["a b. c d e! f", "", "a. b. c. d. e."]
    p = TextPreprocessor(mode="hcan", hierarchical=True).adapt(texts)
    (x, y), = list(make_dataset(texts, [0, 1, 2], p, batch_size=3, bucket=False))
    x = x.numpy()
    assert x.shape == (3, 5, 4)  # 5 sentences (3rd text), 4 tokens ("c d e !")
    assert not x[1].any()  # the empty text is all padding
    assert (x[0, 1] > 0).sum() == 4 and (x[0, 3:] == 0).all()


def test_bucket_boundaries_are_geometric_and_bounded():
    b = bucket_boundaries(400)
    # 2^(1/4) apart, up to the rounding to whole tokens of the short ones
    assert b[0] == 8 and b[-1] < 400 and all(q / p < 1.3 for p, q in zip(b, b[1:]))
    assert all(q / p < 1.21 for p, q in zip(b, b[1:]) if p > 40)
    assert 400 / b[-1] <= 2 ** 0.25 + 1e-9  # the last bucket is no wider
    counts = collections.Counter(b)
    assert max(counts.values()) == 1


def test_pad_to_bucket_boundary_gives_few_shapes():
    p = pre(max_length=100)
    ds = make_dataset(TEXTS, LABELS, p, batch_size=4, pad_to_bucket_boundary=True)
    widths = {x.shape[1] for x, _ in ds}
    assert widths <= set(b - 1 for b in bucket_boundaries(100) + [101])
    assert sum(x.shape[0] for x, _ in ds) == len(TEXTS)


def test_bounded_batches_have_the_widths_of_kerasattn_data_widths_and_full_rows():
    from kerasattn.data import widths

    p = pre(max_length=100)
    ds = make_dataset(TEXTS, LABELS, p, batch_size=4, shuffle=True, seed=0, bounded=True,
                      full_batches=True)
    seen, shapes = [], set()
    for x, y, w in ds:
        x, y, w = x.numpy(), y.numpy(), w.numpy()
        shapes.add(x.shape)
        assert w.tolist() == [1.0] * int(w.sum()) + [0.0] * (4 - int(w.sum()))
        assert not x[w == 0].any() and not y[w == 0].any()  # the added rows are empty
        for row, label in zip(x[w == 1], y[w == 1]):
            seen.append((int(label), tuple(row[row > 0].tolist())))
            # each text in the batch of its own width: the smallest that holds it
            assert x.shape[1] == widths.width((row > 0).sum(), cap=100)
    assert shapes == {(4, 64), (4, 100)}  # texts of 0-64 tokens, and 65-100 (cut at 100)
    assert sorted(seen) == sorted(collect(make_dataset(TEXTS, LABELS, p, batch_size=4)))


def test_bounded_hierarchical_axes_are_powers_of_two_at_most_the_limits():
    texts = ["a b. c d e! f", "", "a. b. c. d. e.", "a b c d e f g h i j k. l"]
    p = TextPreprocessor(mode="hcan", hierarchical=True, max_sentences=4,
                         max_words=6).adapt(texts)
    shapes = {x.shape[1:] for x, _ in make_dataset(texts, [0, 1, 2, 3], p, batch_size=2,
                                                   bounded=True)}
    # sentences: 2 -> 2, 4 (5 cut at 4) -> 4, 0 -> 1; words: 4 -> 4, 1 -> 1, 6 (11 cut) -> 6
    assert all(s in (1, 2, 4) and w in (1, 2, 4, 6) for s, w in shapes), shapes


def test_the_graph_widths_are_the_numpy_widths():
    import tensorflow as tf

    from kerasattn.data import pipeline, widths

    for step, cap in ((64, None), (64, 100), (None, None), (None, 6), (8, 30)):
        got = [int(pipeline._width(tf.constant(n), step, cap)) for n in range(0, 300)]
        want = [max(n, int(w)) for n, w in zip(range(300), widths.widths(range(300), step,
                                                                          cap))]
        assert got == want, (step, cap)
    assert widths.all_widths(100) == [64, 100] and widths.all_widths(6, step=None) == \
        [1, 2, 4, 6]
    with pytest.raises(ValueError, match="needs labels"):
        make_dataset(TEXTS, None, pre(), full_batches=True)
