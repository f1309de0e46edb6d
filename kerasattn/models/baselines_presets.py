"""The baselines, as data: the flat neural ones (mlp, Kim's cnn, the recurrent ones) and
the classical TF-IDF ones (HCAN §4.2: Naive Bayes and logistic regression, scikit-learn
models built by :mod:`kerasattn.models.tfidf`), each preset stating what differs from its
base, in the format :mod:`kerasattn.models.registry` describes. Why each default departs
from the paper, with the figures that chose it: ``docs/models/baselines.md``.
"""

PAPER = ("Hubli, Sentiment analysis using Transformer with attention mechanism (the RNN and "
         "CNN baselines)")

BASES = {
    # Hubli's recurrent baselines (Table 1): 128 units over 100-d embeddings, the final
    # state classified
    "recurrent": {
        "builder": "kerasattn.models.baselines:build_recurrent",
        "config": {"cell": "rnn", "bidirectional": False, "embedding_dim": 100, "units": 128,
                   "dropout": 0.0, "pooling": "last"},
    },
    # HCAN §4.2's classical baselines on TF-IDF of 1-2-grams seen in 5 texts
    "classical": {
        "kind": "classical",
        "paper": "Gao et al. 2018, HCAN §4.2 (the classical baselines)",
    },
}

PRESETS = {
    "mlp": {
        "description": "embedding + masked average pooling + dense (Hubli's 'simple NN')",
        "builder": "kerasattn.models.baselines:build_mlp",
        "config": {"embedding_dim": 100, "hidden_units": 128, "dropout": 0.5},
    },
    "cnn": {
        "paper": ("Kim 2014, Convolutional Neural Networks for Sentence Classification (as "
                  "HCAN, Gao et al. 2018, uses it)"),
        "description": "Kim (2014) CNN: windows 3/4/5 x 100 maps, max over time, dropout 0.5",
        "builder": "kerasattn.models.baselines:build_cnn",
        "config": {"embedding_dim": 128, "windows": (3, 4, 5), "filters": 100, "dropout": 0.5},
        "train": {"batch_size": 50},
    },
    "rnn": {
        "base": "recurrent",
        "description": "RNN with 128 units, final state (Hubli, Table 1)",
        "recipes": {
            "default": {
                "description": ("max pooling over the states, dropout 0.5, gradients clipped "
                                "to a global norm of 1 (the paper's baseline reads the last "
                                "state, unclipped)"),
                "train": {"clipnorm": 1.0},
                "model_options": {"pooling": "max", "dropout": 0.5},
            },
        },
    },
    "lstm": {
        "base": "recurrent",
        "description": "LSTM with 128 units, final state (Hubli, Table 1)",
        "config": {"cell": "lstm"},
        "recipes": {
            "default": {
                "description": ("max pooling over the states, dropout 0.5 (the paper's "
                                "baseline reads the last state)"),
                "model_options": {"pooling": "max", "dropout": 0.5},
            },
        },
    },
    "gru": {
        "base": "lstm",
        "description": "GRU with 128 units, final state (Hubli, Table 1)",
        "config": {"cell": "gru"},
    },
    "bilstm": {
        "base": "recurrent",
        "description": ("bidirectional LSTM with 128 units, max over time of the states, "
                        "dropout 0.5 (Hubli, Table 1)"),
        "config": {"cell": "lstm", "bidirectional": True, "dropout": 0.5, "pooling": "max"},
    },
    "nb": {
        "base": "classical",
        "description": "multinomial Naive Bayes on TF-IDF 1-2-grams, min df 5 (HCAN §4.2)",
        "builder": "kerasattn.models.tfidf:build_nb",
        "config": {"alpha": 1.0, "ngram_range": (1, 2), "min_df": 5, "preprocessor_config": None},
    },
    "lr": {
        "base": "classical",
        "description": ("L1 logistic regression, C=1.0, on TF-IDF 1-2-grams, min df 5 (HCAN "
                        "§4.2)"),
        "builder": "kerasattn.models.tfidf:build_lr",
        "config": {"C": 1.0, "max_iter": 1000, "ngram_range": (1, 2), "min_df": 5, "seed": 0,
                   "preprocessor_config": None, "l1_ratio": 1.0},
    },
}
