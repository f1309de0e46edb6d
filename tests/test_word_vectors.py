"""In-domain word vectors (kerasattn.embeddings, ``kerasattn word-vectors``)."""

import os

import numpy as np
import pytest

from kerasattn import embeddings
from kerasattn.cli import word_vectors as cli
from tests.conftest import write

# two word families in identical contexts: "good"/"great" and "cat"/"dog"
_CORPUS = [f"the film was {w} and fun {i}" for i in range(150) for w in ("good", "great")] + \
          [f"a {w} sat on the mat {i}" for i in range(150) for w in ("cat", "dog")]


def _cos(a, b):
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.mark.parametrize("method", embeddings.METHODS)
def test_words_in_the_same_contexts_get_close_vectors(method):
    vectors, stats = embeddings.train_word_vectors(_CORPUS, dim=16, method=method, epochs=20,
                                                    min_count=2, seed=0, workers=1)
    assert stats["texts"] == 600 and stats["tokens"] == sum(len(t.split()) for t in _CORPUS)
    assert vectors["good"].shape == (16,)
    same = _cos(vectors["good"], vectors["great"])
    assert same > 0.8 and same > _cos(vectors["good"], vectors["mat"]) + 0.2


def test_tokenised_as_the_models_preprocessor_tokenises():
    from kerasattn.data.preprocessing import TextPreprocessor

    texts = ["It's GREAT, isn't it?", "<br />Bad... film!"]
    expected = [[t.decode() for t in doc]
                for doc in TextPreprocessor().tokenize(texts).to_list()]
    assert list(embeddings.tokenize(texts)) == expected


def test_glove_file_round_trip_and_fasttext_covers_rare_words(tmp_path):
    corpus = _CORPUS + ["a once-seen word: zyzzyva"]
    vectors, stats = embeddings.train_word_vectors(corpus, dim=8, epochs=2, workers=1)
    assert "zyzzyva" not in vectors.key_to_index  # below min_count
    path = str(tmp_path / "v.txt")
    n = embeddings.write_glove(vectors, path, words=stats["corpus_words"])
    assert n == stats["words"] and not os.path.exists(path + ".tmp")
    read, dim = embeddings.read_glove(path)
    assert dim == 8 and len(read) == n and "zyzzyva" in read
    np.testing.assert_allclose(read["good"], vectors["good"], rtol=1e-5, atol=1e-6)
    # Word2Vec has no vector for a word below min_count: it is left out
    w2v, stats = embeddings.train_word_vectors(corpus, dim=8, epochs=2, method="word2vec",
                                                workers=1)
    kept = [w for w in stats["corpus_words"] if w in w2v.key_to_index]
    assert len(kept) < stats["words"]
    assert embeddings.write_glove(w2v, path, words=stats["corpus_words"]) == len(kept)
    assert "zyzzyva" not in embeddings.read_glove(path)[0]


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="unknown method"):
        embeddings.train_word_vectors(_CORPUS, method="glove")
    with pytest.raises(ValueError, match="dim must be"):
        embeddings.train_word_vectors(_CORPUS, dim=0)
    with pytest.raises(ValueError, match="no words"):
        embeddings.train_word_vectors(["", "  "])
    with pytest.raises(ValueError, match="no word occurs 5 times"):
        embeddings.train_word_vectors(["one two three"], min_count=5)


def _data(tmp_path):
    rows = "".join(f"{'good great' if i % 2 else 'bad awful'} film {i},{i % 2}\n"
                   for i in range(60))
    test = "".join(f"testonlyword{i} film,{i % 2}\n" for i in range(10))
    (tmp_path / "d").mkdir(exist_ok=True)
    write(tmp_path / "d" / "train.csv", "text,label\n" + rows)
    write(tmp_path / "d" / "test.csv", "text,label\n" + test)
    return f"csv:{tmp_path / 'd'}"


