"""The SANet presets (Letarte et al. 2018, §4: base and big, with and without self-
attention), as data: a family base and each preset's departures from it, in the format
:mod:`kerasattn.models.registry` describes. Why each default departs from the paper,
with the figures that chose it: ``docs/models/sanet.md``.
"""

PAPER = "Letarte et al. 2018, Importance of Self-Attention for Sentiment Analysis (SANet)"

# SANet base as §4 trains it: GroupedSGD (embeddings at a tenth of the rate, without
# momentum), batches of 128 for 40 epochs, 20 % for validation, texts cut at 1,000 tokens
BASE = {
    "builder": "kerasattn.models.sanet:build_sanet",
    "make_optimizer": "kerasattn.models.sanet:paper_optimizer",
    "config": {"embedding_dim": 100, "d": 128, "num_blocks": 1, "num_heads": 1,
               "dropout": 0.1, "scaled": False, "attention": True,
               "embeddings_initializer": "uniform", "embedding_scale": 1.0,
               "positional_encoding": True, "embedding_dropout": 0.0, "pooled_dropout": 0.0},
    "train": {"optimizer": "grouped_sgd", "batch_size": 128, "epochs": 40,
              "val_fraction": 0.2, "max_length": 1000, "min_freq": 1, "vocab_size": None,
              "learning_rate": 0.01},
    "recipes": {
        "default": {
            "description": ("the adjusted recipe (Adam 1e-3, scaled attention, embeddings "
                            "x10) for 10 epochs instead of 40, on batches of 32 (the "
                            "paper's 128)"),
            "train": {"optimizer": "adam", "learning_rate": 0.001, "epochs": 10,
                      "batch_size": 32},
            "model_options": {"scaled": True, "embedding_scale": 10},
        },
        "adjusted": {
            "description": ("Adam 1e-3, 1/sqrt(d)-scaled attention, embeddings x10: learns "
                            "where the paper's SGD recipe stays at chance"),
            "train": {"optimizer": "adam", "learning_rate": 0.001},
            "model_options": {"scaled": True, "embedding_scale": 10},
        },
    },
}

PRESETS = {
    "sanet-base": {
        "description": "SANet base: N=1, embedding 100, d=128",
    },
    "sanet-big": {
        "description": "SANet big: N=2, embedding 200, d=256",
        "config": {"embedding_dim": 200, "d": 256, "num_blocks": 2},
        "train": {"learning_rate": 0.005},  # the base's rates, halved
        "recipes": {
            "default": {
                "description": ("the adjusted recipe (Adam 1e-3, scaled attention, embeddings "
                                "x10) for 10 epochs instead of 40, on batches of 32 (the "
                                "paper's 128), warmed up over 10 % of the steps and decayed by "
                                "a cosine, at Adam 5e-4"),
                "train": {"optimizer": "adam", "learning_rate": 0.0005, "epochs": 10,
                          "batch_size": 32, "lr_schedule": "cosine", "warmup": 0.1},
                "model_options": {"scaled": True, "embedding_scale": 10},
            },
        },
    },
    "sanet-baseline-base": {
        "description": ("SANet base: N=1, embedding 100, d=128, self-attention replaced by a "
                        "feed-forward layer (§4 baseline)"),
        "config": {"attention": False},
    },
    "sanet-baseline-big": {
        "base": "sanet-big",
        "description": ("SANet big: N=2, embedding 200, d=256, self-attention replaced by a "
                        "feed-forward layer (§4 baseline)"),
        "config": {"attention": False},
        "recipes": {
            "default": {
                "description": ("the adjusted recipe (Adam 1e-3, scaled attention, embeddings "
                                "x10) for 10 epochs instead of 40, on batches of 32 (the "
                                "paper's 128), warmed up over 10 % of the steps and decayed by "
                                "a cosine"),
                "train": {"optimizer": "adam", "learning_rate": 0.001, "epochs": 10,
                          "batch_size": 32, "lr_schedule": "cosine", "warmup": 0.1},
                "model_options": {"scaled": True, "embedding_scale": 10},
            },
        },
    },
}
