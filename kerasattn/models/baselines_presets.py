"""The flat neural baselines (mlp, Kim's cnn, the recurrent ones), as data: one entry per
preset, in the format :mod:`kerasattn.models.registry` describes. Why each default
departs from the paper, with the figures that chose it: ``docs/models/baselines.md``.
"""

FAMILY = "baselines"
PAPER = ("Hubli, Sentiment analysis using Transformer with attention mechanism (the RNN and "
         "CNN baselines)")

PRESETS = {
    "mlp": {
        "description": "embedding + masked average pooling + dense (Hubli's 'simple NN')",
        "config": {"embedding_dim": 100, "hidden_units": 128, "dropout": 0.5},
        "train": {},
    },
    "cnn": {
        "paper": ("Kim 2014, Convolutional Neural Networks for Sentence Classification (as "
                  "HCAN, Gao et al. 2018, uses it)"),
        "description": "Kim (2014) CNN: windows 3/4/5 x 100 maps, max over time, dropout 0.5",
        "config": {"embedding_dim": 128, "windows": (3, 4, 5), "filters": 100, "dropout": 0.5},
        "train": {"batch_size": 50},
    },
    "rnn": {
        "description": "RNN with 128 units, final state (Hubli, Table 1)",
        "config": {"cell": "rnn", "bidirectional": False, "embedding_dim": 100, "units": 128,
                   "dropout": 0.0, "pooling": "last"},
        "train": {},
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
        "description": "LSTM with 128 units, final state (Hubli, Table 1)",
        "config": {"cell": "lstm", "bidirectional": False, "embedding_dim": 100, "units": 128,
                   "dropout": 0.0, "pooling": "last"},
        "train": {},
        "recipes": {
            "default": {
                "description": ("max pooling over the states, dropout 0.5 (the paper's "
                                "baseline reads the last state)"),
                "model_options": {"pooling": "max", "dropout": 0.5},
            },
        },
    },
    "gru": {
        "description": "GRU with 128 units, final state (Hubli, Table 1)",
        "config": {"cell": "gru", "bidirectional": False, "embedding_dim": 100, "units": 128,
                   "dropout": 0.0, "pooling": "last"},
        "train": {},
        "recipes": {
            "default": {
                "description": ("max pooling over the states, dropout 0.5 (the paper's "
                                "baseline reads the last state)"),
                "model_options": {"pooling": "max", "dropout": 0.5},
            },
        },
    },
    "bilstm": {
        "description": ("bidirectional LSTM with 128 units, max over time of the states, "
                        "dropout 0.5 (Hubli, Table 1)"),
        "config": {"cell": "lstm", "bidirectional": True, "embedding_dim": 100, "units": 128,
                   "dropout": 0.5, "pooling": "max"},
        "train": {},
    },
}
