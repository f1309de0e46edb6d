"""docs/adding-a-family.md, followed: its files (the builder, the presets table, the
test file) written into a package of their own on sys.path, registered by
``kerasattn.models.discover``, then listed, described, built with
``TextClassifier.from_preset``, fitted on a few texts, run through the shared harness and
the family's own test; and, installed through the page's entry point, listed by
``kerasattn presets`` in a fresh process that imports no Keras."""

import importlib
import os
import pathlib
import subprocess
import sys
import tomllib

import keras
import numpy as np
import pytest

from kerasattn import TextClassifier, models, recipes
from kerasattn.cli import presets as presets_command
from kerasattn.models import registry
from tests.models import harness
from tests.test_docs import blocks

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "adding-a-family.md"
PACKAGE = "toyzoo"  # the package the page's files go into
# where the page puts each file -> where it goes here
PLACES = {"kerasattn/models/toy.py": f"{PACKAGE}/toy.py",
          "kerasattn/models/toy_presets.py": f"{PACKAGE}/toy_presets.py",
          "tests/models/test_toy.py": f"{PACKAGE}/test_toy.py"}


def page_files():
    """path -> text of every file the page shows (a python block whose first line is
    ``# PATH``), with ``kerasattn.models.`` read as the package's name."""
    files = {}
    for block in blocks(PAGE):
        first = block.body.splitlines()[0]
        if block.lang == "python" and first.startswith("# ") and first.endswith(".py"):
            files[first[2:]] = block.body.replace("kerasattn.models.toy", f"{PACKAGE}.toy")
    return files


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The page's family as a package on sys.path; what it registers stays in the test."""
    files = page_files()
    assert set(files) == set(PLACES), "the page shows the builder, the table and the test"
    (tmp_path / PACKAGE).mkdir()
    (tmp_path / PACKAGE / "__init__.py").write_text("")
    for shown, place in PLACES.items():
        (tmp_path / place).write_text(files[shown], encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    recipes._ensure_builtin()
    monkeypatch.setattr(recipes, "_RECIPES", dict(recipes._RECIPES))
    monkeypatch.setattr(registry, "_PRESETS", dict(registry._PRESETS))
    monkeypatch.setattr(registry, "_TABLES", dict(registry._TABLES))
    yield tmp_path
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]


def test_the_walkthrough_adds_a_family(toy, capsys, tmp_path):
    # registered from the package: the table only, no builder imported yet
    assert models.discover(PACKAGE) == ["toy-small", "toy-big"]
    assert f"{PACKAGE}.toy" not in sys.modules
    assert models.discover(PACKAGE) == ["toy-small", "toy-big"]  # again: nothing new
    assert {"toy-big", "toy-small"} <= set(models.names("keras"))
    assert "toy" in models.families()
    described = models.describe()["toy-big"]
    assert described["family"] == "toy" and described["recipes"] == ["default", "paper"]
    assert described["paper"] == "The example of docs/adding-a-family.md"
    assert models.get_preset("toy-big").model_config == {
        "embedding_dim": 128, "attention_units": 64, "dropout": 0.5}
    assert recipes.get_recipe("toy-big").model_options == {"dropout": 0.3}
    assert presets_command.main(["--family", "toy"]) == 0
    listed = capsys.readouterr().out
    shown = next(b.body for b in blocks(PAGE) if b.lang == "text")
    assert listed.split() == shown.split()  # the page shows what the command prints

    # a classifier of the new family, from strings
    keras.utils.set_random_seed(0)
    clf = TextClassifier.from_preset("toy-small", num_classes=2)
    texts = ["a good film", "a bad film", "great fun", "dull and long"] * 2
    history = clf.fit(texts, [1, 0, 1, 0] * 2, epochs=2, batch_size=4, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    assert clf.predict(["a good film"], verbose=0).shape == (1, 2)
    assert clf.explain(["a good film"])[0].attention["word_attention"].shape == (3,)

    # the family's test file: its own test, and its small options through the harness
    tests = importlib.import_module(f"{PACKAGE}.test_toy")
    tests.test_the_presets_follow_the_paper()
    for name in ("toy-big", "toy-small"):
        model = harness.check_seeds(lambda seed: harness.build(name, seed, tests=tests))
        x = harness.ids_batch(np.random.default_rng(0), [5, 9, 2, 11], 12)
        harness.check_probabilities(model, x)
        assert harness.check_attention(model, x)[0].attention
        harness.check_padding(model, name)
        harness.check_empty_text(model, name)
        harness.check_fit_and_round_trip(harness.build(name, 2, 2, tests=tests), name,
                                         tmp_path, eager=True)


def test_an_installed_package_is_listed_by_the_command(toy):
    """The page's entry point, as ``pip install`` writes it (a dist-info folder on the
    path): ``kerasattn presets`` lists the family in a fresh process without Keras."""
    toml = next(b.body for b in blocks(PAGE) if b.lang == "toml")
    points = tomllib.loads(toml.replace("mypackage", PACKAGE))["project"]["entry-points"]
    info = toy / f"{PACKAGE}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {PACKAGE}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items())
        for group, entries in points.items()))
    code = ("import sys\nimport kerasattn.cli\n"
            "status = kerasattn.cli.main(['presets', '--family', 'toy'])\n"
            "print('LOADED', sorted(m for m in ('keras', 'tensorflow') if m in sys.modules))\n"
            "sys.exit(status)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(toy), str(ROOT)])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=toy, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert [line.split()[0] for line in done.stdout.splitlines()[1:3]] == ["toy-big",
                                                                            "toy-small"]
    assert "LOADED []" in done.stdout
