"""The private Keras and TensorFlow API the package still relies on, pinned.

Each use has no public equivalent today (a comment at the use says why); if a Keras or
TensorFlow upgrade changes one, the test here fails by name instead of interpretation,
resuming or the export check breaking silently.
"""

import json
import os

import keras
import numpy as np


def _functional():
    ids = keras.Input((5,), dtype="int32")
    x = keras.layers.Embedding(10, 4, name="embed")(ids)
    x = keras.layers.GlobalAveragePooling1D()(x)
    return keras.Model(ids, keras.layers.Dense(2, name="head")(x))


def test_flatten_layers_walks_nested_layers():
    # kerasattn.embeddings.find_embedding_layer, interpret.attention.attention_layers and
    # interpret.attributions.embedding_layers (keras-hub uses it the same way)
    inner = _functional()
    outer = keras.Sequential([inner])
    names = [layer.name for layer in outer._flatten_layers(include_self=False, recursive=True)]
    assert "embed" in names and "head" in names


def test_backup_and_restore_tells_fit_where_to_start_in_initial_epoch(tmp_path):
    # distributed.fit (the multi-worker loop of keras-team/keras#20585) starts where
    # BackupAndRestore says, as model.fit does: in model._initial_epoch
    model = _functional()
    model.compile("sgd", "sparse_categorical_crossentropy")
    backup = str(tmp_path / "backup")
    x, y = np.ones((4, 5), "int32"), np.zeros(4, "int32")
    model.fit(x, y, epochs=2, verbose=0,
              callbacks=[keras.callbacks.BackupAndRestore(backup, delete_checkpoint=False)])
    assert json.loads(open(os.path.join(backup, "training_metadata.json")).read())["epoch"] == 2
    fresh = _functional()
    fresh.compile("sgd", "sparse_categorical_crossentropy")
    fresh._initial_epoch = None
    callback = keras.callbacks.BackupAndRestore(backup)
    callback.set_model(fresh)
    callback.on_train_begin()
    assert fresh._initial_epoch == 2  # the epochs done: the next to run is the third


def test_a_call_replaced_on_the_instance_is_the_one_keras_runs():
    # interpret.attributions._replaced_calls (gradients on given embeddings) and
    # interpret.faithfulness.permuted_probabilities: the model's own forward pass, masks
    # included, with one layer's output replaced
    from kerasattn.interpret.attributions import _replaced_calls

    model = _functional()
    layer = model.get_layer("embed")
    x = np.array([[1, 2, 3, 0, 0]])
    before = model(x)
    with _replaced_calls([layer], [lambda ids: keras.ops.zeros((1, 5, 4))]):
        zeroed = model(x)
    np.testing.assert_allclose(zeroed, model.get_layer("head")(keras.ops.zeros((1, 4))),
                               atol=1e-6)
    np.testing.assert_allclose(model(x), before)  # restored
    assert "call" not in vars(layer)


def test_op_def_registry_tells_registered_ops_from_others():
    # export.unregistered_ops: ops the SavedModel needs that core TensorFlow lacks
    # (TF Serving embeds an old tensorflow-text op set: tensorflow/serving#4057)
    from tensorflow.python.framework import op_def_registry

    assert op_def_registry.get("MatMul") is not None
    assert op_def_registry.get("NoSuchOpAnywhere") is None


def test_backup_and_restore_saves_through_save_model_and_its_paths(tmp_path):
    # kerasattn.callbacks.AtomicBackupAndRestore overrides _save_model (each file written
    # beside its place and renamed) and reads the paths and counters Keras keeps
    backup = keras.callbacks.BackupAndRestore(str(tmp_path / "b"), double_checkpoint=True)
    for name in ("_weights_path", "_training_metadata_path", "_prev_weights_path",
                 "_prev_training_metadata_path", "_current_epoch", "_last_batch_seen"):
        assert hasattr(backup, name), name
    assert callable(getattr(keras.callbacks.BackupAndRestore, "_save_model"))
    from kerasattn.callbacks import AtomicBackupAndRestore

    model = _functional()
    model.compile("sgd", "sparse_categorical_crossentropy")
    x, y = np.ones((4, 5), "int32"), np.zeros(4, "int32")
    cb = AtomicBackupAndRestore(str(tmp_path / "a"), double_checkpoint=True,
                                delete_checkpoint=False)
    model.fit(x, y, epochs=2, verbose=0, callbacks=[cb])
    names = sorted(os.listdir(tmp_path / "a"))
    assert names == ["latest.weights.h5", "latest.weights.h5.bkp", "training_metadata.json",
                     "training_metadata.json.bkp"], names
    assert json.loads(open(tmp_path / "a" / "training_metadata.json").read())["epoch"] == 2
