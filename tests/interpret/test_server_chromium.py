"""The explanation server's page in a real browser.

Headless Chromium is driven over the Chrome DevTools Protocol through
``--remote-debugging-pipe`` (JSON messages on file descriptors 3 and 4): the
standard library only, no WebDriver. The test types a text into the page,
submits it, waits for the answer and checks that the prediction and the most
attended word on the page are what the Python API gives for the same text;
then it changes k on the page and waits for the re-queried deletion.

Without a browser the test skips, except under CI (the environment variable CI
set, as .ci/run does), where it fails: CI must never skip it silently.

``python -m tests.interpret.test_server_chromium RUN_DIR PNG [TEXT...]`` saves a
screenshot of the page with the answer for TEXT (how docs/images/explain-server.png
is made).
"""

import base64
import json
import os
import select
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import pytest

from tests.render import find_browser
from tests.conftest import require_browser

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-default-apps", "--disable-extensions", "--disable-quic",
         "--mute-audio", "--hide-scrollbars")


_TRAMPOLINE = """\
import fcntl, os, sys
r, w = (fcntl.fcntl(int(fd), fcntl.F_DUPFD, 5) for fd in sys.argv[1:3])
os.dup2(r, 3)
os.dup2(w, 4)
for fd in (r, w, int(sys.argv[1]), int(sys.argv[2])):
    if fd not in (3, 4):
        os.close(fd)
os.set_inheritable(3, True)
os.set_inheritable(4, True)
os.execv(sys.argv[3], sys.argv[3:])
"""


