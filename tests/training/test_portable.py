"""training.portable: prepare token ids with TensorFlow, fit on any Keras backend."""

import importlib.util
import os
import subprocess
import sys

import keras
import numpy as np
import pytest

from kerasattn import runs
from kerasattn.cli import portable, train
from kerasattn.training import buckets, portable_fit, prepared
from tests.conftest import JaxRuntimeError, learnability_csv, write

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = ["--model", "transformer", "--dataset", "sst2", "--epochs", "2",
       "--model-option", "embedding_dim=32", "--model-option", "ff_dim=32"]


def test_bucketed_batches_hold_every_text_once_in_a_wide_enough_batch():
    lengths = np.array([0, 1, 63, 64, 65, 128, 200, 3, 70, 129])
    rng = np.random.default_rng(0)
    for shuffle in (None, rng):
        batches = buckets.bucketed_batches(lengths, batch_size=3, step=64, rng=shuffle)
        seen = np.concatenate([index for index, _ in batches])
        assert sorted(seen.tolist()) == list(range(len(lengths)))
        for index, width in batches:
            assert len(index) <= 3 and width % 64 == 0
            assert np.all(lengths[index] <= width)
            assert np.all(lengths[index] > width - 64) or width == 64  # the smallest bucket
    widths = sorted({w for _, w in buckets.bucketed_batches(lengths, 3, step=64)})
    assert widths == [64, 128, 192, 256]


def test_the_log_says_how_many_batch_shapes_will_be_compiled():
    lengths = np.array([0, 1, 63, 64, 65, 128, 200, 3, 70, 129])
    flat = buckets.Split(np.zeros(int(lengths.sum()), np.int32), lengths,
                          np.zeros(len(lengths), np.int32))
    assert buckets.batch_shapes(flat, 3, step=64) == [(64,), (128,), (192,), (256,)]
    assert buckets.batch_shapes(flat, 3, step=256) == [(256,)]
    deep = buckets.Split(np.arange(5, 13, dtype=np.int32), np.array([2, 1, 0]),
                          np.array([0, 1, 0], np.int32), sentence_lengths=np.array([2, 1, 5]),
                          max_sentences=3, max_words=4)
    assert buckets.batch_shapes(deep, 4) == [(1, 4), (2, 4)]
    empty = buckets.Split(np.zeros(0, np.int32), np.zeros(0, np.int64), np.zeros(0, np.int32))
    line = buckets.shapes_line({"train": flat, "val": deep, "test": empty}, 3, 64)
    assert line.startswith("batch shapes: train 4 (64..256), val 2 (1x4..2x4); each")


def test_batch_arrays_pad_rows_and_weights():
    split = buckets.Split(np.array([5, 6, 7, 8, 9], np.int32), np.array([2, 0, 3]),
                           np.array([1, 0, 1], np.int32))
    ids, labels, weights = buckets.batch_arrays(split, np.array([2, 0, 1]), 4, batch_size=5)
    np.testing.assert_array_equal(ids[:3], [[7, 8, 9, 0], [5, 6, 0, 0], [0, 0, 0, 0]])
    assert not ids[3:].any()
    np.testing.assert_array_equal(labels, [1, 1, 0, 0, 0])
    np.testing.assert_array_equal(weights, [1, 1, 1, 0, 0])
    assert split.batch_ids([2], 2).tolist() == [[7, 8]]  # cut to the width


@pytest.fixture(scope="module")
def prepared_runs(tmp_path_factory, shared_data):
    out = tmp_path_factory.mktemp("portable")
    cache = {}
    a = prepared.prepare([*CLI, "--output-dir", str(out), "--run-name", "a"], cache)
    b = prepared.prepare([*CLI, "--layers", "2", "--output-dir", str(out), "--run-name", "b"],
                         cache)
    return out, a, b


