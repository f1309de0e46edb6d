"""The training and evaluation commands end to end on real data."""

import csv
import os

import pytest

from kerasattn import evaluation, runs
from tests.conftest import write
from kerasattn.cli import evaluate, train

KEYS = {"accuracy", "loss", "f1_macro", "precision_macro", "recall_macro", "roc_auc",
        "confusion_matrix", "per_class"}


@pytest.mark.usefixtures("shared_data")
def test_train_mlp_on_sst2_learns_and_evaluate_reproduces(tmp_path, capsys):
    run_dir, m = train.train(["--model", "mlp", "--dataset", "sst2", "--epochs", "3",
                              "--output-dir", str(tmp_path), "--run-name", "r",
                              "--verbose", "0"])
    for f in ("config.json", "metrics.json", "history.csv", "model.keras", "vocab.txt",
              "preprocessor.json", "learning_curves.png", "confusion_matrix.png",
              "roc_curve.png", "tensorboard"):
        assert os.path.exists(os.path.join(run_dir, f)), f
    assert KEYS <= set(m["test"]) and KEYS <= set(m["val"])
    assert m["test"]["accuracy"] > 0.75  # real held-out sentences
    assert m["train_seconds"] > 0 and m["train_examples_per_second"] > 0
    with open(os.path.join(run_dir, "history.csv")) as fh:
        history = list(csv.DictReader(fh))
    assert len(history) == 3
    best = max(float(r["val_accuracy"]) for r in history)
    assert m["val"]["accuracy"] == pytest.approx(best, abs=1e-6)  # the best epoch is restored
    config = runs.read_json(os.path.join(run_dir, "config.json"))
    assert config["train"]["learning_rate"] == 1e-3 and config["dtype_policy"] == "float32"
    capsys.readouterr()
    assert evaluate.main(["--run", run_dir]) == 0
    out = capsys.readouterr().out
    assert f"accuracy {m['test']['accuracy']:.4f}" in out.splitlines()[-1]


@pytest.mark.usefixtures("shared_data")
def test_classical_model_through_the_same_command(tmp_path):
    run_dir, m = train.train(["--model", "nb", "--dataset", "sst2",
                              "--output-dir", str(tmp_path), "--run-name", "nb"])
    assert m["test"]["accuracy"] > 0.77
    assert os.path.exists(os.path.join(run_dir, runs.CLASSICAL_MODEL))
    again = evaluation.evaluate_run(run_dir)
    assert again["test"]["accuracy"] == m["test"]["accuracy"]


def test_own_csv_with_float16_and_mirrored_and_overrides(tmp_path):
    rows = "".join(f"{'good great fine' if i % 2 else 'bad awful poor'} {i},{'pos' if i % 2 else 'neg'}\n"
                   for i in range(120))
    path = write(tmp_path / "data.csv", "text,label\n" + rows)
    run_dir, m = train.train(["--model", "cnn", "--dataset", f"csv:{path}", "--epochs", "2",
                              "--batch-size", "16", "--mixed-precision", "float16",
                              "--distribution", "mirrored", "--model-option", "filters=8",
                              "--learning-rate", "0.01", "--output-dir", str(tmp_path),
                              "--run-name", "own", "--verbose", "0"])
    config = runs.read_json(os.path.join(run_dir, "config.json"))
    assert config["dtype_policy"] == "mixed_float16"
    assert config["model_config"]["filters"] == 8 and config["train"]["batch_size"] == 16
    assert m["test"]["accuracy"] == 1.0  # the two classes use disjoint words
    assert m["dataset_notes"] and "stratified 20%" in " ".join(m["dataset_notes"])


