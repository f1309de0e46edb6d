"""Every Keras preset starts each weight from its own draw: no two weights of equal
shape start equal (a Keras 3 initializer instance handed to two weights starts them
equal: query and key projections alike give symmetric scores peaked on the diagonal),
one seed builds the same model twice and another seed another model."""

import keras
import pytest

from kerasattn import TextClassifier, models
from tests.layers.harness import check_seeds, equal_drawn_weights, equal_initial_weights
from tests.models.test_baselines import VOCAB, WORDS


def build(name):
    return models.get(name, vocab_size=VOCAB, num_classes=3, vocabulary=WORDS)


@pytest.mark.parametrize("name", models.names(kind="keras"))
def test_no_two_weights_of_a_preset_start_equal(name):
    assert not equal_initial_weights(lambda: build(name))


@pytest.mark.parametrize("name", ["sanet-base", "hcan-2sa-target", "iram-full",
                                  "transformer"])
def test_one_seed_repeats_a_preset_and_another_differs(name):
    check_seeds(lambda: build(name))


@pytest.mark.parametrize("name", ["sanet-base", "transformer", "iram-vanilla"])
def test_a_classifier_from_a_preset_starts_every_weight_apart(name):
    # as a new user: from_preset, then fit on four short texts (twice: some recipes keep
    # only words seen twice); the weights are read
    # when training begins, before any step, under two seeds
    texts = ["a gorgeous film", "dull and long", "witty, warm", "not good at all"] * 2
    start = []
    for seed in (0, 1):
        keras.utils.set_random_seed(seed)
        clf = TextClassifier.from_preset(name, num_classes=2)
        grab = keras.callbacks.LambdaCallback(on_train_begin=lambda logs, clf=clf: start.append(
            [(w.path, keras.ops.convert_to_numpy(w)) for w in clf.backbone.weights]))
        clf.fit(texts, [1, 0, 1, 0] * 2, epochs=1, batch_size=8, verbose=0, callbacks=[grab])
    assert equal_drawn_weights(*start) == []
