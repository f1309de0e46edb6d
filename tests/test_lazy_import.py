"""``import kerasattn`` is fast and quiet (no Keras, no TensorFlow, no device query), the
console command answers --help, --version and a typo without TensorFlow, so do listing
the presets and building the scikit-learn ones, and Keras still finds the zoo's classes
when it loads a file after ``import kerasattn``, in any order."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _python(code, level=None):
    env = {**os.environ, "PYTHONPATH": ROOT}
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    if level is not None:
        env["TF_CPP_MIN_LOG_LEVEL"] = level
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300, cwd=ROOT)


def test_import_kerasattn_imports_no_keras_and_sets_nothing():
    r = _python("import os, sys, kerasattn\n"
                "print(sorted(m for m in ('keras', 'tensorflow', 'jax', 'numpy') "
                "if m in sys.modules), os.environ.get('TF_CPP_MIN_LOG_LEVEL'))")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["[]", "None"] and r.stderr == ""


@pytest.mark.parametrize("argv,code", [(["--help"], 0), (["--version"], 0), (["trian"], 2)])
def test_the_command_answers_help_version_and_typos_without_tensorflow(argv, code):
    r = _python("import sys, kerasattn.cli\n"
                f"status = kerasattn.cli.main({argv!r})\n"
                "print('LOADED', sorted(m for m in ('keras', 'tensorflow') if m in sys.modules))\n"
                "sys.exit(status)")
    assert r.returncode == code, r.stderr
    assert "LOADED []" in r.stdout


def test_listing_the_presets_and_building_nb_and_lr_import_no_keras():
    """``kerasattn presets`` (and ``python -m training.presets``), describe(), names() and
    the scikit-learn presets need no Keras: the preset tables are data whose builders
    load when a Keras model is built."""
    r = _python("import contextlib, io, runpy, sys\n"
                "import kerasattn.cli\n"
                "from kerasattn import models\n"
                "out = io.StringIO()\n"
                "with contextlib.redirect_stdout(out):\n"
                "    assert kerasattn.cli.main(['presets']) == 0\n"
                "    assert kerasattn.cli.main(['presets', '--family', 'hcan', '--json']) == 0\n"
                "    sys.argv = ['presets', '--kind', 'classical']\n"
                "    try:\n"
                "        runpy.run_module('training.presets', run_name='__main__')\n"
                "    except SystemExit as stop:\n"
                "        assert stop.code == 0\n"
                "assert 'sanet-base' in out.getvalue() and '\"han\"' in out.getvalue()\n"
                "described = models.describe()\n"
                "assert models.names() == sorted(described) and 'nb' in described\n"
                "models.get_preset('iram-full').training_defaults()\n"
                "nb, lr = models.get('nb'), models.get('lr', num_classes=3)\n"
                "assert type(nb).__name__ == type(lr).__name__ == 'TfidfClassifier'\n"
                "print('LOADED', sorted(m for m in ('keras', 'tensorflow') if m in sys.modules))")
    assert r.returncode == 0, r.stderr[-2000:]
    assert "LOADED []" in r.stdout


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("lazy") / "tc.keras")
    r = _python("import kerasattn\n"
                "clf = kerasattn.TextClassifier.from_preset('mlp', num_classes=2, "
                "model_options={'embedding_dim': 4, 'hidden_units': 4})\n"
                "clf.fit(['a good film', 'a bad film'] * 4, [1, 0] * 4, epochs=1, verbose=0)\n"
                f"clf.save({path!r})")
    assert r.returncode == 0, r.stderr[-2000:]
    return path


# each a fresh process importing TensorFlow (about 20 s on two cores): the default suite
# takes three, -m slow all
@pytest.mark.parametrize("first", [
    "import kerasattn; import keras",
    pytest.param("import keras; import kerasattn", marks=pytest.mark.slow),
    pytest.param("from kerasattn.layers import SelfAttentionBlock; import keras",
                 marks=pytest.mark.slow),
    pytest.param("from kerasattn import models; import keras", marks=pytest.mark.slow),
    # Keras imported half-way through a kerasattn module's import (TensorFlow already in,
    # or several kerasattn modules deep): the registration waits for the import to end
    "import tensorflow; from kerasattn.layers import SelfAttentionBlock; import keras",
    pytest.param("import kerasattn.tasks; import keras", marks=pytest.mark.slow),
    "import kerasattn.interpret; import keras",
])
def test_keras_finds_the_task_whatever_was_imported_first(saved, first):
    r = _python(f"{first}\nm = keras.saving.load_model({saved!r})\n"
                "print(type(m).__name__, m.predict(['a good film'], verbose=0).shape)")
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split()[-3:] == ["TextClassifier", "(1,", "2)"]


@pytest.mark.parametrize("code", [
    "import kerasattn; kerasattn.TextClassifier",
    "import kerasattn.models",
    "from kerasattn.layers import SelfAttentionBlock",
])
def test_what_kerasattn_imports_itself_adds_no_native_log_line(code):
    """TensorFlow imported by kerasattn (the user has not set a level): absl's preamble
    and INFO lines, and the cuInit line of a machine without an NVIDIA device, dropped."""
    from kerasattn import _quiet

    r = _python(code)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stderr.splitlines()
    if _quiet.nvidia_device():
        lines = [line for line in lines if not _quiet.CUINIT.match(line)]
    assert lines == [], r.stderr