def test_missing_dataset_exits_with_a_clear_message(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("KERASATTN_DATA_DIR", raising=False)
    code = train.main(["--model", "nb", "--dataset", "yelp_full", "--no-download",
                       "--data-dir", str(tmp_path), "--output-dir", str(tmp_path)])
    assert code == 2
    err = capsys.readouterr().err
    assert "was not found" in err and str(tmp_path) in err


def _two_word_csv(tmp_path):
    """80 rows a bag of two words tells apart, padded to lengths 0-29 (several buckets)."""
    rows = "".join(f"{'good great' if i % 2 else 'bad awful'} {'x ' * (i % 30)},{i % 2}\n"
                   for i in range(80))
    return write(tmp_path / "data.csv", "text,label\n" + rows)


def test_out_of_device_memory_is_one_error_line(monkeypatch, capsys):
    import tensorflow as tf

    def oom(argv):
        raise tf.errors.ResourceExhaustedError(None, None, "OOM when allocating tensor with "
                                                           "shape[64,8,1000,1000]")

    monkeypatch.setattr(train, "train", oom)
    assert train.main(["--model", "sanet-big", "--dataset", "imdb"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == ["error: the device ran out of memory (OOM when allocating tensor with "
                   "shape[64,8,1000,1000]), so the run was stopped before evaluation (no "
                   "metrics.json); train with a smaller --batch-size or --max-length"]


# XLA compiles once per bucket shape: about 36 s of CPU, with -m slow (the default suite
# stays under 15 minutes on 2 cores; jit_compile is a GPU user's opt-in)
@pytest.mark.slow
def test_jit_compile_with_bucket_boundaries(tmp_path):
    path = _two_word_csv(tmp_path)
    # 57 training rows make 3-4 steps an epoch: two epochs sat at a validation accuracy of
    # 0.57 for one order of the batches (ROC-AUC already 1.0); four learn at seeds 0-4
    run_dir, m = train.train(["--model", "mlp", "--dataset", f"csv:{path}", "--epochs", "4",
                              "--max-length", "20", "--jit-compile", "--learning-rate", "0.01",
                              "--output-dir", str(tmp_path), "--run-name", "xla",
                              "--verbose", "0"])
    assert runs.read_json(os.path.join(run_dir, "config.json"))["jit_compile"] is True
    assert m["test"]["accuracy"] >= 0.9


def test_a_longer_run_starts_as_a_shorter_one(tmp_path):
    """The same seed gives the same weights and batches, epoch for epoch, whatever the
    number of epochs: a run of four is a run of two continued (so more epochs can only
    raise the best validation accuracy a run keeps)."""
    import csv

    path = _two_word_csv(tmp_path)

    def history(epochs):
        run_dir, _ = train.train(["--model", "mlp", "--dataset", f"csv:{path}", "--epochs",
                                  str(epochs), "--max-length", "20", "--batch-size", "8",
                                  "--output-dir", str(tmp_path), "--run-name", f"e{epochs}",
                                  "--verbose", "0"])
        with open(os.path.join(run_dir, "history.csv"), encoding="utf-8") as fh:
            return list(csv.DictReader(fh))

    short, longer = history(2), history(4)
    assert len(short) == 2 and len(longer) == 4
    assert longer[:2] == short
    assert longer[2]["loss"] != longer[1]["loss"]  # and it went on training


def _sigmoid_model(vocab_size, num_classes, name="sigmoid"):
    import keras

    from kerasattn.layers import MaskedGlobalAveragePooling1D

    ids = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(vocab_size, 8, mask_zero=True)(ids)
    x = MaskedGlobalAveragePooling1D()(x)
    return keras.Model(ids, keras.layers.Dense(1, activation="sigmoid", dtype="float32")(x),
                       name=name)


def test_single_sigmoid_output_trains_with_binary_crossentropy(tmp_path):
    from kerasattn import models

    models.register(models.Preset("test-sigmoid", _sigmoid_model))
    try:
        rows = "".join(f"{'good great' if i % 2 else 'bad awful'} {i},{i % 2}\n"
                       for i in range(80))
        path = write(tmp_path / "data.csv", "text,label\n" + rows)
        run_dir, m = train.train(["--model", "test-sigmoid", "--dataset", f"csv:{path}",
                                  "--epochs", "3", "--learning-rate", "0.05",
                                  "--output-dir", str(tmp_path), "--run-name", "sig",
                                  "--verbose", "0"])
    finally:
        models.unregister("test-sigmoid")
    assert m["test"]["accuracy"] == 1.0 and "roc_auc" in m["test"]
    assert sum(m["test"]["confusion_matrix"][1]) == 8  # probabilities became [1-p, p]
