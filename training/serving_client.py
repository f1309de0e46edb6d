"""A small gRPC client for a kerasattn model behind TensorFlow Serving.

    python -m training.serving_client --model imdb "a great film" "dull"
    python -m training.serving_client --host localhost --port 8500 --model imdb \\
        --signature explain "a great film"

Sends a ``PredictRequest`` (``tensorflow-serving-api``) with the texts as the
``text`` input and prints one JSON object per text with every output of the
signature (``serving_default``: probabilities, label, label_name; ``explain``:
tokens and the attention tensors, padding tokens dropped from ``tokens``).
:func:`predict` is the same as a library call.
"""

import argparse
import json
import sys


def predict(texts, model, host="localhost", port=8500, signature="serving_default",
            timeout=30.0, version=None):
    """{output name: numpy array} for ``texts`` from TF Serving's PredictionService."""
    import grpc
    import tensorflow as tf
    from tensorflow_serving.apis import predict_pb2, prediction_service_pb2_grpc

    request = predict_pb2.PredictRequest()
    request.model_spec.name = model
    request.model_spec.signature_name = signature
    if version is not None:
        request.model_spec.version.value = int(version)
    request.inputs["text"].CopyFrom(tf.make_tensor_proto(list(texts), dtype=tf.string))
    with grpc.insecure_channel(f"{host}:{port}") as channel:
        stub = prediction_service_pb2_grpc.PredictionServiceStub(channel)
        response = stub.Predict(request, timeout)
    return {name: tf.make_ndarray(proto) for name, proto in response.outputs.items()}


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


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m training.serving_client", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("texts", nargs="+", help="texts to send")
    p.add_argument("--model", required=True, help="the model name in TF Serving's config")
    p.add_argument("--host", default="localhost")
    p.add_argument("--port", type=int, default=8500, help="TF Serving's gRPC port")
    p.add_argument("--signature", default="serving_default",
                   choices=["serving_default", "explain"])
    p.add_argument("--version", type=int, help="a model version (default: the latest)")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds")
    args = p.parse_args(argv)
    import grpc

    try:
        outputs = predict(args.texts, args.model, args.host, args.port, args.signature,
                          args.timeout, args.version)
    except grpc.RpcError as e:
        print(f"error: {e.code().name}: {e.details()}", file=sys.stderr)
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
