"""Every layer of kerasattn.layers through the shared harness."""

import keras
import numpy as np
import pytest

import kerasattn.layers as L
from kerasattn.layers._initializers import clone_initializer
from tests.layers.harness import check_layer, equal_drawn_weights

LAYERS = {
    "MaskedGlobalMaxPooling1D": lambda: L.MaskedGlobalMaxPooling1D(),
    "MaskedGlobalAveragePooling1D": lambda: L.MaskedGlobalAveragePooling1D(),
    "KimConvPool": lambda: L.KimConvPool(filters=4, window=3),
    "SelfAttentionBlock": lambda: L.SelfAttentionBlock(dropout=0.0),
    "FeedForwardBlock": lambda: L.FeedForwardBlock(dropout=0.0),
    "SinusoidalPositionalEncoding": lambda: L.SinusoidalPositionalEncoding(),
    "ConvMultiheadAttention": lambda: L.ConvMultiheadAttention(num_heads=2, dropout=0.0),
    "ParallelConvAttention": lambda: L.ParallelConvAttention(num_heads=2, dropout=0.0),
    "TargetAttention": lambda: L.TargetAttention(num_heads=2, dropout=0.0),
    "LearnedPositionalEmbedding": lambda: L.LearnedPositionalEmbedding(16, dropout=0.0),
    "AttentionPooling": lambda: L.AttentionPooling(units=6),
    "Highway": lambda: L.Highway(num_layers=2),
    "Maxout": lambda: L.Maxout(units=5, pool_size=3, num_layers=2),
    "TransformerEncoderBlock": lambda: L.TransformerEncoderBlock(num_heads=2, ff_dim=8,
                                                                 dropout=0.0),
    "InterAttention": lambda: L.InterAttention(units=6),
}
# Layers whose inputs are not one (batch, time, features) sequence, tested on their own.
OWN_TESTS = {
    "FoldSentences": "tests/layers/test_sentence_folding.py",
    "UnfoldSentences": "tests/layers/test_sentence_folding.py",
    "IterativeRecursiveAttention": "tests/layers/test_iterative_recursive_attention.py",
    "CharNgramEmbedding": "tests/layers/test_char_ngram_embedding.py",  # takes ids
}
VARIANTS = {
    "ConvMultiheadAttention-tanh-units4": lambda: L.ConvMultiheadAttention(
        num_heads=2, units=4, value_activation="tanh", dropout=0.0),
    "TargetAttention-values-from-inputs": lambda: L.TargetAttention(
        num_heads=4, values_from_inputs=True, dropout=0.0),
    "TransformerEncoderBlock-8heads-key-dim": lambda: L.TransformerEncoderBlock(
        num_heads=8, ff_dim=8, key_dim=3, dropout=0.0),
    "SelfAttentionBlock-2heads-scaled": lambda: L.SelfAttentionBlock(num_heads=2, scaled=True,
                                                                     dropout=0.0),
}


def test_every_public_layer_is_covered():
    assert set(LAYERS) | set(OWN_TESTS) == set(L.__all__)


@pytest.mark.parametrize("name", sorted(LAYERS) + sorted(VARIANTS))
def test_layer(name, tmp_path):
    check_layer({**LAYERS, **VARIANTS}[name], tmp_path)


@pytest.mark.parametrize("name", ["SelfAttentionBlock", "ConvMultiheadAttention",
                                  "TransformerEncoderBlock", "InterAttention", "Highway"])
def test_a_seeded_initializer_instance_still_starts_every_weight_apart(name):
    # An explicit integer seed fixes an instance's values: each weight gets seed, seed + 1...
    seeded = keras.initializers.GlorotUniform(seed=3)
    make = {"SelfAttentionBlock": lambda: L.SelfAttentionBlock(kernel_initializer=seeded),
            "ConvMultiheadAttention": lambda: L.ConvMultiheadAttention(
                num_heads=2, kernel_initializer=seeded),
            "TransformerEncoderBlock": lambda: L.TransformerEncoderBlock(
                num_heads=2, ff_dim=8, kernel_initializer=seeded),
            "InterAttention": lambda: L.InterAttention(units=8, kernel_initializer=seeded),
            "Highway": lambda: L.Highway(num_layers=2, kernel_initializer=seeded)}[name]
    layer = make()
    layer(np.ones((2, 6, 8), "float32"))
    values = [(w.path, keras.ops.convert_to_numpy(w)) for w in layer.weights]
    # the clones' seeds do not follow the global seed: compare with the same layer
    # built from an instance seeded 1,000 further on
    other = {**layer.get_config(), "kernel_initializer": keras.initializers.GlorotUniform(1003)}
    twin = layer.__class__.from_config(other)
    twin(np.ones((2, 6, 8), "float32"))
    again = [(w.path, keras.ops.convert_to_numpy(w)) for w in twin.weights]
    assert not equal_drawn_weights(values, again)
    assert seeded.get_config()["seed"] == 3  # the layer's config keeps the user's seed
    assert layer.get_config()["kernel_initializer"]["config"]["seed"] == 3


def test_clone_initializer_gives_instances_of_their_own():
    shared = keras.initializers.RandomNormal(stddev=0.5)
    a, b = clone_initializer(shared), clone_initializer(shared)
    assert a is not shared and b is not shared
    assert a.get_config()["stddev"] == 0.5
    assert not np.array_equal(keras.ops.convert_to_numpy(a((4, 4))),
                              keras.ops.convert_to_numpy(b((4, 4))))
    # a name or a config gives a new instance too; a constant stays that constant
    assert isinstance(clone_initializer("zeros"), keras.initializers.Zeros)
    assert float(keras.ops.convert_to_numpy(
        clone_initializer(keras.initializers.Constant(1.5))((1,)))[0]) == 1.5
    # under one global seed, unseeded clones repeat exactly
    keras.utils.set_random_seed(7)
    first = keras.ops.convert_to_numpy(clone_initializer(shared)((3,)))
    keras.utils.set_random_seed(7)
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(clone_initializer(shared)((3,))),
                                  first)
