"""Normalisation, tokenisation, sentence splitting, vocabulary: exact small cases."""

import numpy as np
import pytest

from kerasattn.data import text
from kerasattn.data.preprocessing import OOV_ID, TextPreprocessor


def tokens(texts, **options):
    return TextPreprocessor(**options).tokenize(texts).to_list()


def decode(rows):
    if isinstance(rows, bytes):
        return rows.decode()
    return [decode(r) for r in rows]


def test_default_mode_lowercases_strips_br_and_splits_punctuation():
    got = decode(tokens(["Great film!<br /><br />I'd SEE it (again)... 'Really'?"]))
    assert got == [["great", "film", "!", "i'd", "see", "it", "(", "again", ")", ".", ".", ".",
                    "'", "really", "'", "?"]]


def test_unicode_lowercase():
    assert decode(tokens(["ÉCOLE Über"])) == [["école", "über"]]


def test_remove_punctuation_and_stopwords():
    got = decode(tokens(["The film, it's NOT what I 'expected'!"], remove_punctuation=True,
                        remove_stopwords=True))
    # sklearn's stop list has the, it, not, what, i; "it's" and "film" stay
    assert got == [["film", "it's", "expected"]]


def test_hcan_mode_keeps_only_alphanumerics_and_sentence_marks():
    got = decode(tokens(["Wow -- a 10/10 film!! Loved it; really?"], mode="hcan"))
    assert got == [["wow", "a", "10", "10", "film", "!", "!", "loved", "it", "really", "?"]]


def test_sentence_splitting_and_caps():
    p = dict(mode="hcan", hierarchical=True)
    got = decode(tokens(["One two. Three four five! Six?", "", "no end mark"], **p))
    assert got == [[["one", "two", "."], ["three", "four", "five", "!"], ["six", "?"]],
                   [[]], [["no", "end", "mark"]]]
    capped = decode(tokens(["One two. Three four five! Six?"], max_sentences=2, max_words=2, **p))
    assert capped == [[["one", "two"], ["three", "four"]]]


def test_max_length_truncates():
    assert decode(tokens(["a b c d e"], max_length=3)) == [["a", "b", "c"]]


def test_stop_words_from_scikit_learn():
    words = text.stop_words()
    assert "the" in words and "film" not in words and words == sorted(words)


def test_vocabulary_order_min_freq_max_size_and_oov():
    p = TextPreprocessor().adapt(["b a b c", "b a d"], min_freq=2)
    assert p.vocabulary == ["", "[UNK]", "b", "a"]  # by frequency; c, d below min_freq
    ids = p(["a b zzz", ""]).to_list()
    assert ids == [[3, 2, OOV_ID], []]
    small = TextPreprocessor().adapt(["b a b c a b"], max_size=3)
    assert small.vocabulary == ["", "[UNK]", "b"]
    tie = TextPreprocessor().adapt(["y x"])
    assert tie.vocabulary[2:] == ["x", "y"]  # ties broken alphabetically


def test_preprocessor_save_load_round_trip(tmp_path):
    p = TextPreprocessor(mode="hcan", hierarchical=True, max_sentences=4, max_words=7,
                         remove_stopwords=True).adapt(["Hello there. General Kenobi!"])
    p.save(tmp_path)
    q = TextPreprocessor.load(tmp_path)
    assert q.vocabulary == p.vocabulary and q.get_config() == p.get_config()
    x = ["General there. Hello unknown!"]
    assert q(x).to_list() == p(x).to_list()


@pytest.mark.parametrize("bad", [dict(mode="nope"), dict(max_length=0),
                                 dict(hierarchical=True, max_length=5)])
def test_invalid_options_raise(bad):
    with pytest.raises(ValueError):
        TextPreprocessor(**bad)


def test_lookup_without_vocabulary_is_a_clear_error():
    with pytest.raises(ValueError, match="adapt"):
        TextPreprocessor()(["a"])
    with pytest.raises(ValueError, match="must start with"):
        TextPreprocessor(vocabulary=["a", "b"])


def test_huge_text_is_handled():
    p = TextPreprocessor(max_length=1000).adapt(["word"])
    ids = p(["word " * 200_000]).to_list()[0]
    assert len(ids) == 1000 and set(ids) == {2}
    assert np.isfinite(len(ids))
