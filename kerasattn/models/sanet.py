"""SANet: the Self-Attention Network of Letarte et al. (2018), and its no-attention baseline.

Embedding → sinusoidal positional encoding (§3) → linear layer to d → N blocks
(``SelfAttentionBlock``, or ``FeedForwardBlock`` for the baseline of §4) →
masked global max pooling over time (padding never wins the max) → softmax.

The presets carry the training recipe of §4: ``GroupedSGD`` (momentum 0.9 and
rate 0.01 for the weights, 0.001 without momentum for the embeddings, all
halved for the big model), batch 128, 40 epochs with the best epoch chosen on
validation accuracy, 20 % of the training texts for validation, texts
truncated at 1,000 tokens, a vocabulary of every training word (the paper
also adds the validation words; ours is built on the training split only).
``--learning-rate`` sets the weights' rate; the embeddings keep a tenth of it.
"""

import keras

from kerasattn.layers import (FeedForwardBlock, MaskedGlobalMaxPooling1D, SelfAttentionBlock,
                              SinusoidalPositionalEncoding)
from kerasattn.optimizers import GroupedSGD


def build_sanet(vocab_size, num_classes, embedding_dim=100, d=128, num_blocks=1, num_heads=1,
                dropout=0.1, scaled=False, attention=True, embeddings_initializer="uniform",
                embedding_scale=1.0, positional_encoding=True, embedding_dropout=0.0,
                pooled_dropout=0.0, name="sanet"):
    """Build SANet (``attention=True``) or its no-attention baseline.

    Args:
        vocab_size: vocabulary size, padding (0) and OOV (1) included.
        num_classes: softmax outputs.
        embedding_dim: word-vector size (100 base, 200 big).
        d: the model size after the linear layer (128 base, 256 big).
        num_blocks: N, the number of blocks (1 base, 2 big).
        num_heads: attention heads (1 in the paper).
        dropout: dropout on each block's sub-layer outputs (0.1).
        scaled: divide the attention scores by √d (False in the paper).
        attention: False builds the §4 baseline (feed-forward blocks).
        embeddings_initializer: Keras initializer of the embeddings (GloVe
            goes in after building: ``kerasattn.embeddings.load_into``).
        embedding_scale: multiply the embeddings by this before adding the
            positional encoding (1 in the paper; √embedding_dim as Vaswani et al.).
        positional_encoding: add the sinusoidal encoding (True in the paper).
        embedding_dropout: dropout after the embeddings (0 in the paper).
        pooled_dropout: dropout on the max-pooled vector (0 in the paper).
    """
    if num_blocks < 1:
        raise ValueError(f"num_blocks must be >= 1, got {num_blocks}")
    ids = keras.Input((None,), dtype="int32", name="token_ids")
    x = keras.layers.Embedding(vocab_size, embedding_dim, mask_zero=True, name="embedding",
                               embeddings_initializer=embeddings_initializer)(ids)
    if positional_encoding:
        x = SinusoidalPositionalEncoding(input_scale=embedding_scale, name="positional_encoding")(x)
    if embedding_dropout:
        x = keras.layers.Dropout(embedding_dropout, name="embedding_dropout")(x)
    x = keras.layers.Dense(d, name="projection")(x)
    for i in range(1, num_blocks + 1):
        if attention:
            x = SelfAttentionBlock(num_heads=num_heads, dropout=dropout, scaled=scaled,
                                   name=f"self_attention_block_{i}")(x)
        else:
            x = FeedForwardBlock(dropout=dropout, name=f"feed_forward_block_{i}")(x)
    x = MaskedGlobalMaxPooling1D(name="max_over_time")(x)
    if pooled_dropout:
        x = keras.layers.Dropout(pooled_dropout, name="pooled_dropout")(x)
    out = keras.layers.Dense(num_classes, activation="softmax", dtype="float32",
                             name="probabilities")(x)
    return keras.Model(ids, out, name=name)


def paper_optimizer(learning_rate):
    """§4: the embeddings train at a tenth of the weights' rate, without momentum."""
    return GroupedSGD(learning_rate, momentum=0.9, embedding_learning_rate=learning_rate / 10,
                      embedding_momentum=0.0)
