"""HCAN: the (Hierarchical) Convolutional Attention Network of Gao et al. (2018).

Each level of the model (Figure 1) is: learned positional embeddings added
to its inputs with dropout 0.1 (§3.6, §3.8) → one convolutional multi-head
self-attention (``1sa``, :class:`ConvMultiheadAttention`, §3.3) or the
parallel pair multiplied and layer-normalised (``2sa``,
:class:`ParallelConvAttention`, Equation 4) → pooling into one vector, by
masked max over time (``maxpool``) or by convolutional multi-head target
attention (``target``, :class:`TargetAttention`, Equation 5).

The flat "Conv Attention Network" (``can-*``) runs one level over the whole
text. The hierarchical model (``hcan-*``, §3.7) takes (batch, sentences,
words) ids: the word level encodes every sentence into a vector (sentences
folded into the batch with :class:`FoldSentences`), the sentence level encodes
those vectors into the document vector, and a softmax classifies it.

Preset defaults are §4.2's: d = 512 (embeddings and attention), 8 heads,
Adam at 2e-5 with β1 0.9 and β2 0.99, and §4.3's text preprocessing
(``--text-mode hcan``: lower-case, letters, digits and ``. ! ?``, sentences
split on them). The paper trains on one document at a time; we train in
batches of 32 (ids padded per batch, padding masked), so with the paper's
learning rate an epoch makes 32× fewer updates: ``--learning-rate`` exposes
it, and the README gives the rates we measured with.

HAN, the Hierarchical Attention Network of Yang et al. (2016) and HCAN's baseline
(§4.2), is :func:`build_han`: (batch, sentences, words) ids → word embeddings → per
sentence (folded into the batch): bidirectional GRU (50 units each way) → attention
pooling with a 200-unit hidden layer → sentence vectors → bidirectional GRU →
attention pooling → document vector → softmax. Masked at both levels: padded words
and padded sentences get zero attention and never reach a GRU state. Its preset
trains like the HCAN presets (HCAN §4.3: every deep model with Adam at 2e-5, β2 0.99,
on the same preprocessing), so the two compare on equal terms; Yang et al.
themselves used SGD with momentum and 200-d Word2Vec vectors.

The presets of both are data, in :mod:`kerasattn.models.hcan_presets`.
"""

import keras

from kerasattn.layers import (AttentionPooling, ConvMultiheadAttention, FoldSentences,
                              LearnedPositionalEmbedding, MaskedGlobalMaxPooling1D,
                              ParallelConvAttention, TargetAttention, UnfoldSentences)

SELF_ATTENTIONS = (1, 2)
POOLINGS = ("max", "target")


def hcan_level(x, prefix, num_self_attentions=2, pooling="target", d=512, num_heads=8,
               dropout=0.1, max_positions=512, values_from_inputs=False):
    """One level of HCAN on a masked (batch, n, features) tensor -> (batch, d).

    Layers are named ``<prefix>_positions``, ``<prefix>_self_attention`` and
    ``<prefix>_target_attention`` / ``<prefix>_max_pool``.
    """
    x = LearnedPositionalEmbedding(max_positions, dropout=dropout, name=f"{prefix}_positions")(x)
    if num_self_attentions == 2:
        x = ParallelConvAttention(num_heads=num_heads, units=d, dropout=dropout,
                                  name=f"{prefix}_self_attention")(x)
    else:
        x = ConvMultiheadAttention(num_heads=num_heads, units=d, value_activation="elu",
                                   dropout=dropout, name=f"{prefix}_self_attention")(x)
    if pooling == "target":
        return TargetAttention(num_heads=num_heads, units=d, dropout=dropout,
                               values_from_inputs=values_from_inputs,
                               name=f"{prefix}_target_attention")(x)
    return MaskedGlobalMaxPooling1D(name=f"{prefix}_max_pool")(x)


