"""Resuming a run after a crash, with the same result as an uninterrupted run.

``keras.callbacks.BackupAndRestore`` saves the weights and the optimizer state
at the end of every epoch and, when the same run is started again, restores
them and starts at the next epoch. Two things it does not save decide whether
the resumed run *ends* the same as an uninterrupted one, and
:class:`EpochSeeds` makes both a function of ``(seed, epoch)`` instead of the
history of the process:

- the shuffle order (a stateless seed per epoch, see
  :func:`kerasattn.data.pipeline.make_dataset`'s ``shuffle_epoch``);
- the dropout masks (each Keras ``SeedGenerator``'s state is reset to
  ``[its first seed, epoch << 32]`` when an epoch begins).

The run directory's ``history.csv`` is cut back to the epochs the backup holds
(an epoch whose row was written but whose backup was not is trained again), so
the history, the best epoch and the best-model checkpoint carry on from there.

The backup outlives ``fit``: it is deleted only once ``metrics.json`` is
written, and :func:`write_fit_done` marks in it that training had ended, so a
run killed while it predicts its splits or draws its plots is evaluated again
on the next start, not trained again from epoch 1.
"""

import json
import os
import shutil

import keras
import tensorflow as tf

from kerasattn import ownership

BACKUP_DIR = "backup"
_METADATA = "training_metadata.json"
_WEIGHTS = "latest.weights.h5"


class EpochSeeds(keras.callbacks.Callback):
    """Sets ``self.epoch`` (an int64 variable for the input pipeline) and resets
    the model's dropout seed generators when each epoch begins."""

    def __init__(self):
        super().__init__()
        # created outside any strategy scope: a plain, per-process variable
        self.epoch = tf.Variable(0, dtype=tf.int64, trainable=False, name="shuffle_epoch")
        self._first_seeds = None

    def _generators(self):
        return [v for v in self.model.variables if v.path.endswith("seed_generator_state")]

    def on_train_begin(self, logs=None):
        # states are never saved with the weights, so here they are the
        # freshly initialised ones, in an uninterrupted and a resumed run alike
        self._first_seeds = [int(v.numpy()[0]) for v in self._generators()]

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch.assign(epoch)
        for v, first in zip(self._generators(), self._first_seeds):
            v.assign(tf.constant([first, epoch << 32], dtype=v.dtype))


def backup_dir(run_dir):
    return os.path.join(run_dir, BACKUP_DIR)


def _read_epoch(path):
    """The epoch count in a backup metadata file, or None when the file is
    missing or not (yet, or no longer) whole JSON."""
    try:
        with open(path) as fh:
            return int(json.load(fh)["epoch"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def backed_up_epochs(run_dir):
    """Epochs completed according to the run's backup (0 when there is none).

    ``BackupAndRestore`` writes its metadata in place, after the weights: a
    process killed (or a reader arriving) between the file's truncation and
    its write finds it empty. That backup counts as the previous one, which
    :func:`repair_backup` puts back before a run resumes; with no previous
    one, as none."""
    d = backup_dir(run_dir)
    path = os.path.join(d, _METADATA)
    if not os.path.exists(path):
        return 0
    epoch = _read_epoch(path)
    if epoch is None and os.path.exists(os.path.join(d, _WEIGHTS + ".bkp")):
        epoch = _read_epoch(path + ".bkp")
    return epoch or 0


def repair_backup(run_dir):
    """Before resuming: if the latest backup's metadata is damaged (the run was
    killed while writing it), put the previous backup, weights and metadata
    together, in its place, or delete the backup when there is no previous
    one (Keras would fail on the file). Returns a line saying what was done,
    or None when the backup was whole or absent."""
    d = backup_dir(run_dir)
    path = os.path.join(d, _METADATA)
    if not os.path.exists(path) or _read_epoch(path) is not None:
        return None
    prev_weights = os.path.join(d, _WEIGHTS + ".bkp")
    prev_epoch = _read_epoch(path + ".bkp")
    if prev_epoch is None or not os.path.exists(prev_weights):
        shutil.rmtree(d)
        return (f"the backup in {d} was cut off while being written and has no "
                "previous one: deleted")
    _copy_over(prev_weights, os.path.join(d, _WEIGHTS))
    _copy_over(path + ".bkp", path)
    return (f"the latest backup in {d} was cut off while being written: resuming "
            f"from the previous one (epoch {prev_epoch})")


def _replace_with(path, write):
    """Write a file atomically: ``write(fh)`` into a temporary file beside ``path``,
    then rename it over ``path`` (a crash leaves the old file or the new one)."""
    with ownership.atomic_file(path, text=True) as fh:  # beside, following no link
        write(fh)


def _copy_over(src, dst):
    """Copy ``src`` over ``dst`` atomically (through a new file beside it)."""
    ownership.copy_file(src, dst)


def step_back_one_epoch(run_dir):
    """Make the previous backup (``double_checkpoint``) the latest one: used when
    the other workers of a multi-worker run only got that far. Each file is
    replaced atomically, the weights before the epoch count."""
    d = backup_dir(run_dir)
    prev = os.path.join(d, _WEIGHTS + ".bkp")
    if not os.path.exists(prev):
        raise RuntimeError(f"{d} holds no previous backup to step back to")
    _copy_over(prev, os.path.join(d, _WEIGHTS))
    with open(os.path.join(d, _METADATA)) as fh:
        meta = json.load(fh)
    meta["epoch"] -= 1
    _replace_with(os.path.join(d, _METADATA), lambda fh: json.dump(meta, fh))


_FIT_DONE = "fit_done.json"


def write_fit_done(run_dir, **figures):
    """Record in the backup that ``fit`` has ended (all epochs, or early stopping):
    a run interrupted after this is evaluated again, not trained again."""
    d = backup_dir(run_dir)
    if os.path.isdir(d):
        _replace_with(os.path.join(d, _FIT_DONE), lambda fh: json.dump(figures, fh))


def read_fit_done(run_dir):
    """The figures :func:`write_fit_done` recorded, or None."""
    path = os.path.join(backup_dir(run_dir), _FIT_DONE)
    if not os.path.exists(path):
        return None
    with open(path) as fh:
        return json.load(fh)


def delete_backup(run_dir):
    """Delete the run's backup (once its metrics.json is written)."""
    if os.path.isdir(backup_dir(run_dir)):
        shutil.rmtree(backup_dir(run_dir))


def truncate_history(path, epochs):
    """Keep the header and the first ``epochs`` rows of a ``CSVLogger`` file;
    returns the kept rows."""
    if not os.path.exists(path):
        return []
    with open(path, newline="") as fh:
        lines = fh.readlines()
    _replace_with(path, lambda fh: fh.writelines(lines[: 1 + epochs] if epochs else []))
    return read_history(path)


# kept here for code that imports them from this module; they live in kerasattn.callbacks
# and kerasattn.runs (read without TensorFlow)
from kerasattn.callbacks import AtomicModelCheckpoint, ResumableEarlyStopping  # noqa: E402
from kerasattn.runs import read_history  # noqa: E402

__all__ = ["AtomicModelCheckpoint", "EpochSeeds", "ResumableEarlyStopping", "backup_dir",
           "backed_up_epochs", "delete_backup", "read_fit_done", "read_history",
           "repair_backup", "step_back_one_epoch", "truncate_history", "write_fit_done"]
