"""Multi-worker training on ``tf.distribute.MultiWorkerMirroredStrategy``.

In Keras 3.15 ``model.fit`` under this strategy fails on the first batch
(keras-team/keras#20585, tensorflow/tensorflow#72388: ``strategy.reduce`` of
the step's outputs). :func:`fit` is the loop that replaces it: the same model,
optimizer, run directory and callbacks (checkpoints, CSV history, TensorBoard,
early stopping, ``BackupAndRestore``) as ``model.fit``; only the loop is ours.

Each step every worker takes its slice of the same global batch
(``experimental_distribute_dataset`` with DATA sharding: all workers build the
same seeded pipeline and split each batch), so every worker runs the same
number of steps whatever the length buckets do. The loss is the sum over the
global batch divided by its size (per-replica sums, ``all_reduce`` of the
counts), which stays right for a last, partial batch that leaves a worker with
no examples; Keras's optimizer sums the replicas' gradients.
"""

import json
import os
import shutil

import keras
import tensorflow as tf

from kerasattn.heads import correct, per_example_loss
from kerasattn.training import resume


def cluster():
    """``(task_type, task_id, number of workers)`` from ``TF_CONFIG``."""
    raw = os.environ.get("TF_CONFIG")
    if not raw:
        raise ValueError(
            "--distribution multiworker needs TF_CONFIG, e.g. "
            '{"cluster": {"worker": ["host1:12345", "host2:12345"]}, '
            '"task": {"type": "worker", "index": 0}} (see the README)')
    try:
        conf = json.loads(raw)
        workers = conf["cluster"].get("worker", []) + conf["cluster"].get("chief", [])
        task = conf["task"]
        return task["type"], int(task["index"]), len(workers)
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"TF_CONFIG is not valid cluster JSON ({e}): {raw!r}") from None


def is_chief(task_type, task_id):
    """The worker that writes the run directory (worker 0 when there is no chief)."""
    if task_type == "chief":
        return True
    has_chief = "chief" in json.loads(os.environ["TF_CONFIG"])["cluster"]
    return task_type == "worker" and task_id == 0 and not has_chief


def make_strategy():
    """The strategy, created before any other TensorFlow op (as it must be)."""
    cluster()  # a clear error when TF_CONFIG is missing or malformed
    options = tf.distribute.experimental.CommunicationOptions(
        implementation=tf.distribute.experimental.CommunicationImplementation.RING)
    return tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)


def distribute(strategy, dataset):
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = \
        tf.data.experimental.AutoShardPolicy.DATA
    return strategy.experimental_distribute_dataset(dataset.with_options(options))


def agree_on_resume(strategy, run_dir):
    """Make every worker resume at the same epoch.

    Workers back up after the same epochs but not at the same instant, so a
    crash can leave one worker's backup an epoch ahead of another's (never
    more: the next epoch needs every worker). That worker steps back to its
    previous backup (``double_checkpoint``); when one worker has no backup at
    all, the others drop theirs. Returns the agreed epoch (0: start afresh).
    """
    resume.repair_backup(run_dir)  # a backup cut off mid-write: the previous one
    mine = resume.backed_up_epochs(run_dir)

    @tf.function
    def every_workers():  # ReduceOp has no MIN: gather them all
        return strategy.gather(strategy.run(lambda: tf.constant([mine], tf.int64)), axis=0)

    agreed = int(tf.reduce_min(every_workers()))
    if mine and not agreed:  # another worker has no backup: all start afresh
        shutil.rmtree(resume.backup_dir(run_dir))
    elif mine == agreed + 1:
        resume.step_back_one_epoch(run_dir)
    elif mine != agreed:
        raise RuntimeError(f"this worker's backup is at epoch {mine}, another's at "
                           f"{agreed}: more than one epoch apart; start again with --restart")
    return agreed


def fit(model, strategy, train_ds, val_ds, epochs, callbacks, verbose):
    """Train like ``model.fit(train_ds, validation_data=val_ds, epochs=epochs,
    callbacks=callbacks)``; returns the ``History`` callback."""
    loss_of = per_example_loss(model)
    replicas = strategy.num_replicas_in_sync
    optimizer = model.optimizer
    train_dist, val_dist = distribute(strategy, train_ds), distribute(strategy, val_ds)

    def train_replica(x, y):
        count = tf.cast(tf.shape(y)[0], tf.float32)
        total = tf.distribute.get_replica_context().all_reduce("sum", count)
        with tf.GradientTape() as tape:
            p = model(x, training=True)
            losses = loss_of(y, p)
            loss = tf.reduce_sum(losses) / tf.maximum(total, 1.0)
            if model.losses:  # regularisers (e.g. IRAM's attention penalty)
                loss += tf.add_n([tf.cast(v, tf.float32) for v in model.losses]) / replicas
            scaled = optimizer.scale_loss(loss)
        grads = tape.gradient(scaled, model.trainable_variables)
        optimizer.apply(grads, model.trainable_variables)
        return tf.stack([tf.reduce_sum(losses), correct(y, p), count])

    def eval_replica(x, y):
        p = model(x, training=False)
        return tf.stack([tf.reduce_sum(loss_of(y, p)), correct(y, p),
                         tf.cast(tf.shape(y)[0], tf.float32)])

    def step_fn(replica_fn):
        # one trace for every length bucket, so all workers run the same graph
        @tf.function(input_signature=[train_dist.element_spec])
        def step(batch):
            sums = strategy.run(replica_fn, args=batch)
            return strategy.reduce(tf.distribute.ReduceOp.SUM, sums, axis=None)
        return step

    train_step, eval_step = step_fn(train_replica), step_fn(eval_replica)
    steps = int(train_ds.cardinality()) if train_ds.cardinality() > 0 else None
    history = keras.callbacks.History()
    cbs = keras.callbacks.CallbackList(callbacks + [history], add_progbar=verbose != 0,
                                       model=model, verbose=verbose, epochs=epochs,
                                       steps=steps)
    model.stop_training = False
    model._initial_epoch = None
    cbs.on_train_begin()
    # BackupAndRestore (as in model.fit) sets where to start; private, but it is the
    # attribute fit reads too, and there is no public one (pinned by
    # tests/test_private_keras_api.py)
    initial_epoch = model._initial_epoch or 0
    logs = {}
    for epoch in range(initial_epoch, epochs):
        cbs.on_epoch_begin(epoch)
        sums = tf.zeros([3])
        for i, batch in enumerate(train_dist):
            cbs.on_train_batch_begin(i)
            sums += train_step(batch)
            logs = {"loss": float(sums[0] / sums[2]), "accuracy": float(sums[1] / sums[2])}
            cbs.on_train_batch_end(i, logs)
        val = tf.zeros([3])
        for batch in val_dist:
            val += eval_step(batch)
        logs = {**logs, "val_loss": float(val[0] / val[2]),
                "val_accuracy": float(val[1] / val[2])}
        cbs.on_epoch_end(epoch, logs)
        if model.stop_training:
            break
    cbs.on_train_end(logs)
    return history