def test_prepare_writes_ids_that_match_the_preprocessor(prepared_runs, shared_data):
    from kerasattn.data import datasets
    from kerasattn.data.preprocessing import TextPreprocessor

    out, a, b = prepared_runs
    config_a = runs.read_json(os.path.join(a, runs.CONFIG))
    config_b = runs.read_json(os.path.join(b, runs.CONFIG))
    # same data and vocabulary: one arrays file shared by both runs
    assert os.path.realpath(os.path.join(a, config_a["arrays"])) == \
        os.path.realpath(os.path.join(b, config_b["arrays"]))
    assert len(os.listdir(out / prepared.ARRAYS_DIR)) == 1
    with np.load(os.path.join(a, config_a["arrays"])) as f:
        assert f["train_ids"].dtype == np.uint16  # 16 bits: SST-2's vocabulary fits
    assert config_b["model_config"]["num_layers"] == 2
    data = portable_fit.load_arrays(a, config_a)
    ds = datasets.load("sst2", data_dir=shared_data)
    pre = TextPreprocessor.load(a)
    for s in ("train", "test"):
        assert len(data[s]) == len(ds.split(s))
        np.testing.assert_array_equal(data[s].labels, ds.split(s).labels)
    texts = ds.test.texts[:5]
    expected = pre(texts).to_list()
    for i, ids in enumerate(expected):
        assert data["test"].batch_ids([i], len(ids)).tolist() == [ids]


def test_hierarchical_batches_are_texts_by_sentences_by_words():
    # two texts: [[5, 6], [7]] and [[8, 9, 10, 11, 12]]; an empty one
    split = buckets.Split(np.arange(5, 13, dtype=np.int32), np.array([2, 1, 0]),
                           np.array([0, 1, 0], np.int32), sentence_lengths=np.array([2, 1, 5]),
                           max_sentences=3, max_words=4)
    assert split.word_width == 4  # the longest sentence (5) rounded to 8, cut at max_words
    ids, labels, weights = buckets.batch_arrays(split, np.array([1, 0, 2]), 2, batch_size=4)
    assert ids.shape == (4, 2, 4)
    np.testing.assert_array_equal(ids[0], [[8, 9, 10, 11], [0, 0, 0, 0]])  # cut at 4 words
    np.testing.assert_array_equal(ids[1], [[5, 6, 0, 0], [7, 0, 0, 0]])
    assert not ids[2:].any()
    np.testing.assert_array_equal(weights, [1, 1, 1, 0])
    assert split.batch_ids([0], 1).tolist() == [[[5, 6, 0, 0]]]  # cut to one sentence
    # sentence axes in powers of two, at most max_sentences
    lengths = np.array([0, 1, 2, 3, 5, 9, 40, 50])
    batches = buckets.bucketed_batches(lengths, 2, step=None, cap=50)
    assert sorted({w for _, w in batches}) == [1, 2, 4, 8, 16, 50]
    assert sorted(np.concatenate([i for i, _ in batches]).tolist()) == list(range(8))
    for index, width in batches:
        assert np.all(lengths[index] <= width)


# HAN on SST-2 with TensorFlow, about 50 s of CPU: with -m slow (by default the batches'
# layout is tested alone, and a hierarchical HCAN learns under JAX below)
@pytest.mark.slow
def test_hierarchical_models_prepare_and_fit(tmp_path, shared_data):
    """HAN and HCAN's hierarchical presets: ids as the preprocessor cuts them (text,
    sentence, word), a fit that learns, and predictions that padding does not change."""
    from kerasattn.data import datasets
    from kerasattn.data.preprocessing import TextPreprocessor

    run = prepared.prepare(["--model", "han", "--dataset", "sst2", "--epochs", "1",
                            "--model-option", "embedding_dim=32", "--output-dir",
                            str(tmp_path), "--run-name", "han"])
    config = runs.read_json(os.path.join(run, runs.CONFIG))
    data = portable_fit.load_arrays(run, config)
    pre = TextPreprocessor.load(run)
    ds = datasets.load("sst2", data_dir=shared_data)
    texts = ds.test.texts[:20]
    for i, text in enumerate(pre(texts).to_list()):
        ids = data["test"].batch_ids([i], len(text))[0]
        for sentence, row in zip(text, ids):
            assert row[:len(sentence)].tolist() == sentence and not row[len(sentence):].any()
    m = portable_fit.fit(run, verbose=0)
    assert m["test"]["accuracy"] > 0.72  # one epoch: 0.79 measured
    model = keras.saving.load_model(os.path.join(run, runs.KERAS_MODEL))
    alone = np.concatenate([model.predict_on_batch(pre(texts[i:i + 1]).to_tensor().numpy())
                            for i in range(8)])
    first = portable_fit.load_arrays(run, config)["test"]
    np.testing.assert_allclose(portable_fit.predict_split(model, first, 32)[:8], alone, atol=1e-5)
    # and more padded sentences than any batch of them has
    np.testing.assert_allclose(model.predict_on_batch(first.batch_ids(np.arange(8), 8)), alone,
                               atol=1e-5)


