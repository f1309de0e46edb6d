"""IRAM: the Iterative Recursive Attention Model of Tutek & Šnajder (2018), and its baseline.

``iram-vanilla`` (§3.3): word embeddings → dropout 0.1 → BiLSTM; its outputs
are the hidden states H and its final cell states (both directions,
concatenated) the initial query x̂ → :class:`IterativeRecursiveAttention`
(T = 3 steps, regulariser γ = 3e-4) → the last summary s(T) →
:class:`Maxout` (two 200-unit layers, pool size 4) → softmax (§3.5).

``iram-baseline`` (§4.3): the same encoder with no attention: the maxout
classifier reads the BiLSTM's last hidden states (both directions).

``iram-full`` (§3.4): word embeddings concatenated with the mean of the
word's character n-gram embeddings (:class:`CharNgramEmbedding`: 100-d,
learned and hashed, since the pretrained n-gram vectors of Hashimoto et al.
cannot be downloaded here) → dropout → a two-layer :class:`Highway` →
a BiLSTM of l_ctx + l_query = 2 + 1 layers: the l_ctx-th layer's outputs
are H, the last layer's final cell states through one highway layer are x̂.

Preset defaults are §4.2's recipe: weights drawn from N(0, 0.01), Adam with
AMSGrad at 3e-4, the global gradient norm clipped at 1.0, weight decay
3e-5, dropout 0.1 on the embeddings, LSTM forget-gate biases at 1, batch
32, IMDB texts cut at 200 tokens (§4.1). The paper's word vectors are
300-d GloVe; the LSTM size is 400 per direction (the smallest of the
paper's {400, 500, 1000}; the paper tuned it per task).

Two initialisation choices depart from "every weight N(0, 0.01)", because
taken literally it leaves the full model untrainable (measured: the output's
spread over a batch is 1e-7 at the start, each N(0, 0.01) layer shrinking the
signal about five times; ``iram-full`` stayed at chance, 0.499, for 3 SST-2
epochs):

- the word (and n-gram) vectors start from N(0, 1), the scale of the
  *standardised* GloVe vectors the paper feeds in (§4.2 follows Mu et al.
  2017); ``--embeddings FILE`` still loads real vectors;
- the LSTMs keep Keras's initialisers (Glorot-uniform input kernels,
  orthogonal recurrent kernels); with N(0, 0.01) LSTM kernels as well,
  ``iram-full`` reached 0.52 SST-2 validation accuracy after 2 epochs against
  0.76 with Keras's (``--model-option lstm_init=normal`` restores them).
"""

import keras

from kerasattn.layers import CharNgramEmbedding, Highway, IterativeRecursiveAttention, Maxout


def _lstm_initializers(lstm_init, init):
    if lstm_init == "normal":
        return {"kernel_initializer": init(), "recurrent_initializer": init()}
    if lstm_init == "keras":
        return {}
    raise ValueError(f"lstm_init must be 'normal' or 'keras', got {lstm_init!r}")


