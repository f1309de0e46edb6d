"""The explanation server: its JSON API against the Python API, and bad requests.

One tiny run per model family is trained once for the module, when a test first asks
for it (SANet, hierarchical HCAN, IRAM, the Transformer, and a CNN without attention);
each gets a server on a free loopback port.
"""

import http.client
import json
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from kerasattn.explain_server import (MAX_BODY_BYTES, MAX_TEXT_CHARS, MAX_TEXTS,
                                        make_server)

OPTIONS = {
    "sanet-base": ["embedding_dim=8", "d=8"],
    "hcan-2sa-target": ["d=16", "embedding_dim=8", "num_heads=2"],
    "iram-vanilla": ["embedding_dim=8", "units=8", "maxout_units=6"],
    "transformer": ["embedding_dim=16", "ff_dim=8"],
    "cnn": ["embedding_dim=8", "filters=4"],
}
FAMILIES = list(OPTIONS)
TEXTS = ["a good film. really great fun, a lovely story",
         "bad and poor. awful. a dull plot",
         "good",
         "an unseen word: zyzzyva!"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """family -> its run directory, trained (in seconds) the first time a test asks."""
    from kerasattn.cli import train

    tmp = tmp_path_factory.mktemp("server-runs")
    good = ["a good film. fine acting", "great fun. a lovely story", "good and fine. really great"]
    bad = ["a bad film. poor acting", "awful plot. a dull story", "bad and poor. really awful"]
    csv = tmp / "d.csv"
    csv.write_text("text,label\n" + "".join(
        f"{(good if i % 2 else bad)[i % 3]} {i},{'pos' if i % 2 else 'neg'}\n"
        for i in range(60)), encoding="utf-8")

    class Runs(dict):
        def __missing__(self, model):
            argv = ["--model", model, "--dataset", f"csv:{csv}", "--epochs", "1",
                    "--output-dir", str(tmp / "runs"), "--run-name", model, "--verbose", "0"]
            for option in OPTIONS[model]:
                argv += ["--model-option", option]
            self[model] = train.train(argv)[0]
            return self[model]

    return Runs()


@pytest.fixture(scope="module")
def servers(runs):
    """family -> a serving server on a free loopback port, started the first time a
    test asks."""

    class Servers(dict):
        def __missing__(self, model):
            server = make_server(runs[model], port=0, quiet=True)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            self[model] = server
            return server

    started = Servers()
    try:
        yield started
    finally:
        for server in started.values():
            server.shutdown()
            server.server_close()


def request(server, method, path, body=None, headers=None):
    """(status, headers, decoded JSON or text) of one request; ``body`` is sent as it is
    (bytes or str), or as JSON."""
    host, port = server.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=120)
    try:
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode("utf-8")
        headers = {"Content-Type": "application/json", **(headers or {})}
        conn.request(method, path, body=body, headers=headers)
        r = conn.getresponse()
        raw = r.read()
        kind = r.getheader("Content-Type", "")
        data = json.loads(raw) if kind.startswith("application/json") else raw.decode()
        return r.status, r, data
    finally:
        conn.close()


def explain(server, texts, **options):
    status, _, data = request(server, "POST", "/api/explain", {"texts": texts, **options})
    assert status == 200, data
    return data


def _nested_close(a, b, atol):
    if isinstance(b, (list, tuple)) and b and isinstance(b[0], (list, tuple, np.ndarray)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _nested_close(x, y, atol)
    else:
        np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64),
                                   atol=atol, rtol=0)


# -- the API against the Python API -----------------------------------------------------

# IRAM's answer with -m slow: the families the other tests here read, by default
@pytest.mark.parametrize("family", [pytest.param(f, marks=pytest.mark.slow)
                                    if f == "iram-vanilla" else f for f in FAMILIES])