@pytest.fixture(scope="module")
def fitted(prepared_runs):
    _, a, _ = prepared_runs
    return a, portable_fit.fit(a, verbose=0)


def test_fit_completes_a_run_that_learns_and_is_reused(fitted):
    a, m = fitted
    for name in (runs.METRICS, runs.HISTORY, runs.KERAS_MODEL, runs.TEST_SCORES,
                 "learning_curves.png", "roc_curve.png"):
        assert os.path.exists(os.path.join(a, name)), name
    assert m["trained_with"]["backend"] == keras.backend.backend()
    assert m["epochs_run"] == 2 and m["best_epoch"] in (1, 2)
    assert m["test"]["examples"] == 1821
    assert m["test"]["accuracy"] > 0.72  # 1,821 held-out sentences; ~0.78 measured
    # training.reproduce / benchmarks.accuracy recognise the run by its arguments
    assert runs.finished_run_of(a, train.config_of(CLI))
    assert not runs.finished_run_of(a, train.config_of([*CLI[:-1], "ff_dim=64"]))
    # the saved best model gives the metrics' test predictions
    config = runs.read_json(os.path.join(a, runs.CONFIG))
    model = keras.saving.load_model(os.path.join(a, runs.KERAS_MODEL))
    probs = portable_fit.predict_split(model, portable_fit.load_arrays(a, config)["test"], 32)
    labels, scores = runs.read_test_scores(a)
    np.testing.assert_allclose(probs[:, 1], scores, atol=1e-5)
    # a portable run keeps the backbone alone (no TensorFlow text ops where it trains);
    # TextClassifier.from_run puts the classifier together from it and the run's files
    import kerasattn
    from kerasattn import heads
    from kerasattn.data.preprocessing import TextPreprocessor

    assert not isinstance(model, kerasattn.TextClassifier)
    clf = kerasattn.TextClassifier.from_run(a)
    texts = ["a fine , moving film", "dull"]
    ids = TextPreprocessor.load(a)(texts).to_tensor().numpy()
    np.testing.assert_allclose(clf.predict(texts, verbose=0),
                               heads.as_probabilities(model.predict_on_batch(ids)), atol=1e-5)


def test_padding_of_a_bucket_does_not_change_predictions(fitted):
    a, _ = fitted
    config = runs.read_json(os.path.join(a, runs.CONFIG))
    split = portable_fit.load_arrays(a, config)["val"]
    model = keras.saving.load_model(os.path.join(a, runs.KERAS_MODEL))
    alone = np.concatenate([model.predict_on_batch(split.batch_ids([i], max(1, split.lengths[i])))
                            for i in range(8)])
    first = buckets.Split(split.ids[:int(split.lengths[:8].sum())], split.lengths[:8],
                           split.labels[:8])
    for step in (64, 16, 1):  # --bucket-step: any width, the same predictions
        batched = portable_fit.predict_split(model, first, 32, step=step)
        np.testing.assert_allclose(batched[:, 1], alone[:, 0], atol=1e-5)


def test_prepare_refuses_what_it_cannot_carry(tmp_path, shared_data):
    from kerasattn.training.config import ConfigError

    for extra in (["--model", "nb"], ["--model", "mlp", "--stream"]):
        argv = [*extra, "--dataset", "sst2", "--output-dir", str(tmp_path)]
        with pytest.raises(ConfigError, match="does not support"):
            prepared.prepare(argv)
    assert os.listdir(tmp_path) == []


