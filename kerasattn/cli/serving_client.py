"""A small gRPC client for a kerasattn model behind TensorFlow Serving.

    kerasattn serving-client --model imdb "a great film" "dull"
    kerasattn serving-client --host localhost --port 8500 --model imdb \\
        --signature explain "a great film"

Sends a ``PredictRequest`` (``tensorflow-serving-api``) with the texts as the
``text`` input and prints one JSON object per text with every output of the
signature (``serving_default``: probabilities, label, label_name; ``explain``:
tokens and the attention tensors, padding tokens dropped from ``tokens``).
:func:`predict` is the same as a library call.

Errors are one ``error: ...`` line on stderr: exit status 2 for a bad command line
(``--port`` outside 1..65535, ``--timeout`` not > 0), 1 for a failed call (the gRPC
status, or an answer that does not have one row per text).
"""

import argparse
import json
import sys

from kerasattn.cli.parsing import ArgumentParser, Bounds, integer, utf8_text

# the rules of check_options (a library call's arguments and the flags alike)
PORT = Bounds(True, 1, 65535, wording="must be an integer in 1..65535, got {value}")
TIMEOUT = Bounds(False, 0, low_open=True, wording="must be a number of seconds > 0, got {value}")
VERSION = Bounds(True, 0, 2 ** 63 - 1, span=True, name="version")  # an int64 in the request


class ServingError(RuntimeError):
    """An answer of the server that does not fit the request."""


def check_options(port, timeout):
    """Raise ``ValueError`` for a port outside 1..65535 or a timeout that is not > 0."""
    PORT.check(port, "--port")
    TIMEOUT.check(timeout, "--timeout")


def check_rows(outputs, n):
    """Raise :class:`ServingError` unless every output has one row per text."""
    if not outputs:
        raise ServingError("the server answered no outputs")
    for name, value in sorted(outputs.items()):
        rows = value.shape[0] if getattr(value, "ndim", 0) else None
        if rows != n:
            raise ServingError(f"the server answered {'a scalar' if rows is None else rows} "
                               f"{'row' if rows == 1 else 'rows'} of {name!r} for {n} "
                               f"{'text' if n == 1 else 'texts'}")


def predict(texts, model, host="localhost", port=8500, signature="serving_default",
            timeout=30.0, version=None):
    """{output name: numpy array} for ``texts`` from TF Serving's PredictionService.

    Raises ``ValueError`` for a port outside 1..65535 or a timeout that is not > 0,
    ``grpc.RpcError`` for a failed call, and :class:`ServingError` when an output
    does not have one row per text."""
    texts = list(texts)
    check_options(port, timeout)
    import grpc  # optional: the "serving" extra
    import tensorflow as tf  # late: --help and bad flags answer without TensorFlow
    from tensorflow_serving.apis import (  # optional: the "serving" extra
        predict_pb2, prediction_service_pb2_grpc)

    request = predict_pb2.PredictRequest()
    request.model_spec.name = model
    request.model_spec.signature_name = signature
    if version is not None:
        request.model_spec.version.value = int(version)
    request.inputs["text"].CopyFrom(tf.make_tensor_proto(texts, dtype=tf.string))
    with grpc.insecure_channel(f"{host}:{port}") as channel:
        stub = prediction_service_pb2_grpc.PredictionServiceStub(channel)
        response = stub.Predict(request, timeout)
    outputs = {name: tf.make_ndarray(proto) for name, proto in response.outputs.items()}
    check_rows(outputs, len(texts))
    return outputs


def _jsonable(value):
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def _drop_padding(tokens):
    if isinstance(tokens, list):
        kept = [_drop_padding(t) for t in tokens]
        return [t for t in kept if t not in ("", [])]
    return tokens


def build_parser():
    p = ArgumentParser(prog="kerasattn serving-client", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("texts", nargs="+", type=utf8_text, help="texts to send")
    p.add_argument("--model", required=True, help="the model name in TF Serving's config")
    p.add_argument("--host", default="localhost")
    p.add_argument("--port", type=integer, default=8500, help="TF Serving's gRPC port (1..65535)")
    p.add_argument("--signature", default="serving_default",
                   choices=["serving_default", "explain"])
    p.add_argument("--version", type=VERSION, help="a model version (default: the latest)")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds (> 0)")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        check_options(args.port, args.timeout)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    import grpc  # optional: the "serving" extra

    try:
        outputs = predict(args.texts, args.model, args.host, args.port, args.signature,
                          args.timeout, args.version)
    except grpc.RpcError as e:
        print(f"error: {e.code().name}: {e.details()}", file=sys.stderr)
        return 1
    except ServingError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for i, text in enumerate(args.texts):
        row = {"text": text}
        for name, value in sorted(outputs.items()):
            row[name] = _jsonable(value[i])
        if "tokens" in row:
            row["tokens"] = _drop_padding(row["tokens"])
        print(json.dumps(row, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
