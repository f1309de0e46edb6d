"""Length-bucketed batches of prepared token ids (``training.portable fit``).

A split's ids are a ragged array (:class:`Split`); :func:`bucketed_batches`
groups texts whose padded widths are equal, a multiple of :data:`BUCKET_STEP`
tokens (a handful of shapes, so XLA compiles few programs), and the batch
dimension is padded to the batch size with zero-weight empty rows
(:func:`batch_arrays`). A hierarchical model's (HAN, HCAN) batches are (texts,
sentences, words): the sentence axis is rounded up to a power of two and the word
axis is one width per split (its longest sentence, rounded up the same way), both
capped at the text limits. The batches are NumPy arrays; :func:`batch_sequence`
serves them as a Keras ``PyDataset``.
"""

import keras
import numpy as np

from kerasattn.data.layout import FLAT, SENTENCES
from kerasattn.data.widths import STEP, width
from kerasattn.data.widths import widths as padded_widths

BUCKET_STEP = STEP  # the rule is kerasattn.data.widths's, shared with TextClassifier


def _starts(lengths):
    return np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)


class Split:
    """One split's token ids as a ragged array: flat ids + each text's length, and for
    a hierarchical model each sentence's length (``lengths`` then counts sentences):
    given ``sentence_lengths``, the split is a :class:`SentenceSplit`.

    ``max_sentences`` and ``max_words`` cap a hierarchical batch's axes (the text
    limits the ids were cut at); its word axis is the longest sentence's length
    rounded up to a power of two."""

    layout = FLAT

    def __new__(cls, ids, lengths, labels, sentence_lengths=None, **caps):
        return super().__new__(SentenceSplit if sentence_lengths is not None else cls)

    def __init__(self, ids, lengths, labels, sentence_lengths=None, max_sentences=None,
                 max_words=None):
        self.ids, self.lengths, self.labels = ids, lengths.astype(np.int64), labels
        self.starts = _starts(self.lengths)
        self.max_sentences = max_sentences

    @property
    def hierarchical(self):
        return self.layout.hierarchical

    def __len__(self):
        return len(self.labels)

    def batches(self, batch_size, step=BUCKET_STEP, rng=None):
        """:func:`bucketed_batches` of this split (a hierarchical one's by sentences, in
        powers of two: ``step`` is for tokens)."""
        return bucketed_batches(self.lengths, batch_size, step, rng)

    def shape(self, width):
        """A batch's shape after the batch axis: (width,) or (width, words)."""
        return (width,)

    def batch_ids(self, index, width):
        """(len(index), width) int32 ids of these texts, zero-padded (hierarchical:
        (len(index), width, words), ``width`` sentences)."""
        out = np.zeros((len(index), *self.shape(width)), np.int32)
        for row, i in enumerate(index):
            n = min(int(self.lengths[i]), width)
            out[row, :n] = self.ids[self.starts[i]:self.starts[i] + n]
        return out


class SentenceSplit(Split):
    """A hierarchical model's split: texts of sentences of words; batches are (texts,
    sentences, words)."""

    layout = SENTENCES

    def __init__(self, ids, lengths, labels, sentence_lengths=None, max_sentences=None,
                 max_words=None):
        super().__init__(ids, lengths, labels, max_sentences=max_sentences)
        self.sentence_lengths = np.asarray(sentence_lengths, np.int64)
        self.word_starts = _starts(self.sentence_lengths)
        longest = int(self.sentence_lengths.max(initial=1))
        self.word_width = width(longest, None, max_words)

    def batches(self, batch_size, step=BUCKET_STEP, rng=None):
        return bucketed_batches(self.lengths, batch_size, None, rng, self.max_sentences)

    def shape(self, width):
        return (width, self.word_width)

    def batch_ids(self, index, width):
        out = np.zeros((len(index), *self.shape(width)), np.int32)
        for row, i in enumerate(index):
            n = min(int(self.lengths[i]), width)
            for j in range(self.starts[i], self.starts[i] + n):  # its sentences
                words = min(int(self.sentence_lengths[j]), self.word_width)
                first = self.word_starts[j]
                out[row, j - self.starts[i], :words] = self.ids[first:first + words]
        return out


