"""The sentiment Transformer with inter-attention pooling (Hubli, paper 004).

``transformer`` (§2, Figure 2): word embeddings + sinusoidal positional
encoding → ``num_layers`` :class:`TransformerEncoderBlock` (multi-head scaled
dot-product attention with the output projection W_Z, a two-layer
feed-forward net, each with residual addition and layer normalisation) →
:class:`InterAttention` (a trained query pools the encoder outputs into one
vector) → a sigmoid unit with binary cross-entropy for two classes (the
paper's ``BCEWithLogitsLoss``), softmax otherwise. Adam.

The paper's grid is ``num_layers`` ∈ {1, 2, 3} × ``num_heads`` ∈ {1, 2, 4, 8}
(``python -m training.train --model transformer --layers 3 --heads 8``).
It does not give d, the feed-forward width, dropout or the learning rate;
our defaults: 100-d embeddings (the size of the GloVe vectors the zoo's
``--embeddings`` loader reads; heads of d // num_heads, so 8 heads have 12
dimensions each), a feed-forward width of 128 (the paper's baselines use 128
hidden units), dropout 0.1 (Vaswani et al.), Adam at 1e-3, embeddings scaled
by √d before the encoding is added (Vaswani et al. §3.4: the encoding's ±1
values would otherwise swamp small embeddings). §3.3's preprocessing is
available with ``--remove-punctuation --remove-stopwords`` and the vocabulary
is limited to 20,000 words.
"""

import math

import keras

from kerasattn.layers import InterAttention, SinusoidalPositionalEncoding, TransformerEncoderBlock


def build_transformer(vocab_size, num_classes, num_layers=1, num_heads=2, embedding_dim=100,
                      ff_dim=128, key_dim=None, dropout=0.1, embedding_scale=None,
                      attention_units=None, name="transformer"):
    """Build the sentiment Transformer.

    Args:
        vocab_size: vocabulary size, padding (0) and OOV (1) included.
        num_classes: 2 gives one sigmoid unit, more a softmax.
        num_layers: encoder blocks (1–3 in the paper).
        num_heads: attention heads per block (1, 2, 4, 8 in the paper).
        embedding_dim: d, the embedding and model size.
        ff_dim: hidden units of each block's feed-forward net.
        key_dim: size of each head (default d // num_heads).
        dropout: dropout after the positional encoding, on the attention
            weights and on each sub-layer's output.
        embedding_scale: multiply the embeddings by this before adding the
            encoding (default √d).
        attention_units: size of the inter-attention query (default d).
    """
    if num_layers < 1:
        raise ValueError(f"num_layers must be >= 1, got {num_layers}")
    ids = keras.Input((None,), dtype="int32", name="token_ids")
    x = keras.layers.Embedding(vocab_size, embedding_dim, mask_zero=True, name="embedding")(ids)
    scale = math.sqrt(embedding_dim) if embedding_scale is None else embedding_scale
    x = SinusoidalPositionalEncoding(input_scale=scale, name="positional_encoding")(x)
    x = keras.layers.Dropout(dropout, name="embedding_dropout")(x)
    for i in range(1, num_layers + 1):
        x = TransformerEncoderBlock(num_heads=num_heads, ff_dim=ff_dim, key_dim=key_dim,
                                    dropout=dropout, name=f"encoder_{i}")(x)
    x = InterAttention(attention_units, name="inter_attention")(x)
    if num_classes == 2:
        out = keras.layers.Dense(1, activation="sigmoid", dtype="float32",
                                 name="probabilities")(x)
    else:
        out = keras.layers.Dense(num_classes, activation="softmax", dtype="float32",
                                 name="probabilities")(x)
    return keras.Model(ids, out, name=name)
