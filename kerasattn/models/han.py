"""HAN: the Hierarchical Attention Network of Yang et al. (2016), HCAN's baseline (§4.2).

(batch, sentences, words) ids → word embeddings → per sentence (folded into
the batch): bidirectional GRU (50 units each way) → attention pooling with a
200-unit hidden layer → sentence vectors → bidirectional GRU → attention
pooling → document vector → softmax. Masked at both levels: padded words
and padded sentences get zero attention and never reach a GRU state.

The preset trains like the HCAN presets (HCAN §4.3: every deep model with
Adam at 2e-5, β2 0.99, on the same preprocessing), so the two compare on
equal terms; Yang et al. themselves used SGD with momentum and 200-d
Word2Vec vectors.
"""

import keras

from kerasattn.layers import AttentionPooling, FoldSentences, UnfoldSentences
from kerasattn.models.hcan import paper_optimizer
from kerasattn.models.han_presets import FAMILY, PAPER, PRESETS
from kerasattn.models.registry import Preset, register


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


for _name, _spec in PRESETS.items():
    register(Preset.from_spec(_name, build_han, _spec, family=FAMILY, paper=PAPER,
                              make_optimizer=paper_optimizer))
