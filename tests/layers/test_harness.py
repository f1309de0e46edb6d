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
}
VARIANTS = {
    "SelfAttentionBlock-2heads-scaled": lambda: L.SelfAttentionBlock(num_heads=2, scaled=True,
                                                                     dropout=0.0),
}


def test_every_public_layer_is_covered():
    assert set(LAYERS) == set(L.__all__)


@pytest.mark.parametrize("name", sorted(LAYERS) + sorted(VARIANTS))
def test_layer(name, tmp_path):
    check_layer({**LAYERS, **VARIANTS}[name], tmp_path)