def test_the_api_answers_what_the_python_api_gives(family, runs, servers):
    from kerasattn.interpret import explain_tokens
    from kerasattn.interpret.attributions import predict_probabilities, prepare_documents
    from kerasattn.interpret.faithfulness import rank_tokens, remove_tokens
    from kerasattn.tasks import TextClassifier

    data = explain(servers[family], TEXTS, k=2)
    clf = TextClassifier.from_run(runs[family], compile=False)
    explanations = clf.explain(TEXTS)
    probabilities = clf.predict(TEXTS, verbose=0)
    grads = explain_tokens(clf, TEXTS, method="gradient_x_input")
    attention = explain_tokens(clf, TEXTS, method="attention") if family != "cnn" else None
    _, docs, _, lay = prepare_documents(clf, TEXTS)

    assert data["model"] == family and data["run"] == family
    assert data["class_names"] == clf.class_names == ["neg", "pos"]
    assert data["k"] == 2 and data["attribution"] == "gradient_x_input"
    assert data["delete_by"] == ("attribution" if family == "cnn" else "attention")
    assert len(data["results"]) == len(TEXTS)
    for i, (res, ex) in enumerate(zip(data["results"], explanations)):
        assert res["text"] == TEXTS[i]
        assert res["label"] == ex.label == int(np.argmax(probabilities[i]))
        assert res["label_name"] == clf.class_names[ex.label]
        np.testing.assert_allclose(res["probabilities"], probabilities[i], atol=1e-5, rtol=0)
        np.testing.assert_allclose(res["probabilities"], ex.probabilities, atol=1e-5, rtol=0)
        assert res["hierarchical"] is ex.hierarchical is (family == "hcan-2sa-target")
        assert res["tokens"] == ex.tokens
        # every attention layer, in order, with its axes and the same weights (a model
        # without attention: none, and clf.explain's gradient attribution in their place)
        layers = ex.attention
        assert list(res["attention"]) == list(layers)
        assert res["axes"] == {name: list(axes) for name, axes in ex.axes.items()}
        for name, weights in layers.items():
            got = np.asarray(res["attention"][name], np.float32)
            assert got.shape == weights.shape, name
            np.testing.assert_allclose(got, weights, atol=1e-6, rtol=0)
        assert (family == "cnn") == (not layers) == (ex.attribution is not None)
        # the gradient attribution, nested like the tokens
        a = res["attribution"]
        assert a["method"] == "gradient_x_input" and a["target"] == res["label"]
        _nested_close(a["scores"], grads[i].scores, atol=1e-6)
        if lay.hierarchical:
            assert [len(s) for s in a["scores"]] == [len(s) for s in ex.tokens]
        # the top-k attended (attributed, without attention) words deleted
        ranking = attention[i] if attention is not None else grads[i]
        if attention is not None:
            _nested_close(res["attention_scores"], attention[i].scores, atol=1e-6)
            top = int(np.argmax(attention[i].flat_scores))
            assert res["most_attended"]["index"] == top
            assert res["most_attended"]["token"] == attention[i].flat_tokens[top]
        else:
            assert res["attention_scores"] is None and res["most_attended"] is None
        removed = [int(j) for j in rank_tokens(ranking.flat_scores)[:2]]
        d = res["deletion"]
        assert [r["index"] for r in d["removed"]] == removed
        assert [r["token"] for r in d["removed"]] == [ranking.flat_tokens[j] for j in removed]
        assert d["k"] == len(removed) and d["tokens"] == [
            w for j, w in enumerate(ranking.flat_tokens) if j not in removed]
        after = predict_probabilities(clf, [remove_tokens(docs[i], removed, lay.hierarchical)])[0]
        np.testing.assert_allclose(d["probabilities"], after, atol=1e-5, rtol=0)
        assert d["label"] == int(np.argmax(after))
        label = res["label"]
        assert d["change"] == pytest.approx(after[label] - res["probabilities"][label], abs=1e-5)


def test_integrated_gradients_on_request_and_k(runs, servers):
    from kerasattn.interpret import explain_tokens
    from kerasattn.tasks import TextClassifier

    server = servers["hcan-2sa-target"]
    data = explain(server, TEXTS[:2], attribution="integrated_gradients", steps=8, k=0)
    clf = TextClassifier.from_run(runs["hcan-2sa-target"], compile=False)
    expected = explain_tokens(clf, TEXTS[:2], method="integrated_gradients", steps=8)
    for res, ig in zip(data["results"], expected):
        assert res["attribution"]["method"] == "integrated_gradients"
        _nested_close(res["attribution"]["scores"], ig.scores, atol=1e-6)
        assert res["attribution"]["completeness_gap"] == pytest.approx(
            ig.extras["completeness_gap"], abs=1e-6)
        # k = 0 deletes nothing: the same prediction
        assert res["deletion"]["k"] == 0 and res["deletion"]["removed"] == []
        np.testing.assert_allclose(res["deletion"]["probabilities"], res["probabilities"],
                                   atol=1e-6)
    # k beyond the text deletes every word; ranking by attribution on request
    data = explain(server, ["good"], k=50, delete_by="attribution")
    d = data["results"][0]["deletion"]
    assert data["delete_by"] == d["by"] == "attribution"
    assert d["k"] == 1 and d["tokens"] == []


