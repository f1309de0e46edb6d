"""Presets as locations: a trained classifier saved as a directory (or an hf:// repo)
and loaded back by TextClassifier.from_preset, in another process, as it was."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import keras
import numpy as np
import pytest
import requests  # TensorFlow's dependency: the connection error huggingface_hub < 1 raised

from kerasattn import TextClassifier, preset_dirs

TEXTS = ["a good film", "great fun", "a bad film", "dull plot", "a fine cast",
         "awful acting"] * 3
LABELS = ["pos", "pos", "neg", "neg", "pos", "neg"] * 3


@pytest.fixture(scope="module")
def fitted():
    keras.utils.set_random_seed(0)
    clf = TextClassifier.from_preset("mlp")
    clf.fit(TEXTS, LABELS, epochs=2, verbose=0)
    return clf


def test_a_preset_directory_loads_in_a_fresh_process_and_exports(fitted, tmp_path):
    target = str(tmp_path / "my-sentiment")
    assert fitted.save_to_preset(target) == target
    assert sorted(os.listdir(target)) == [".kerasattn", "README.md", "metadata.json",
                                          "model.keras", "vocab.txt"]
    metadata = json.load(open(os.path.join(target, "metadata.json")))
    assert (metadata["format"], metadata["preset"], metadata["class_names"]) == (
        "kerasattn.preset/1", "mlp", ["neg", "pos"])
    assert open(os.path.join(target, "vocab.txt")).read().split("\n")[:2] == ["", "[UNK]"]
    expected = fitted.predict(TEXTS[:6], verbose=0)
    script = ("import json, sys, numpy as np, kerasattn\n"
              "clf = kerasattn.TextClassifier.from_preset(sys.argv[1])\n"
              "print(json.dumps([clf.class_names, clf.predict(sys.argv[2:], verbose=0)"
              ".tolist()]))\n"
              "clf.export(sys.argv[1] + '-served/1')\n")
    out = subprocess.run([sys.executable, "-c", script, target, *TEXTS[:6]], check=True,
                         capture_output=True, text=True,
                         env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}).stdout
    names, probabilities = json.loads(out.strip().splitlines()[-1])
    assert names == ["neg", "pos"]
    np.testing.assert_allclose(probabilities, expected, atol=1e-6)
    assert os.path.isfile(target + "-served/1/saved_model.pb")
    # a .keras file is a location too
    fitted.save(str(tmp_path / "clf.keras"))
    again = TextClassifier.from_preset(str(tmp_path / "clf.keras"))
    np.testing.assert_allclose(again.predict(TEXTS[:6], verbose=0), expected, atol=1e-6)


def test_bad_preset_locations_are_one_clear_error_and_nothing_is_overwritten(fitted, tmp_path):
    target = tmp_path / "p"
    fitted.save_to_preset(str(target))
    before = sorted(os.listdir(target))
    with pytest.raises(ValueError, match="exists; pass overwrite=True"):
        fitted.save_to_preset(str(target))
    assert sorted(os.listdir(target)) == before
    fitted.save_to_preset(str(target), overwrite=True)  # replaced whole
    other = tmp_path / "notes"
    other.mkdir()
    (other / "x.txt").write_text("mine")
    with pytest.raises(ValueError, match="not made by kerasattn as a preset directory.*"
                                         "nothing was touched; it is not replaced"):
        fitted.save_to_preset(str(other), overwrite=True)
    assert (other / "x.txt").read_text() == "mine"
    with pytest.raises(ValueError, match="no such preset directory"):
        TextClassifier.from_preset(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="not a kerasattn preset directory"):
        TextClassifier.from_preset(str(other))
    with pytest.raises(ValueError, match="keeps its own num_classes"):
        TextClassifier.from_preset(str(target), num_classes=3)
    with pytest.raises(ValueError, match="has not been fitted"):
        TextClassifier.from_preset("mlp").save_to_preset(str(tmp_path / "empty"))
    assert not (tmp_path / "empty").exists()
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".")]  # no leftovers


class _FakeHub:
    """huggingface_hub's boundary: a repository is a folder under ``root``."""

    def __init__(self, root):
        self.root, self.calls = root, []
        hub = self

        class HfApi:
            def __init__(self, **kwargs):
                hub.calls.append(("HfApi", kwargs))

            def create_repo(self, repo_id, exist_ok=False):
                hub.calls.append(("create_repo", repo_id))
                return type("RepoUrl", (), {"repo_id": repo_id})()

            def upload_folder(self, repo_id, folder_path, commit_message):
                hub.calls.append(("upload_folder", repo_id))
                shutil.copytree(folder_path, os.path.join(hub.root, repo_id),
                                dirs_exist_ok=True)

        self.HfApi = HfApi

    def snapshot_download(self, repo_id, **kwargs):
        self.calls.append(("snapshot_download", repo_id))
        return os.path.join(self.root, repo_id)


