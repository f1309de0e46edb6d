"""The documentation: the site builds with --strict, every code example runs
or says why not, every docstring example runs, the pages render in a browser, and the
README, LICENSE, CITATION.cff and CHANGELOG.md are what they claim to be.

The code-example convention (docs/writing-docs.md): in README.md and docs/**/*.md,

- a fenced block of ``python`` or ``bash`` is run, the blocks of one page in page order
  in one fresh temporary working directory (python blocks share one namespace; bash
  blocks run with ``bash -euo pipefail`` and the checkout on PYTHONPATH);
- such a block whose line just above is ``<!-- not-run: REASON -->`` is not run, and the
  reason is required;
- ``text``, ``json``, ``yaml``, ``protobuf``, ``csv``, ``html`` and ``toml`` blocks are
  output or file contents, never run; any other language, or none, fails the check.

Docstring examples (``>>>``) run as doctests from a temporary directory; one that cannot
run carries ``# doctest: +SKIP`` after a ``>>> # not-run: REASON`` line.
"""

import dataclasses
import doctest
import functools
import http.server
import importlib
import io
import json
import os
import pathlib
import pkgutil
import re
import subprocess
import sys
import tempfile
import threading

import pytest

from tests.conftest import require_browser

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RUNNABLE = {"python", "bash"}
NOT_CODE = {"text", "json", "yaml", "protobuf", "csv", "html", "toml"}
NOT_RUN = re.compile(r"^\s*<!-- not-run: (?P<reason>\S.*?) -->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
# pages that need the real datasets (skipped without KERASATTN_DATA_DIR, as other tests)
NEEDS_DATA = re.compile(r"datasets\.load\(\"(?!csv:|jsonl:)|--dataset (?!csv:|jsonl:)")

# Docstring examples that fail as written (none now; a name here must still fail).
KNOWN_DOCTEST_FAILURES = {}


# -- the fenced blocks ------------------------------------------------------------------

@dataclasses.dataclass
class Block:
    path: pathlib.Path
    line: int  # 1-based line of the opening fence
    lang: str
    body: str
    reason: str | None  # the not-run reason, or None

    @property
    def where(self):
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def runs(self):
        return self.lang in RUNNABLE and self.reason is None


def pages():
    return [ROOT / "README.md"] + sorted(p for p in DOCS.rglob("*.md")
                                         if "_hooks" not in p.parts)


@functools.lru_cache(maxsize=None)
def blocks(path):
    """The fenced code blocks of a Markdown file, in order."""
    lines = pathlib.Path(path).read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence = m.group("indent"), m.group("fence")
        lang = m.group("info").strip().split(" ")[0].split("{")[0].strip()
        end = i + 1
        while end < len(lines) and not (lines[end].strip().startswith(fence[0] * len(fence))
                                        and not lines[end].strip().strip(fence[0])):
            end += 1
        if end == len(lines):
            raise AssertionError(f"{path}:{i + 1}: unclosed code fence")
        body = "\n".join(line[len(indent):] if line.startswith(indent) else line.lstrip()
                         for line in lines[i + 1:end]) + "\n"
        marker = NOT_RUN.match(lines[i - 1]) if i else None
        found.append(Block(pathlib.Path(path), i + 1, lang, body,
                           marker.group("reason") if marker else None))
        i = end + 1
    return tuple(found)


def block_after(path, heading, lang):
    """The first ``lang`` block after ``heading`` in a page."""
    text = pathlib.Path(path).read_text(encoding="utf-8")
    line = text[:text.index(heading)].count("\n") + 1
    return next(b for b in blocks(path) if b.line > line and b.lang == lang)


def test_every_code_block_runs_or_says_why_not():
    problems = []
    for page in pages():
        text_lines = page.read_text(encoding="utf-8").splitlines()
        fence_lines = {b.line for b in blocks(page)}
        inside = {n for b in blocks(page)
                  for n in range(b.line, b.line + b.body.count("\n") + 2)}
        for n, line in enumerate(text_lines, 1):
            if n in inside or not line.strip().startswith("<!-- not-run"):
                continue
            if not NOT_RUN.match(line) or n + 1 not in fence_lines:
                problems.append(f"{page.relative_to(ROOT)}:{n}: a not-run marker must be "
                                "'<!-- not-run: REASON -->' on the line just above a fence")
        for b in blocks(page):
            if not b.lang:
                problems.append(f"{b.where}: a code block without a language")
            elif b.lang not in RUNNABLE | NOT_CODE:
                problems.append(f"{b.where}: language {b.lang!r} is neither run "
                                f"({sorted(RUNNABLE)}) nor output ({sorted(NOT_CODE)})")
            elif b.reason is not None and b.lang not in RUNNABLE:
                problems.append(f"{b.where}: a not-run marker on a {b.lang} block")
    assert not problems, "\n".join(problems)
    assert sum(b.runs for p in pages() for b in blocks(p)) >= 10


# Pages whose examples run only with -m slow, and why; the default suite still parses
# their commands (test_every_command_of_the_docs_parses).
SLOW_PAGES = {
    "docs/getting-started.md": "the command-line quickstart is five fresh processes, about "
                               "90 s of CPU; by default tests/training/test_sanet_commands.py "
                               "trains and explains sanet-base on SST-2, and "
                               "tests/test_export.py exports and predicts",
}
COMMAND = re.compile(r"(?:^|(?<=[\s;&]))python -m (?:training|kerasattn\.cli)\."
                     r"(?P<module>\w+)\s+(?P<args>[^&;|]*)")


def pages_with_examples():
    return [pytest.param(p, id=str(p.relative_to(ROOT)),
                         marks=pytest.mark.slow if str(p.relative_to(ROOT)) in SLOW_PAGES else ())
            for p in pages() if any(b.runs for b in blocks(p))]


def commands_of(page):
    """(where, module, argv) of every ``python -m training.MODULE ...`` command in the
    page's bash blocks, run or not (a line continued with a backslash is one command)."""
    import shlex

    found = []
    for b in blocks(page):
        if b.lang != "bash":
            continue
        lines, n = b.body.splitlines(), 0
        while n < len(lines):
            start, line = n, lines[n]
            while line.endswith("\\") and n + 1 < len(lines):  # a continued line
                n += 1
                line = line[:-1] + " " + lines[n]
            n += 1
            for m in COMMAND.finditer(line.strip()):
                found.append((f"{b.path.relative_to(ROOT)}:{b.line + 1 + start}", m["module"],
                              shlex.split(m["args"], comments=True)))
    return found


def parse_command(module, argv):
    """``argv`` through ``training.<module>``'s own parser; ``training.train``'s (and
    ``portable prepare``'s) become a RunConfig. Raises SystemExit or ValueError."""
    from kerasattn.cli import portable, train

    if module == "train":
        return train.config_of(argv)
    if module == "portable":
        if argv[:1] == ["prepare"]:
            return None if argv[1:2] == ["--jobs"] else train.config_of(argv[1:])
        if argv[:1] == ["fit"]:
            return portable.build_fit_parser().parse_args(argv[1:])
        raise ValueError(f"portable {argv[:1]}: prepare or fit")
    return importlib.import_module(f"kerasattn.cli.{module}").build_parser().parse_args(argv)


def test_every_command_of_the_docs_parses(capsys):
    """Every ``python -m training.*`` command of the README and the docs, run by the tests
    or not, goes through its command's own parser, so a renamed flag or preset fails the
    default suite even where the example runs only with -m slow (SLOW_PAGES) or never."""
    for page in SLOW_PAGES:
        assert (ROOT / page).exists() and SLOW_PAGES[page]
        assert len(commands_of(ROOT / page)) >= 5
    found = [c for page in pages() for c in commands_of(page)]
    assert len(found) >= 40 and {m for _, m, _ in found} >= {
        "train", "evaluate", "explain", "export", "predict", "reproduce", "portable"}
    for where, module, argv in found:
        try:
            parse_command(module, argv)
        except (SystemExit, ValueError) as e:
            pytest.fail(f"{where}: training.{module} {' '.join(argv)}: {e!r}\n"
                        f"{capsys.readouterr().err}")


@pytest.mark.parametrize("page", pages_with_examples())
def test_the_examples_of_a_page_run(page, tmp_path, monkeypatch):
    runnable = [b for b in blocks(page) if b.runs]
    data = os.environ.get("KERASATTN_DATA_DIR")
    if any(NEEDS_DATA.search(b.body) for b in runnable) and not (data and os.path.isdir(data)):
        pytest.skip("set KERASATTN_DATA_DIR to the datasets mirror (../shared/datasets)")
    if data:
        monkeypatch.setenv("KERASATTN_DATA_DIR", os.path.abspath(data))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]),
        "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONUNBUFFERED": "1"}
    monkeypatch.chdir(tmp_path)
    # what an example registers (a recipe, a preset) stays in the example
    from kerasattn import recipes
    from kerasattn.models import registry

    recipes._ensure_builtin()
    monkeypatch.setattr(recipes, "_RECIPES", dict(recipes._RECIPES))
    monkeypatch.setattr(registry, "_PRESETS", dict(registry._PRESETS))
    namespace = {"__name__": "__docs_example__"}
    for b in runnable:
        if b.lang == "python":
            try:
                exec(compile(b.body, b.where, "exec"), namespace)
            except Exception as e:
                raise AssertionError(f"the example at {b.where} failed: {e!r}") from e
        else:
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", b.body], cwd=tmp_path,
                                  env=env, capture_output=True, text=True, timeout=900)
            assert done.returncode == 0, (f"the example at {b.where} failed "
                                          f"({done.returncode}):\n{done.stdout[-2000:]}\n"
                                          f"{done.stderr[-4000:]}")


