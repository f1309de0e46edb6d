"""Layers of the zoo: one public layer per module, all registered under 'kerasattn'."""

from kerasattn.layers.attention_pooling import AttentionPooling
from kerasattn.layers.char_ngram_embedding import CharNgramEmbedding
from kerasattn.layers.conv_multihead_attention import ConvMultiheadAttention
from kerasattn.layers.feed_forward_block import FeedForwardBlock
from kerasattn.layers.fold_sentences import FoldSentences
from kerasattn.layers.highway import Highway
from kerasattn.layers.inter_attention import InterAttention
from kerasattn.layers.iterative_recursive_attention import IterativeRecursiveAttention
from kerasattn.layers.kim_conv import KimConvPool
from kerasattn.layers.learned_positional_embedding import LearnedPositionalEmbedding
from kerasattn.layers.maxout import Maxout
from kerasattn.layers.parallel_conv_attention import ParallelConvAttention
from kerasattn.layers.pooling import MaskedGlobalAveragePooling1D, MaskedGlobalMaxPooling1D
from kerasattn.layers.positional_encoding import SinusoidalPositionalEncoding
from kerasattn.layers.self_attention_block import SelfAttentionBlock
from kerasattn.layers.target_attention import TargetAttention
from kerasattn.layers.transformer_encoder import TransformerEncoderBlock
from kerasattn.layers.unfold_sentences import UnfoldSentences

__all__ = ["AttentionPooling", "CharNgramEmbedding", "ConvMultiheadAttention", "FeedForwardBlock",
           "FoldSentences", "Highway", "InterAttention", "IterativeRecursiveAttention", "KimConvPool", "LearnedPositionalEmbedding",
           "MaskedGlobalAveragePooling1D", "MaskedGlobalMaxPooling1D", "Maxout",
           "ParallelConvAttention", "SelfAttentionBlock",
           "SinusoidalPositionalEncoding", "TargetAttention", "TransformerEncoderBlock",
           "UnfoldSentences"]