def test_command_learns_from_training_texts_only_and_feeds_train(tmp_path, capsys):
    from kerasattn.cli import train

    extra = write(tmp_path / "unlabelled.txt", "a good film\n\nan awful film\n")
    out = str(tmp_path / "v.txt")
    assert cli.main(["--dataset", _data(tmp_path), "--texts", extra, "--dim", "3",
                     "--epochs", "2", "--workers", "1", "--output", out]) == 0
    said = capsys.readouterr().out
    assert "2 texts" in said and "wrote" in said
    words = embeddings.read_glove(out)[0]
    assert {"good", "awful", "film", "an"} <= set(words)
    assert not any(w.startswith("testonlyword") for w in words)  # test texts are not read
    run_dir, _ = train.train(["--model", "mlp", "--dataset", _data(tmp_path), "--epochs", "1",
                              "--model-option", "embedding_dim=3", "--embeddings", out,
                              "--output-dir", str(tmp_path / "runs"), "--run-name", "g",
                              "--verbose", "0"])
    assert "embeddings from" in capsys.readouterr().out


@pytest.mark.parametrize("case, message", [
    ("exists", "exists; pass --overwrite"),
    ("no-dir", "does not exist"),
    ("bad-utf8", "bad.txt:2: not valid UTF-8"),
    ("no-texts-file", "no such file"),
    ("unknown-model", "unknown model"),
    ("unknown-dataset", "unknown dataset"),
    ("empty", "no words"),
])
def test_command_errors_are_one_line_and_write_nothing(tmp_path, capsys, case, message):
    out = tmp_path / "v.txt"
    args = ["--texts", write(tmp_path / "t.txt", "good film\ngood film\n"), "--output", str(out)]
    if case == "exists":
        out.write_text("keep me")
    elif case == "no-dir":
        args[-1] = str(tmp_path / "nowhere" / "v.txt")
    elif case == "bad-utf8":
        bad = tmp_path / "bad.txt"
        bad.write_bytes(b"fine\n\xff\xfe broken\n")
        args[1] = str(bad)
    elif case == "no-texts-file":
        args[1] = str(tmp_path / "missing.txt")
    elif case == "unknown-model":
        args += ["--model", "nosuch"]
    elif case == "unknown-dataset":
        args += ["--dataset", "nosuch"]
    elif case == "empty":
        args[1] = write(tmp_path / "t.txt", "  \n\n")
    assert cli.main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and message in err[0]
    assert (out.read_text() == "keep me") if case == "exists" else not out.exists()
    assert not (tmp_path / "v.txt.tmp").exists()


def test_command_rejects_bad_sizes(capsys):
    for flag in ("--dim", "--epochs", "--window", "--min-count", "--workers"):
        with pytest.raises(SystemExit) as e:
            cli.main(["--texts", "x", "--output", "v.txt", flag, "0"])
        assert e.value.code == 2
        assert "must be >= 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["--output", "v.txt"])
    assert "at least one --dataset or --texts" in capsys.readouterr().err


def test_without_gensim_the_command_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "gensim", None)
    monkeypatch.setitem(sys.modules, "gensim.models", None)
    out = tmp_path / "v.txt"
    assert cli.main(["--texts", write(tmp_path / "t.txt", "good film\n"), "--output",
                     str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {embeddings.GENSIM_MISSING}" and not out.exists()


def test_text_classifier_starts_from_the_vectors(tmp_path):
    import keras

    import kerasattn

    path = write(tmp_path / "v.txt", "good 1 2 3\nbad -1 -2 -3\nfilm 0.5 0.5 0.5\n")
    texts = ["good film", "bad film", "good good", "bad bad"] * 5
    clf = kerasattn.TextClassifier.from_preset("mlp", embedding_dim=3, embeddings=path,
                                               compile=False)
    clf.compile(optimizer=keras.optimizers.SGD(0.0))  # nothing moves: the start is seen
    clf.fit(texts, [1, 0, 1, 0] * 5, epochs=1, verbose=0)
    assert clf.embeddings_found == 3
    table = clf.backbone.get_layer("embedding").embeddings.numpy()
    vocabulary = list(clf.preprocessor.vocabulary)
    np.testing.assert_allclose(table[vocabulary.index("bad")], [-1, -2, -3])
    assert "embeddings" not in clf.get_config()  # the saved weights carry them
    with pytest.raises(FileNotFoundError, match="no such file"):
        kerasattn.TextClassifier.from_preset("mlp", embeddings=str(tmp_path / "none.txt"))
    with pytest.raises(ValueError, match="embedding_dim=3"):
        kerasattn.TextClassifier.from_preset("mlp", embeddings=path).fit(texts, [1, 0] * 10,
                                                                          epochs=1, verbose=0)
