"""pyproject.toml and the ``kerasattn`` console command."""

import os
import pathlib
import runpy
import shutil
import subprocess
import sys
import sysconfig
import types

import pytest

import kerasattn
import kerasattn.cli as cli
from kerasattn import _quiet

ROOT = pathlib.Path(__file__).resolve().parents[1]
COMMANDS = ["train", "evaluate", "export", "predict", "explain", "reproduce", "portable",
            "serving-client", "presets", "word-vectors"]


@pytest.fixture
def imports(monkeypatch):
    """Record (and refuse) every import the dispatcher makes."""
    seen = []

    def fake_import(name, *args, **kwargs):
        seen.append(name)
        raise AssertionError(f"unexpected import of {name}")

    monkeypatch.setattr(cli.importlib, "import_module", fake_import)
    return seen


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_lists_every_command_and_imports_none(flag, imports, capsys):
    assert cli.main([flag]) == 0
    out = capsys.readouterr().out
    listed = [line.split()[0]
              for line in out.split("commands:")[1].strip().split("\n\n")[0].splitlines()]
    assert listed == COMMANDS
    assert imports == []


def test_python_dash_m_kerasattn_is_the_console_command(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["kerasattn", "--version"])
    with pytest.raises(SystemExit) as done:
        runpy.run_module("kerasattn", run_name="__main__")
    assert done.value.code == 0
    assert capsys.readouterr().out == f"kerasattn {kerasattn.__version__}\n"
    monkeypatch.setattr(sys, "argv", ["kerasattn", "nonsense"])
    with pytest.raises(SystemExit) as done:
        runpy.run_module("kerasattn", run_name="__main__")
    assert done.value.code == 2
    assert "error: unknown command 'nonsense'" in capsys.readouterr().err


def test_no_arguments_is_a_usage_error(imports, capsys):
    assert cli.main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: kerasattn <command>") and "serving-client" in err
    assert imports == []


@pytest.mark.parametrize("command", COMMANDS)
def test_a_flag_no_command_takes_is_one_error_line_without_the_usage_block(command,
                                                                          capsys):
    argv = [command, *(["fit"] if command == "portable" else []), "--no-such-flag", "1"]
    with pytest.raises(SystemExit) as done:
        cli.main(argv)
    assert done.value.code == 2
    out, err = capsys.readouterr()
    prog = " ".join(["kerasattn", *argv[:-2]])
    assert out == "" and len(err.splitlines()) == 1, err  # argparse printed the usage too
    assert err.startswith("error: ") and err.endswith(f" (see '{prog} --help')\n"), err


