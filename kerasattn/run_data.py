"""A run's dataset: loaded and split exactly as the run split it, and checked to be
the data it trained on.

Training loads its data through :func:`load_dataset`
(:func:`kerasattn.training.trainer.load_data`), and so do ``evaluate``,
``explain``, ``reproduce`` and the experiments, from a run's ``config.json``.
"""

import os

from kerasattn import runs
from kerasattn.data import datasets


def load_dataset(config, data_dir=None, download=True):
    """The dataset of a run (its ``config.json`` dictionary), split exactly as in training
    (streamed if it was); training loads through here too
    (:func:`kerasattn.training.trainer.load_data`)."""
    if config.get("stream"):
        from kerasattn.data import streaming  # late: TensorFlow, for a streamed dataset only

        return streaming.load(config["dataset"], data_dir=data_dir,
                              val_fraction=config["train"]["val_fraction"], seed=config["seed"],
                              download=download)
    return datasets.load(config["dataset"], data_dir=data_dir,
                         val_fraction=config["train"]["val_fraction"],
                         # runs made before the setting existed drew it stratified
                         val_split=config["train"].get("val_split", "stratified"),
                         seed=config["seed"], download=download)


def check_same_data(run_dir, config, ds):
    """Raise :class:`kerasattn.runs.RunError` when ``ds`` (the run's dataset, loaded
    again) is not the data the run trained on (its ``data_fingerprint``)."""
    stored = config.get("data_fingerprint")
    if not stored:
        return
    if config.get("embeddings"):  # the starting vectors are not read again
        vectors = os.path.abspath(config["embeddings"])
        stored = {**stored, "files": {k: v for k, v in (stored.get("files") or {}).items()
                                      if k != vectors}}
    changes = runs.fingerprint_changes(stored, runs.data_fingerprint(
        config["dataset"], ds, bool(config.get("stream"))))
    if changes:
        raise runs.RunError(f"{run_dir} was trained on other data: {'; '.join(changes)}; its "
                            "recorded metrics stay as they are")
