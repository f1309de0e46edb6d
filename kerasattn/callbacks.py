"""The training callbacks of the zoo, in one place: each a ``keras.callbacks.Callback``
that ``model.fit`` (``TextClassifier.fit`` too) takes.

- :class:`TimeLimit`: stop once a number of seconds has passed (a machine lent by the hour).
- :class:`DivergenceGuard`: stop at the first NaN or infinite loss, and say where.
- :class:`ResumableEarlyStopping`: early stopping whose patience counts the epochs before
  an interruption.
- :class:`AtomicModelCheckpoint`: the best epoch's model, written whole or not at all.

They need Keras only (any backend): ``training.portable fit`` uses them under JAX.
``kerasattn.training.resume.EpochSeeds``, which feeds the tf.data pipeline, stays with resuming.
"""

import json
import os
import time

import keras
import numpy as np

from kerasattn import ownership


class TimeLimit(keras.callbacks.Callback):
    """Stop training once ``seconds`` have passed since ``fit`` began, after the batch in
    progress: the partial epoch is still validated (and kept, if it is the best). A limit
    that passes during an epoch's validation stops training at that epoch's end, so no
    further epoch starts only to be cut; one that passes after the last batch of the last
    epoch stops nothing (the run is whole). After ``fit``, ``stopped_at`` is ``(epoch,
    steps)`` (both from 1) or None; :func:`kerasattn.metrics.time_limit_record` words it
    for ``metrics.json``.

    Raises:
        ValueError: unless ``seconds`` > 0.
    """

    def __init__(self, seconds):
        super().__init__()
        if not seconds > 0:
            raise ValueError(f"the time limit must be > 0 seconds, got {seconds}")
        self.seconds, self.stopped_at, self.steps_per_epoch = seconds, None, None
        self.start, self.epoch, self.steps = None, 0, 0

    def on_train_begin(self, logs=None):  # each fit has the whole limit
        self.start, self.stopped_at, self.steps_per_epoch = time.perf_counter(), None, None

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch, self.steps = epoch, 0

    def on_train_batch_end(self, batch, logs=None):
        self.steps = batch + 1
        if self.steps != (self.params or {}).get("steps"):  # an epoch's last batch:
            self._stop_if_past()  # on_epoch_end decides, after its validation

    def on_epoch_end(self, epoch, logs=None):
        if epoch + 1 < (self.params or {}).get("epochs", 0):  # an epoch would follow
            self._stop_if_past()

    def _stop_if_past(self):
        if (self.stopped_at is None and not self.model.stop_training
                and time.perf_counter() - self.start > self.seconds):
            self.stopped_at = (self.epoch + 1, self.steps)  # both from 1
            self.steps_per_epoch = (self.params or {}).get("steps")
            self.model.stop_training = True


class DivergenceGuard(keras.callbacks.TerminateOnNaN):
    """``TerminateOnNaN`` that also says where: it stops training at the first batch whose
    loss is NaN or infinite (the weights are then NaN too, and every later step is
    wasted), without Keras's printed line, and after ``fit`` its ``diverged`` is
    ``(epoch, step)`` (both from 1) where that happened, or None;
    :func:`kerasattn.training.diagnostics.diverged_message` words it as one error line."""

    def __init__(self):
        super().__init__()
        self.diverged, self.loss, self.epoch = None, None, 0

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and self.diverged is None and not np.isfinite(float(loss)):
            self.diverged, self.loss = (self.epoch + 1, batch + 1), float(loss)
            self.model.stop_training = True


class ResumableEarlyStopping(keras.callbacks.EarlyStopping):
    """``EarlyStopping`` that replays the epochs before an interruption (their
    ``history.csv`` rows), so its patience counts them as an uninterrupted run would."""

    def __init__(self, past_epochs, **kwargs):
        super().__init__(**kwargs)
        self._past = past_epochs

    def on_train_begin(self, logs=None):
        super().on_train_begin(logs)
        for row in self._past:
            self.on_epoch_end(row["epoch"], row)


class AtomicModelCheckpoint(keras.callbacks.ModelCheckpoint):
    """``ModelCheckpoint`` whose file is replaced whole or not at all: Keras writes the
    ``.keras`` archive at ``filepath`` directly, so a full disk (or a kill) mid-write
    would leave the best epoch's model damaged, and a resumed run could not restore it.
    This one writes ``NAME.partial.keras`` beside it and renames it over ``filepath``
    only once written."""

    def __init__(self, filepath, **kwargs):
        self.final_path = filepath
        stem, ext = os.path.splitext(filepath)
        self.partial_path = f"{stem}.partial{ext}"
        super().__init__(self.partial_path, **kwargs)

    def on_epoch_end(self, epoch, logs=None):
        if os.path.exists(self.partial_path):
            os.remove(self.partial_path)  # left by an interrupted write
        super().on_epoch_end(epoch, logs)
        if os.path.exists(self.partial_path):
            ownership.rename(self.partial_path, self.final_path)


class AtomicBackupAndRestore(keras.callbacks.BackupAndRestore):
    """``BackupAndRestore`` whose files are each replaced whole or not at all: Keras
    writes ``latest.weights.h5`` and ``training_metadata.json`` in place, so a full disk
    or a kill mid-write left a truncated file. This one writes each beside its place and
    renames it over (:mod:`kerasattn.ownership`); the previous epoch's copies
    (``double_checkpoint``) are made the same way. It overrides Keras's private
    ``_save_model`` and reads its private paths (pinned in
    tests/test_private_keras_api.py): there is no public hook for how the backup is
    written."""

    def _save_model(self):
        os.makedirs(self.backup_dir, exist_ok=True)
        if self.double_checkpoint:
            for src, dst in ((self._weights_path, self._prev_weights_path),
                             (self._training_metadata_path,
                              self._prev_training_metadata_path)):
                if os.path.exists(src):
                    ownership.copy_file(src, dst)
        partial = os.path.join(self.backup_dir, ".partial.weights.h5")
        if os.path.lexists(partial):
            os.remove(partial)  # left by a killed save (a link is removed, not followed)
        ownership.fault_point("write", self._weights_path)
        try:
            self.model.save_weights(filepath=partial, overwrite=True)
        except BaseException:
            if os.path.lexists(partial):
                os.remove(partial)  # half written (a full disk): the backup stays whole
            raise
        ownership.rename(partial, self._weights_path)
        ownership.write_text(self._training_metadata_path, json.dumps(
            {"epoch": self._current_epoch, "batch": self._last_batch_seen}))