def test_the_page_and_the_run_info(servers):
    server = servers["sanet-base"]
    assert server.server_address[0] == "127.0.0.1"
    status, r, page = request(server, "GET", "/")
    assert status == 200 and r.getheader("Content-Type").startswith("text/html")
    assert "Content-Security-Policy" in r.headers
    for needle in ("<textarea", 'id="submit"', "sanet-base", "csv:", "api/explain",
                   'type="number"'):
        assert needle in page, needle
    status, _, info = request(server, "GET", "/api/info")
    assert status == 200 and info["model"] == "sanet-base" and info["run"] == "sanet-base"
    assert info["dataset"].startswith("csv:") and info["class_names"] == ["neg", "pos"]
    assert info["limits"]["max_texts"] == MAX_TEXTS
    assert info["attributions"] == ["gradient_x_input", "integrated_gradients"]
    status, r, body = request(server, "HEAD", "/")
    assert status == 200 and body == "" and int(r.getheader("Content-Length")) == len(
        page.encode())


def test_concurrent_requests_get_the_answers_of_sequential_ones(servers):
    server = servers["transformer"]
    bodies = [[t] for t in TEXTS] + [TEXTS[:2], TEXTS[2:]]
    sequential = [explain(server, b) for b in bodies]
    with ThreadPoolExecutor(6) as pool:
        concurrent = list(pool.map(lambda b: explain(server, b), bodies))
    for a, b in zip(sequential, concurrent):
        assert a["results"][0]["probabilities"] == b["results"][0]["probabilities"]
        assert a["results"][0]["attribution"] == b["results"][0]["attribution"]
        assert a["results"][0]["attention"] == b["results"][0]["attention"]


def test_weights_travel_as_exact_float32_numbers():
    from kerasattn.explain_server import _Float32Array, dumps

    rng = np.random.default_rng(0)
    a = rng.random((3, 4, 5)).astype(np.float32) ** 7  # down to tiny weights
    a[0, 0, 0] = np.nan
    text = dumps({"a": _Float32Array(a), "b": [_Float32Array(a[1]), np.float32(0.5)],
                  "tricky": "@@not-a-placeholder:0@@", "empty": _Float32Array(np.zeros((2, 0)))})
    back = json.loads(text)
    assert back["a"][0][0][0] is None
    got = np.asarray(back["a"], dtype=object)
    got[0, 0, 0] = np.nan
    np.testing.assert_array_equal(got.astype(np.float32), a)  # bit for bit
    np.testing.assert_array_equal(np.asarray(back["b"][0], np.float32), a[1])
    assert back["b"][1] == 0.5 and back["tricky"] == "@@not-a-placeholder:0@@"
    assert back["empty"] == [[], []]
    # float32's shortest form: about half the size of float64 reprs
    assert len(dumps({"a": _Float32Array(a)})) < 0.7 * len(json.dumps(a.astype(float).tolist()))


# -- bad requests -----------------------------------------------------------------------

@pytest.mark.parametrize("body, status, message", [
    (b"{not json", 400, "not valid JSON"),
    (b"\xff\xfe", 400, "not UTF-8"),
    ('["a text"]', 400, "JSON object"),
    ({}, 400, '"texts" is required'),
    ({"texts": "a text"}, 400, "must be a list"),
    ({"texts": []}, 400, "empty"),
    ({"texts": ["fine", 3]}, 400, r'"texts"\[1\] must be a string'),
    ({"texts": ["fine", None]}, 400, "must be a string"),
    ({"texts": ["  "]}, 400, "is empty"),
    ({"texts": ["x"], "k": "3"}, 400, '"k" must be an integer'),
    ({"texts": ["x"], "k": True}, 400, '"k" must be an integer'),
    ({"texts": ["x"], "k": 1.5}, 400, '"k" must be an integer'),
    ({"texts": ["x"], "k": -1}, 400, r'"k" must be in \[0'),
    ({"texts": ["x"], "steps": 0}, 400, '"steps" must be in'),
    ({"texts": ["x"], "attribution": "magic"}, 400, '"attribution" must be one of'),
    ({"texts": ["x"], "attribution": ["gradient_x_input"]}, 400, "must be one of"),
    ({"texts": ["x"], "delete_by": "chance"}, 400, '"delete_by" must be one of'),
    ({"texts": ["x"], "path": "/etc/passwd"}, 400, "unknown field"),
    ({"texts": ["x" * (MAX_TEXT_CHARS + 1)]}, 413, "too long"),
    ({"texts": ["x"] * (MAX_TEXTS + 1)}, 413, "too many texts"),
])
def test_bad_bodies_get_clear_json_errors(servers, body, status, message):
    import re

    got, r, data = request(servers["sanet-base"], "POST", "/api/explain", body)
    assert got == status, data
    assert r.getheader("Content-Type").startswith("application/json")
    assert data["status"] == status and re.search(message, data["error"]), data["error"]