def test_a_jobs_file_is_checked_line_by_line_before_anything_is_written(tmp_path, capsys):
    from tests.training.test_reliability import _tiny_csv

    data, out = _tiny_csv(tmp_path), tmp_path / "out"
    good = f"mlp-a --model mlp --dataset csv:{data} --epochs 1  # a comment\n\n"
    cases = {  # a bad line among good ones: what the one error line says
        "--model mlp --dataset x": ":1: a line starts with its run name",
        f"mlp-b --model mlp --dataset csv:{data} --epochs 0": ":3: --epochs",
        f"mlp-b --model mlp --dataset csv:{data} --bogus 1": ":3: unrecognized arguments: --bogus",
        f"mlp-a --model mlp --dataset csv:{data}": ":3: run 'mlp-a' is already on line 1",
        f"mlp-b --model nb --dataset csv:{data}": ":3: training.portable does not support",
        f"mlp-b --model mlp --dataset csv:{data} --time-limit 5": ":3: prepare takes no",
        f"mlp-b --model mlp --dataset nosuch": ":3: unknown dataset 'nosuch'",
        "mlp-b --model mlp --dataset 'sst2": ":3: No closing quotation",
    }
    for line, said in cases.items():
        jobs = tmp_path / "jobs.txt"
        jobs.write_text(line + "\n" if said.startswith(":1:") else good + line + "\n")
        rc = portable.main(["prepare", "--jobs", str(jobs), "--output-dir", str(out)])
        err = capsys.readouterr().err.strip()
        assert rc == 2 and err.startswith(f"error: {jobs}{said}"), (line, err)
        assert "\n" not in err and not out.exists(), line
    for text, said in (("# nothing but a comment\n", "lists no runs"),
                       (None, "cannot read")):
        jobs = tmp_path / "empty.txt"
        if text is not None:
            jobs.write_text(text)
        else:
            jobs.unlink()
        assert portable.main(["prepare", "--jobs", str(jobs)]) == 2
        assert said in capsys.readouterr().err
    # the good lines prepare, sharing their token ids; flags after the file go to each
    jobs.write_text(good + f"mlp-b --model mlp --dataset csv:{data} --seed 0\n")
    assert portable.main(["prepare", "--jobs", str(jobs), "--output-dir", str(out)]) == 0
    assert sorted(os.listdir(out)) == ["_arrays", "mlp-a", "mlp-b"]
    assert len(os.listdir(out / "_arrays")) == 1
    assert runs.read_json(os.path.join(out, "mlp-a", runs.CONFIG))["train"]["epochs"] == 1


