"""An interactive explanation page: a local web server over one trained run.

    python -m training.explain --run runs/sanet-base-imdb --serve [--port 8765] [--host 127.0.0.1]

serves

- ``GET /``: a page with a text box (one text per line) that shows, for each
  text, the prediction and class probabilities, every attention layer as a
  colour map over the words and as a heatmap, a gradient attribution per word
  (diverging colours) and what happens to the prediction when the top-k
  attended words are deleted (k is a number input on the page; changing it
  asks the server again);
- ``GET /api/info``: the run's name, model, dataset, class names and the
  server's limits, as JSON;
- ``POST /api/explain`` with ``{"texts": [...], "k": 3, "attribution":
  "gradient_x_input" | "integrated_gradients", "steps": 50, "delete_by":
  "auto" | "attention" | "attribution"}`` (all but ``texts`` optional): per
  text, the predicted label (index and class name), the probabilities, the
  tokens (a list of sentences for hierarchical models), every attention
  layer's weights as :func:`~kerasattn.interpret.extract_attention` gives
  them with their axis names, the attention per token (the ``"attention"``
  method of :func:`~kerasattn.interpret.explain_tokens`), a gradient
  attribution per token and the prediction after the top-k attended words
  (top-k attributed, for models without attention) are deleted
  (:func:`~kerasattn.interpret.faithfulness.remove_tokens`).

Only the Python standard library serves (``http.server``'s
``ThreadingHTTPServer``, ``json``). The run directory is fixed when the server
starts; no request names a file, and only the routes above exist (anything
else is a 404). Requests are limited (:data:`MAX_BODY_BYTES`,
:data:`MAX_TEXTS`, :data:`MAX_TEXT_CHARS`, :data:`MAX_K`,
:data:`MAX_STEPS`), and so is an answer (:data:`MAX_ATTENTION_WEIGHTS`: a
self-attention matrix grows with the square of the text), and so is the work
of one request (:data:`MAX_WORK`: tokens × integrated-gradients steps, so one
request cannot hold the model for long); a bad request gets a JSON
``{"error": ...}`` with its status code (400 malformed, 403 a ``Host`` that is
not this server's, 404 unknown path, 405 wrong method, 411 no length, 413 too
large, 415 not JSON, 429 the model stayed busy for :data:`BUSY_SECONDS`).
Attention weights are sent as float32 numbers in their shortest form. The
model is not thread-safe (the attributions hook its embedding layers), so it
is called under one lock.

The server has no authentication: it binds to 127.0.0.1 unless told
otherwise; ``--host 0.0.0.0`` lets anyone who reaches the machine use it.
Bound to one address, it answers only requests whose ``Host`` is that address,
``localhost``, ``127.0.0.1`` or ``[::1]`` (a page of another site that a DNS
record points at 127.0.0.1 cannot read it: DNS rebinding).

In Python::

    from kerasattn.explain_server import make_server
    server = make_server("runs/sanet-base-imdb", port=0)   # 0: a free port
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.url)
    ...
    server.shutdown(); server.server_close()
"""

import http
import http.server
import json
import math
import os
import socket
import sys
import threading
import traceback

import numpy as np

from kerasattn import preset_dirs, runs
from kerasattn.explanation_pages import server_page
from kerasattn.interpret import Explanation, attention_layers
from kerasattn.interpret.attributions import (applicable_methods, explain_tokens,
                                              predict_probabilities, prepare_documents)
from kerasattn.interpret.faithfulness import rank_tokens
from kerasattn.tasks import TextClassifier

MAX_BODY_BYTES = 1_000_000
MAX_TEXTS = 32
MAX_TEXT_CHARS = 20_000
MAX_K = 1000
MAX_ATTENTION_WEIGHTS = 2_000_000  # per answer: about 22 MB of JSON
MAX_STEPS = 256
# token passes one request may ask of the model: the tokens of its texts (as the model
# reads them) times the integrated-gradients steps (1 for the other methods), plus the
# prediction and the deletion; at the limits of MAX_TEXTS, MAX_TEXT_CHARS and
# MAX_STEPS a request held the model for about 43 s before this bound
MAX_WORK = 200_000
BUSY_SECONDS = 30  # a request that waits this long for the model gets 429
DEFAULT_K = 3
DEFAULT_STEPS = 50
DEFAULT_PORT = 8765
ATTRIBUTIONS = ("gradient_x_input", "integrated_gradients")
DELETE_BY = ("auto", "attention", "attribution")
REQUEST_FIELDS = ("texts", "k", "attribution", "steps", "delete_by")