# -- README --------------------------------------------------------------------------

README = ROOT / "README.md"


def test_the_readme_is_short_and_keeps_its_contracts():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    commands = ("python -m pip install -r requirements.txt && python -m training.train "
                "--model gru --dataset imdb --max-length 400 --epochs 4 --val-split grouped "
                "--early-stopping 1",
                "python -m pip install -r requirements-test.txt && python -m pytest")
    assert [b.body.strip() for b in blocks(README)[:2]] == list(commands)
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci
    # as a new user: a fresh virtual environment, activated before the command
    assert ci.index("python3 -m venv") < ci.index('/bin/activate"') < ci.index(commands[1])
    # the results section with the markers another script fills
    assert text.count("<!-- results:start -->") == 1 == text.count("<!-- results:end -->")
    results = text[text.index("\n## Results\n"):]
    results = results[:results.find("\n## ", 1)] if "\n## " in results[1:] else results
    table = results[results.index("<!-- results:start -->"):results.index("<!-- results:end -->")]
    assert table.count("\n|") >= 4
    for line in ("```bash", "pip install ."):
        assert line in text


# The README's results table is checked against the per-seed JSON records, not against the
# Markdown tables' 4-decimal figures (rounding those again gave 0.0125 -> 0.013 where the
# raw spread is 0.01246): tests/test_readme_figures.py.