def build_iram(vocab_size, num_classes, attention=True, embedding_dim=300, units=400, steps=3,
               gamma=3e-4, maxout_units=200, maxout_pool_size=4, maxout_layers=2,
               embedding_dropout=0.1, dropout=0.1, init_stddev=0.01, embedding_stddev=1.0,
               lstm_init="keras", highway_gate="transform", name="iram"):
    """Build the vanilla IRAM (``attention=True``) or its maxout baseline.

    Args:
        vocab_size: vocabulary size, padding (0) and OOV (1) included.
        num_classes: softmax outputs.
        attention: False builds the §4.3 baseline (maxout over the last states).
        embedding_dim: word-vector size (300, GloVe Common Crawl in the paper).
        units: LSTM units per direction.
        steps: T, the attention steps.
        gamma: the attention regulariser's γ (0 disables it).
        maxout_units, maxout_pool_size, maxout_layers: the classifier (200, 4, 2).
        embedding_dropout: dropout on the word embeddings (0.1).
        dropout: dropout before each maxout layer (the paper tunes it in {0.1 … 0.4}).
        init_stddev: every weight starts from N(0, init_stddev²) (0.01 in §4.2;
            the default recipe of ``iram-vanilla`` and ``iram-baseline`` takes 0.05).
        embedding_stddev: the word vectors start from N(0, embedding_stddev²):
            1.0 by default, the scale of the standardised GloVe vectors the
            paper feeds in (§4.2, after Mu et al. 2017).
        lstm_init: ``"keras"`` (default): the LSTM kernels keep Keras's
            Glorot-uniform input and orthogonal recurrent initialisers;
            ``"normal"``: N(0, init_stddev²) like every other weight.
        highway_gate: which gate §4.2's "gate biases initialised to 1" opens in
            the highway layers: ``"transform"`` (each new layer starts
            transforming, shrinking its input to about 27 % under N(0, 0.01)
            weights) or ``"carry"`` (each starts passing about 73 % of its input
            on, Srivastava et al.'s recommendation the paper cites). See
            :class:`~kerasattn.layers.Highway`.
    """
    def init():
        # a new instance for each weight: one instance would start equal shapes equal
        return keras.initializers.RandomNormal(stddev=init_stddev)

    ids = keras.Input((None,), dtype="int32", name="token_ids")
    x = keras.layers.Embedding(vocab_size, embedding_dim, mask_zero=True, name="embedding",
                               embeddings_initializer=keras.initializers.RandomNormal(
                                   stddev=embedding_stddev))(ids)
    x = keras.layers.Dropout(embedding_dropout, name="embedding_dropout")(x)
    lstm = keras.layers.LSTM(units, return_sequences=True, return_state=True,
                             unit_forget_bias=True, **_lstm_initializers(lstm_init, init))
    hidden, h_fw, c_fw, h_bw, c_bw = keras.layers.Bidirectional(lstm, name="encoder")(x)
    if attention:
        query = keras.layers.Concatenate(name="initial_query")([c_fw, c_bw])
        features = IterativeRecursiveAttention(steps=steps, gamma=gamma, kernel_initializer=init(),
                                               highway_gate=highway_gate,
                                               name="iterative_attention")([hidden, query])
    else:
        features = keras.layers.Concatenate(name="last_states")([h_fw, h_bw])
    features = Maxout(maxout_units, maxout_pool_size, maxout_layers, dropout=dropout,
                      kernel_initializer=init(), name="maxout")(features)
    out = keras.layers.Dense(num_classes, activation="softmax", dtype="float32",
                             kernel_initializer=init(), name="probabilities")(features)
    return keras.Model(ids, out, name=name)