def test_hf_handles_upload_and_download_through_huggingface_hub(fitted, tmp_path,
                                                                 monkeypatch):
    hub = _FakeHub(str(tmp_path / "hub"))
    monkeypatch.setattr(preset_dirs, "_hub", lambda: hub)
    assert fitted.save_to_preset("hf://me/sentiment") == "hf://me/sentiment"
    assert [c[0] for c in hub.calls] == ["HfApi", "create_repo", "upload_folder"]
    assert hub.calls[0][1]["library_name"] == "kerasattn"
    loaded = TextClassifier.from_preset("hf://me/sentiment")
    assert hub.calls[-1] == ("snapshot_download", "me/sentiment")
    np.testing.assert_allclose(loaded.predict(TEXTS[:4], verbose=0),
                               fitted.predict(TEXTS[:4], verbose=0), atol=1e-6)
    with pytest.raises(ValueError, match=r"hf://NAMESPACE/NAME"):
        fitted.save_to_preset("hf://just-a-name")


def test_a_run_becomes_a_preset_with_its_metrics_and_a_model_card(tmp_path, capsys,
                                                                  monkeypatch):
    from kerasattn.cli import export, train

    data = tmp_path / "d.csv"
    data.write_text("text,label\n" + "".join(f"{t} {i},{y}\n" for i, (t, y) in
                                             enumerate(zip(TEXTS * 2, LABELS * 2))))
    run_dir, metrics = train.train(["--model", "mlp", "--dataset", f"csv:{data}", "--epochs",
                                    "1", "--output-dir", str(tmp_path / "runs"),
                                    "--run-name", "r", "--verbose", "0"])
    target = str(tmp_path / "from-run")
    assert export.main(["--run", run_dir, "--preset", target]) == 0
    assert sorted(os.listdir(target)) == [".kerasattn", "README.md", "config.json",
                                          "metadata.json", "metrics.json", "model.keras",
                                          "vocab.txt"]
    card = open(os.path.join(target, "README.md")).read()
    accuracy = metrics["test"]["accuracy"]
    assert f"- test: {accuracy:.4f} (95 % interval over its" in card
    assert "python -m training.train --model mlp" in card and "## Data" in card
    # the same card as from Python: every section, what the run trained
    assert [line for line in card.splitlines() if line.startswith("## ")] == [
        "## Use", "## Model", "## Data", "## Training", "## Accuracy", "## Intended use",
        "## Limitations", "## Licence", "## Citation"]
    assert f"- epochs: {metrics['epochs_run']} run of 1 asked for" in card
    metadata = json.load(open(os.path.join(target, "metadata.json")))
    assert (metadata["trained"]["epochs"], metadata["trained"]["epochs_requested"]) == (1, 1)
    assert metadata["trained"]["dataset"]["name"] == f"csv:{data}"
    assert metadata["trained"]["commands"][0].startswith("python -m training.train --model mlp")
    assert export.main(["--run", run_dir, "--preset", target]) == 2
    assert "exists; pass overwrite=True" in capsys.readouterr().err
    assert export.main(["--run", run_dir, "--preset", target, "--output", "x"]) == 2
    clf = TextClassifier.from_preset(target)
    assert clf.preset == "mlp" and clf.class_names == ["neg", "pos"]
    # --preset hf://... with the Hub unreachable: one error line, exit status 2
    capsys.readouterr()
    monkeypatch.setattr(preset_dirs, "_hub", lambda: _FailingHub(
        requests.ConnectionError("Failed to establish a new connection\nretries exceeded")))
    assert export.main(["--run", run_dir, "--preset", "hf://me/from-run"]) == 2
    err = capsys.readouterr().err
    assert err == ("error: hf://me/from-run: uploading to the Hugging Face Hub failed: the Hub "
                   "cannot be reached (offline, or no connection): ConnectionError: Failed to "
                   "establish a new connection\n")


def test_the_wilson_interval_by_hand():
    low, high = preset_dirs._interval(0.9, 100)
    assert abs(low - 0.8256) < 1e-3 and abs(high - 0.9448) < 1e-3
    assert preset_dirs._interval(0.5, 0) == (0.5, 0.5)


class _FailingHub:
    """huggingface_hub whose every call to the Hub raises ``error``."""

    def __init__(self, error):
        failing = self
        self.error = error

        class HfApi:
            def __init__(self, **kwargs):
                pass

            def create_repo(self, repo_id, exist_ok=False):
                raise failing.error

            def upload_folder(self, **kwargs):
                raise failing.error

        self.HfApi = HfApi

    def snapshot_download(self, repo_id, **kwargs):
        raise self.error


class HfHubHTTPError(OSError):
    """A stand-in of huggingface_hub's HTTP error (the real one is built from a response)."""


class RepositoryNotFoundError(HfHubHTTPError):
    pass


