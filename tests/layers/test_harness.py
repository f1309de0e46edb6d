"""Every layer of kerasattn.layers through the shared harness."""

import pytest

import kerasattn.layers as L
from tests.layers.harness import check_layer

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