def test_the_readme_quickstarts_are_the_docs_quickstarts():
    started = DOCS / "getting-started.md"
    for heading, lang in (("## Python quickstart", "python"),
                          ("## Command-line quickstart", "bash")):
        assert block_after(README, heading, lang).body == block_after(started, heading, lang).body
    assert block_after(started, "## Command-line quickstart", "bash").runs


def test_no_page_refers_outside_the_repository():
    bad = re.compile(r"\.\./shared|/work/|shared/(papers|datasets|DESIGN)")
    for page in pages() + [ROOT / "CHANGELOG.md"]:
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if bad.search(line) and "KERASATTN_DATA_DIR" not in line \
                    and "../shared/datasets" not in line:
                pytest.fail(f"{page.relative_to(ROOT)}:{n}: refers outside the repository: "
                            f"{line.strip()}")


def test_the_figures_in_the_docs_are_the_measured_ones():
    """A page's images/NAME.png is docs/images/NAME.png or, served by the figures hook,
    benchmarks/results/NAME.png (the file the benchmark wrote), never both."""
    import re

    measured = {p.name for p in (ROOT / "benchmarks" / "results").glob("*.png")}
    own = {p.name for p in (DOCS / "images").glob("*.png")}
    assert len(measured) >= 5 and not measured & own, measured & own
    used = {m.group(1) for page in DOCS.rglob("*.md")
            for m in re.finditer(r"\]\((?:\.\./)*images/([\w.-]+\.png)\)",
                                 page.read_text(encoding="utf-8"))}
    assert len(used & measured) >= 5
    assert used <= measured | own, used - measured - own