def test_an_unknown_command_is_one_error_line(imports, capsys):
    assert cli.main(["trian", "--epochs", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == ("error: unknown command 'trian' (did you mean 'train'?); choose one of "
                   + ", ".join(COMMANDS) + "\n")
    assert cli.main(["zzz"]) == 2  # nothing close: no guess
    assert capsys.readouterr().err == ("error: unknown command 'zzz'; choose one of "
                                       + ", ".join(COMMANDS) + "\n")
    assert imports == []


def test_version(imports, capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"kerasattn {kerasattn.__version__}"
    assert imports == []


@pytest.mark.parametrize("command,module", [("train", "train"),
                                            ("serving-client", "serving_client")])
def test_a_command_runs_its_module_main_with_the_rest_of_argv(command, module, monkeypatch):
    calls = []
    fake = types.ModuleType(f"kerasattn.cli.{module}")
    fake.main = lambda argv: calls.append(argv) or 7
    monkeypatch.setitem(sys.modules, f"kerasattn.cli.{module}", fake)
    assert cli.main([command, "--model", "gru", "--help"]) == 7
    assert calls == [["--model", "gru", "--help"]]


def test_every_command_names_a_module_under_kerasattn_cli():
    assert list(cli.COMMANDS) == COMMANDS
    assert {c: m for c, (m, _) in cli.COMMANDS.items()} == {
        c: c.replace("-", "_") for c in COMMANDS}


def _copy_sources(dest):
    """What a clean checkout builds from: pyproject.toml, README.md, LICENSE (the
    licence file the metadata carries) and the package.

    pip builds a local directory in place (build/ and kerasattn.egg-info beside
    pyproject.toml), so the test builds a copy: the checkout stays untouched,
    and concurrent test runs do not share a build directory."""
    dest.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, dest / name)
    shutil.copytree(ROOT / "kerasattn", dest / "kerasattn",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


class _Venv:
    """A venv that sees the packages of the environment running the tests (whatever a
    user installed into: a virtual environment or the system's Python) with kerasattn
    pip-installed from a copy of the sources, offline (no dependencies fetched, no build
    isolation). ``venv --system-site-packages`` would not do: from inside a virtual
    environment it sees the *base* interpreter's packages. So the venv is made without
    its own pip and setuptools (which would shadow the environment's: a fresh Python
    3.11 venv's setuptools 65.5 cannot build a wheel without ``wheel``), and a ``.pth``
    file adds the running environment's site-packages to it."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",
                                                                      "PYTHONHOME")}
        self.env.update(TF_CPP_MIN_LOG_LEVEL="3", PIP_NO_INDEX="1",
                        PIP_DISABLE_PIP_VERSION_CHECK="1")
        self.before = {p for p in ("build", "kerasattn.egg-info") if (ROOT / p).exists()}
        src = _copy_sources(tmp / "src")
        self.venv = tmp / "venv"
        self.run(sys.executable, "-m", "venv", "--without-pip", self.venv)
        self.python = self.venv / "bin" / "python"
        purelib = self.run(self.python, "-c", "import sysconfig; "
                                              "print(sysconfig.get_paths()['purelib'])")
        outer = {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
        (pathlib.Path(purelib.stdout.strip()) / "_outer_environment.pth").write_text(
            "".join(f"{p}\n" for p in sorted(outer)))
        self.run(self.python, "-m", "pip", "install", "--no-deps", "--no-build-isolation", src)

    def run(self, *cmd, timeout=300, **kw):
        """Run from a directory outside the checkout; fail on a non-zero exit."""
        result = subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                                env=self.env, cwd=self.tmp, timeout=timeout, **kw)
        assert result.returncode == 0, (cmd, result.stdout[-2000:], result.stderr[-3000:])
        return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    return _Venv(tmp_path_factory.mktemp("pip"))


def test_pip_installs_the_package_and_its_console_command(installed):
    run, python, venv = installed.run, installed.python, installed.venv
    site = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    where = run(python, "-c", "import kerasattn, sys; print(kerasattn.__file__); "
                              "print(kerasattn.__version__)").stdout.split()
    assert pathlib.Path(where[-2]).resolve().is_relative_to(
        pathlib.Path(site.stdout.strip()).resolve()), where
    assert where[-1] == kerasattn.__version__

    # the console command runs the installed package's commands (each start imports
    # TensorFlow, about 9 s: --help and --version are tested in this process above)
    command = run(venv / "bin" / "kerasattn", "train", "--help")
    assert "usage: kerasattn train" in command.stdout
    # and without TensorFlow's import-time log lines (kerasattn._quiet)
    assert _quiet.dropped(command.stderr, 3) == command.stderr, command.stderr

    # the package and its subpackages only, with their metadata and entry point
    meta = run(python, "-c", "import importlib.metadata as m; d = m.distribution('kerasattn'); "
                             "print(sorted({f.parts[0] for f in d.files})); "
                             "print(d.requires); print(d.entry_points)").stdout
    assert "'kerasattn'" in meta and "'tests'" not in meta and "'training'" not in meta
    assert "tensorflow<2.22,>=2.21" in meta and "extra == \"serving\"" in meta
    assert "kerasattn.cli:main" in meta

    # the explanation page's data files are installed with the package
    page = run(python, "-c", "from kerasattn.explanation_pages import server_page; "
                             "print(server_page({'run': 'r', 'class_names': []}))").stdout
    assert "document.body.dataset.state" in page and "font-family" in page

    after = {p for p in ("build", "kerasattn.egg-info") if (ROOT / p).exists()}
    assert after == installed.before, "the build wrote into the checkout"


def readme_quickstart():
    """The README's Python quickstart: the first ```python block after its heading."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Python quickstart"):]
    start = section.index("```python\n") + len("```python\n")
    return section[start:section.index("```", start)]


def test_the_readme_quickstart_is_short():
    code = readme_quickstart()
    assert len(code.strip().splitlines()) <= 15
    for call in ("from_preset(", ".fit(", ".predict(", ".explain(", ".save(", ".export("):
        assert call in code


def test_the_readme_quickstart_runs_outside_the_checkout(installed, shared_data):
    """From another directory, with the installed package: cnn on SST-2 >= 0.77. The
    quickstart seeds itself (0.799 here); over 10 seeds it gives 0.803 +/- 0.005, the
    lowest 0.792 (benchmarks/results/quickstart.md), and an unseeded run in CI once gave
    0.774: the bar is for learning, not for one draw."""
    check = ("\nimport keras, numpy as np\n"
             "again = keras.saving.load_model('cnn-sst2.keras')\n"
             "assert np.allclose(again.predict(['a dull film'], verbose=0),"
             " clf.predict(['a dull film'], verbose=0), atol=1e-6)\n"
             "assert kerasattn.__file__.startswith(%r)\n"
             "print('ACCURACY', accuracy)\n" % str(installed.venv))
    env_data = {**installed.env, "KERASATTN_DATA_DIR": os.path.abspath(shared_data)}
    result = subprocess.run([str(installed.python), "-c", readme_quickstart() + check],
                            capture_output=True, text=True, env=env_data, cwd=installed.tmp,
                            timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    accuracy = float(result.stdout.split("ACCURACY")[-1])
    assert accuracy >= 0.77
    assert (installed.tmp / "saved_models" / "cnn-sst2" / "1" / "saved_model.pb").exists()


@pytest.mark.slow  # two trainings in fresh processes; the dispatch itself is tested above
def test_the_console_command_and_python_m_training_write_equal_run_directories(tmp_path):
    rows = "".join(f"{'good fine' if i % 2 else 'bad poor'} {i},{i % 2}\n" for i in range(60))
    (tmp_path / "d.csv").write_text("text,label\n" + rows)
    args = ["train", "--model", "mlp", "--dataset", f"csv:{tmp_path / 'd.csv'}", "--epochs",
            "2", "--deterministic", "--verbose", "0", "--output-dir", str(tmp_path / "runs")]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"}
    for name, cmd in (("a", [sys.executable, "-m", "kerasattn.cli", *args]),
                      ("b", [sys.executable, "-m", "training.train", *args[1:]])):
        result = subprocess.run(cmd + ["--run-name", name], capture_output=True, text=True,
                                env=env, cwd=ROOT, timeout=600)
        assert result.returncode == 0, result.stderr[-2000:]
    a, b = tmp_path / "runs" / "a", tmp_path / "runs" / "b"
    assert sorted(os.listdir(a)) == sorted(os.listdir(b))
    for name in ("history.csv", "vocab.txt", "preprocessor.json"):
        assert (a / name).read_text() == (b / name).read_text(), name
    import json

    ca, cb = (json.loads((d / "config.json").read_text()) for d in (a, b))
    assert ca.pop("command").replace("--run-name a", "--run-name b") == cb.pop("command")
    assert ca == cb
    ma, mb = (json.loads((d / "metrics.json").read_text()) for d in (a, b))
    for timing in ("train_seconds", "train_examples_per_second"):
        ma.pop(timing), mb.pop(timing)
    assert ma == mb


@pytest.mark.parametrize("command", COMMANDS)
def test_help_is_plain_text_without_docstring_markup(command, capsys):
    """``--help`` shows the commands' docstrings as a terminal reads them: no double
    backticks, no Sphinx roles."""
    import re

    argv = [command, *(["fit"] if command == "portable" else []), "--help"]
    with pytest.raises(SystemExit) as done:
        cli.main(argv)
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: kerasattn") and "``" not in out
    assert not re.search(r":(class|func|mod|meth|data|attr|exc):`", out), out
    if command == "portable":
        assert cli.main(["portable", "--help"]) == 0
        assert "``" not in capsys.readouterr().out


def test_plain_reads_docstring_markup_as_sphinx_shows_it():
    from kerasattn.cli.parsing import plain

    assert plain("see :mod:`kerasattn.export`, :class:`~kerasattn.tasks.TextClassifier` "
                 "and ``--run DIR``") == "see kerasattn.export, TextClassifier and --run DIR"
    assert plain("no markup: a `single` tick stays") == "no markup: a `single` tick stays"


def test_presets_piped_into_a_reader_that_stops_early_ends_without_a_traceback():
    """``kerasattn presets | head -1``: the closed pipe is the reader's choice, not an error."""
    read_end, write_end = os.pipe()
    process = subprocess.Popen([sys.executable, "-m", "kerasattn", "presets", "--json"],
                               stdout=write_end, stderr=subprocess.PIPE, cwd=ROOT)
    os.close(write_end)
    os.close(read_end)  # the reader is gone before the table is written
    err = process.stderr.read().decode()
    assert process.wait(timeout=120) == 0 and err == "", err


# -- a package that looks published (issue 79, item 6) --------------------------------------

def _pyproject():
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("argv", [[c, "--help"] for c in COMMANDS] + [
    ["portable", "fit", "--help"], ["portable"]])
def test_help_names_the_installed_command_not_the_checkout_form(argv, capsys):
    """An installed user has no ``training`` package: help names ``kerasattn COMMAND``."""
    try:
        cli.main(argv)
    except SystemExit:
        pass
    out, err = capsys.readouterr()
    assert f"kerasattn {argv[0]}" in out + err
    assert "python -m training" not in out + err
    assert "training." not in out.replace("kerasattn.training.", ""), out


def test_portable_errors_name_the_installed_commands(tmp_path, capsys):
    assert cli.main(["portable", "prepare", "--jobs"]) == 2
    assert capsys.readouterr().err == ("error: --jobs needs a file: one run a line, its name "
                                       "then kerasattn train's arguments\n")
    with pytest.raises(SystemExit) as done:
        cli.main(["portable", "fit", "--run", str(tmp_path)])
    assert done.value.code == 2
    assert capsys.readouterr().err == (
        f"error: {tmp_path} is not a prepared run (no config.json); make it with kerasattn "
        "portable prepare (see 'kerasattn portable fit --help')\n")


def test_the_build_requirement_is_bounded_and_takes_the_tested_setuptools():
    """setuptools from 77 (PEP 639: the SPDX ``license`` string and ``license-files``), below
    an upper bound, and the version requirements-test.txt pins (the build the tests make)
    inside that range."""
    from packaging.requirements import Requirement

    (requirement,) = map(Requirement, _pyproject()["build-system"]["requires"])
    assert requirement.name == "setuptools"
    assert {s.operator for s in requirement.specifier} == {">=", "<"}
    assert not requirement.specifier.contains("76.1.0")
    assert requirement.specifier.contains("77.0.3")
    pins = [line.split("==")[1].strip() for line in
            (ROOT / "requirements-test.txt").read_text(encoding="utf-8").splitlines()
            if line.startswith("setuptools==")]
    assert len(pins) == 1 and requirement.specifier.contains(pins[0]), pins


def test_the_metadata_names_the_licence_authors_and_classifiers():
    project = _pyproject()["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").lstrip().startswith("Apache License")
    assert project["authors"] == [{"name": "kerasattn contributors"}]
    classifiers = project["classifiers"]
    assert not [c for c in classifiers if c.startswith("License ::")]  # PEP 639: the SPDX string
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert project["requires-python"] == ">=3.11"
    assert classifiers == sorted(classifiers) and len(set(classifiers)) == len(classifiers)


def test_the_repository_address_is_written_in_both_places_or_in_neither():
    """The repository's address goes in pyproject.toml's ``[project.urls]`` (what ``pip
    show`` and a package index read) and CITATION.cff's ``repository-code`` (what the
    model card's link and citation read, through ``preset_dirs._project_url``): the same
    address in both, or none. None is known today, and none is made up."""
    import re

    urls = _pyproject()["project"].get("urls", {})
    repository = {k.lower(): v for k, v in urls.items()}.get("repository")
    cff = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    found = re.search(r"^repository-code:\s*[\"']?(\S+?)[\"']?\s*$", cff, re.M)
    assert (found.group(1) if found else None) == repository, (repository, found)
    assert set(urls) <= {"Repository", "Documentation", "Changelog", "Issues"}, urls
    assert not urls or repository, "[project.urls] without its Repository"
    assert [u for u in urls.values() if not u.startswith("https://")] == []


def test_the_version_is_written_in_one_place():
    """``kerasattn.__version__``: pyproject.toml reads it, CITATION.cff and the changelog's
    latest release say it (tests/test_docs.py checks CITATION.cff's)."""
    import re

    pyproject = _pyproject()
    assert "version" not in pyproject["project"] and pyproject["project"]["dynamic"] == ["version"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "kerasattn.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", kerasattn.__version__)
    releases = re.findall(r"^## \[([^\]]+)\]", (ROOT / "CHANGELOG.md").read_text(
        encoding="utf-8"), re.M)
    assert releases[0] == "Unreleased" and releases[1] == kerasattn.__version__, releases
    written = [p.relative_to(ROOT).as_posix() for p in (ROOT / "kerasattn").rglob("*.py")
               if f'"{kerasattn.__version__}"' in p.read_text(encoding="utf-8")]
    assert written == ["kerasattn/__init__.py"]


def test_every_extra_is_in_the_install_sections():
    """The README's install paragraph and getting started's Install section name every
    extra of pyproject.toml (and no extra it lacks)."""
    import re

    extras = set(_pyproject()["project"]["optional-dependencies"])
    assert {"serving", "benchmarks", "vectors", "hub", "jax", "test"} <= extras
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    install = readme[readme.index("`pip install .`"):readme.index("## Python quickstart")]
    assert set(re.findall(r"`\[([a-z]+)\]`", install)) == extras
    started = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    section = started[started.index("## Install\n"):]
    section = section[:section.index("\n## ", 1)]
    assert set(re.findall(r"^\| `kerasattn\[([a-z]+)\]` \|", section, re.M)) == extras


def test_the_installed_package_looks_published(installed):
    """What ``pip show`` and a package index read: licence expression and file, authors,
    classifiers, keywords; and the ``py.typed`` marker installed with the package."""
    code = ("import importlib.metadata as m, json; d = m.distribution('kerasattn'); "
            "md = d.metadata; print(json.dumps({k: md.get_all(k) for k in ("
            "'Metadata-Version', 'License-Expression', 'License-File', 'Author', "
            "'Classifier', 'Keywords', 'License')})); "
            "print(json.dumps(sorted(str(f) for f in d.files)))")
    meta, files = installed.run(installed.python, "-c", code).stdout.strip().splitlines()[-2:]
    import json

    meta, files = json.loads(meta), json.loads(files)
    assert meta["License-Expression"] == ["Apache-2.0"] and meta["License"] is None
    assert meta["License-File"] == ["LICENSE"]
    assert meta["Author"] == ["kerasattn contributors"]
    assert meta["Classifier"] == _pyproject()["project"]["classifiers"]
    assert "interpretability" in meta["Keywords"][0]
    assert "kerasattn/py.typed" in files
    assert any(f.endswith("licenses/LICENSE") for f in files), files


def test_a_type_checker_reads_the_installed_package(installed):
    """mypy, outside the checkout and with no configuration, reads the installed package's
    hints (``py.typed``; without it: "missing library stubs or py.typed marker")."""
    (installed.tmp / "uses_kerasattn.py").write_text(
        "import kerasattn\nreveal_type(kerasattn.TextClassifier.from_preset('cnn'))\n")

    def mypy():
        return subprocess.run(
            [str(installed.python), "-m", "mypy", "--cache-dir", str(installed.tmp / "mypy"),
             "--no-color-output", "uses_kerasattn.py"],
            capture_output=True, text=True, env=installed.env, cwd=installed.tmp, timeout=600)

    result = mypy()
    assert result.stdout.splitlines() == [
        'uses_kerasattn.py:2: note: Revealed type is "kerasattn.tasks.TextClassifier"',
        "Success: no issues found in 1 source file"], result.stdout + result.stderr
    assert result.returncode == 0

    # the marker is what makes it so
    site = installed.run(installed.python, "-c", "import kerasattn, os; "
                         "print(os.path.dirname(kerasattn.__file__))").stdout.split()[-1]
    marker = pathlib.Path(site) / "py.typed"
    marker.unlink()
    try:
        result = mypy()
    finally:
        marker.write_text("")
    assert result.returncode == 1
    assert "missing library stubs or py.typed marker" in result.stdout, result.stdout
