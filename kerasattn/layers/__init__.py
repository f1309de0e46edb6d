"""Layers of the zoo: one public layer per module, all registered under 'kerasattn'."""

from kerasattn.layers.feed_forward_block import FeedForwardBlock
from kerasattn.layers.kim_conv import KimConvPool
from kerasattn.layers.pooling import MaskedGlobalAveragePooling1D, MaskedGlobalMaxPooling1D
from kerasattn.layers.positional_encoding import SinusoidalPositionalEncoding
from kerasattn.layers.self_attention_block import SelfAttentionBlock

__all__ = ["FeedForwardBlock", "KimConvPool", "MaskedGlobalAveragePooling1D",
           "MaskedGlobalMaxPooling1D", "SelfAttentionBlock", "SinusoidalPositionalEncoding"]