def test_bad_requests_get_clear_json_errors(servers):
    server = servers["sanet-base"]
    good = {"texts": ["good"]}
    # wrong content type, no length, too large a body (refused before it is read)
    got, _, data = request(server, "POST", "/api/explain", json.dumps(good),
                           {"Content-Type": "text/plain"})
    assert got == 415 and "application/json" in data["error"]
    host, port = server.server_address[:2]
    for headers, status, message in [({}, 411, "Content-Length is required"),
                                     ({"Content-Length": str(MAX_BODY_BYTES + 1)}, 413,
                                      "too large"),
                                     ({"Content-Length": "-4"}, 400, "bad Content-Length"),
                                     ({"Transfer-Encoding": "chunked"}, 411, "chunked")]:
        conn = http.client.HTTPConnection(host, port, timeout=30)
        conn.putrequest("POST", "/api/explain")
        conn.putheader("Content-Type", "application/json")
        for key, value in headers.items():
            conn.putheader(key, value)
        conn.endheaders()
        r = conn.getresponse()
        data = json.loads(r.read())
        conn.close()
        assert r.status == status and message in data["error"], (headers, data)
    # the wrong method on a route: 405 with Allow
    for method, path, allowed in [("GET", "/api/explain", "POST"), ("PUT", "/api/explain", "POST"),
                                  ("DELETE", "/api/explain", "POST"), ("POST", "/", "GET, HEAD"),
                                  ("POST", "/api/info", "GET, HEAD")]:
        got, r, data = request(server, method, path, good if method != "GET" else None)
        assert got == 405 and r.getheader("Allow") == allowed, (method, path, data)
        assert "not allowed" in data["error"]
    # an answer too large (a self-attention matrix grows with the square of the text)
    from kerasattn import explain_server as server_module

    server_module.MAX_ATTENTION_WEIGHTS, saved = 10, server_module.MAX_ATTENTION_WEIGHTS
    try:
        got, _, data = request(server, "POST", "/api/explain", {"texts": ["good bad fine film"]})
    finally:
        server_module.MAX_ATTENTION_WEIGHTS = saved
    assert got == 413 and "16 attention weights (at most 10)" in data["error"]
    # an unknown method: 501, as JSON too
    got, _, data = request(server, "BREW", "/")
    assert got == 501 and "error" in data
    # the server still answers
    assert explain(server, ["good"])["results"][0]["tokens"] == ["good"]


@pytest.mark.parametrize("path", [
    "/nope", "/api", "/api/explain/", "/api/explain/../info", "/../../etc/passwd",
    "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd", "//etc/passwd",
    "/index.html/../../../etc/passwd", "/static/../../config.json", "/config.json",
    "/model.keras", "/vocab.txt", "/favicon.ico",
])
def test_unknown_paths_and_path_traversal_get_404(servers, path):
    for method in ("GET", "POST"):
        got, r, data = request(servers["sanet-base"], method, path,
                               {"texts": ["x"]} if method == "POST" else None)
        assert got == 404, (method, path, data)
        assert r.getheader("Content-Type").startswith("application/json")
        assert "root:" not in json.dumps(data) and "no such page" in data["error"]


# -- construction and the command line ------------------------------------------------------

def test_make_server_refuses_what_is_not_a_run(tmp_path):
    with pytest.raises(ValueError, match="not a run directory"):
        make_server(str(tmp_path), port=0)
    with pytest.raises(ValueError, match="no such file"):
        make_server(str(tmp_path / "missing.keras"), port=0)


