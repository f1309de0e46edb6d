"""The public API's type hints: mypy (pinned in requirements-test.txt, configured by
``[tool.mypy]`` in pyproject.toml) finds no error in the public modules, every public
signature is annotated, and the hints reach code that uses kerasattn."""

import inspect
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

# the modules of the public API whose hints CI checks
PUBLIC_MODULES = ["kerasattn/__init__.py", "kerasattn/tasks.py", "kerasattn/task_presets.py",
                  "kerasattn/preset_dirs.py", "kerasattn/data/datasets/catalogue.py",
                  "kerasattn/models/tfidf.py", "kerasattn/sklearn.py"]


def mypy(*args, cache):
    """Run mypy from the checkout (its pyproject.toml configures it) with its cache in
    ``cache``, outside the checkout; returns (exit status, output)."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(cache), "--no-color-output", *map(str, args)],
        capture_output=True, text=True, cwd=ROOT, timeout=600)
    return result.returncode, result.stdout + result.stderr


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One mypy cache for this module's runs (the first reads the public modules' imports,
    numpy's stubs among them; the next reuses it)."""
    return tmp_path_factory.mktemp("mypy-cache")


def test_mypy_finds_no_error_in_the_public_modules(cache):
    missing = [m for m in PUBLIC_MODULES if not (ROOT / m).exists()]
    assert not missing, f"public modules gone (update PUBLIC_MODULES): {missing}"
    status, out = mypy(*PUBLIC_MODULES, cache=cache)
    assert status == 0, out
    assert out.startswith(f"Success: no issues found in {len(PUBLIC_MODULES)} source files")


USER_CODE = '''\
import kerasattn
from kerasattn.data import datasets

clf = kerasattn.TextClassifier.from_preset("cnn")
reveal_type(clf)
reveal_type(clf.predict_labels(["a fine film"]))
reveal_type(datasets.load("sst2"))
reveal_type(clf.save_to_preset("preset-dir"))
kerasattn.TextClassifier.from_preset("cnn", num_classes="two")
'''


def test_the_hints_reach_the_code_that_uses_kerasattn(tmp_path, cache):
    """What a user's type checker sees: the types of the lazy ``kerasattn.TextClassifier``
    and of its methods, and an argument of the wrong type reported on its line."""
    user = tmp_path / "user.py"
    user.write_text(USER_CODE)
    status, out = mypy(user, cache=cache)
    notes = [line.split(": ", 1)[1] for line in out.splitlines() if line.startswith(str(user))]
    assert notes == [
        'note: Revealed type is "kerasattn.tasks.TextClassifier"',
        'note: Revealed type is "list[str]"',
        'note: Revealed type is "kerasattn.data.datasets.definitions.TextDataset"',
        'note: Revealed type is "str"',
        'error: Argument "num_classes" to "from_preset" of "TextClassifier" has incompatible '
        'type "str"; expected "int | None"  [arg-type]',
    ], out
    assert status == 1
    assert [int(line.split(":")[1]) for line in out.splitlines()
            if line.startswith(str(user))] == [5, 6, 7, 8, 9]


def unannotated(fn):
    """The parameters of ``fn`` (``self``/``cls`` aside) without a type hint, and
    ``"return"`` when its return type is not given."""
    signature = inspect.signature(fn)
    missing = [p.name for p in signature.parameters.values()
               if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty]
    if signature.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


def test_unannotated_names_what_has_no_hint():
    def f(a, b: int, *args, c: str = "", **kw) -> None: ...

    def g(self, x: int): ...

    assert unannotated(f) == ["a", "args", "kw"]
    assert unannotated(g) == ["return"]
    assert unannotated(lambda: None) == ["return"]


def _public_methods(cls):
    """The public methods written in ``cls``'s body (``__init__`` included), properties as
    their getter (not those a helper makes, such as ``TextClassifier.default_epochs``)."""
    for name, member in vars(cls).items():
        if name.startswith("_") and name != "__init__":
            continue
        if isinstance(member, (classmethod, staticmethod)):
            member = member.__func__
        elif isinstance(member, property):
            member = member.fget
        if inspect.isfunction(member) and member.__qualname__ == f"{cls.__qualname__}.{name}":
            yield name, member


def public_signatures():
    import kerasattn
    import kerasattn.sklearn
    from kerasattn.data import datasets
    from kerasattn.models.tfidf import TfidfClassifier

    found = {}
    for cls in (kerasattn.TextClassifier, kerasattn.TextClassifierPreprocessor):
        found.update({f"{cls.__name__}.{n}": f for n, f in _public_methods(cls)})
    found["kerasattn.data.datasets.load"] = datasets.load
    found["kerasattn.data.datasets.names"] = datasets.names
    found["kerasattn.data.datasets.describe"] = datasets.describe
    for name in ("fit", "predict", "predict_proba"):
        found[f"TfidfClassifier.{name}"] = getattr(TfidfClassifier, name)
    for name in ("__init__", "fit", "predict", "predict_proba"):
        found[f"KerasTextClassifier.{name}"] = getattr(kerasattn.sklearn.KerasTextClassifier,
                                                       name)
    return found


def test_the_public_signatures_are_annotated():
    signatures = public_signatures()
    for name in ("TextClassifier.__init__", "TextClassifier.from_preset", "TextClassifier.fit",
                 "TextClassifier.presets", "TextClassifierPreprocessor.vocabulary",
                 "TextClassifier.predict", "TextClassifier.predict_labels",
                 "TextClassifier.save_to_preset", "TextClassifier.explain",
                 "kerasattn.data.datasets.load", "TfidfClassifier.fit",
                 "TfidfClassifier.predict_proba", "KerasTextClassifier.fit"):
        assert name in signatures, name
    missing = {name: unannotated(fn) for name, fn in signatures.items() if unannotated(fn)}
    assert missing == {}


def test_the_package_declares_its_hints():
    """PEP 561: ``py.typed`` beside ``__init__.py``, and installed with it (package-data)."""
    import tomllib

    assert (ROOT / "kerasattn" / "py.typed").is_file()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["kerasattn"]
    assert "Typing :: Typed" in project["project"]["classifiers"]
    mypy_settings = project["tool"]["mypy"]
    assert mypy_settings["ignore_missing_imports"] is True
    assert mypy_settings["follow_imports"] == "silent"


@pytest.mark.parametrize("path", PUBLIC_MODULES)
def test_a_public_module_is_checked_whole(path):
    """No module-wide opt-out: a ``# mypy: ignore-errors`` or ``# type: ignore`` at the
    top of a file would make the check pass while checking nothing."""
    head = (ROOT / path).read_text(encoding="utf-8").splitlines()[:40]
    assert not [line for line in head
                if "mypy: ignore-errors" in line or line.strip() == "# type: ignore"], path
