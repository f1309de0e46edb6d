"""Run under KERAS_BACKEND=jax by tests/test_jax_backend.py: a TextClassifier fitted,
predicted, saved, loaded and exported under JAX, its compilations counted. Prints one
JSON line.

    KERAS_BACKEND=jax python -m tests.jax_classifier OUTDIR
"""

import json
import os
import sys

import keras
import numpy as np

import kerasattn

WORDS = ["good", "fine", "great", "bad", "dull", "poor", "the", "film", "plot", "was"]


def texts_of_many_lengths(n=192, seed=0):
    """Texts of 1 to 150 tokens (three bounded widths: 64, 128, 192), the label their
    first word's sentiment."""
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for i in range(n):
        label = i % 2
        first = WORDS[rng.integers(0, 3) + (0 if label else 3)]
        rest = rng.choice(WORDS[6:], size=int(rng.integers(0, 150)))
        texts.append(" ".join([first, *rest]))
        labels.append(label)
    return texts, labels


def main(out):
    assert keras.backend.backend() == "jax", keras.backend.backend()
    texts, labels = texts_of_many_lengths()
    keras.utils.set_random_seed(0)
    clf = kerasattn.TextClassifier.from_preset(
        "cnn", num_classes=2, model_options={"embedding_dim": 8, "filters": 8})
    shapes = {"train": [], "test": []}
    cls = type(clf)
    train_step, test_step = cls.train_step, cls.test_step

    def counted_train(self, *args):  # runs once per trace: JAX compiles per shape
        shapes["train"].append(list(args[-1][0].shape))
        return train_step(self, *args)

    def counted_test(self, *args):
        shapes["test"].append(list(args[-1][0].shape))
        return test_step(self, *args)

    cls.train_step, cls.test_step = counted_train, counted_test
    try:
        first = clf.fit(texts, labels, epochs=1, batch_size=16, verbose=0,
                        validation_data=(texts[:40], labels[:40]))
        after_first = {k: len(v) for k, v in shapes.items()}
        clf.fit(texts, labels, epochs=8, batch_size=16, verbose=0,
                validation_data=(texts[:40], labels[:40]))
    finally:
        cls.train_step, cls.test_step = train_step, test_step
    probe = ["good the film", "dull plot was the film " * 30]
    probabilities = clf.predict(probe, verbose=0)
    keras_file = os.path.join(out, "clf.keras")
    clf.save(keras_file)
    again = keras.saving.load_model(keras_file)
    served = clf.export(os.path.join(out, "served", "1"))
    print(json.dumps({
        "shapes": shapes, "after_first": after_first,
        "first_loss": first.history["loss"][0],
        "accuracy": float(np.mean(np.argmax(clf.predict(texts, verbose=0), 1) == labels)),
        "probe": probe, "probabilities": probabilities.tolist(),
        "reloaded": again.predict(probe, verbose=0).tolist(),
        "served": served, "backend": keras.backend.backend()}))


if __name__ == "__main__":
    main(sys.argv[1])
