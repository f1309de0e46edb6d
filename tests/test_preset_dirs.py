"""Presets as locations: a trained classifier saved as a directory (or an hf:// repo)
and loaded back by TextClassifier.from_preset, in another process, as it was."""

import json
import os
import shutil
import subprocess
import sys

import keras
import numpy as np
import pytest

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


def test_a_run_becomes_a_preset_with_its_metrics_and_a_model_card(tmp_path, capsys):
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
    assert export.main(["--run", run_dir, "--preset", target]) == 2
    assert "exists; pass overwrite=True" in capsys.readouterr().err
    assert export.main(["--run", run_dir, "--preset", target, "--output", "x"]) == 2
    clf = TextClassifier.from_preset(target)
    assert clf.preset == "mlp" and clf.class_names == ["neg", "pos"]


def test_the_wilson_interval_by_hand():
    low, high = preset_dirs._interval(0.9, 100)
    assert abs(low - 0.8256) < 1e-3 and abs(high - 0.9448) < 1e-3
    assert preset_dirs._interval(0.5, 0) == (0.5, 0.5)
