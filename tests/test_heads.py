"""kerasattn.heads: the one place that knows a one-sigmoid-unit head from a softmax."""

import pathlib
import re

import keras
import numpy as np
import pytest

from kerasattn import heads

SIGMOID = np.array([[0.25], [0.9]], np.float32)
SOFTMAX = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]], np.float32)


def test_a_sigmoid_unit_becomes_two_columns_and_a_softmax_stays():
    np.testing.assert_allclose(heads.as_probabilities(SIGMOID), [[0.75, 0.25], [0.1, 0.9]],
                               atol=1e-7)
    np.testing.assert_allclose(heads.as_probabilities(SOFTMAX), SOFTMAX)
    for outputs in (SIGMOID, SOFTMAX):  # the tensor twin gives the same numbers
        np.testing.assert_allclose(keras.ops.convert_to_numpy(heads.probability_tensor(outputs)),
                                   heads.as_probabilities(outputs), atol=1e-7)


def test_loss_per_example_and_right_answers_by_hand():
    y = np.array([1, 0])
    loss = keras.ops.convert_to_numpy(
        heads.per_example_loss(_model(1))(y, SIGMOID))
    np.testing.assert_allclose(loss, [-np.log(0.25), -np.log(0.1)], rtol=1e-5)
    loss = keras.ops.convert_to_numpy(heads.per_example_loss(_model(3))(np.array([0, 2]),
                                                                        SOFTMAX))
    np.testing.assert_allclose(loss, [-np.log(0.7), -np.log(0.6)], rtol=1e-5)
    assert float(heads.correct(y, SIGMOID)) == 0.0
    assert float(heads.correct(np.array([0, 1]), SIGMOID)) == 2.0
    assert float(heads.correct(np.array([0, 1]), SOFTMAX)) == 1.0


@pytest.mark.parametrize("units,loss,metric", [
    (1, "binary_crossentropy", keras.metrics.BinaryAccuracy),
    (3, "sparse_categorical_crossentropy", keras.metrics.SparseCategoricalAccuracy)])
def test_the_loss_follows_the_head(units, loss, metric):
    model = _model(units)
    assert heads.is_binary_head(model) is (units == 1)
    got_loss, accuracy = heads.loss_and_accuracy(model)
    assert got_loss == loss and isinstance(accuracy, metric) and accuracy.name == "accuracy"


def test_no_module_but_heads_checks_for_the_sigmoid_unit():
    """Callers ask kerasattn.heads; none looks at an output's last axis itself."""
    root = pathlib.Path(__file__).resolve().parents[1] / "kerasattn"
    pattern = re.compile(r"(output_shape|outputs?|\bp|probs?)\.shape\[(-1|1)\]\s*==\s*1")
    found = [f"{path.relative_to(root)}:{n}" for path in root.rglob("*.py")
             if path.name != "heads.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if pattern.search(line)]
    assert found == []


def _model(units):
    inputs = keras.Input((4,))
    activation = "sigmoid" if units == 1 else "softmax"
    return keras.Model(inputs, keras.layers.Dense(units, activation=activation)(inputs))
