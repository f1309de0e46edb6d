"""The transformer preset (Hubli, paper 004: one cell of its layers x heads grid), as data,
in the format :mod:`kerasattn.models.registry` describes. Why each default departs from
the paper, with the figures that chose it: ``docs/models/transformer.md``.
"""

PAPER = "Hubli, Sentiment analysis using Transformer with attention mechanism"

BASE = {
    "builder": "kerasattn.models.transformer:build_transformer",
}

PRESETS = {
    "transformer": {
        "description": ("Transformer encoder (--layers 1-3, --heads 1/2/4/8) + inter-attention "
                        "pooling (Hubli, paper 004)"),
        "config": {"num_layers": 1, "num_heads": 2, "embedding_dim": 100, "ff_dim": 128,
                   "key_dim": None, "dropout": 0.1, "embedding_scale": None,
                   "attention_units": None},
        "train": {"learning_rate": 0.001, "batch_size": 32, "max_length": 400,
                  "vocab_size": 20000, "epochs": 4},
    },
}
