"""Neural baselines on token ids (Hubli, Table 1; HCAN §4.2): mlp, cnn, rnn, lstm, bilstm, gru.

All embed with ``mask_zero=True`` so padding (id 0) is masked end to end: the
same text padded to any length gives the same prediction. Hubli trains
them with Adam, 128 hidden units and 100-dimensional embeddings; Kim's CNN
uses windows 3/4/5 with 100 maps each and dropout 0.5 (HCAN §4.2).
"""

import keras

from kerasattn.layers import KimConvPool, MaskedGlobalAveragePooling1D, MaskedGlobalMaxPooling1D


def _inputs_and_embedding(vocab_size, embedding_dim, embeddings_initializer="uniform"):
    ids = keras.Input(shape=(None,), dtype="int32", name="token_ids")
    x = keras.layers.Embedding(vocab_size, embedding_dim, mask_zero=True,
                               embeddings_initializer=embeddings_initializer,
                               name="embedding")(ids)
    return ids, x


def _classifier(x, num_classes, dropout=0.0):
    if dropout:
        x = keras.layers.Dropout(dropout, name="dropout")(x)
    # float32 output under mixed precision (DESIGN.md conventions)
    return keras.layers.Dense(num_classes, activation="softmax", dtype="float32",
                              name="probabilities")(x)


def build_mlp(vocab_size, num_classes, embedding_dim=100, hidden_units=128, dropout=0.5,
              name="mlp"):
    """Embedding -> masked average pooling -> dense ReLU -> softmax."""
    ids, x = _inputs_and_embedding(vocab_size, embedding_dim)
    x = MaskedGlobalAveragePooling1D(name="average")(x)
    x = keras.layers.Dense(hidden_units, activation="relu", name="hidden")(x)
    return keras.Model(ids, _classifier(x, num_classes, dropout), name=name)


def build_cnn(vocab_size, num_classes, embedding_dim=128, windows=(3, 4, 5), filters=100,
              dropout=0.5, name="cnn"):
    """Kim (2014): parallel convolutions, max-pool over time, concatenated, dropout."""
    ids, x = _inputs_and_embedding(vocab_size, embedding_dim)
    pooled = [KimConvPool(filters, w, name=f"conv{w}")(x) for w in windows]
    x = keras.layers.Concatenate(name="concat")(pooled) if len(pooled) > 1 else pooled[0]
    return keras.Model(ids, _classifier(x, num_classes, dropout), name=name)


_CELLS = {"rnn": keras.layers.SimpleRNN, "lstm": keras.layers.LSTM, "gru": keras.layers.GRU}


def build_recurrent(vocab_size, num_classes, cell="gru", bidirectional=False,
                    embedding_dim=100, units=128, dropout=0.0, pooling="last", name="rnn"):
    """Embedding -> (Bi)RNN/LSTM/GRU -> softmax.

    ``pooling="last"`` classifies the final state(s) (the last real word for
    the forward direction, the first for the backward one); ``"max"`` takes the
    masked max over time of every state, so a long text's early words reach
    the classifier without passing through hundreds of recurrent steps.
    """
    if cell not in _CELLS:
        raise ValueError(f"cell must be one of {sorted(_CELLS)}, got {cell!r}")
    if pooling not in ("last", "max"):
        raise ValueError(f"pooling must be 'last' or 'max', got {pooling!r}")
    ids, x = _inputs_and_embedding(vocab_size, embedding_dim)
    layer = _CELLS[cell](units, return_sequences=pooling == "max", name=cell)
    if bidirectional:
        layer = keras.layers.Bidirectional(layer, name=f"bi{cell}")
    x = layer(x)
    if pooling == "max":
        x = MaskedGlobalMaxPooling1D(name="max_over_time")(x)
    return keras.Model(ids, _classifier(x, num_classes, dropout), name=name)
