"""Metrics on small cases computed by hand."""

import numpy as np
import pytest

from kerasattn.metrics import classification_metrics


def test_binary_case_by_hand():
    y = [0, 0, 1, 1]
    p = np.array([[0.9, 0.1], [0.4, 0.6], [0.2, 0.8], [0.7, 0.3]])
    m = classification_metrics(y, p, ["neg", "pos"])
    assert m["accuracy"] == 0.5
    # class 0: precision 1/2, recall 1/2; class 1 the same
    assert m["precision_macro"] == m["recall_macro"] == m["f1_macro"] == 0.5
    assert m["confusion_matrix"] == [[1, 1], [1, 1]]
    # AUC: positive scores .8,.3 vs negative .1,.6 -> pairs won 3 of 4
    assert m["roc_auc"] == 0.75
    expected_loss = -np.mean(np.log([0.9, 0.4, 0.8, 0.3]))
    assert m["loss"] == pytest.approx(expected_loss, rel=1e-6)
    assert m["per_class"]["pos"]["support"] == 2


def test_multiclass_has_no_auc_and_counts_absent_classes():
    y = [0, 1, 1]
    p = np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]])
    m = classification_metrics(y, p, ["a", "b", "c"])
    assert "roc_auc" not in m
    assert m["accuracy"] == pytest.approx(2 / 3)
    # recall: a 1, b 1/2, c 0 (no support -> 0); macro over 3 classes
    assert m["recall_macro"] == pytest.approx(0.5)
    assert m["confusion_matrix"] == [[1, 0, 0], [0, 1, 1], [0, 0, 0]]


def test_rejects_nan_and_wrong_shapes():
    with pytest.raises(ValueError, match="NaN"):
        classification_metrics([0], np.array([[np.nan, 1.0]]), ["a", "b"])
    with pytest.raises(ValueError, match="must be"):
        classification_metrics([0, 1], np.array([[0.5, 0.5]]), ["a", "b"])


def test_mean_std_over_seeds_and_over_a_population():
    from kerasattn.metrics import format_spread, mean_std

    assert mean_std([0.8, 0.82, 0.84]) == pytest.approx((0.82, 0.02))  # sample std
    assert mean_std([1.0, 3.0], ddof=0) == (2.0, 1.0)
    assert mean_std([0.7]) == (0.7, 0.0)
    assert mean_std([1.0, float("nan"), 3.0], ddof=0) == (2.0, 1.0)  # non-finite dropped
    assert all(np.isnan(mean_std([float("nan")])))
    assert format_spread([0.8, 0.82, 0.84]) == "0.8200 ± 0.0200"
    assert format_spread([0.81234]) == "0.8123"


def test_early_stopping_replay_by_hand():
    from kerasattn.metrics import early_stopping_replay

    curve = [0.70, 0.78, 0.77, 0.76, 0.80, 0.79]
    r = early_stopping_replay(curve, patience=2)  # stops after epochs 3 and 4 fail
    assert (r["epochs_run"], r["best_epoch"], r["full_best_epoch"], r["same_epoch"]) == \
        (4, 2, 5, False)
    assert r["val_accuracy"] == 0.78 and r["full_val_accuracy"] == 0.80
    r = early_stopping_replay(curve, patience=3)  # epoch 5 arrives in time
    assert (r["epochs_run"], r["best_epoch"], r["same_epoch"]) == (6, 5, True)
    # equal maxima: the first is kept, and a tie is no improvement
    r = early_stopping_replay([0.8, 0.8, 0.8], patience=1)
    assert (r["epochs_run"], r["best_epoch"], r["same_epoch"]) == (2, 1, True)
    with pytest.raises(ValueError):
        early_stopping_replay([], 2)
    with pytest.raises(ValueError):
        early_stopping_replay([0.5], 0)


def test_out_of_memory_is_told_from_other_errors_and_said_in_one_line():
    import tensorflow as tf

    from kerasattn.training.diagnostics import out_of_memory, out_of_memory_message
    from tests.conftest import JaxRuntimeError

    jax_oom = JaxRuntimeError(
        "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2.62GiB with allocator "
        "GPU_0_bfc on device 0.\n[executable_name='jit_train_step']")
    tf_oom = tf.errors.ResourceExhaustedError(None, None, "OOM when allocating tensor "
                                                          "with shape[32,400,400]")
    assert out_of_memory(jax_oom) and out_of_memory(tf_oom)
    assert not out_of_memory(JaxRuntimeError("INTERNAL: a kernel failed"))
    assert not out_of_memory(ValueError("RESOURCE_EXHAUSTED"))  # not a runtime error
    assert not out_of_memory(MemoryError())  # the host's memory: Python says so itself
    said = out_of_memory_message(jax_oom, "use less", "runs/a")
    assert said == ("runs/a: the device ran out of memory (RESOURCE_EXHAUSTED: Out of memory "
                    "while trying to allocate 2.62GiB with allocator GPU_0_bfc on device 0.), "
                    "so the run was stopped before evaluation (no metrics.json); use less")
    said = out_of_memory_message(tf_oom, "use less")
    assert said.startswith("the device ran out of memory (OOM when allocating tensor with "
                           "shape[32,400,400]), so") and "\n" not in said
