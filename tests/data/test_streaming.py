"""Streamed CSV datasets: the same rows as the in-memory reader, errors with file and
line, a stable validation split, and training through ``--stream``."""

import os

import numpy as np
import pytest
import tensorflow as tf

from kerasattn import evaluation
from kerasattn.data import datasets, streaming
from kerasattn.data.pipeline import make_stream_dataset
from kerasattn.data.preprocessing import TextPreprocessor
from tests.conftest import write
from kerasattn.cli import train


def _rows(ds):
    return [(t.numpy().decode(), int(y), int(n)) for t, y, _, n in ds]


def test_rows_match_the_in_memory_reader_on_real_ag_news(shared_data):
    path = os.path.join(shared_data, "ag_news", "test.csv")
    expected = datasets.read_zhang_csv(path, 4)
    rows = _rows(streaming.csv_rows([path], 4))
    assert [t for t, _, _ in rows] == expected.texts
    assert [y for _, y, _ in rows] == expected.labels.tolist()
    assert [n for _, _, n in rows] == list(range(1, len(expected) + 1))


def test_quotes_commas_and_escaped_newlines(tmp_path):
    path = write(tmp_path / "a.csv", '"1","title, one","body"\n"2","say ""hi""","a\\nb"\n')
    assert _rows(streaming.csv_rows([path], 2)) == [
        ("title, one body", 0, 1), ('say "hi" a\nb', 1, 2)]


@pytest.mark.parametrize("bad, why", [('"3","a","b"', "class 3 of 2"),
                                      ('"1","a"', "too few columns"),
                                      ('"x","a","b"', "not a class"),
                                      ('"1","a "b" c","d"', "bare quote")])
def test_a_malformed_row_names_file_and_line(tmp_path, bad, why):
    # far into the file: past the first batch of lines
    path = write(tmp_path / "bad.csv", '"1","a","b"\n' * 1500 + bad + "\n" + '"2","c","d"\n')
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        list(streaming.csv_rows([path], 2))
    assert streaming.is_format_error(e.value), why
    error = streaming.format_error(e.value)
    assert isinstance(error, datasets.DatasetFormatError)
    assert str(error).startswith(f"{path}:1501: expected 3 CSV columns") and bad in str(error)


def _zhang_dir(tmp_path, n_train=600, n_test=200):
    """A yelp_polarity-shaped dataset whose classes use disjoint words."""
    def rows(n, offset):
        return "".join(f'"{1 + i % 2}","{"great good fine" if i % 2 else "awful bad poor"} '
                       f'{offset + i}"\n' for i in range(n))
    d = tmp_path / "data" / "yelp_polarity"
    os.makedirs(d)
    write(d / "train.csv", rows(n_train, 0))
    write(d / "test.csv", rows(n_test, 10**6))
    return str(tmp_path / "data")


def test_validation_split_is_stable_and_disjoint(tmp_path):
    data = _zhang_dir(tmp_path)
    ds = streaming.load("yelp_polarity", data_dir=data, val_fraction=0.2, seed=3)
    train_lines = [n for _, _, n in _rows(ds.rows("train"))]
    val_lines = [n for _, _, n in _rows(ds.rows("val"))]
    assert sorted(train_lines + val_lines) == list(range(1, 601))  # nothing lost
    assert 0.12 < len(val_lines) / 600 < 0.28
    again = streaming.load("yelp_polarity", data_dir=data, val_fraction=0.2, seed=3)
    assert [n for _, _, n in _rows(again.rows("val"))] == val_lines
    other = streaming.load("yelp_polarity", data_dir=data, val_fraction=0.2, seed=4)
    assert [n for _, _, n in _rows(other.rows("val"))] != val_lines
    assert len(_rows(ds.rows("test"))) == 200
    with pytest.raises(ValueError, match="large CSV datasets"):
        streaming.load("imdb")


def test_streamed_vocabulary_equals_the_in_memory_one(tmp_path):
    texts = [f"w{i % 13} w{i % 7} the end" for i in range(500)]
    listed = TextPreprocessor().adapt(texts, min_freq=2)
    streamed = TextPreprocessor().adapt(tf.data.Dataset.from_tensor_slices(texts),
                                        min_freq=2, batch_size=64)
    assert streamed.vocabulary == listed.vocabulary and streamed.adapted_texts == 500


def test_stream_batches_hold_every_row_once(tmp_path):
    texts = [" ".join(["w"] * (i % 30)) for i in range(300)]
    rows = tf.data.Dataset.from_tensor_slices((texts, np.arange(300)))
    p = TextPreprocessor().adapt(texts)
    seen = []
    for x, y in make_stream_dataset(rows, p, 16, shuffle_buffer=50, seed=1):
        lengths = (x.numpy() > 0).sum(axis=1)
        for length, label in zip(lengths, y.numpy()):
            assert length == label % 30
            seen.append(int(label))
    assert sorted(seen) == list(range(300)) and seen != list(range(300))


def test_train_with_stream(tmp_path):
    data = _zhang_dir(tmp_path)
    run_dir, m = train.train(["--model", "mlp", "--dataset", "yelp_polarity", "--stream",
                              "--data-dir", data, "--epochs", "3", "--batch-size", "16",
                              "--shuffle-buffer", "100", "--output-dir", str(tmp_path),
                              "--run-name", "s", "--verbose", "0"])
    val_rows = len(list(streaming.load("yelp_polarity", data_dir=data).split("val")))
    assert m["test"]["accuracy"] == 1.0 and m["train_rows"] == 600 - val_rows
    assert m["epochs_run"] == 3
    again = evaluation.evaluate_run(run_dir, data_dir=data)  # streamed again, same splits
    assert again["test"]["confusion_matrix"] == m["test"]["confusion_matrix"]
    assert again["val"]["accuracy"] == m["val"]["accuracy"]
    assert m["test"]["confusion_matrix"] == [[100, 0], [0, 100]]  # every test row once


def test_train_with_stream_reports_a_malformed_row(tmp_path, capsys):
    data = _zhang_dir(tmp_path)
    write(os.path.join(data, "yelp_polarity", "train.csv"), '"3","x"\n', mode="a")
    code = train.main(["--model", "mlp", "--dataset", "yelp_polarity", "--stream",
                       "--data-dir", data, "--output-dir", str(tmp_path), "--verbose", "0"])
    assert code == 2
    assert "train.csv:601: expected 2 CSV columns" in capsys.readouterr().err


def test_stream_refuses_what_it_cannot_stream(tmp_path, capsys):
    for model, dataset, message in (("nb", "yelp_polarity", "scikit-learn"),
                                    ("mlp", "sst2", "large CSV datasets")):
        try:  # argparse's own error (SystemExit 2), or one error: line
            code = train.main(["--model", model, "--dataset", dataset, "--stream",
                               "--output-dir", str(tmp_path)])
        except SystemExit as e:
            code = e.code
        assert code == 2
        assert message in capsys.readouterr().err
    assert os.listdir(tmp_path) == []