def test_a_dataset_that_is_missing_is_one_error_line_naming_the_job(tmp_path, capsys,
                                                                     monkeypatch):
    jobs = tmp_path / "jobs.txt"
    jobs.write_text("# IMDB runs\nmlp-imdb --model mlp --dataset imdb\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.delenv("KERASATTN_DATA_DIR", raising=False)
    monkeypatch.setenv("HOME", str(empty))  # no Keras cache (~/.keras/datasets) either
    rc = portable.main(["prepare", "--jobs", str(jobs), "--data-dir", str(empty),
                        "--no-download", "--output-dir", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith(f"error: {jobs}:2: Dataset 'imdb' was not found")
    assert "Traceback" not in err and not (tmp_path / "out").exists()
    # and without a jobs file
    rc = portable.main(["prepare", "--model", "mlp", "--dataset", "imdb", "--data-dir",
                        str(empty), "--no-download", "--output-dir", str(tmp_path / "out")])
    assert rc == 2 and capsys.readouterr().err.startswith("error: Dataset 'imdb' was not found")


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs JAX")
def test_fit_runs_on_jax_without_tensorflow(tmp_path):
    # texts of three sentences, the first of which gives the label (a generated set: the
    # run is about JAX, and one batch shape each keeps XLA's compilations to a few)
    data = write(tmp_path / "d.csv", "text,label\n" + "".join(
        f"a {'good' if i % 2 else 'bad'} film number {i % 7} . it was "
        f"{'fine' if i % 3 else 'long'} . the end,{i % 2}\n" for i in range(600)))
    flat = prepared.prepare(["--model", "mlp", "--dataset", f"csv:{data}", "--epochs", "3",
                             "--output-dir", str(tmp_path), "--run-name", "j"])
    # a hierarchical HCAN too (texts by sentences by words)
    hierarchical = prepared.prepare(["--model", "hcan-1sa-maxpool", "--dataset", f"csv:{data}",
                                     "--epochs", "3", "--learning-rate", "0.005",
                                     "--model-option", "d=32",
                                     "--model-option", "embedding_dim=32",
                                     "--output-dir", str(tmp_path), "--run-name", "h"])
    # TensorFlow made unimportable: what a JAX-only accelerator machine has; one process
    # fits both runs, one after the other
    code = ("import sys; sys.modules['tensorflow'] = None; "
            "from kerasattn.cli import portable; sys.exit(portable.main(sys.argv[1:]))")
    env = {**os.environ, "KERAS_BACKEND": "jax", "PYTHONPATH": ROOT}
    out = subprocess.run([sys.executable, "-c", code, "fit", "--run", flat, "--run",
                          hierarchical, "--verbose", "0"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "(4x8)" in out.stdout  # three sentences, padded to four, of up to eight words
    for run in (flat, hierarchical):
        m = runs.read_json(os.path.join(run, runs.METRICS))
        assert m["trained_with"]["backend"] == "jax"
        assert m["test"]["accuracy"] > 0.9  # 1.0 measured for both


def test_prepare_sizes_the_recipe_for_the_accelerator_that_fits_it(tmp_path):
    from tests.training.test_reliability import _tiny_csv

    run = prepared.prepare(["--model", "iram-vanilla", "--dataset", f"csv:{_tiny_csv(tmp_path)}",
                            "--output-dir", str(tmp_path / "out"), "--run-name", "i"])
    config = runs.read_json(os.path.join(run, runs.CONFIG))
    assert config["recipe"] == "default" and config["sized_for"] is None
    assert (config["model_config"]["units"], config["train"]["batch_size"]) == (400, 32)


@pytest.mark.parametrize("learnable", [True, False])
def test_fit_says_whether_a_run_learned(tmp_path, capsys, learnable):
    # as training.train does (tests/test_learning_check.py)
    data = learnability_csv(tmp_path, learnable)
    run = prepared.prepare(["--model", "mlp", "--dataset", f"csv:{data}", "--epochs", "3",
                            "--learning-rate", "0.01", "--output-dir", str(tmp_path)])
    m = portable_fit.fit(run, verbose=0)
    assert m["learning"]["learned"] is learnable
    assert ("WARNING: this run did not learn" in capsys.readouterr().out) is (not learnable)
    assert runs.read_json(os.path.join(run, runs.METRICS))["learning"]["learned"] is learnable


def test_batches_of_several_widths_fit_on_tensorflow_too():
    # Keras reads a PyDataset's tf.data signature from its first two batches; with both
    # 64 wide (IMDB's shortest reviews) a 128-wide batch later was refused
    lengths = np.array([10] * 8 + [100] * 2)
    split = buckets.Split(np.ones(int(lengths.sum()), np.int32), lengths,
                           np.arange(10, dtype=np.int32) % 2)
    assert [w for _, w in buckets._widths_first(
        buckets.bucketed_batches(lengths, 2))] == [64, 128, 64, 64, 64]
    model = keras.Sequential([keras.layers.Embedding(4, 3), keras.layers.GlobalAveragePooling1D(),
                              keras.layers.Dense(2, activation="softmax")])
    model.compile("adam", "sparse_categorical_crossentropy")
    for seed in (None, 0):
        history = model.fit(buckets.batch_sequence(split, 2, seed=seed), epochs=2, verbose=0)
        assert len(history.history["loss"]) == 2


def test_fit_stops_at_its_time_limit_and_records_where(tmp_path, capsys):
    data = learnability_csv(tmp_path, True)
    run = prepared.prepare(["--model", "mlp", "--dataset", f"csv:{data}", "--epochs", "3",
                            "--batch-size", "16", "--output-dir", str(tmp_path)])
    m = portable_fit.fit(run, verbose=0, time_limit=1e-9, bucket_step=8)  # after the first step
    steps = 144 // 16  # 144 training texts (the rest validation and test), one width
    assert m["time_limit"] == {"seconds": 1e-9, "reached": True, "epoch": 1, "steps": 1,
                               "steps_per_epoch": steps}
    assert m["epochs_run"] == 1  # the partial epoch was still validated
    assert "stopped by --time-limit" in capsys.readouterr().out
    assert runs.read_json(os.path.join(run, runs.METRICS))["time_limit"]["reached"]
    m = portable_fit.fit(run, verbose=0, time_limit=3600)
    assert m["time_limit"] == {"seconds": 3600, "reached": False} and m["epochs_run"] == 3


def test_a_run_that_diverges_is_reported_and_the_next_run_still_fits(tmp_path, capsys):
    data = learnability_csv(tmp_path, True)
    runs_ = [prepared.prepare(["--model", "mlp", "--dataset", f"csv:{data}", "--epochs", "3",
                               "--learning-rate", lr, "--output-dir", str(tmp_path),
                               "--run-name", name])
             for name, lr in (("diverges", "1e30"), ("learns", "0.01"))]
    assert portable.main(["fit", "--verbose", "0", "--run", runs_[0], "--run", runs_[1]]) == 1
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert len(err) == 1 and "diverged" in err[0] and "step 2 of epoch 1" in err[0]
    assert not os.path.exists(os.path.join(runs_[0], runs.METRICS))
    assert runs.read_json(os.path.join(runs_[1], runs.METRICS))["learning"]["learned"]
    for bad in (["--time-limit", "0"], ["--bucket-step", "0"]):
        with pytest.raises(SystemExit):
            portable.main(["fit", "--run", runs_[1], *bad])


def test_a_run_out_of_device_memory_is_one_error_line_and_the_next_run_still_fits(
        tmp_path, monkeypatch, capsys):
    big, small = str(tmp_path / "big"), str(tmp_path / "small")
    for run_dir in (big, small):
        os.makedirs(run_dir)
        runs.write_json(os.path.join(run_dir, runs.CONFIG), {})
    fitted = []

    def fit(run_dir, *args):
        if run_dir == big:
            raise JaxRuntimeError(
                "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2.62GiB with "
                "allocator GPU_0_bfc on device 0. [executable_name='jit_train_step']")
        fitted.append(run_dir)

    monkeypatch.setattr(portable_fit, "fit", fit)
    assert portable.main(["fit", "--run", big, "--run", small]) == 1
    assert fitted == [small]
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(
        f"error: {big}: the device ran out of memory (RESOURCE_EXHAUSTED: Out of memory")
    assert "XLA_PYTHON_CLIENT_MEM_FRACTION" in err[0] and "--batch-size" in err[0]

    def broken(run_dir, *args):  # another runtime error is not taken for one
        raise JaxRuntimeError("INTERNAL: a kernel failed")

    monkeypatch.setattr(portable_fit, "fit", broken)
    with pytest.raises(JaxRuntimeError, match="INTERNAL"):
        portable.main(["fit", "--run", small])


# three runs in two processes that each start JAX: about 50 s of CPU, with -m slow (the
# default suite stays under 15 minutes on 2 cores; fit without --parallel is tested above)
@pytest.mark.slow
def test_fit_parallel_fits_each_run_in_a_process_of_its_own(tmp_path, capsys):
    data = learnability_csv(tmp_path, True)
    made = [prepared.prepare(["--model", "mlp", "--dataset", f"csv:{data}", "--epochs", "2",
                              "--learning-rate", lr, "--output-dir", str(tmp_path),
                              "--run-name", name])
            for name, lr in (("a", "0.01"), ("diverges", "1e30"), ("b", "0.01"))]
    with pytest.raises(SystemExit):  # every run is checked before any is fitted
        portable.main(["fit", "--parallel", "2", "--run", made[0],
                       "--run", str(tmp_path / "missing")])
    assert "is not a prepared run" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        portable.main(["fit", "--parallel", "2", "--run", made[0], "--run", made[0] + "/"])
    assert f"--run {made[0]}/ is given twice" in capsys.readouterr().err
    assert not os.path.exists(os.path.join(made[0], runs.FIT_LOG))
    assert portable.main(["fit", "--parallel", "2", "--verbose", "0", "--time-limit", "600",
                          *[w for run in made for w in ("--run", run)]]) == 1
    out, err = capsys.readouterr()
    for run in (made[0], made[2]):
        m = runs.read_json(os.path.join(run, runs.METRICS))
        assert m["learning"]["learned"] and m["time_limit"]["seconds"] == 600
        assert f"{run}: test accuracy {m['test']['accuracy']:.4f}" in out
        with open(os.path.join(run, runs.FIT_LOG)) as fh:  # each process's own output
            assert f"run directory: {run}" in fh.read()
    assert not os.path.exists(os.path.join(made[1], runs.METRICS))
    err = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(err) == 1 and f"{made[1]} failed after" in err[0]
    assert "the run diverged" in err[0] and runs.FIT_LOG in err[0]
    with pytest.raises(SystemExit):
        portable.main(["fit", "--parallel", "0", "--run", made[0]])


def test_prepared_word_vectors_are_where_fit_starts(tmp_path, monkeypatch, capsys):
    from kerasattn import embeddings
    from tests.training.test_reliability import _tiny_csv

    glove = tmp_path / "v.txt"
    glove.write_text("good 1 2 3 4\nbad -1 -2 -3 -4\nunused 9 9 9 9\n")
    argv = ["--model", "mlp", "--dataset", f"csv:{_tiny_csv(tmp_path)}", "--epochs", "1",
            "--embeddings", str(glove), "--seed", "3", "--output-dir", str(tmp_path / "out"),
            "--run-name", "v"]
    # refused before anything is written: the vectors' size is not the model's
    from kerasattn.data.datasets import DatasetFormatError
    from kerasattn.training.config import ConfigError

    with pytest.raises(ConfigError, match="4-d vectors but mlp's embeddings are 100-d; add "
                                          "--model-option embedding_dim=4"):
        prepared.prepare(argv)
    glove_bad = tmp_path / "bad.txt"
    glove_bad.write_text("good 1 2 3 4\nbad 1 x 3 4\n")
    with pytest.raises(DatasetFormatError, match=r"bad\.txt:2: a value is not a number"):
        prepared.prepare([*argv[:7], str(glove_bad), *argv[8:]])
    # the command line says either in one error line
    assert portable.main(["prepare", *argv[:7], str(glove_bad), *argv[8:]]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert not os.path.exists(tmp_path / "out")
    run = prepared.prepare([*argv, "--model-option", "embedding_dim=4"])
    vocabulary = runs.read_vocabulary(run)
    # training.train's matrix: the file's rows, the same seeded random rows for the rest
    expected, found = embeddings.embedding_matrix(str(glove), vocabulary, seed=3)
    assert found == 2
    matrix = np.load(os.path.join(run, runs.EMBEDDINGS))
    np.testing.assert_array_equal(matrix, expected)
    np.testing.assert_array_equal(matrix[vocabulary.index("good")], [1, 2, 3, 4])
    seen = []
    fit = keras.Model.fit

    def spy(model, *args, **kwargs):
        seen.append(keras.ops.convert_to_numpy(
            embeddings.find_embedding_layer(model).embeddings))
        return fit(model, *args, **kwargs)

    monkeypatch.setattr(keras.Model, "fit", spy)
    portable_fit.fit(run, verbose=0)
    np.testing.assert_array_equal(seen[0], expected)
    assert runs.finished_run_of(run, train.config_of([*argv, "--model-option",
                                                      "embedding_dim=4"]))
    # a run copied without its matrix is refused, not trained from random vectors
    os.remove(os.path.join(run, runs.EMBEDDINGS))
    with pytest.raises(ConfigError, match="prepared with --embeddings but has no "
                                          "embeddings.npy"):
        portable_fit.fit(run, verbose=0)
    with pytest.raises(SystemExit, match="^error: .* has no embeddings.npy"):  # the command
        portable.main(["fit", "--run", run])
