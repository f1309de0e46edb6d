"""SavedModel export: one model of each family, loaded in a fresh process that imports
neither kerasattn nor tensorflow_text, both signatures, stock ops only, bad input, the
TF1 session loader (saved_model_cli), and the export and predict commands."""

import ast
import json
import os
import subprocess
import sys
import textwrap

import keras
import numpy as np
import pytest

from kerasattn import export, heads, models, runs
from kerasattn.data.preprocessing import TextPreprocessor
from tests.conftest import write

TRAIN = ["a good film . really good !", "a bad film", "not good at all . bad", "great fun",
         "dull and slow . boring"]
TEXTS = ["a good film . not bad at all", "dull", "great fun . really ! a bad film"]
BAD = ["", "   \t ", " ".join(["good"] * 100_000)]  # invalid UTF-8: its own test
TWO, THREE = ["negative", "positive"], ["negative", "neutral", "positive"]
# one small preset of every family (kerasattn.models.names()); cnn (and, in eager
# Keras, HCAN/CAN with embedding_dim != d) run convolutions that oneDNN gets wrong on
# a batch of 0 texts
FAMILIES = {  # name -> (preset, small options, hierarchical, class names)
    "sanet": ("sanet-base", {"embedding_dim": 16, "d": 16}, False, TWO),
    "hcan": ("hcan-2sa-target", {"d": 16, "embedding_dim": 8, "num_heads": 2}, True, TWO),
    "can": ("can-1sa-maxpool", {"d": 16, "embedding_dim": 8, "num_heads": 2}, False, THREE),
    "han": ("han", {"embedding_dim": 16, "units": 8, "attention_units": 8}, True, TWO),
    "iram": ("iram-vanilla", {"embedding_dim": 8, "units": 8, "maxout_units": 6,
                              "init_stddev": 0.3}, False, TWO),
    "iram-full": ("iram-full", {"embedding_dim": 8, "units": 8, "maxout_units": 6,
                                "ngram_dim": 4, "ngram_buckets": 64, "context_layers": 1},
                  False, TWO),
    "transformer": ("transformer", {"embedding_dim": 16, "ff_dim": 8, "num_layers": 2,
                                    "num_heads": 4}, False, TWO),
    "cnn": ("cnn", {"embedding_dim": 8, "windows": (2, 3), "filters": 4}, False, THREE),
    "mlp": ("mlp", {"embedding_dim": 8, "hidden_units": 8}, False, TWO),
    "rnn": ("gru", {"embedding_dim": 8, "units": 8}, False, TWO),
}
NO_ATTENTION = {"cnn", "mlp", "rnn"}
# two families serve truncated texts: what the served graph keeps must be what training kept
TEXT_OPTIONS = {"mlp": dict(max_length=4, truncation="head+tail"),
                "han": dict(max_sentences=1, truncation="tail")}