class Chromium:
    """Headless Chromium driven over the DevTools protocol on a pipe (one page)."""

    def __init__(self, browser, width=1100, height=900, timeout=60):
        self.timeout = timeout
        self.profile = tempfile.TemporaryDirectory(prefix="kerasattn-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # the browser reads commands on fd 3 and writes answers on fd 4: a small Python
        # process moves the pipe ends there and execs it (no preexec_fn in a process
        # with threads; sh cannot name descriptors above 9)
        cmd = [sys.executable, "-c", _TRAMPOLINE, str(to_browser_r), str(from_browser_w),
               browser, *FLAGS, "--remote-debugging-pipe",
               f"--user-data-dir={self.profile.name}", f"--window-size={width},{height}",
               "about:blank"]
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(cmd, pass_fds=(to_browser_r, from_browser_w),
                                        stdin=subprocess.DEVNULL, stdout=self.log,
                                        stderr=self.log)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer, self._next_id, self.events = b"", 0, []
        try:
            target = self.call("Target.createTarget", url="about:blank")["targetId"]
            self.session = self.call("Target.attachToTarget", targetId=target,
                                     flatten=True)["sessionId"]
            for domain in ("Page.enable", "Runtime.enable"):
                self.call(domain, session=True)
            self.call("Emulation.setDeviceMetricsOverride", session=True, width=width,
                      height=height, deviceScaleFactor=1, mobile=False)
        except Exception:
            self.close()
            raise

    # -- the protocol
    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from the browser")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"the browser closed the pipe:\n{self.output()}")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, session=False, **params):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def output(self):
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")[-3000:]

    # -- the page
    def evaluate(self, expression, await_promise=False):
        result = self.call("Runtime.evaluate", session=True, expression=expression,
                           returnByValue=True, awaitPromise=await_promise)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, timeout=60):
        """Poll ``expression`` until it is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"{expression!r} stayed false for {timeout} s; "
                                   f"page errors: {self.errors()}")
            time.sleep(0.1)

    def navigate(self, url):
        self.call("Page.navigate", session=True, url=url)
        self.wait_for("document.readyState === 'complete' && "
                      "document.body && document.body.dataset.state === 'ready'")

    def type_into(self, selector, text):
        """Focus the element and type ``text`` as keyboard input (one insertText)."""
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        self.call("Input.insertText", session=True, text=text)

    def click(self, selector):
        """A real mouse click in the middle of the element."""
        box = self.evaluate(f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                            ".getBoundingClientRect(); return [r.x + r.width / 2, "
                            "r.y + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", session=True, type=kind, x=box[0], y=box[1],
                      button="left", clickCount=1)

    def errors(self):
        """JavaScript exceptions and console errors seen so far."""
        out = []
        for e in self.events:
            if e.get("method") == "Runtime.exceptionThrown":
                out.append(e["params"]["exceptionDetails"].get("exception", {})
                           .get("description") or e["params"]["exceptionDetails"].get("text"))
            elif e.get("method") == "Runtime.consoleAPICalled" and \
                    e["params"].get("type") == "error":
                out.append(" ".join(str(a.get("value", a.get("description")))
                                    for a in e["params"]["args"]))
        return out

    def screenshot(self, path, full_page=True):
        params = {"format": "png"}
        if full_page:
            size = self.evaluate("[document.documentElement.scrollWidth, "
                                 "document.documentElement.scrollHeight]")
            params.update(captureBeyondViewport=True,
                          clip={"x": 0, "y": 0, "width": size[0], "height": size[1],
                                "scale": 1})
        data = self.call("Page.captureScreenshot", session=True, **params)["data"]
        with open(path, "wb") as fh:
            fh.write(base64.b64decode(data))
        return path

    def close(self):
        try:
            if self.process.poll() is None:
                try:
                    os.write(self._to_browser, json.dumps(
                        {"id": 10 ** 6, "method": "Browser.close"}).encode() + b"\0")
                    self.process.wait(10)
                except (OSError, subprocess.TimeoutExpired):
                    self.process.kill()
                    self.process.wait(10)
        finally:
            for fd in (self._to_browser, self._from_browser):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self.log.close()
            self.profile.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def explain_on_page(browser, url, text, k=None):
    """Type ``text`` into the page at ``url``, submit and wait for the answer."""
    browser.navigate(url)
    browser.type_into("#texts", text)
    if k is not None:
        browser.evaluate(f"document.getElementById('k').value = {int(k)}")
    browser.click("#submit")
    browser.wait_for("document.body.dataset.state === 'done' || "
                     "document.body.dataset.state === 'error'")
    assert browser.evaluate("document.body.dataset.state") == "done", \
        browser.evaluate("document.getElementById('error').textContent")


# -- the test ------------------------------------------------------------------------------

TEXT = "a good film. really great fun, a lovely story"
OPTIONS = {"sanet-base": ["embedding_dim=8", "d=8"],
           "hcan-2sa-target": ["d=16", "embedding_dim=8", "num_heads=2"]}


def _train(tmp_path, model):
    from kerasattn.cli import train

    good = ["a good film. fine acting", "great fun. a lovely story", "good and fine. really great"]
    bad = ["a bad film. poor acting", "awful plot. a dull story", "bad and poor. really awful"]
    csv = tmp_path / "d.csv"
    if not csv.exists():
        csv.write_text("text,label\n" + "".join(
            f"{(good if i % 2 else bad)[i % 3]} {i},{'pos' if i % 2 else 'neg'}\n"
            for i in range(60)), encoding="utf-8")
    argv = ["--model", model, "--dataset", f"csv:{csv}", "--epochs", "1",
            "--output-dir", str(tmp_path / "runs"), "--run-name", model, "--verbose", "0"]
    for option in OPTIONS[model]:
        argv += ["--model-option", option]
    return train.train(argv)[0]


@pytest.mark.parametrize("model", sorted(OPTIONS))
def test_the_page_shows_the_prediction_and_the_most_attended_word(model, tmp_path):
    browser_path = require_browser()
    from kerasattn.interpret import explain_tokens
    from kerasattn.explain_server import make_server
    from kerasattn.tasks import TextClassifier

    run = _train(tmp_path, model)
    clf = TextClassifier.from_run(run, compile=False)
    probs = clf.predict([TEXT], verbose=0)[0]
    expected_label = clf.class_names[int(np.argmax(probs))]
    attention = explain_tokens(clf, [TEXT], method="attention")[0]
    expected_word = attention.flat_tokens[int(np.argmax(attention.flat_scores))]

    server = make_server(run, host="127.0.0.1", port=0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with Chromium(browser_path) as browser:
            explain_on_page(browser, server.url, TEXT)
            assert browser.evaluate("document.querySelectorAll('.result').length") == 1
            assert browser.evaluate(
                "document.querySelector('.result .prediction').textContent") == expected_label
            assert browser.evaluate(
                "document.querySelector('.result .most-attended').textContent") == expected_word
            # every attention layer is drawn: a colour map and at least one heatmap
            layers = browser.evaluate(
                "[...document.querySelectorAll('.layer')].map(l => [l.dataset.layer, "
                "l.querySelectorAll('.w').length, l.querySelectorAll('canvas').length])")
            assert [name for name, _, _ in layers] == list(clf.explain([TEXT])[0].attention)
            assert all(words > 0 and canvases > 0 for _, words, canvases in layers), layers
            assert browser.evaluate(
                "document.querySelectorAll('.attribution-panel .w').length") == \
                len(attention.flat_tokens)
            # k on the page: the API is asked again and one word is deleted
            seq = browser.evaluate("document.body.dataset.seq")
            browser.evaluate("(() => { const k = document.getElementById('k'); k.value = 1; "
                             "k.dispatchEvent(new Event('input')); })()")
            browser.wait_for(f"document.body.dataset.seq !== {json.dumps(seq)} && "
                             "document.body.dataset.state === 'done'")
            assert browser.evaluate("document.querySelector('.deletion').dataset.k") == "1"
            assert browser.evaluate(
                "[...document.querySelectorAll('.deletion del')].map(d => d.textContent)") \
                == [expected_word]
            assert browser.errors() == []
    finally:
        server.shutdown()
        server.server_close()


def main(argv=None):
    """Save a screenshot of the page with an answer: RUN_DIR PNG [TEXT...]."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2:
        print(__doc__)
        return 2
    from kerasattn.explain_server import make_server

    run, png, texts = argv[0], argv[1], argv[2:] or [TEXT]
    browser_path = find_browser()
    if browser_path is None:
        print("error: no Chromium found", file=sys.stderr)
        return 2
    server = make_server(run, port=0, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with Chromium(browser_path, width=1100, height=900) as browser:
            explain_on_page(browser, server.url, "\n".join(texts))
            time.sleep(0.3)
            browser.screenshot(png)
            if browser.errors():
                print("page errors:", browser.errors(), file=sys.stderr)
    finally:
        server.shutdown()
        server.server_close()
    print(f"wrote {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