# -- the site ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built with --strict (any warning fails) into a temporary directory."""
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "TF_CPP_MIN_LOG_LEVEL": "3",
           "PYTHONPATH": os.pathsep.join([str(ROOT)] + [
               p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
    return out


def test_the_site_builds_strictly_with_every_page(site):
    assert (site / "index.html").exists()
    for page in DOCS.rglob("*.md"):
        if "_hooks" in page.parts:
            continue
        rel = page.relative_to(DOCS).with_suffix("")
        built = site / ("index.html" if rel.name == "index" and rel.parent == pathlib.Path(".")
                        else rel.parent / "index.html" if rel.name == "index"
                        else rel / "index.html")
        assert built.exists(), f"{page} was not built ({built})"
    assert not (site / "_hooks").exists()


def test_the_cli_page_shows_every_commands_flags(site):
    import kerasattn.cli

    html = (site / "cli" / "index.html").read_text(encoding="utf-8")
    for command in kerasattn.cli.COMMANDS:
        assert f"usage: kerasattn {command}" in html, command
    for flag in ("--model-option", "--recipe", "--allow-unfinished", "--explain",
                 "--signature", "--experiment"):
        assert flag in html, flag


def public_modules():
    for info in pkgutil.walk_packages([str(ROOT / "kerasattn")], "kerasattn."):
        last = info.name.rsplit(".", 1)[-1]
        if not last.startswith("_"):
            yield info.name


def test_the_api_reference_links_what_the_docstrings_name(site):
    """The docstrings' Sphinx roles render as cross-references (docs/_hooks/sphinx_roles.py),
    never as raw ``:class:`...``` text."""
    html = "".join(p.read_text(encoding="utf-8") for p in (site / "reference").rglob("*.html"))
    raw = re.findall(r":(?:class|func|mod|meth|data|attr|exc):`[^`]*`", html)
    assert not raw, raw[:5]
    training = (site / "reference" / "training" / "index.html").read_text(encoding="utf-8")
    # :class:`RunConfig` in kerasattn.training.trainer's docstring: a link to its entry
    assert 'href="#kerasattn.training.config.RunConfig"' in training


def test_the_api_reference_covers_every_module(site):
    html = "".join(p.read_text(encoding="utf-8") for p in (site / "reference").rglob("*.html"))
    # a sub-package the hook renders whole (kerasattn.data.datasets: the names it exports)
    # covers its modules
    whole = {m for m in public_modules() if f'id="{m}"' in html
             and (ROOT / m.replace(".", "/") / "__init__.py").exists()
             and m.count(".") >= 2}
    missing = [m for m in public_modules() if f'id="{m}"' not in html
               and m.rsplit(".", 1)[0] not in whole]
    assert not missing, f"modules without an API reference entry: {missing}"
    assert "kerasattn.data.datasets" in whole
    for name in ("kerasattn.tasks.TextClassifier.from_preset", "kerasattn.training.trainer.train",
                 "kerasattn.recipes.get_recipe", "kerasattn.export.export_model",
                 "kerasattn.layers.self_attention_block.SelfAttentionBlock",
                 "kerasattn.interpret.faithfulness.faithfulness_report",
                 "kerasattn.runs.load_keras_run", "kerasattn.data.datasets.load"):
        assert f'id="{name}"' in html, name


# -- the site in a browser -----------------------------------------------------------------

def _chromium(browser, url, *args, timeout=90):
    with tempfile.TemporaryDirectory() as profile:
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
               "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--hide-scrollbars",
               f"--user-data-dir={profile}", *args, url]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{browser} failed: {done.stderr[-2000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def served(site):
    """The built site over HTTP on 127.0.0.1 (a free port), as a base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.mark.parametrize("path,text", [
    ("", "Interpretable attention models for text classification"),
    ("reference/tasks/", "from_preset"),
])
def test_a_page_renders_in_headless_chromium(served, path, text, tmp_path):
    import matplotlib.image
    import numpy as np

    browser = require_browser()
    url = served + path
    png = tmp_path / "page.png"
    _chromium(browser, url, "--window-size=1200,900", f"--screenshot={png}")
    img = matplotlib.image.imread(str(png))[..., :3]
    assert img.shape[:2] == (900, 1200)
    # text is drawn: dark pixels on the white page
    dark = (img.sum(axis=-1) < 1.2).mean()
    assert 0.005 < dark < 0.5, f"dark share {dark:.4f}"
    # the theme's stylesheet applied: Material's indigo header bar across the top
    indigo = np.all(np.abs(img * 255 - [63, 81, 181]) < 30, axis=-1)
    assert indigo[:40].mean() > 0.5, f"no indigo header (share {indigo[:40].mean():.3f})"
    # and the page holds what it should, after the theme's scripts ran
    dom = _chromium(browser, url, "--dump-dom")
    assert text in dom
    if path.startswith("reference/"):
        assert 'id="kerasattn.tasks.TextClassifier.from_preset"' in dom


# -- docstring examples ----------------------------------------------------------------

def docstring_examples():
    finder = doctest.DocTestFinder()
    params, seen = [], set()
    for name in public_modules():
        if name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(name)
        except Exception as e:  # a module that cannot even be imported fails its own test
            params.append(pytest.param(name, e, id=name))
            continue
        for test in finder.find(module, name):
            if test.examples and test.name not in seen:
                seen.add(test.name)
                marks = ([pytest.mark.skip(reason=KNOWN_DOCTEST_FAILURES[test.name])]
                         if test.name in KNOWN_DOCTEST_FAILURES else [])
                params.append(pytest.param(test.name, test, id=test.name, marks=marks))
    return params


@pytest.mark.parametrize("name,test", docstring_examples())
def test_a_docstring_example_runs(name, test, tmp_path, monkeypatch):
    if isinstance(test, Exception):
        raise AssertionError(f"{name} does not import: {test!r}")
    examples = test.examples
    for i, example in enumerate(examples):
        if example.options.get(doctest.SKIP):
            before = examples[i - 1].source.strip() if i else ""
            assert before.startswith("# not-run:") and len(before) > len("# not-run:") + 2, \
                f"{name}: a skipped example needs a '>>> # not-run: REASON' line before it"
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    result = runner.run(test, out=out.write, clear_globs=False)
    assert result.failed == 0, out.getvalue()


def test_there_are_docstring_examples_for_the_layers():
    names = [p.id for p in docstring_examples()]
    assert sum(n.startswith("kerasattn.layers.") for n in names) >= 18


# -- LICENSE, CITATION.cff, CHANGELOG.md ----------------------------------------------------

def test_the_license_is_the_apache_license():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.lstrip().startswith("Apache License")
    assert "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text and "APPENDIX: How to apply" in text
    assert len(text) > 10_000
    assert 'license = "Apache-2.0"' in (ROOT / "pyproject.toml").read_text()


def test_citation_cff_is_valid_cff_1_2_0():
    import jsonschema
    import yaml

    import kerasattn

    data = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    # the schema of the Citation File Format 1.2.0 (CC-BY-4.0, citation-file-format.github.io),
    # as the cffconvert 2.0.0 package ships it
    schema = json.loads((ROOT / "tests" / "schemas" / "citation-file-format-1.2.0.json")
                        .read_text(encoding="utf-8"))
    jsonschema.validate(json.loads(json.dumps(data, default=str)), schema)
    assert data["cff-version"] == "1.2.0"
    assert data["version"] == kerasattn.__version__
    assert data["license"] == "Apache-2.0"
    titles = " ".join(r["title"] for r in data["references"])
    for paper in ("Importance of Self-Attention for Sentiment Analysis",
                  "Hierarchical Convolutional Attention Networks for Text Classification",
                  "Iterative Recursive Attention Model for Interpretable Sequence Classification",
                  "Sentiment analysis using Transformer with attention mechanism"):
        assert paper in titles


def test_the_changelog_has_the_first_release():
    import kerasattn

    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[?{re.escape(kerasattn.__version__)}\]?", text, re.M)
    for feature in ("SANet", "HCAN", "IRAM", "Transformer", "TextClassifier", "SavedModel",
                    "faithfulness"):
        assert feature in text, feature


def _requirements(path):
    """Package names a requirements file installs, its ``-r`` includes followed."""
    names = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("-r "):
            names |= _requirements(path.parent / line[3:].strip())
        elif line:
            names.add(re.split(r"[<>=\[ ;]", line, maxsplit=1)[0].lower())
    return names


def test_the_docs_requirements_install_what_the_build_imports():
    """``pip install -r requirements-docs.txt && mkdocs serve`` works as the docs say:
    the CLI hook imports the commands (Keras, TensorFlow), mkdocstrings renders."""
    names = _requirements(ROOT / "requirements-docs.txt")
    assert {"keras", "tensorflow", "mkdocs", "mkdocstrings", "mkdocs-material"} <= names
    assert "griffelib" in names or "griffe" in names