HUB_FAILURES = [  # (module, class, message, the reason the PresetError gives)
    ("requests", "ConnectionError", "Failed to establish a new connection\nMax retries",
     "the Hub cannot be reached (offline, or no connection): ConnectionError: Failed to "
     "establish a new connection"),
    ("builtins", "TimeoutError", "timed out", "the Hub cannot be reached (offline, or no "
     "connection): TimeoutError: timed out"),
    ("huggingface_hub.errors", "OfflineModeIsEnabled", "Cannot reach https://huggingface.co: "
     "offline mode is enabled.", "the Hub cannot be reached (offline, or no connection): "
     "OfflineModeIsEnabled: Cannot reach https://huggingface.co: offline mode is enabled."),
    ("huggingface_hub.errors", "HFValidationError", "Repo id must use alphanumeric chars",
     "the Hub refuses this repository id: HFValidationError: Repo id must use alphanumeric "
     "chars"),
    (__name__, "HfHubHTTPError", "500 Server Error: Internal Server Error\n\nRequest id: 1",
     "HfHubHTTPError: 500 Server Error: Internal Server Error"),
    (__name__, "RepositoryNotFoundError", "404 Client Error. Repository Not Found",
     "no such repository, or it is private or gated (log in with `hf auth login`): "
     "RepositoryNotFoundError: 404 Client Error. Repository Not Found"),
]


@pytest.mark.parametrize("module, name, message, reason", HUB_FAILURES,
                         ids=[f[1] for f in HUB_FAILURES])
def test_every_hub_failure_is_one_preset_error_line_naming_the_location(
        fitted, tmp_path, monkeypatch, module, name, message, reason):
    error = getattr(pytest.importorskip(module), name)(message)
    monkeypatch.setattr(preset_dirs, "_hub", lambda: _FailingHub(error))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where a hub save works
    with pytest.raises(preset_dirs.PresetError) as raised:
        fitted.save_to_preset("hf://me/sentiment")
    assert str(raised.value) == ("hf://me/sentiment: uploading to the Hugging Face Hub "
                                 f"failed: {reason}")
    assert raised.value.__suppress_context__ and os.listdir(tmp_path) == []  # no leftovers
    with pytest.raises(preset_dirs.PresetError) as raised:
        TextClassifier.from_preset("hf://me/sentiment")
    assert str(raised.value) == ("hf://me/sentiment: downloading from the Hugging Face Hub "
                                 f"failed: {reason}")


def test_the_real_hub_offline_is_one_preset_error_line(fitted, tmp_path, monkeypatch):
    from huggingface_hub import constants  # pinned in requirements-test.txt

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)  # no request leaves
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "cache"))
    with pytest.raises(preset_dirs.PresetError, match=r"^hf://me/sentiment: downloading from "
                       r"the Hugging Face Hub failed: the Hub cannot be reached \(offline, "
                       r"or no connection\): LocalEntryNotFoundError: Cannot find") as raised:
        TextClassifier.from_preset("hf://me/sentiment")
    assert "\n" not in str(raised.value)
    with pytest.raises(preset_dirs.PresetError, match=r"^hf://me/sentiment: uploading to the "
                       r"Hugging Face Hub failed: the Hub cannot be reached \(offline, or no "
                       r"connection\): OfflineModeIsEnabled: Cannot reach") as raised:
        fitted.save_to_preset("hf://me/sentiment")
    assert "\n" not in str(raised.value)


def test_without_huggingface_hub_an_hf_preset_is_one_preset_error(fitted, monkeypatch):
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # import fails
    expected = ("hf://me/sentiment: hf:// presets need huggingface_hub: pip install "
                "'kerasattn[hub]'")
    with pytest.raises(preset_dirs.PresetError) as raised:
        fitted.save_to_preset("hf://me/sentiment")
    assert str(raised.value) == expected
    with pytest.raises(preset_dirs.PresetError) as raised:
        TextClassifier.from_preset("hf://me/sentiment")
    assert str(raised.value) == expected


BAD_HANDLES = ["hf://../..", "hf://me/x--y", "hf://me/-x", "hf://me/x.", "hf://me/a b",
               "hf://me/" + "a" * 97, "hf://..me/x", "hf://me/x.git", "hf://me/x/y", "hf://me",
               "hf://"]


@pytest.mark.parametrize("handle", BAD_HANDLES)
def test_a_repository_id_the_hub_refuses_is_refused_before_any_call(fitted, monkeypatch,
                                                                    handle):
    monkeypatch.setattr(preset_dirs, "_hub", lambda: pytest.fail("the Hub was called"))
    with pytest.raises(preset_dirs.PresetError, match=r"an hf:// preset is "
                                                     r"hf://NAMESPACE/NAME \(letters"):
        TextClassifier.from_preset(handle)
    with pytest.raises(preset_dirs.PresetError, match=r"hf://NAMESPACE/NAME"):
        fitted.save_to_preset(handle)


def test_the_repository_id_rule_is_the_hubs():
    from huggingface_hub.utils import validate_repo_id as validate
    for handle in BAD_HANDLES:
        repo = handle[len("hf://"):]
        if repo.count("/") == 1:  # a namespace and a name: the Hub refuses it too
            with pytest.raises(ValueError):
                validate(repo)
    for repo in ("me/my-sentiment_1.0", "Org_2/x", "a/" + "b" * 96, "me/_x"):
        validate(repo)
        assert preset_dirs._repo(f"hf://{repo}/") == repo