FRESH = textwrap.dedent("""
    import json, os, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import numpy as np
    import tensorflow as tf
    from tensorflow.python.framework import op_def_registry
    from tensorflow.core.protobuf import saved_model_pb2
    paths, texts, bad = json.loads(sys.stdin.read())
    out = {}
    for name, path in paths.items():
        m = tf.saved_model.load(path)
        serve, explain = m.signatures["serving_default"], m.signatures["explain"]
        s = serve(text=tf.constant(texts))
        e = explain(text=tf.constant(texts))
        bad_out = [serve(text=tf.constant([b]))["probabilities"].numpy().tolist() for b in bad]
        bad_out.append(serve(text=tf.constant(texts + bad))["probabilities"].numpy().tolist())
        try:  # an error here fails only this family's empty-batch test
            empty = {**serve(text=tf.constant([], tf.string)),
                     **explain(text=tf.constant([], tf.string))}
            empty_shapes = {k: list(v.shape) for k, v in empty.items()}
        except Exception as error:
            empty_shapes = {"error": f"{type(error).__name__}: {str(error)[:300]}"}
        sm = saved_model_pb2.SavedModel()
        sm.ParseFromString(open(os.path.join(path, "saved_model.pb"), "rb").read())
        ops, functions = set(), set()
        for meta in sm.meta_graphs:
            ops.update(n.op for n in meta.graph_def.node)
            for f in meta.graph_def.library.function:
                functions.add(f.signature.name)
                ops.update(n.op for n in f.node_def)
        ops -= functions
        out[name] = {
            "probabilities": s["probabilities"].numpy().tolist(),
            "label": s["label"].numpy().tolist(),
            "label_name": [x.decode() for x in s["label_name"].numpy()],
            "explain": {k: v.numpy().tolist() if v.dtype != tf.string
                        else [[str(x) for x in np.ravel(r)] for r in v.numpy()]
                        for k, v in e.items()},
            "dtypes": {k: v.dtype.name for k, v in {**s, **e}.items()},
            "bad": bad_out, "empty_shapes": empty_shapes,
            "ops": sorted(ops),
            "unregistered": sorted(o for o in ops if op_def_registry.get(o) is None),
        }
    out["modules"] = sorted(m for m in sys.modules
                            if m.split(".")[0] in ("kerasattn", "tensorflow_text"))
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = tmp_path_factory.mktemp("saved_models")
    made = {}
    for family, (preset, options, hierarchical, classes) in FAMILIES.items():
        keras.utils.set_random_seed(0)
        pre = TextPreprocessor(mode="hcan" if hierarchical else "default",
                               hierarchical=hierarchical,
                               **TEXT_OPTIONS.get(family, {})).adapt(TRAIN)
        model = models.get(preset, vocab_size=pre.vocabulary_size, num_classes=len(classes),
                           vocabulary=pre.vocabulary, **options)
        path = export.export_model(model, pre, classes, str(root / family / "1"))
        made[family] = (model, pre, path)
    return made


@pytest.fixture(scope="module")
def fresh(exported):
    """Run every check in one fresh process that imports neither kerasattn nor tf_text."""
    paths = {f: p for f, (_, _, p) in exported.items()}
    result = subprocess.run([sys.executable, "-c", FRESH], input=json.dumps([paths, TEXTS, BAD]),
                            capture_output=True, text=True, timeout=600,
                            env={**os.environ, "PYTHONPATH": ""}, cwd="/")
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("family", list(FAMILIES))
def test_signatures_in_a_fresh_process_match_the_model(family, exported, fresh):
    model, pre, _ = exported[family]
    ids = pre(np.array(TEXTS)).to_tensor(0)
    expected = heads.as_probabilities(model(ids))
    got = fresh[family]
    np.testing.assert_allclose(got["probabilities"], expected, atol=1e-5)
    assert got["label"] == np.argmax(expected, 1).tolist()
    classes = FAMILIES[family][3]
    assert got["label_name"] == [classes[i] for i in got["label"]]
    assert got["dtypes"]["probabilities"] == "float32" and got["dtypes"]["label"] == "int64"
    e = got["explain"]
    np.testing.assert_allclose(e["probabilities"], expected, atol=1e-5)
    tokens = np.array(e["tokens"], dtype=object)
    assert tokens.shape[0] == len(TEXTS)
    layers = set(e) - {"tokens", "probabilities", "label", "label_name"}
    assert bool(layers) == (family not in NO_ATTENTION)
    for layer in layers:
        assert got["dtypes"][layer] == "float32" and np.isfinite(e[layer]).all()


def test_the_served_graph_truncates_as_training_did(fresh):
    """head+tail keeps the first quarter of max_length and the rest from the end; tail
    keeps a hierarchical text's last sentences (TEXTS, in the served explain tokens)."""
    def words(family):  # the served tokens, str(bytes) each, without the padding
        return [[w for w in (ast.literal_eval(t).decode() for t in row) if w]
                for row in fresh[family]["explain"]["tokens"]]

    assert words("mlp") == [["a", "bad", "at", "all"], ["dull"], ["great", "a", "bad", "film"]]
    assert words("han") == [["not", "bad", "at", "all"], ["dull"], ["a", "bad", "film"]]


def test_no_module_of_ours_or_tensorflow_text_was_loaded(fresh):
    assert not [m for m in fresh["modules"] if m.split(".")[0] in ("kerasattn", "tensorflow_text")]


def test_every_family_is_tested():
    """One preset of every Keras family: a new family module needs a row in FAMILIES."""
    from kerasattn.models import registry

    covered = {registry.get_preset(p).builder for p, *_ in FAMILIES.values()}
    keras_builders = {registry.get_preset(n).builder for n in models.names("keras")}
    assert keras_builders <= covered


@pytest.mark.parametrize("family", list(FAMILIES))
def test_an_empty_batch_gives_empty_outputs(family, fresh):
    """The README's promise: no texts in, no rows out (cnn failed: oneDNN's convolution
    returns its input's shape for a batch of 0), for both signatures."""
    shapes = fresh[family]["empty_shapes"]
    assert "error" not in shapes, shapes
    assert shapes["probabilities"] == [0, len(FAMILIES[family][3])]
    assert shapes["label"] == [0] and shapes["label_name"] == [0]
    for name, shape in shapes.items():
        assert shape[0] == 0, (name, shape)


def test_a_class_name_with_a_line_break_is_refused(tmp_path):
    """assets/labels.txt holds one name per line: a name with a line break would shift
    every name after it (predict's keys and the served label_name)."""
    pre = TextPreprocessor().adapt(TRAIN)
    model = models.get("mlp", vocab_size=pre.vocabulary_size, num_classes=3,
                       embedding_dim=4, hidden_units=4)
    for bad in ("good\nbad", "good\r", "\n"):
        with pytest.raises(ValueError, match="line break"):
            export.export_model(model, pre, ["neg", bad, "pos"], str(tmp_path / "m" / "1"))
    assert not os.path.exists(tmp_path / "m")


def test_every_op_is_a_stock_tensorflow_op(fresh):
    """In a process that loaded no custom-op library (no tensorflow_text), every op of
    the graphs is registered: all are TensorFlow's own, so stock TF Serving has them."""
    for family in FAMILIES:
        assert fresh[family]["ops"] and fresh[family]["unregistered"] == [], family
    assert {"StringSplitV2", "LookupTableFindV2"} <= set(fresh["transformer"]["ops"])


def test_bad_input_gives_defined_results(fresh):
    for family in FAMILIES:
        got = fresh[family]
        for probs in got["bad"]:
            p = np.array(probs)
            assert np.isfinite(p).all() and np.allclose(p.sum(1), 1, atol=1e-5), family


def test_invalid_utf8_is_replaced_not_an_error(exported):
    import tensorflow as tf

    _, _, path = exported["transformer"]
    serve = tf.saved_model.load(path).signatures["serving_default"]
    out = serve(text=tf.constant([b"caf\xc3\xa9 good \xff\xfe film", b"\x80"]))
    assert np.isfinite(out["probabilities"].numpy()).all()


def test_saved_model_cli_runs_it(exported):
    _, _, path = exported["transformer"]
    result = subprocess.run(
        ["saved_model_cli", "run", "--dir", path, "--tag_set", "serve",
         "--signature_def", "serving_default", "--input_exprs", 'text=["a good film", ""]'],
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "probabilities" in result.stdout and "label_name" in result.stdout


def test_layout_versions_and_assets(exported, tmp_path):
    _, _, path = exported["han"]
    assert os.path.basename(path) == "1"
    assert {"saved_model.pb", "variables", "assets"} <= set(os.listdir(path))
    assets = set(os.listdir(os.path.join(path, "assets")))
    assert assets == {"vocab.txt", "labels.txt", "attention.json", "preprocessor.json",
                      "model.json"}
    axes = json.load(open(os.path.join(path, "assets", "attention.json")))
    assert axes["word_attention"][0] == "sentence"
    assert "RegexReplace" in export.saved_model_ops(path) or \
        "StaticRegexReplace" in export.saved_model_ops(path)
    assert export.unregistered_ops(path) == set()
    base = os.path.dirname(path)
    assert export.next_version(base) == 2
    assert export.resolve_output("runs/x", base) == os.path.join(base, "2")
    with pytest.raises(FileExistsError):
        export.resolve_output("runs/x", path)
    assert export.resolve_output(str(tmp_path / "my-run")).endswith(
        os.path.join("saved_models", "my-run", "1"))


def test_export_refuses_a_used_version_before_writing_anything(exported, tmp_path):
    """A version directory that holds anything, or a file in its place, is refused up
    front: nothing is traced, nothing is written, what was there is kept."""
    model, pre, _ = exported["han"]
    used = tmp_path / "used" / "1"
    used.mkdir(parents=True)
    (used / "saved_model.pb").write_bytes(b"an earlier export")
    afile = tmp_path / "afile"
    afile.write_text("not a SavedModel")
    for path in (used, afile):
        with pytest.raises(FileExistsError, match="exists and is not an empty directory"):
            export.export_model(model, pre, FAMILIES["han"][3], str(path))
    assert (used / "saved_model.pb").read_bytes() == b"an earlier export"
    assert afile.read_text() == "not a SavedModel"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "used"]  # no .partial
    empty = tmp_path / "empty" / "1"
    empty.mkdir(parents=True)  # an empty version directory is filled
    export.export_model(model, pre, FAMILIES["han"][3], str(empty))
    assert (empty / "saved_model.pb").exists()


@pytest.mark.parametrize("family", sorted(set(FAMILIES) - NO_ATTENTION))
def test_the_saved_model_page_is_the_runs_page(family, exported):
    """predict --explain draws, from the SavedModel alone, the page kerasattn explain
    draws from the model: the same words, layers, sentences and steps (numbers aside:
    the graph and the model round differently in the last digits)."""
    import re

    import tensorflow as tf

    from kerasattn.explanation_pages import attention_html
    from kerasattn.interpret import extract_attention
    from kerasattn.saved_model_page import explain_page

    model, pre, path = exported[family]
    classes = FAMILIES[family][3]
    axes = {k: tuple(v) for k, v in json.load(
        open(os.path.join(path, "assets", "attention.json"))).items()}
    served = explain_page(tf.saved_model.load(path).signatures["explain"], TEXTS, axes, None,
                          classes)
    direct = attention_html(extract_attention(model, TEXTS, pre), None, classes,
                            title="attention")

    def shape(page):
        return re.sub(r"\d+\.\d+%?|rgba\([^)]*\)|transparent", "#", page)

    assert shape(served) == shape(direct)
    assert served.count("class='w'") == direct.count("class='w'") > len(TEXTS)
    numbers = [re.findall(r"title='(-?\d+\.\d+)'", page) for page in (served, direct)]
    np.testing.assert_allclose(np.array(numbers[0], float), np.array(numbers[1], float),
                               atol=2e-4)


def test_export_and_predict_commands(tmp_path):
    from kerasattn.cli import export as export_cmd
    from kerasattn.cli import predict, train

    words = ["gripping", "moving", "dull", "lifeless", "film", "plot", "a", "and"]
    data = write(tmp_path / "d.csv", "text,label\n" + "".join(
        f"{words[i % 2 + 2 * (i % 4 >= 2)]} {words[(3 * i) % 8]} {words[i % 8]},"
        f"{'positive' if i % 4 < 2 else 'negative'}\n" for i in range(200)))
    run_dir, _ = train.train(["--model", "transformer", "--dataset", f"csv:{data}",
                              "--epochs", "1", "--model-option", "embedding_dim=16",
                              "--output-dir", str(tmp_path), "--run-name", "t", "--verbose", "0"])
    base = str(tmp_path / "served" / "t")
    assert export_cmd.main(["--run", run_dir, "--output", base]) == 0
    assert export_cmd.main(["--run", run_dir, "--output", base]) == 0  # version 2
    assert sorted(os.listdir(base)) == ["1", "2"]
    path = os.path.join(base, "2")
    page = str(tmp_path / "p.html")
    result = subprocess.run(
        [sys.executable, "-m", "training.predict", "--model-dir", path, "--batch-size", "2",
         "a gripping , moving film", "dull and lifeless", "", "-", "--explain", page],
        input="a third text\n", capture_output=True, text=True, timeout=300,
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert result.returncode == 0, result.stderr[-2000:]
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["text"] for r in rows] == ["a gripping , moving film", "dull and lifeless", "",
                                         "a third text"]
    for r in rows:
        assert set(r["probabilities"]) == {"negative", "positive"}
        assert abs(sum(r["probabilities"].values()) - 1) < 1e-4
        assert r["label_name"] == max(r["probabilities"], key=r["probabilities"].get)
    html = open(page, encoding="utf-8").read()
    assert "inter_attention" in html and "gripping" in html
    _, model, pre = runs.load_keras_run(run_dir)
    expected = heads.as_probabilities(model(pre(np.array(["dull and lifeless"])).to_tensor()))
    assert abs(rows[1]["probabilities"]["positive"] - expected[0, 1]) < 1e-5
    assert export_cmd.main(["--run", str(tmp_path / "nope")]) == 2
    # predict stands on the SavedModel alone: it imports nothing of the package but the
    # standard-library helpers that drop TensorFlow's start-up lines and decode text, and
    # the page of the explain signature (TensorFlow and the standard library only)
    source = open(predict.__file__, encoding="utf-8").read()
    assert predict.__name__ == "kerasattn.cli.predict"
    imports = {line.split()[1] for line in source.splitlines()
               if line.strip().startswith(("import kerasattn", "from kerasattn"))}
    assert imports == {"kerasattn._quiet", "kerasattn.cli", "kerasattn.saved_model_page",
                       "kerasattn.saved_models"}, imports
    import kerasattn.saved_model_page as page

    page_source = open(page.__file__, encoding="utf-8").read()
    assert {line.split()[1] for line in page_source.splitlines()
            if line.startswith(("import kerasattn", "from kerasattn"))} == {
        "kerasattn.data", "kerasattn.explanation_pages"}  # data: its layout, below
    import kerasattn.data as data_package
    import kerasattn.data.layout as layout
    import kerasattn.explanation_pages as renderer

    assert "import" not in open(data_package.__file__, encoding="utf-8").read()
    import kerasattn.data.widths as widths

    assert {line.split()[1] for line in open(layout.__file__, encoding="utf-8").read()
            .splitlines() if line.startswith(("import ", "from "))} == {
        "numpy", "kerasattn.data.widths"}
    assert {line.split()[1] for line in open(widths.__file__, encoding="utf-8").read()
            .splitlines() if line.startswith(("import ", "from "))} == {"numpy"}

    # the renderer needs NumPy and the standard library only
    assert {line.split()[1] for line in open(renderer.__file__, encoding="utf-8").read()
            .splitlines() if line.startswith(("import ", "from "))} <= {
        "functools", "html", "importlib.resources", "json", "math", "os", "re", "numpy"}


def test_grpc_client_against_a_prediction_service(exported, capsys):
    """The client over real gRPC on loopback, against a PredictionService that runs the
    exported signatures the way TF Serving does (no TF Serving binary can be installed)."""
    from concurrent import futures

    import grpc
    import tensorflow as tf
    from tensorflow_serving.apis import predict_pb2, prediction_service_pb2_grpc

    from kerasattn.cli import serving_client

    _, _, path = exported["hcan"]
    loaded = tf.saved_model.load(path)

    class Service(prediction_service_pb2_grpc.PredictionServiceServicer):
        def Predict(self, request, context):
            if request.model_spec.name != "hcan":
                context.abort(grpc.StatusCode.NOT_FOUND, "Servable not found")
            fn = loaded.signatures[request.model_spec.signature_name or "serving_default"]
            outputs = fn(text=tf.constant(tf.make_ndarray(request.inputs["text"])))
            response = predict_pb2.PredictResponse()
            for name, value in outputs.items():
                response.outputs[name].CopyFrom(tf.make_tensor_proto(value.numpy()))
            return response

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    prediction_service_pb2_grpc.add_PredictionServiceServicer_to_server(Service(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        out = serving_client.predict(TEXTS, "hcan", "127.0.0.1", port)
        direct = loaded.signatures["serving_default"](text=tf.constant(TEXTS))
        np.testing.assert_allclose(out["probabilities"], direct["probabilities"].numpy())
        assert out["label_name"].tolist() == direct["label_name"].numpy().tolist()
        assert serving_client.main(["--model", "hcan", "--host", "127.0.0.1", "--port",
                                    str(port), "--signature", "explain", TEXTS[0]]) == 0
        row = json.loads(capsys.readouterr().out)
        assert row["tokens"][0][:2] == ["a", "good"] and any(k.startswith("word") for k in row)
        assert serving_client.main(["--model", "nope", "--host", "127.0.0.1", "--port",
                                    str(port), "x"]) == 1
        assert "NOT_FOUND" in capsys.readouterr().err
    finally:
        server.stop(None)


def test_serving_benchmark_runs(tmp_path, shared_data):
    from benchmarks import serving_speed

    assert serving_speed.main(["--dataset", "sst2", "--families", "Transformer",
                               "--requests", "5", "--batches", "1", "--train-texts", "500",
                               "--results-dir", str(tmp_path)]) == 0
    record = runs.read_json(str(tmp_path / "serving_speed.json"))
    assert len(record["rows"]) == 1
    for row in record["rows"].values():
        assert 0 < row["p50_ms"] <= row["p99_ms"] and row["batch_texts_per_s"] > 0
    assert "| Transformer | `transformer` |" in (tmp_path / "serving_speed.md").read_text()


def test_a_servable_of_other_classes_or_another_preset_is_refused(exported, tmp_path):
    """TF Serving moves clients to a base path's newest version: a version that answers
    with other classes, or is another preset, is refused before anything is written."""
    model, pre, _ = exported["han"]
    classes = FAMILIES["han"][3]
    base = tmp_path / "served"
    export.export_model(model, pre, classes, str(base / "1"), preset="han")
    recorded = json.load(open(base / "1" / "assets" / "model.json"))
    assert recorded == {"preset": "han", "class_names": list(classes)}
    with pytest.raises(ValueError, match=r"serves the classes .* this model's are"):
        export.export_model(model, pre, list(reversed(classes)), str(base / "2"), preset="han")
    with pytest.raises(ValueError, match=r"serves 'han' \(version 1\); this is 'mlp'"):
        export.export_model(model, pre, classes, str(base / "2"), preset="mlp")
    assert sorted(os.listdir(base)) == ["1"]
    export.export_model(model, pre, classes, str(base / "2"), preset="han")  # alike: fine
    assert sorted(os.listdir(base)) == ["1", "2"]


def test_export_to_a_file_or_a_read_only_folder_is_one_error(exported, tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("mine")
    with pytest.raises(ValueError, match="is a file, not a SavedModel base directory"):
        export.resolve_output("runs/x", str(afile))
    with pytest.raises(ValueError, match="is a file, not a directory"):
        export.resolve_output("runs/x", str(afile / "m" / "1"))
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user who can write anywhere")
        with pytest.raises(ValueError, match="is not writable"):
            export.resolve_output("runs/x", str(locked / "m"))
    finally:
        locked.chmod(0o700)
    assert afile.read_text() == "mine"


def test_a_full_disk_while_exporting_leaves_no_half_version(exported, tmp_path, monkeypatch):
    import errno

    model, pre, _ = exported["han"]

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    # the SavedModel is written (to a marked directory beside the version), then the
    # disk fills as its documentation files are copied in
    from kerasattn import ownership

    monkeypatch.setattr(ownership, "write_bytes", full)
    with pytest.raises(OSError, match="No space left"):
        export.export_model(model, pre, FAMILIES["han"][3], str(tmp_path / "m" / "1"))
    assert os.listdir(tmp_path / "m") == []  # no version, no leftover beside it


def test_predict_refuses_to_overwrite_the_explain_page(exported, tmp_path, capsys):
    from kerasattn.cli import predict

    _, _, path = exported["han"]
    victim = tmp_path / "victim.csv"
    victim.write_text("text,label\nkeep me,1\n")
    assert predict.main(["--model-dir", path, "a film", "--explain", str(victim)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --explain") and "pass --overwrite" in err
    assert victim.read_text() == "text,label\nkeep me,1\n"
    assert predict.main(["--model-dir", path, "a film", "--explain", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err
    assert predict.main(["--model-dir", path, "a film", "--explain", str(victim),
                         "--overwrite"]) == 0
    assert "<html" in victim.read_text().lower()
