"""Every run's record says which code, command, machine and time made it
(kerasattn.provenance; docs/cli.md, the run directory)."""

import json
import os
import re
import subprocess

from kerasattn import provenance
from kerasattn.cli import train

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _csv(path):
    rows = [f"{'good fine great' if i % 2 else 'bad poor dull'} {i},{i % 2}" for i in range(60)]
    path.write_text("text,label\n" + "\n".join(rows) + "\n")
    return str(path)


def test_a_run_records_its_commit_command_device_and_times(tmp_path):
    data = _csv(tmp_path / "d.csv")
    argv = ["--model", "mlp", "--dataset", f"csv:{data}", "--output-dir", str(tmp_path),
            "--run-name", "r", "--epochs", "3", "--early-stopping", "1", "--seed", "4",
            "--batch-size", "16", "--verbose", "0", "--learning-rate", "1e-9"]
    assert train.main(argv) == 0
    config = json.load(open(tmp_path / "r" / "config.json"))["provenance"]
    metrics = json.load(open(tmp_path / "r" / "metrics.json"))["provenance"]
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    assert config["commit"] == head and isinstance(config["dirty"], bool)
    assert config["command"].startswith("python -m training.train --model mlp")
    assert "--seed 4" in config["command"] and config["seed"] == 4
    assert config["backend"] == "tensorflow" and config["cores"] == os.cpu_count()
    assert config["cpu"] and config["gpus"] == []
    assert {"python", "keras", "tensorflow", "scikit_learn"} <= set(config["versions"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", config["started_utc"])
    assert {k: metrics[k] for k in config} == config  # the same start, completed
    assert metrics["ended_utc"] >= metrics["started_utc"] and metrics["wall_seconds"] >= 0
    # a learning rate of 1e-9 does not move validation accuracy: early stopping cuts it
    assert metrics["cut"] == ["early stopping after epoch 2 of 3"], metrics["cut"]


def test_the_cut_names_a_time_limit_an_interruption_and_early_stopping():
    assert provenance.cut_of({"epochs_run": 10}, 10) == []
    assert provenance.cut_of({"epochs_run": 4}, 10) == ["early stopping after epoch 4 of 10"]
    assert provenance.cut_of({"epochs_run": 4, "time_limit": {"seconds": 600, "reached": True},
                              "resumed_after_epoch": 2}, 10) == [
        "time limit of 600 s", "interrupted, resumed after epoch 2"]


def test_outside_a_checkout_the_commit_is_unknown(tmp_path, monkeypatch):
    monkeypatch.setattr(provenance.os.path, "exists",
                        lambda p, real=os.path.exists: False if p.endswith(".git")
                        else real(p))
    found = provenance.code_version()
    assert found["commit"] is None and found["dirty"] is None and found["kerasattn"]


def test_a_benchmarks_own_records_do_not_make_the_checkout_dirty(tmp_path):
    """A benchmark writes its page between measurements: the next measurement's code is
    still the commit's. A change of anything else tracked is dirty."""
    import subprocess

    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    (tmp_path / "kerasattn").mkdir()
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    (tmp_path / "kerasattn" / "code.py").write_text("x = 1\n")
    (tmp_path / "benchmarks" / "results" / "speed.md").write_text("| a |\n")
    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    found = provenance.code_version(str(tmp_path))
    assert len(found["commit"]) == 40 and found["dirty"] is False
    (tmp_path / "benchmarks" / "results" / "speed.md").write_text("| a |\n| b |\n")
    assert provenance.code_version(str(tmp_path))["dirty"] is False
    (tmp_path / "kerasattn" / "code.py").write_text("x = 2\n")
    assert provenance.code_version(str(tmp_path))["dirty"] is True

