"""How a document's token ids are laid out: flat, or sentences of words.

A flat model (SANet, the Transformer, IRAM, the baselines) reads a document as one list
of ids, a batch as (batch, tokens); a hierarchical one (HAN, HCAN) as a list of
sentences of ids, a batch as (batch, sentences, words). Everything that differs between
the two lives here, behind one small interface, so that the code that pads documents,
cuts their padding, removes tokens or maps per-token scores back to words asks the
document's :class:`Layout` instead of branching on ``hierarchical``:

- ``FLAT`` and ``SENTENCES``, the two layouts; :func:`layout` picks one by a flag,
  :func:`of_model` by a Keras model's input rank (2 or 3);
- a layout's ``pad`` (documents -> one zero-padded batch), ``strip`` (a padded row ->
  its document), ``size`` (tokens in a document), ``flatten`` / ``nest`` (per-token
  values in reading order <-> the document's nesting), ``unpad`` (a padded row of
  scores -> the document's nesting), ``nest_scores`` / ``flat_scores`` (the same for
  float64 scores) and ``remove`` / ``keep`` (the document without,
  or with only, some tokens);
- its limits: ``bounded_axes`` (how each axis of a batch is padded where shapes are
  bounded, :mod:`kerasattn.data.widths`), ``limits`` (which of ``max_length``, ``max_sentences`` and ``max_words``
  cut its documents; the first axis's cap is the cap of a batch's bucketed axis, tokens
  or sentences), ``first_bucket`` (that axis's shortest bucket), ``extents`` (a document's
  word and sentence extents, as its attention weights' axes run).

Positions are flat: the tokens of a document in reading order, sentences one after
another. Padding is id 0 (:class:`~kerasattn.data.preprocessing.TextPreprocessor`).
"""

import numpy as np

from kerasattn.data.widths import STEP

__all__ = ["FLAT", "SENTENCES", "Layout", "layout", "of_model"]


def _ids(row):
    """A zero-padded sequence of ids -> the ids (padding is id 0)."""
    return [int(i) for i in row if int(i) != 0]


class Layout:
    """The flat layout: a document is a list of ids (the base of both)."""

    hierarchical = False
    rank = 2  # of a batch of ids
    first_bucket = 8  # tokens: the shortest bucket of a batch's length axis

    def limits(self, max_length=None, max_sentences=None, max_words=None):
        """The text limits a document of this layout is cut at (the others ``None``)."""
        return {"max_length": max_length, "max_sentences": None, "max_words": None}

    def bounded_axes(self, preprocessor):
        """``(step, cap)`` of each axis after the batch axis, for
        :func:`kerasattn.data.widths.widths`: tokens in multiples of ``STEP``."""
        return [(STEP, preprocessor.max_length)]

    def extents(self, doc):
        """``(words, sentences)``: how far the word axes of ``doc``'s attention weights
        run (the longest sentence's words), and its sentences (flat: ``None``)."""
        return len(doc), None

    def size(self, doc):
        """The number of tokens of ``doc``."""
        return len(doc)

    def flatten(self, nested):
        """Per-token values nested like a document -> one list in reading order."""
        return list(nested)

    def nest(self, flat, doc):
        """Per-token values in reading order -> nested like ``doc``."""
        return list(flat)

    def strip(self, row, real=None):
        """A zero-padded row of a batch -> its document's ids. ``real`` (a padded
        sequence -> its real entries) strips another kind of row (e.g. token strings)."""
        return (real or _ids)(row)

    def pad(self, docs):
        """Documents -> one zero-padded int32 batch (no axis of length zero)."""
        batch = np.zeros((len(docs), max(1, max((len(d) for d in docs), default=1))),
                         np.int32)
        for i, doc in enumerate(docs):
            batch[i, :len(doc)] = doc
        return batch

    def unpad(self, matrix, doc):
        """A padded row of per-token scores -> float64 scores nested like ``doc``."""
        return np.asarray(matrix[:len(doc)], dtype=np.float64)

    def nest_scores(self, flat, doc):
        """Per-token scores in reading order -> float64 arrays nested like ``doc``."""
        return np.asarray(flat, dtype=np.float64)

    def flat_scores(self, scores):
        """Scores nested like a document -> one float64 array in reading order."""
        return np.asarray(self.flatten(scores), dtype=np.float64).reshape(-1)

    def remove(self, doc, positions):
        """``doc`` without the tokens at the flat ``positions``; the rest shift left."""
        drop = {int(p) for p in positions}
        return [t for i, t in enumerate(doc) if i not in drop]

    def keep(self, doc, positions):
        """``doc`` with only the tokens at ``positions``, in their order."""
        keep = {int(p) for p in positions}
        return self.remove(doc, [i for i in range(self.size(doc)) if i not in keep])

    def __repr__(self):
        return "SENTENCES" if self.hierarchical else "FLAT"


class _Sentences(Layout):
    """The hierarchical layout: a document is a list of sentences, each a list of ids."""

    hierarchical = True
    rank = 3
    first_bucket = 2  # sentences

    def limits(self, max_length=None, max_sentences=None, max_words=None):
        return {"max_length": None, "max_sentences": max_sentences, "max_words": max_words}

    def bounded_axes(self, preprocessor):
        return [(None, preprocessor.max_sentences), (None, preprocessor.max_words)]

    def extents(self, doc):
        return max((len(s) for s in doc), default=0), len(doc)

    def size(self, doc):
        return sum(len(s) for s in doc)

    def flatten(self, nested):
        return [value for sentence in nested for value in sentence]

    def nest(self, flat, doc):
        flat, out, start = list(flat), [], 0
        for sentence in doc:
            out.append(flat[start:start + len(sentence)])
            start += len(sentence)
        return out

    def strip(self, row, real=None):
        sentences = [(real or _ids)(s) for s in row]
        while sentences and not sentences[-1]:
            sentences.pop()
        return sentences

    def pad(self, docs):
        n_sentences = max(1, max((len(d) for d in docs), default=1))
        n_words = max(1, max((len(s) for d in docs for s in d), default=1))
        batch = np.zeros((len(docs), n_sentences, n_words), np.int32)
        for i, doc in enumerate(docs):
            for j, sentence in enumerate(doc):
                batch[i, j, :len(sentence)] = sentence
        return batch

    def unpad(self, matrix, doc):
        return [np.asarray(matrix[s, :len(sentence)], dtype=np.float64)
                for s, sentence in enumerate(doc)]

    def nest_scores(self, flat, doc):
        return [np.asarray(s, dtype=np.float64) for s in self.nest(flat, doc)]

    def remove(self, doc, positions):
        """Words leave their sentences; a sentence left with no word is removed (the
        next ones move up); an empty sentence stays."""
        drop, out, start = {int(p) for p in positions}, [], 0
        for sentence in doc:
            kept = [t for j, t in enumerate(sentence) if start + j not in drop]
            if kept or not sentence:
                out.append(kept)
            start += len(sentence)
        return out


FLAT, SENTENCES = Layout(), _Sentences()


def layout(hierarchical):
    """``SENTENCES`` when ``hierarchical``, else ``FLAT``."""
    return SENTENCES if hierarchical else FLAT


def of_model(model):
    """The layout of a Keras model's id input: rank 3 (batch, sentences, words) is
    ``SENTENCES``, rank 2 ``FLAT``."""
    return layout(len(model.inputs[0].shape) == 3)