def build_hcan(vocab_size, num_classes, hierarchical=True, num_self_attentions=2,
               pooling="target", embedding_dim=512, d=512, num_heads=8, dropout=0.1,
               max_words=512, max_sentences=256, values_from_inputs=False,
               embeddings_initializer="uniform", name="hcan"):
    """Build a flat CAN or a hierarchical HCAN.

    Args:
        vocab_size: vocabulary size, padding (0) and OOV (1) included.
        num_classes: softmax outputs.
        hierarchical: (batch, sentences, words) ids and two levels (HCAN), or
            (batch, words) ids and one level (CAN).
        num_self_attentions: 1 (one ELU self-attention) or 2 (the parallel
            ELU × tanh pair of Equation 4, with layer normalisation).
        pooling: ``"target"`` (target attention, Equation 5) or ``"max"``.
        embedding_dim: word-vector size (512 in §4.3; another size works, the
            first convolutions map it to d, e.g. 100 for GloVe vectors).
        d: the attention size, number of convolution filters (512 in §4.2).
        num_heads: h (8 in §4.2).
        dropout: on the attention weights and after the positional embeddings (0.1, §3.8).
        max_words: positions with their own learned embedding at the word
            level (later positions share the last one).
        max_sentences: the same at the sentence level.
        values_from_inputs: target attention uses its inputs as values (the
            authors' code) instead of a convolution (the paper's Equation 5).
        embeddings_initializer: Keras initializer of the word embeddings.
    """
    if num_self_attentions not in SELF_ATTENTIONS:
        raise ValueError(f"num_self_attentions must be 1 or 2, got {num_self_attentions!r}")
    if pooling not in POOLINGS:
        raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}")
    if d % num_heads:
        raise ValueError(f"num_heads ({num_heads}) must divide d ({d})")
    level = dict(num_self_attentions=num_self_attentions, pooling=pooling, d=d,
                 num_heads=num_heads, dropout=dropout, values_from_inputs=values_from_inputs)
    shape = (None, None) if hierarchical else (None,)
    ids = keras.Input(shape, dtype="int32", name="token_ids")
    words = keras.layers.Embedding(vocab_size, embedding_dim, mask_zero=True, name="embedding",
                                   embeddings_initializer=embeddings_initializer)(ids)
    if hierarchical:
        sentences = hcan_level(FoldSentences(name="fold_sentences")(words), "word",
                               max_positions=max_words, **level)
        sentences = UnfoldSentences(name="unfold_sentences")([sentences, words])
        document = hcan_level(sentences, "sentence", max_positions=max_sentences, **level)
    else:
        document = hcan_level(words, "word", max_positions=max_words, **level)
    out = keras.layers.Dense(num_classes, activation="softmax", dtype="float32",
                             name="probabilities")(document)
    return keras.Model(ids, out, name=name)


def paper_optimizer(learning_rate):
    """§4.3: Adam with β1 0.9 and β2 0.99 (rate 2e-5 in the paper)."""
    return keras.optimizers.Adam(learning_rate, beta_1=0.9, beta_2=0.99)


def build_han(vocab_size, num_classes, embedding_dim=200, units=50, attention_units=200,
              dropout=0.0, embeddings_initializer="uniform", name="han"):
    """Build HAN.

    Args:
        vocab_size: vocabulary size, padding (0) and OOV (1) included.
        num_classes: softmax outputs.
        embedding_dim: word-vector size (200 in Yang et al.).
        units: GRU units per direction at each level (50).
        attention_units: hidden layer of each attention (200).
        dropout: dropout on the document vector (0 in the paper).
        embeddings_initializer: Keras initializer of the word embeddings.
    """
    ids = keras.Input((None, None), dtype="int32", name="token_ids")
    words = keras.layers.Embedding(vocab_size, embedding_dim, mask_zero=True, name="embedding",
                                   embeddings_initializer=embeddings_initializer)(ids)
    x = FoldSentences(name="fold_sentences")(words)
    x = keras.layers.Bidirectional(keras.layers.GRU(units, return_sequences=True),
                                   name="word_gru")(x)
    x = AttentionPooling(attention_units, name="word_attention")(x)
    x = UnfoldSentences(name="unfold_sentences")([x, words])
    x = keras.layers.Bidirectional(keras.layers.GRU(units, return_sequences=True),
                                   name="sentence_gru")(x)
    x = AttentionPooling(attention_units, name="sentence_attention")(x)
    if dropout:
        x = keras.layers.Dropout(dropout, name="dropout")(x)
    out = keras.layers.Dense(num_classes, activation="softmax", dtype="float32",
                             name="probabilities")(x)
    return keras.Model(ids, out, name=name)