def bucketed_batches(lengths, batch_size, step=BUCKET_STEP, rng=None, cap=None):
    """Index batches grouped by padded width (a multiple of ``step``; ``None``: a power
    of two), at most ``cap``.

    Returns a list of ``(indices, width)``; with ``rng`` the texts inside each
    bucket and the order of the batches are shuffled.
    """
    widths = padded_widths(lengths, step, cap)
    batches = []
    for w in np.unique(widths):
        members = np.flatnonzero(widths == w)
        if rng is not None:
            members = rng.permutation(members)
        batches += [(members[i:i + batch_size], int(w))
                    for i in range(0, len(members), batch_size)]
    if rng is not None:
        batches = [batches[i] for i in rng.permutation(len(batches))]
    return batches


def batch_arrays(split, index, width, batch_size):
    """ids, labels and sample weights with the batch padded to ``batch_size`` rows."""
    ids = np.zeros((batch_size, *split.shape(width)), np.int32)
    ids[:len(index)] = split.batch_ids(index, width)
    labels = np.zeros(batch_size, np.int32)
    labels[:len(index)] = split.labels[index]
    weights = np.zeros(batch_size, np.float32)
    weights[:len(index)] = 1.0
    return ids, labels, weights


def _widths_first(batches):
    """Put a batch of another width second (in place). On TensorFlow, Keras fixes a
    PyDataset's signature from its first two batches: two widths there leave the width
    open, one would refuse every wider batch after it."""
    other = next((i for i, (_, w) in enumerate(batches) if w != batches[0][1]), None)
    if other is not None and other != 1:
        batches.insert(1, batches.pop(other))
    return batches


def batch_shapes(split, batch_size, step=BUCKET_STEP):
    """The distinct batch shapes (after the batch axis) of ``split``, widest last: XLA
    compiles a program for each on first use, for training and again for evaluation."""
    return sorted({split.shape(int(w)) for _, w in split.batches(batch_size, step)})


def shapes_line(splits, batch_size, step=BUCKET_STEP):
    """One log line: how many batch shapes each of ``splits`` (name -> Split) has, and
    their range, e.g. ``batch shapes: train 8 (128..1024), val 8 (128..1024)``."""
    def say(shapes):
        show = ["x".join(map(str, s)) for s in (shapes[0], shapes[-1])]
        return f"{len(shapes)} ({show[0]}..{show[1]})" if len(shapes) > 1 else f"1 ({show[0]})"

    parts = [f"{name} {say(batch_shapes(split, batch_size, step))}"
             for name, split in splits.items() if len(split)]
    return ("batch shapes: " + ", ".join(parts) + "; each is compiled on its first batch "
            "(fewer with a larger --bucket-step)")


def batch_sequence(split, batch_size, seed=None, step=BUCKET_STEP):
    """A ``keras.utils.PyDataset`` of ``split``'s bucketed batches (:func:`batch_arrays`),
    reshuffled every epoch when ``seed`` is given."""
    class Batches(keras.utils.PyDataset):
        """Bucketed batches; reshuffled every epoch when seeded."""

        def __init__(self):
            super().__init__()
            self.epoch = 0
            self._plan()

        def _plan(self):
            rng = None if seed is None else np.random.default_rng([seed, self.epoch])
            self.batches = split.batches(batch_size, step, rng)
            if keras.backend.backend() == "tensorflow":
                _widths_first(self.batches)

        def __len__(self):
            return len(self.batches)

        def __getitem__(self, i):
            index, width = self.batches[i]
            return batch_arrays(split, index, width, batch_size)

        def on_epoch_end(self):
            if seed is not None:
                self.epoch += 1
                self._plan()

    return Batches()
