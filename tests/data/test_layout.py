"""kerasattn.data.layout: flat and hierarchical documents behind one interface."""

import numpy as np
import pytest

from kerasattn.data import layout as L

FLAT_DOC = [5, 6, 7]
DOC = [[5, 6], [], [7, 8, 9]]


def test_flat_by_hand():
    batch = L.FLAT.pad([FLAT_DOC, [4]])
    assert batch.dtype == np.int32
    assert batch.tolist() == [[5, 6, 7], [4, 0, 0]]
    assert L.FLAT.strip(batch[1]) == [4]
    assert L.FLAT.size(FLAT_DOC) == 3
    assert L.FLAT.remove(FLAT_DOC, [1]) == [5, 7]
    assert L.FLAT.keep(FLAT_DOC, [2, 0]) == [5, 7]
    assert L.FLAT.unpad(np.array([0.1, 0.2, 0.3, 9.0]), FLAT_DOC).tolist() == [0.1, 0.2, 0.3]
    assert L.FLAT.nest([1, 2, 3], FLAT_DOC) == [1, 2, 3] == L.FLAT.flatten([1, 2, 3])


def test_sentences_by_hand():
    batch = L.SENTENCES.pad([DOC, [[4]]])
    assert batch.shape == (2, 3, 3)
    assert batch[0].tolist() == [[5, 6, 0], [0, 0, 0], [7, 8, 9]]
    assert batch[1].tolist() == [[4, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert L.SENTENCES.strip(batch[1]) == [[4]]  # trailing empty sentences are padding
    assert L.SENTENCES.strip(batch[0]) == DOC  # an inner empty sentence is kept
    assert L.SENTENCES.size(DOC) == 5
    # flat positions run over the words in reading order: 0 1 | - | 2 3 4
    assert L.SENTENCES.remove(DOC, [0, 1]) == [[], [7, 8, 9]]  # [5, 6] emptied: removed
    assert L.SENTENCES.remove(DOC, [3]) == [[5, 6], [], [7, 9]]
    assert L.SENTENCES.keep(DOC, [1, 4]) == [[6], [], [9]]
    scores = np.arange(9.0).reshape(3, 3)
    assert [s.tolist() for s in L.SENTENCES.unpad(scores, DOC)] == [[0, 1], [], [6, 7, 8]]
    assert L.SENTENCES.flatten(DOC) == [5, 6, 7, 8, 9]
    nested = L.SENTENCES.nest_scores([1, 2, 3, 4, 5], DOC)
    assert [s.dtype for s in nested] == [np.float64] * 3
    assert [s.tolist() for s in nested] == [[1, 2], [], [3, 4, 5]]
    assert L.SENTENCES.flat_scores(nested).tolist() == [1, 2, 3, 4, 5]
    assert L.SENTENCES.flat_scores([]).shape == (0,)
    assert L.FLAT.nest_scores([1, 2], [7, 8]).dtype == np.float64
    assert L.SENTENCES.nest(["a", "b", "c", "d", "e"], DOC) == [["a", "b"], [], ["c", "d", "e"]]


@pytest.mark.parametrize("lay, docs", [(L.FLAT, [FLAT_DOC, [1, 2], [3]]),
                                       (L.SENTENCES, [DOC, [[1], [2, 3]], [[4, 5, 6, 7]]])])
def test_round_trips(lay, docs):
    batch = lay.pad(docs)
    assert batch.ndim == lay.rank
    assert [lay.strip(row) for row in batch] == docs
    for doc in docs:
        assert lay.nest(lay.flatten(doc), doc) == doc
        assert lay.keep(doc, range(lay.size(doc))) == doc
        assert lay.size(lay.remove(doc, [0])) == lay.size(doc) - 1


def test_no_axis_is_empty_and_the_pick():
    assert L.FLAT.pad([[]]).shape == (1, 1)
    assert L.SENTENCES.pad([[]]).shape == (1, 1, 1)
    assert L.layout(True) is L.SENTENCES and L.layout(False) is L.FLAT

    class Model:
        def __init__(self, shape):
            self.inputs = [type("T", (), {"shape": shape})()]

    assert L.of_model(Model((None, None, None))) is L.SENTENCES
    assert L.of_model(Model((None, None))) is L.FLAT


def test_limits_extents_and_strip_with_another_kind_of_padding():
    assert L.FLAT.limits(400, 30, 50) == {"max_length": 400, "max_sentences": None,
                                          "max_words": None}
    assert L.SENTENCES.limits(400, 30, 50) == {"max_length": None, "max_sentences": 30,
                                               "max_words": 50}
    pre = type("Pre", (), {"max_length": 400, "max_sentences": 30, "max_words": 50})()
    # the first axis's cap is the bucketed axis's: tokens, or sentences
    assert L.FLAT.bounded_axes(pre) == [(64, 400)]
    assert L.SENTENCES.bounded_axes(pre) == [(None, 30), (None, 50)]
    assert (L.FLAT.first_bucket, L.SENTENCES.first_bucket) == (8, 2)
    assert L.FLAT.extents(FLAT_DOC) == (3, None)
    assert L.SENTENCES.extents(DOC) == (3, 3)  # its longest sentence's words, its sentences
    assert L.SENTENCES.extents([]) == (0, 0)

    def words(row):  # token strings, padded with b""
        return [w.decode() for w in row if w]

    assert L.FLAT.strip(np.array([b"a", b"b", b""]), real=words) == ["a", "b"]
    rows = np.array([[b"a", b""], [b"", b""], [b"b", b"c"], [b"", b""]])
    assert L.SENTENCES.strip(rows, real=words) == [["a"], [], ["b", "c"]]
