"""The foundation's accuracy acceptance: real data, official test splits.

The CNN on SST-2 runs in the default suite (~20 s); the recurrent models on
IMDB take 8-15 minutes each on 2 CPU cores and are marked slow
(``python -m pytest -m slow``). benchmarks/baselines.py records the same runs.
"""

import pytest

from kerasattn.cli import train

pytestmark = pytest.mark.usefixtures("shared_data")


def run(tmp_path, *args):
    _, metrics = train.train([*args, "--output-dir", str(tmp_path), "--run-name", "r",
                              "--verbose", "0"])
    return metrics["test"]["accuracy"]


def test_cnn_sst2(tmp_path):
    assert run(tmp_path, "--model", "cnn", "--dataset", "sst2", "--epochs", "4") >= 0.78


@pytest.mark.slow
@pytest.mark.parametrize("model", ["gru", "bilstm"])
def test_recurrent_imdb_within_four_epochs(model, tmp_path):
    acc = run(tmp_path, "--model", model, "--dataset", "imdb", "--max-length", "400",
              "--epochs", "4")
    assert acc >= 0.86
