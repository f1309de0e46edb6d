"""Bad input to the export, predict and serving-client commands: one ``error: ...``
line on stderr, a non-zero exit status, no traceback ("Reliability")."""

import json
import os
import subprocess
import sys
from concurrent import futures

import numpy as np
import pytest

from tests.conftest import write

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRAIN = ["a good film . really good !", "a bad film", "not good at all . bad", "great fun"]


def _cli(module, *args, stdin=b""):
    """Run ``python -m MODULE ARGS``: (exit status, stdout, stderr lines)."""
    result = subprocess.run([sys.executable, "-m", module, *args], input=stdin, cwd=ROOT,
                            capture_output=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": ROOT})
    return result.returncode, result.stdout.decode(), result.stderr.decode().splitlines()


def _one_error(lines, expected):
    """stderr is exactly the line ``error: EXPECTED...`` (no traceback, no usage)."""
    assert len(lines) == 1 and lines[0].startswith("error: " + expected), lines


@pytest.fixture
def fake_model_dir(tmp_path):
    """Enough of a SavedModel for predict's checks that come before loading it."""
    d = tmp_path / "model" / "1"
    os.makedirs(d / "assets")
    write(d / "saved_model.pb", "")
    write(d / "assets" / "labels.txt", "negative\npositive\n")
    os.makedirs(d / "variables")
    write(d / "variables" / "variables.index", "")
    write(d / "variables" / "variables.data-00000-of-00001", "")
    return str(d)


def test_predict_reports_invalid_utf8_with_file_and_line(fake_model_dir, tmp_path):
    path = write(tmp_path / "in.txt", b"a good film\nbad \xff film\n", "wb")
    rc, out, err = _cli("training.predict", "--model-dir", fake_model_dir, "--input", path)
    assert rc == 2 and out == ""
    _one_error(err, f"{path}:2: not valid UTF-8 (byte 0xff at column 5)")
    rc, out, err = _cli("training.predict", "--model-dir", fake_model_dir, "-",
                        stdin=b"one\r\ntwo\r\n\xc3(\n")
    assert rc == 2 and out == ""
    _one_error(err, "<stdin>:3: not valid UTF-8 (byte 0xc3 at column 1)")


def test_predict_reads_lines_as_before(tmp_path):
    from kerasattn.cli import predict

    assert predict.decode_lines("café\r\nb\n\nlast".encode(), "x") == ["café", "b", "", "last"]
    assert predict.decode_lines(b"", "x") == []


def test_predict_reports_a_missing_input_file(fake_model_dir, tmp_path, capsys):
    from kerasattn.cli import predict

    missing = str(tmp_path / "nope.txt")
    assert predict.main(["--model-dir", fake_model_dir, "--input", missing]) == 2
    _one_error(capsys.readouterr().err.splitlines(), f"{missing}: No such file or directory")
    assert predict.main(["--model-dir", str(tmp_path), "x"]) == 2
    _one_error(capsys.readouterr().err.splitlines(), f"{tmp_path} is not a SavedModel")


def test_serving_client_validates_port_and_timeout(capsys):
    from kerasattn.cli import serving_client

    rc, out, err = _cli("training.serving_client", "--model", "m", "--port", "70000", "x")
    assert rc == 2 and out == ""  # was: a call to port 70000 % 65536 = 4464
    _one_error(err, "--port must be an integer in 1..65535, got 70000")
    for flag, value, message in (("--port", "0", "--port must be"),
                                 ("--port", "-1", "--port must be"),
                                 ("--timeout", "0", "--timeout must be a number of seconds > 0"),
                                 ("--timeout", "-5", "--timeout must be"),
                                 ("--timeout", "nan", "--timeout must be")):
        assert serving_client.main(["--model", "m", flag, value, "x"]) == 2, (flag, value)
        _one_error(capsys.readouterr().err.splitlines(), message)
    with pytest.raises(ValueError, match="--port"):
        serving_client.predict(["x"], "m", port=65536)
    with pytest.raises(ValueError, match="--timeout"):
        serving_client.predict(["x"], "m", timeout=0)


@pytest.fixture
def short_server():
    """A PredictionService that answers one row whatever it is sent."""
    import grpc
    import tensorflow as tf
    from tensorflow_serving.apis import predict_pb2, prediction_service_pb2_grpc

    class Service(prediction_service_pb2_grpc.PredictionServiceServicer):
        def Predict(self, request, context):
            response = predict_pb2.PredictResponse()
            response.outputs["probabilities"].CopyFrom(
                tf.make_tensor_proto(np.array([[0.2, 0.8]], np.float32)))
            response.outputs["label"].CopyFrom(tf.make_tensor_proto(np.array([1], np.int64)))
            return response

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    prediction_service_pb2_grpc.add_PredictionServiceServicer_to_server(Service(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield port
    server.stop(None)


def test_serving_client_reports_an_answer_with_too_few_rows(short_server, capsys):
    from kerasattn.cli import serving_client

    args = ["--model", "m", "--host", "127.0.0.1", "--port", str(short_server), "--timeout", "20"]
    assert serving_client.main([*args, "a", "b", "c"]) == 1  # was: IndexError
    captured = capsys.readouterr()
    assert captured.out == ""
    _one_error(captured.err.splitlines(), "the server answered 1 row of 'label' for 3 texts")
    with pytest.raises(serving_client.ServingError, match="1 row of 'label' for 2 texts"):
        serving_client.predict(["a", "b"], "m", "127.0.0.1", short_server, timeout=20)
    assert serving_client.main([*args, "one text"]) == 0
    assert json.loads(capsys.readouterr().out)["label"] == 1


def _run_dir(path, class_names=("negative", "positive"), finished=True, model=True):
    """A Keras run directory as training.train leaves it (a tiny mlp, untrained)."""
    import keras

    from kerasattn import models, ownership, runs
    from kerasattn.data.preprocessing import TextPreprocessor

    ownership.make_dir(path, "run")  # kerasattn's own, as training.train makes it
    runs.write_config(path, {"kind": "keras", "model": "mlp", "dataset": "sst2", "seed": 0,
                             "train": {"batch_size": 8, "val_fraction": 0.1},
                             "class_names": list(class_names)})
    if model:
        keras.utils.set_random_seed(0)
        pre = TextPreprocessor().adapt(TRAIN)
        pre.save(path)
        m = models.get("mlp", vocab_size=pre.vocabulary_size, num_classes=len(class_names),
                       embedding_dim=4, hidden_units=4)
        m.save(os.path.join(path, runs.KERAS_MODEL))
    else:
        write(os.path.join(path, runs.KERAS_MODEL), "")  # never loaded
    if finished:
        runs.write_json(os.path.join(path, runs.METRICS), {"test": {"accuracy": 0.5}})
    else:
        os.makedirs(os.path.join(path, "backup"))
    return path


def test_export_refuses_an_unfinished_run_unless_allowed(tmp_path, capsys):
    from kerasattn.cli import export as export_cmd
    from kerasattn.cli import predict

    run = _run_dir(str(tmp_path / "run"), finished=False)
    base = str(tmp_path / "served")
    assert export_cmd.main(["--run", run, "--output", base]) == 2
    captured = capsys.readouterr()
    _one_error(captured.err.splitlines(), f"{run} is an unfinished run (no metrics.json)")
    assert "--allow-unfinished" in captured.err and captured.out == ""
    assert not os.path.exists(base)

    assert export_cmd.main(["--run", run, "--output", base, "--allow-unfinished"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"warning: {run} is an unfinished run (no metrics.json): exporting its best epoch so "
        f"far, not a finished model"]
    assert captured.out.strip() == f"wrote {os.path.join(base, '1')}"
    assert predict.main(["--model-dir", os.path.join(base, "1"), "a good film"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert set(row["probabilities"]) == {"negative", "positive"}

    write(os.path.join(run, "metrics.json"), "{}")  # finished: no flag, no warning
    assert export_cmd.main(["--run", run, "--output", base]) == 0
    assert capsys.readouterr().err == ""


def test_export_refuses_an_unfinished_run_before_its_first_epoch(tmp_path, capsys):
    from kerasattn import runs
    from kerasattn.cli import export as export_cmd

    run = _run_dir(str(tmp_path / "run"), finished=False)
    os.remove(os.path.join(run, runs.KERAS_MODEL))
    assert export_cmd.main(["--run", run, "--allow-unfinished"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("warning: ")
    _one_error(err[1:], f"{run} has no model.keras")


def test_export_command_refuses_a_class_name_with_a_line_break(tmp_path, capsys):
    from kerasattn.cli import export as export_cmd

    run = _run_dir(str(tmp_path / "run"), class_names=["neg", "very\ngood"], model=False)
    base = str(tmp_path / "served")
    assert export_cmd.main(["--run", run, "--output", base]) == 2
    _one_error(capsys.readouterr().err.splitlines(),
               "class 1 has a name with a line break ('very\\ngood')")
    assert not os.path.exists(base)