def build_iram_full(vocab_size, num_classes, vocabulary=None, embedding_dim=300,
                    ngram_dim=100, ngram_buckets=100_000, units=400, context_layers=2,
                    query_layers=1, steps=3, gamma=3e-4, maxout_units=200, maxout_pool_size=4,
                    maxout_layers=2, embedding_dropout=0.1, dropout=0.1, init_stddev=0.01,
                    embedding_stddev=1.0, lstm_init="keras", highway_gate="transform",
                    summary_gate=None, highway_layers=2, name="iram-full"):
    """Build IRAM with the full encoder of §3.4 (the arguments not listed here are
    :func:`build_iram`'s).

    Args:
        vocabulary: the id -> token list that fixes each id's character
            n-grams (``training.train`` passes the run's; without it the
            n-gram part is zero until :meth:`CharNgramEmbedding.set_vocabulary`).
        ngram_dim: size of the n-gram vectors (100); 0 leaves them out (the
            word vectors alone feed the highways, and ``vocabulary`` is unused).
        ngram_buckets: rows of the hashed n-gram table.
        context_layers: l_ctx, the BiLSTM layers whose last output is H (2).
        query_layers: l_query, the BiLSTM layers above them whose final cell
            state makes the initial query (1); 0 takes the query from the last
            context layer's final cell states, as the vanilla model does.
        highway_layers: the highway layers over the embeddings (2); 0 feeds
            the embeddings to the first BiLSTM as they are.
        summary_gate: the gate of the attention's summary highway
            (:class:`IterativeRecursiveAttention`), ``"transform"`` or
            ``"carry"``; ``None`` (default) takes ``highway_gate``, which
            then sets the embedding and query highways alone.
    """
    if context_layers < 1 or query_layers < 0:
        raise ValueError(f"context_layers must be >= 1 and query_layers >= 0, got "
                         f"{context_layers!r} and {query_layers!r}")
    if not isinstance(highway_layers, int) or highway_layers < 0:
        raise ValueError(f"highway_layers must be an integer >= 0, got {highway_layers!r}")
    if not isinstance(ngram_dim, int) or ngram_dim < 0:
        raise ValueError(f"ngram_dim must be an integer >= 0, got {ngram_dim!r}")
    def init():
        # a new instance for each weight: one instance would start equal shapes equal
        return keras.initializers.RandomNormal(stddev=init_stddev)

    def embedding_init():
        return keras.initializers.RandomNormal(stddev=embedding_stddev)

    ids = keras.Input((None,), dtype="int32", name="token_ids")
    words = keras.layers.Embedding(vocab_size, embedding_dim, mask_zero=True, name="embedding",
                                   embeddings_initializer=embedding_init())(ids)
    words = keras.layers.Dropout(embedding_dropout, name="embedding_dropout")(words)
    ngram_layer = None
    x = words
    if ngram_dim:
        ngram_layer = CharNgramEmbedding(vocab_size, ngram_dim, num_buckets=ngram_buckets,
                                         embeddings_initializer=embedding_init(),
                                         name="char_ngrams")
        x = keras.layers.Concatenate(name="word_and_ngrams")([words, ngram_layer(ids)])
    if highway_layers:
        x = Highway(num_layers=highway_layers, kernel_initializer=init(), gate=highway_gate,
                    name="embedding_highway")(x)

    def bilstm(i, states=False):
        return keras.layers.Bidirectional(
            keras.layers.LSTM(units, return_sequences=True, return_state=states,
                              unit_forget_bias=True, **_lstm_initializers(lstm_init, init)),
            name=f"encoder_{i}")

    for i in range(1, context_layers + (query_layers > 0)):
        x = bilstm(i)(x)
    if query_layers == 0:
        x, _, c_fw, _, c_bw = bilstm(context_layers, states=True)(x)
    hidden = x
    for i in range(context_layers + 1, context_layers + query_layers):
        x = bilstm(i)(x)
    if query_layers:
        _, _, c_fw, _, c_bw = bilstm(context_layers + query_layers, states=True)(x)
    query = keras.layers.Concatenate(name="final_cell_states")([c_fw, c_bw])
    query = Highway(num_layers=1, kernel_initializer=init(), gate=highway_gate,
                    name="query_highway")(query)
    features = IterativeRecursiveAttention(steps=steps, gamma=gamma, kernel_initializer=init(),
                                           highway_gate=summary_gate or highway_gate,
                                           name="iterative_attention")([hidden, query])
    features = Maxout(maxout_units, maxout_pool_size, maxout_layers, dropout=dropout,
                      kernel_initializer=init(), name="maxout")(features)
    out = keras.layers.Dense(num_classes, activation="softmax", dtype="float32",
                             kernel_initializer=init(), name="probabilities")(features)
    model = keras.Model(ids, out, name=name)
    if vocabulary is not None and ngram_layer is not None:
        ngram_layer.set_vocabulary(vocabulary)
    return model


def paper_optimizer(learning_rate):
    """§4.2: Adam with AMSGrad, global gradient-norm clipping at 1.0, weight decay 3e-5."""
    return keras.optimizers.Adam(learning_rate, amsgrad=True, global_clipnorm=1.0,
                                 weight_decay=3e-5)