class RequestError(ValueError):
    """A bad request: its HTTP status and message."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = int(status)


def _plain(obj):
    """numpy arrays and scalars -> lists and floats; NaN/inf -> None (valid JSON)."""
    if isinstance(obj, np.ndarray):
        return _plain(obj.tolist())
    if isinstance(obj, (list, tuple)):
        return [_plain(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (np.floating, float)):
        f = float(obj)
        return f if math.isfinite(f) else None
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj


class _Float32Array:
    """An array sent as JSON numbers in float32's shortest form ("0.17091571"): half
    the size of float64 reprs, and exactly the float32 values once parsed back."""

    def __init__(self, array):
        self.array = np.asarray(array, np.float32)

    def json(self):
        a = self.array
        if a.size == 0:
            return json.dumps(a.tolist())
        text = a.astype(str)
        text[~np.isfinite(a)] = "null"

        def nest(x):
            if x.ndim == 1:
                return "[" + ",".join(x.tolist()) + "]"
            return "[" + ",".join(nest(y) for y in x) + "]"

        return nest(text) if a.ndim else str(text)


def dumps(obj):
    """``obj`` as JSON (UTF-8 bytes): numpy values as plain numbers, NaN/inf as null,
    :class:`_Float32Array` values in float32's shortest form."""
    nonce = os.urandom(8).hex()
    arrays = []

    def swap(o):
        if isinstance(o, _Float32Array):
            arrays.append(o)
            return f"@@{nonce}:{len(arrays) - 1}@@"
        if isinstance(o, dict):
            return {str(k): swap(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [swap(v) for v in o]
        return _plain(o)

    text = json.dumps(swap(obj), ensure_ascii=False, allow_nan=False)
    if arrays:  # the placeholders (a fresh nonce: no text can spell one) -> the numbers
        parts = text.split(f'"@@{nonce}:')
        text = parts[0] + "".join(arrays[int(p[:p.index("@")])].json() +
                                  p[p.index('@@"') + 3:] for p in parts[1:])
    return text.encode("utf-8")


class ExplainService:
    """One classifier and the computations behind ``/api/explain`` (thread-safe).

    Args:
        source: what to explain: a :class:`kerasattn.TextClassifier` (in memory), a
            preset location (a directory of ``save_to_preset``, a ``.keras`` file of
            ``save``, an ``hf://`` repository), or a Keras run directory of
            ``python -m training.train``.
        name: what the page calls it (default: the run directory's or file's name, or
            the classifier's).
    """

    def __init__(self, source, name=None):
        self.config = {}
        if isinstance(source, TextClassifier):
            if source.backbone is None:
                raise ValueError("the classifier has not been fitted: nothing to explain")
            self.classifier, default = source, source.name
        elif isinstance(source, (str, os.PathLike)) and (
                os.fspath(source).endswith(".keras") or os.fspath(source).startswith("hf://")
                or os.path.isfile(os.path.join(source, preset_dirs.METADATA))):
            path = os.fspath(source)
            self.classifier = preset_dirs.load(path, compile=False)
            default = os.path.basename(path.rstrip("/"))
        else:
            run_dir = os.fspath(source)
            if not os.path.isfile(os.path.join(run_dir, runs.CONFIG)):
                raise ValueError(f"{run_dir} is not a run directory (no {runs.CONFIG}), a "
                                 ".keras file or a TextClassifier")
            # the one check of a run every command makes (marker, schema, files)
            self.config = runs.open_run(run_dir, finished=False, need=[runs.KERAS_MODEL])
            self.classifier = TextClassifier.from_run(run_dir, compile=False)
            default = os.path.basename(os.path.abspath(run_dir).rstrip(os.sep))
        self.name = name or default
        self.model_name = self.config.get("model") or self.classifier.preset
        self.class_names = [str(c) for c in self.classifier.class_names]
        self.has_attention = bool(attention_layers(self.classifier.backbone))
        methods = applicable_methods(self.classifier)
        self.attention_ranking = "attention" in methods
        self.attributions = [m for m in ATTRIBUTIONS if m in methods]
        self.lock = threading.Lock()

    @property
    def info(self):
        """What the page shows about the run, and the server's limits."""
        return {
            "run": self.name,
            "model": self.model_name,
            "dataset": self.config.get("dataset"),
            "class_names": self.class_names,
            "hierarchical": bool(self.classifier.preprocessor.hierarchical),
            "attention": self.has_attention,
            "attributions": list(self.attributions),
            "limits": {"max_texts": MAX_TEXTS, "max_text_chars": MAX_TEXT_CHARS,
                       "max_work": MAX_WORK,
                       "max_body_bytes": MAX_BODY_BYTES, "max_k": MAX_K,
                       "max_steps": MAX_STEPS,
                       "max_attention_weights": MAX_ATTENTION_WEIGHTS},
            "defaults": {"k": DEFAULT_K, "steps": DEFAULT_STEPS,
                         "attribution": self.attributions[0] if self.attributions else None},
        }

    # -- requests -------------------------------------------------------------------
    def parse_request(self, body):
        """A decoded JSON object -> validated keyword arguments of :meth:`explain`.

        Raises:
            RequestError: 400 for a wrong field or type, 413 for too many or too long texts.
        """
        if not isinstance(body, dict):
            raise RequestError(400, "the request body must be a JSON object "
                                    '{"texts": ["...", ...]}')
        unknown = sorted(set(body) - set(REQUEST_FIELDS))
        if unknown:
            raise RequestError(400, f"unknown field(s) {unknown}; the fields are "
                                    f"{list(REQUEST_FIELDS)}")
        if "texts" not in body:
            raise RequestError(400, '"texts" is required: a list of strings')
        texts = body["texts"]
        if not isinstance(texts, list):
            raise RequestError(400, f'"texts" must be a list of strings, not '
                                    f"{type(texts).__name__}")
        if not texts:
            raise RequestError(400, '"texts" is empty: give at least one text')
        if len(texts) > MAX_TEXTS:
            raise RequestError(413, f"too many texts: {len(texts)} > {MAX_TEXTS} per request")
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise RequestError(400, f'"texts"[{i}] must be a string, not '
                                        f"{type(t).__name__}")
            try:
                t.encode("utf-8")
            except UnicodeEncodeError as e:
                raise RequestError(400, f'"texts"[{i}] holds a lone surrogate at character '
                                        f"{e.start}: not text") from None
            if len(t) > MAX_TEXT_CHARS:
                raise RequestError(413, f'"texts"[{i}] is too long: {len(t)} characters > '
                                        f"{MAX_TEXT_CHARS}")
            if not t.strip():
                raise RequestError(400, f'"texts"[{i}] is empty')
        k = _integer(body, "k", DEFAULT_K, 0, MAX_K)
        steps = _integer(body, "steps", DEFAULT_STEPS, 1, MAX_STEPS)
        attribution = body.get("attribution", None)
        if attribution is None:
            attribution = self.attributions[0] if self.attributions else None
        elif not isinstance(attribution, str) or attribution not in ATTRIBUTIONS:
            raise RequestError(400, f'"attribution" must be one of {list(ATTRIBUTIONS)}, got '
                                    f"{attribution!r}")
        elif attribution not in self.attributions:
            raise RequestError(400, f"{attribution!r} does not apply to model "
                                    f"{self.model_name!r}")
        delete_by = body.get("delete_by", "auto")
        if not isinstance(delete_by, str) or delete_by not in DELETE_BY:
            raise RequestError(400, f'"delete_by" must be one of {list(DELETE_BY)}, got '
                                    f"{delete_by!r}")
        if delete_by == "auto":
            delete_by = "attention" if self.attention_ranking else "attribution"
        if delete_by == "attention" and not self.attention_ranking:
            raise RequestError(400, f"model {self.model_name!r} has no attention to "
                                    'rank words by: use "delete_by": "attribution"')
        if delete_by == "attribution" and attribution is None:
            raise RequestError(400, f"model {self.model_name!r} has no gradient "
                                    "attribution to rank words by")
        return {"texts": texts, "k": k, "attribution": attribution, "steps": steps,
                "delete_by": delete_by}

    def explain(self, texts, k=DEFAULT_K, attribution="gradient_x_input",
                steps=DEFAULT_STEPS, delete_by="auto"):
        """The ``/api/explain`` answer for ``texts``: a dict for :func:`dumps`.

        Raises:
            RequestError: 413 when the answer would hold more than
                :data:`MAX_ATTENTION_WEIGHTS` attention weights.
        """
        clf = self.classifier
        if delete_by == "auto":
            delete_by = "attention" if self.attention_ranking else "attribution"
        _, docs, words, lay = prepare_documents(clf, texts)
        tokens = sum(len(lay.flatten(w)) for w in words)
        passes = steps if attribution == "integrated_gradients" else 1
        work = tokens * (passes + 2)
        if work > MAX_WORK:
            raise RequestError(413, f"this request asks for {work:,} token passes ({tokens:,} "
                                    f"tokens × ({passes} attribution steps + 2)); at most "
                                    f"{MAX_WORK:,}: send fewer or shorter texts, or fewer "
                                    "steps")
        if not self.lock.acquire(timeout=BUSY_SECONDS):
            raise RequestError(429, f"the model was busy for {BUSY_SECONDS} s with other "
                                    "requests; try again")
        try:
            if self.has_attention:
                explanations = clf.explain(texts)
                size = sum(w.size for ex in explanations for w in ex.attention.values())
                if size > MAX_ATTENTION_WEIGHTS:
                    raise RequestError(413, f"the answer would hold {size} attention weights "
                                            f"(at most {MAX_ATTENTION_WEIGHTS}): send fewer "
                                            "or shorter texts")
            else:  # clf.explain's tokens and probabilities, without keras.Model.predict
                explanations = [Explanation(tokens=w, probabilities=p.astype(np.float32),
                                            attention={}, axes={}, hierarchical=lay.hierarchical)
                                for w, p in zip(words, predict_probabilities(clf, docs))]
            attributions = (explain_tokens(clf, texts, method=attribution, steps=steps)
                            if attribution == "integrated_gradients" else
                            explain_tokens(clf, texts, method=attribution)
                            if attribution else [None] * len(texts))
            attention = (explain_tokens(clf, texts, method="attention")
                         if self.attention_ranking else [None] * len(texts))
            removed, reduced = [], []
            for doc, att, attr in zip(docs, attention, attributions):
                ranking_by = att if delete_by == "attention" else attr
                order = rank_tokens(ranking_by.flat_scores) if ranking_by is not None else []
                top = [int(i) for i in order[:k]]
                removed.append(top)
                reduced.append(lay.remove(doc, top))
            after = predict_probabilities(clf, reduced) if reduced else []
        finally:
            self.lock.release()
        results = []
        for i, ex in enumerate(explanations):
            probs = np.asarray(ex.probabilities, np.float64)
            label = int(np.argmax(probs))
            flat = lay.flatten(ex.tokens)
            att, attr = attention[i], attributions[i]
            result = {
                "text": texts[i],
                "label": label,
                "label_name": self.class_names[label],
                "probabilities": probs,
                "hierarchical": lay.hierarchical,
                "tokens": ex.tokens,
                "attention": {name: _Float32Array(w) for name, w in ex.attention.items()},
                "axes": {name: list(axes) for name, axes in ex.axes.items()},
                "attention_scores": None,
                "most_attended": None,
                "attribution": None,
            }
            if att is not None:
                scores = att.flat_scores
                result["attention_scores"] = lay.nest(scores, ex.tokens)
                if len(scores):
                    top = int(rank_tokens(scores)[0])
                    result["most_attended"] = {"index": top, "token": flat[top],
                                               "score": scores[top]}
            if attr is not None:
                result["attribution"] = {
                    "method": attr.method, "target": int(attr.target),
                    "target_name": self.class_names[int(attr.target)],
                    "scores": lay.nest(attr.flat_scores, ex.tokens),
                    **{key: attr.extras[key] for key in ("completeness_gap",)
                       if key in attr.extras}}
            p = np.asarray(after[i], np.float64)
            new_label = int(np.argmax(p))
            gone = set(removed[i])
            kept = [w for j, w in enumerate(flat) if j not in gone]
            result["deletion"] = {
                "k": len(removed[i]),
                "by": delete_by,
                "removed": [{"index": j, "token": flat[j]} for j in removed[i]],
                "tokens": kept,
                "label": new_label,
                "label_name": self.class_names[new_label],
                "probabilities": p,
                "change": float(p[label] - probs[label]),
            }
            results.append(result)
        info = self.info
        return {"run": info["run"], "model": info["model"], "dataset": info["dataset"],
                "class_names": self.class_names, "k": k, "attribution": attribution,
                "delete_by": delete_by, "results": results}


def _integer(body, name, default, low, high):
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(400, f'"{name}" must be an integer, got {value!r}')
    if not low <= value <= high:
        raise RequestError(400, f'"{name}" must be in [{low}, {high}], got {value}')
    return value


# -- HTTP ------------------------------------------------------------------------------

ROUTES = {"/": ("GET", "HEAD"), "/index.html": ("GET", "HEAD"),
          "/api/info": ("GET", "HEAD"), "/api/explain": ("POST",)}


class ExplainHandler(http.server.BaseHTTPRequestHandler):
    """The routes of :data:`ROUTES`; every error is a JSON ``{"error": ...}``."""

    server_version = "kerasattn-explain"
    sys_version = ""
    timeout = 60  # seconds a slow client may take to send its request

    # -- plumbing
    def log_message(self, format, *args):
        if not getattr(self.server, "quiet", False):
            super().log_message(format, *args)

    def _send(self, status, body, content_type, extra_headers=(), head=False):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        for key, value in extra_headers:
            self.send_header(key, value)
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _json(self, status, obj, extra_headers=(), head=False):
        body = dumps(obj)
        self._send(status, body, "application/json; charset=utf-8", extra_headers, head)

    def _error(self, status, message, extra_headers=()):
        self.close_connection = True
        self._json(status, {"error": message, "status": int(status)}, extra_headers,
                   head=self.command == "HEAD")

    def send_error(self, code, message=None, explain=None):
        """http.server's own errors (bad request line, unsupported method, ...) as JSON."""
        try:
            phrase = http.HTTPStatus(code).phrase
        except ValueError:
            phrase = "error"
        self._error(code, message or phrase)

    def _route(self):
        host = self.headers.get("Host")
        if host is not None and not self.server.accepts_host(host):
            self._error(403, f"Host {host[:100]!r} is not this server's; open "
                             f"{self.server.url}")
            return None
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if path not in ROUTES:
            self._error(404, f"no such page: {path[:200]!r}; the routes are "
                             f"{sorted(ROUTES)}")
            return None
        if self.command not in ROUTES[path]:
            allowed = ", ".join(ROUTES[path])
            self._error(405, f"{self.command} is not allowed on {path}; use {allowed}",
                        [("Allow", allowed)])
            return None
        return path

    # -- methods
    def do_GET(self):
        path = self._route()
        if path in ("/", "/index.html"):
            self._send(200, self.server.page, "text/html; charset=utf-8",
                       [("Content-Security-Policy", _CSP)], head=self.command == "HEAD")
        elif path == "/api/info":
            self._json(200, self.server.service.info, head=self.command == "HEAD")

    do_HEAD = do_GET

    def do_POST(self):
        if self._route() != "/api/explain":
            return
        try:
            request = self._read_json()
            kwargs = self.server.service.parse_request(request)
        except RequestError as e:
            self._error(e.status, str(e))
            return
        try:
            answer = self.server.service.explain(**kwargs)
        except RequestError as e:
            self._error(e.status, str(e))
            return
        except Exception as e:  # the model failed: say so, keep serving
            traceback.print_exc(file=sys.stderr)
            self._error(500, f"the model failed on this request: {type(e).__name__}: {e}")
            return
        self._json(200, answer)

    def _other(self):
        self._route()

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_CONNECT = _other

    def _read_json(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            raise RequestError(411, "chunked bodies are not accepted: send Content-Length")
        length = self.headers.get("Content-Length")
        if length is None:
            raise RequestError(411, "Content-Length is required")
        try:
            length = int(length)
            if length < 0:
                raise ValueError
        except ValueError:
            raise RequestError(400, f"bad Content-Length {length!r}") from None
        if length > MAX_BODY_BYTES:
            raise RequestError(413, f"request body too large: {length} bytes > "
                                    f"{MAX_BODY_BYTES}")
        content_type = self.headers.get("Content-Type", "")
        if content_type.split(";", 1)[0].strip().lower() != "application/json":
            raise RequestError(415, "the body must be JSON with Content-Type: "
                                    f"application/json, not {content_type[:100]!r}")
        raw = self.rfile.read(length)
        if len(raw) != length:
            raise RequestError(400, f"the body ended after {len(raw)} of {length} bytes")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise RequestError(400, "the body is not UTF-8") from None
        try:
            return json.loads(text)
        except (json.JSONDecodeError, RecursionError) as e:
            raise RequestError(400, f"the body is not valid JSON: {e}") from None


# the page is self-contained: no script, style or image from anywhere else
_CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
        "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'")


class ExplainServer(http.server.ThreadingHTTPServer):
    """A ThreadingHTTPServer holding the :class:`ExplainService` and the page."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # a burst of connections waits instead of being reset

    def __init__(self, address, service, quiet=False):
        self.service = service
        self.quiet = quiet
        self.page = server_page(service.info).encode("utf-8")
        super().__init__(address, ExplainHandler)

    def accepts_host(self, host):
        """Whether a request's ``Host`` header names this server: bound to one address,
        that address, localhost, 127.0.0.1 or [::1] (any port); bound to every address
        (0.0.0.0, ::), any host."""
        bound = self.server_address[0]
        if bound in ("0.0.0.0", "::", ""):
            return True
        name = host.strip().lower()
        if name.startswith("["):  # [::1]:8765
            name = name[1:].split("]", 1)[0]
        elif name.count(":") == 1:
            name = name.split(":", 1)[0]
        return name in {bound.lower(), "localhost", "127.0.0.1", "::1"}

    @property
    def url(self):
        host, port = self.server_address[:2]
        if ":" in host:
            host = f"[{host}]"
        elif host in ("0.0.0.0", ""):
            host = "127.0.0.1"
        return f"http://{host}:{port}/"


class _ExplainServer6(ExplainServer):
    address_family = socket.AF_INET6


def make_server(source, host="127.0.0.1", port=DEFAULT_PORT, quiet=False, name=None):
    """The (not yet serving) server of ``source`` bound to ``host:port`` (0: a free port).

    ``source``: a :class:`kerasattn.TextClassifier`, a preset directory, a ``.keras`` file
    or an ``hf://`` repository of one, or a Keras run directory (:class:`ExplainService`; ``ValueError`` for anything else). Call
    ``serve_forever()`` on it (e.g. in a thread), then ``shutdown()`` and
    ``server_close()``; ``server.url`` is its address.
    """
    service = ExplainService(source, name=name)
    cls = _ExplainServer6 if ":" in host else ExplainServer
    return cls((host, int(port)), service, quiet=quiet)


def serve(source, host="127.0.0.1", port=DEFAULT_PORT, quiet=False, name=None):
    """Serve the explanation page of ``source`` (as :func:`make_server`) until
    interrupted (Ctrl-C); returns 0."""
    server = make_server(source, host, port, quiet=quiet, name=name)
    info = server.service.info
    dataset = f", dataset {info['dataset']}" if info["dataset"] else ""
    print(f"serving {info['model']} ({info['run']}{dataset}) at "
          f"{server.url}  (Ctrl-C to stop)", flush=True)
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: bound to {host}: anyone who can reach this machine can use the "
              "page (there is no authentication)", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped", flush=True)
    finally:
        server.server_close()
    return 0