def test_a_classifier_in_memory_or_saved_is_served_like_its_run(runs, tmp_path):
    """make_server takes a TextClassifier, its .keras file or its preset directory as
    well as a run directory: the same explanations, named by what was given."""
    from kerasattn import TextClassifier

    clf = TextClassifier.from_run(runs["sanet-base"], compile=False)
    path = str(tmp_path / "sanet.keras")
    clf.save(path)
    preset = clf.save_to_preset(str(tmp_path / "sanet-preset"))
    expected = None
    for source, name in ((runs["sanet-base"], "sanet-base"), (clf, "my-sanet"),
                         (path, "sanet.keras"), (preset, "sanet-preset")):
        server = make_server(source, port=0, quiet=True,
                             name="my-sanet" if source is clf else None)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            status, _, page = request(server, "GET", "/")
            assert status == 200 and name in page and "sanet-base" in page
            data = explain(server, TEXTS[:2])
        finally:
            server.shutdown()
            server.server_close()
        probabilities = [r["probabilities"] for r in data["results"]]
        if expected is None:
            expected = probabilities
        np.testing.assert_allclose(probabilities, expected, atol=1e-5)
    untrained = TextClassifier.from_preset("mlp", num_classes=2)
    with pytest.raises(ValueError, match="not been fitted"):
        make_server(untrained, port=0)


def test_the_command_line_serves_with_port_and_host(runs, monkeypatch, capsys):
    from kerasattn.cli import explain as cli
    from kerasattn import explain_server as server_module

    args = cli.build_parser().parse_args(["--run", "r", "--serve"])
    assert args.serve and args.port == 8765 and args.host == "127.0.0.1"
    calls = []
    monkeypatch.setattr(server_module, "serve",
                        lambda run, host, port: calls.append((run, host, port)) or 0)
    assert cli.main(["--run", runs["cnn"], "--serve", "--port", "0"]) == 0
    assert calls == [(runs["cnn"], "127.0.0.1", 0)]
    assert cli.main(["--run", runs["cnn"], "--serve", "--port", "9", "--host", "::1"]) == 0
    assert calls[-1] == (runs["cnn"], "::1", 9)
    # the static page still needs --output, and --serve takes no --output
    assert cli.main(["--run", runs["cnn"], "--text", "good"]) == 2
    assert "--output" in capsys.readouterr().err
    assert cli.main(["--run", runs["cnn"], "--serve", "--output", "x.html"]) == 2
    assert "--serve" in capsys.readouterr().err


def test_serve_prints_the_url_and_stops_on_interrupt(runs, monkeypatch, capsys):
    from kerasattn import explain_server as server_module

    def interrupted(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(server_module.ExplainServer, "serve_forever", interrupted)
    assert server_module.serve(runs["cnn"], port=0, quiet=True) == 0
    out = capsys.readouterr().out
    assert "http://127.0.0.1:" in out and "cnn" in out and "stopped" in out


def test_a_foreign_host_header_is_refused(servers):
    # DNS rebinding: a page of evil.example whose name resolves to 127.0.0.1
    server = servers["sanet-base"]
    port = server.server_address[1]
    for host in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example"):
        got, _, data = request(server, "GET", "/api/info", headers={"Host": host})
        assert got == 403 and "is not this server's" in data["error"], host
        got, _, _ = request(server, "POST", "/api/explain", {"texts": ["good"]},
                            {"Host": host})
        assert got == 403
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", f"[::1]:{port}"):
        assert request(server, "GET", "/api/info", headers={"Host": host})[0] == 200, host


def test_a_lone_surrogate_is_a_bad_request_not_a_server_error(servers):
    body = '{"texts": ["good \\ud800 film"]}'
    got, _, data = request(servers["sanet-base"], "POST", "/api/explain", body)
    assert got == 400 and "lone surrogate at character 5" in data["error"]


def test_one_request_cannot_hold_the_model_for_long(servers, monkeypatch):
    from kerasattn import explain_server as module

    server = servers["sanet-base"]
    monkeypatch.setattr(module, "MAX_WORK", 1_000)
    texts = [" ".join(["good film"] * 30)] * 2  # 120 tokens
    got, _, data = request(server, "POST", "/api/explain",
                           {"texts": texts, "attribution": "integrated_gradients",
                            "steps": 50})
    assert got == 413 and "token passes (120 tokens × (50 attribution steps + 2))" in \
        data["error"]
    assert request(server, "POST", "/api/explain", {"texts": ["good"]})[0] == 200
    # the model held by another request for longer than BUSY_SECONDS: 429, not a stall
    monkeypatch.setattr(module, "BUSY_SECONDS", 0.2)
    with server.service.lock:
        got, _, data = request(server, "POST", "/api/explain", {"texts": ["good"]})
    assert got == 429 and "busy" in data["error"]


def test_a_burst_of_connections_is_queued_not_reset(servers):
    server = servers["sanet-base"]
    assert server.request_queue_size >= 64
    with ThreadPoolExecutor(20) as pool:
        statuses = list(pool.map(lambda _: request(server, "GET", "/api/info")[0], range(20)))
    assert statuses == [200] * 20
