"""GloVe initialisation of any zoo model's embedding layer."""

import numpy as np
import pytest

from kerasattn import embeddings
from kerasattn.data.datasets import DatasetFormatError
from kerasattn.models.sanet import build_sanet
from tests.conftest import write


def _glove(tmp_path, text="the 1 2 3\ngood 0.5 -0.5 1.5\nfilm 4 5 6\n"):
    return write(tmp_path / "glove.txt", text)


def test_matrix_takes_known_rows_and_draws_the_rest_on_their_scale(tmp_path):
    vocab = ["", "[UNK]", "good", "the", "unseen"]
    m, found = embeddings.embedding_matrix(_glove(tmp_path), vocab, seed=0)
    assert found == 2 and m.shape == (5, 3) and m.dtype == np.float32
    np.testing.assert_array_equal(m[0], 0.0)
    np.testing.assert_array_equal(m[2], [0.5, -0.5, 1.5])
    np.testing.assert_array_equal(m[3], [1, 2, 3])
    assert np.all(m[4] != 0) and np.all(np.abs(m[4] - 1.0) < 10)  # random, near the known scale
    again, _ = embeddings.embedding_matrix(_glove(tmp_path), vocab, seed=0)
    np.testing.assert_array_equal(m, again)


def test_load_into_a_model_and_size_mismatch(tmp_path):
    model = build_sanet(5, 2, embedding_dim=3, d=8)
    vocab = ["", "[UNK]", "good", "the", "film"]
    assert embeddings.load_into(model, _glove(tmp_path), vocab) == 3
    np.testing.assert_array_equal(model.get_layer("embedding").embeddings.numpy()[4], [4, 5, 6])
    wrong = build_sanet(5, 2, embedding_dim=4, d=8)
    with pytest.raises(ValueError, match="embedding_dim=3"):
        embeddings.load_into(wrong, _glove(tmp_path), vocab)


def test_malformed_files_name_the_line(tmp_path):
    with pytest.raises(DatasetFormatError, match=r"glove.txt:2: 2 values, expected 3"):
        embeddings.read_glove(_glove(tmp_path, "a 1 2 3\nb 1 2\n"))
    with pytest.raises(DatasetFormatError, match=r"glove.txt:1: a value is not a number"):
        embeddings.read_glove(_glove(tmp_path, "a 1 x 3\n"))
    with pytest.raises(DatasetFormatError, match="no vectors"):
        embeddings.read_glove(_glove(tmp_path, "\n"))


def test_train_command_initialises_from_glove(tmp_path, capsys):
    import keras

    from kerasattn.cli import train

    rows = "".join(f"{'good great' if i % 2 else 'bad awful'} film {i},{i % 2}\n" for i in range(60))
    data = write(tmp_path / "d.csv", "text,label\n" + rows)
    glove = _glove(tmp_path, "good 1 1 1\nbad -1 -1 -1\nfilm 0 2 0\n")
    run_dir, _ = train.train(["--model", "mlp", "--dataset", f"csv:{data}", "--epochs", "1",
                              "--model-option", "embedding_dim=3", "--embeddings", glove,
                              "--learning-rate", "1e-9", "--output-dir", str(tmp_path),
                              "--run-name", "g", "--verbose", "0"])
    assert "embeddings from" in capsys.readouterr().out
    model = keras.saving.load_model(f"{run_dir}/model.keras").backbone  # the classifier's
    vocab = open(f"{run_dir}/vocab.txt", encoding="utf-8").read().split("\n")
    table = model.get_layer("embedding").embeddings.numpy()
    np.testing.assert_allclose(table[vocab.index("film")], [0, 2, 0], atol=1e-5)
    with pytest.raises(train.ConfigError, match="--embeddings: no such file"):
        train.train(["--model", "mlp", "--dataset", f"csv:{data}", "--embeddings",
                     str(tmp_path / "missing.txt")])
