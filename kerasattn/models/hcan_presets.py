"""The CAN and HCAN presets (Gao et al. 2018: flat and hierarchical, one or two self-
attentions, max or target pooling) and HAN (Yang et al. 2016, HCAN's baseline), as data:
a family base and each preset's departures from it, in the format
:mod:`kerasattn.models.registry` describes. Why each default departs from the paper, with
the figures that chose it: ``docs/models/hcan.md``.
"""

PAPER = ("Gao et al. 2018, Hierarchical Convolutional Attention Networks for Text "
         "Classification (HCAN)")

# every preset of the family, HAN included, trains as §4.3 says: Adam at 2e-5 with β2
# 0.99, on its preprocessing (--text-mode hcan), words seen 5 times
BASE = {
    "make_optimizer": "kerasattn.models.hcan:paper_optimizer",
    "train": {"learning_rate": 2e-05, "batch_size": 32, "text_mode": "hcan", "min_freq": 5},
}

BASES = {
    # HCAN at §4.2's size (d = 512, 8 heads), one self-attention and max pooling; the
    # flat CAN presets are it on one level
    "conv-attention": {
        "builder": "kerasattn.models.hcan:build_hcan",
        "config": {"hierarchical": True, "num_self_attentions": 1, "pooling": "max",
                   "embedding_dim": 512, "d": 512, "num_heads": 8, "dropout": 0.1,
                   "max_words": 64, "max_sentences": 64, "values_from_inputs": False,
                   "embeddings_initializer": "uniform"},
        "recipes": {
            "default": {
                "description": ("d = 128, Adam 5e-4 on batches of 32 (the paper: d = 512, 2e-5 "
                                "one document at a time)"),
                "train": {"learning_rate": 0.0005},
                "model_options": {"d": 128, "embedding_dim": 128},
            },
        },
    },
}

# the default of the variants that learn best with more dropout
_DROPOUT_DEFAULT = {
    "description": ("d = 128, dropout 0.3, Adam 5e-4 on batches of 32 (the paper: "
                    "d = 512, 2e-5 one document at a time)"),
    "train": {"learning_rate": 0.0005},
    "model_options": {"d": 128, "embedding_dim": 128, "dropout": 0.3},
}

PRESETS = {
    "can-1sa-maxpool": {
        "base": "conv-attention",
        "description": ("CAN (flat): one self-attention, max pooling, d=512, 8 heads (Gao et "
                        "al. 2018)"),
        "config": {"hierarchical": False, "max_words": 1000},
        "train": {"max_length": 1000},
    },
    "can-1sa-target": {
        "base": "can-1sa-maxpool",
        "description": ("CAN (flat): one self-attention, target attention pooling, d=512, 8 "
                        "heads (Gao et al. 2018)"),
        "config": {"pooling": "target"},
    },
    "can-2sa-maxpool": {
        "base": "can-1sa-maxpool",
        "description": ("CAN (flat): two parallel self-attentions, max pooling, d=512, 8 heads "
                        "(Gao et al. 2018)"),
        "config": {"num_self_attentions": 2},
        "recipes": {
            "default": {
                "description": ("d = 128, dropout 0.3, Adam 2.5e-4 on batches of 32 (the "
                                "paper: d = 512, 2e-5 one document at a time)"),
                "train": {"learning_rate": 0.00025},
                "model_options": {"d": 128, "embedding_dim": 128, "dropout": 0.3},
            },
        },
    },
    "can-2sa-target": {
        "base": "can-1sa-maxpool",
        "description": ("CAN (flat): two parallel self-attentions, target attention pooling, "
                        "d=512, 8 heads (Gao et al. 2018)"),
        "config": {"num_self_attentions": 2, "pooling": "target"},
        "recipes": {"default": _DROPOUT_DEFAULT},
    },
    "hcan-1sa-maxpool": {
        "base": "conv-attention",
        "description": ("HCAN (hierarchical): one self-attention, max pooling, d=512, 8 heads "
                        "(Gao et al. 2018)"),
        "train": {"max_sentences": 50, "max_words": 50},
    },
    "hcan-1sa-target": {
        "base": "hcan-1sa-maxpool",
        "description": ("HCAN (hierarchical): one self-attention, target attention pooling, "
                        "d=512, 8 heads (Gao et al. 2018)"),
        "config": {"pooling": "target"},
        "recipes": {"default": _DROPOUT_DEFAULT},
    },
    "hcan-2sa-maxpool": {
        "base": "hcan-1sa-maxpool",
        "description": ("HCAN (hierarchical): two parallel self-attentions, max pooling, "
                        "d=512, 8 heads (Gao et al. 2018)"),
        "config": {"num_self_attentions": 2},
    },
    "hcan-2sa-target": {
        "base": "hcan-1sa-target",
        "description": ("HCAN (hierarchical): two parallel self-attentions, target attention "
                        "pooling, d=512, 8 heads (Gao et al. 2018)"),
        "config": {"num_self_attentions": 2},
    },
    "han": {
        "paper": ("Yang et al. 2016, Hierarchical Attention Networks (HAN; HCAN's baseline, "
                  "Gao et al. 2018)"),
        "description": ("HAN (Yang et al. 2016): BiGRU 50 + attention (200 hidden) at the word "
                        "and sentence levels"),
        "builder": "kerasattn.models.hcan:build_han",
        "hierarchical": True,
        "config": {"embedding_dim": 200, "units": 50, "attention_units": 200, "dropout": 0.0,
                   "embeddings_initializer": "uniform"},
        "train": {"max_sentences": 50, "max_words": 50},
        "recipes": {
            "default": {
                "description": ("Adam 1e-3 on batches of 32 (the paper's 2e-5 is for one "
                                "document at a time)"),
                "train": {"learning_rate": 0.001},
            },
        },
    },
}
