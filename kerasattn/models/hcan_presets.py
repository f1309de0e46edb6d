"""The CAN and HCAN presets (Gao et al. 2018: flat and hierarchical, one or two self-
attentions, max or target pooling), as data: one entry per preset, in the format
:mod:`kerasattn.models.registry` describes. Why each default departs from the paper,
with the figures that chose it: ``docs/models/hcan.md``.
"""

FAMILY = "hcan"
PAPER = ("Gao et al. 2018, Hierarchical Convolutional Attention Networks for Text "
         "Classification (HCAN)")

PRESETS = {
    "can-1sa-maxpool": {
        "description": ("CAN (flat): one self-attention, max pooling, d=512, 8 heads (Gao et "
                        "al. 2018)"),
        "config": {"hierarchical": False, "num_self_attentions": 1, "pooling": "max",
                   "embedding_dim": 512, "d": 512, "num_heads": 8, "dropout": 0.1,
                   "max_words": 1000, "max_sentences": 64, "values_from_inputs": False,
                   "embeddings_initializer": "uniform"},
        "train": {"learning_rate": 2e-05, "batch_size": 32, "text_mode": "hcan",
                  "max_length": 1000, "min_freq": 5},
        "recipes": {
            "default": {
                "description": ("d = 128, Adam 5e-4 on batches of 32 (the paper: d = 512, 2e-5 "
                                "one document at a time)"),
                "train": {"learning_rate": 0.0005},
                "model_options": {"d": 128, "embedding_dim": 128},
            },
        },
    },
    "can-1sa-target": {
        "description": ("CAN (flat): one self-attention, target attention pooling, d=512, 8 "
                        "heads (Gao et al. 2018)"),
        "config": {"hierarchical": False, "num_self_attentions": 1, "pooling": "target",
                   "embedding_dim": 512, "d": 512, "num_heads": 8, "dropout": 0.1,
                   "max_words": 1000, "max_sentences": 64, "values_from_inputs": False,
                   "embeddings_initializer": "uniform"},
        "train": {"learning_rate": 2e-05, "batch_size": 32, "text_mode": "hcan",
                  "max_length": 1000, "min_freq": 5},
        "recipes": {
            "default": {
                "description": ("d = 128, Adam 5e-4 on batches of 32 (the paper: d = 512, 2e-5 "
                                "one document at a time)"),
                "train": {"learning_rate": 0.0005},
                "model_options": {"d": 128, "embedding_dim": 128},
            },
        },
    },
    "can-2sa-maxpool": {
        "description": ("CAN (flat): two parallel self-attentions, max pooling, d=512, 8 heads "
                        "(Gao et al. 2018)"),
        "config": {"hierarchical": False, "num_self_attentions": 2, "pooling": "max",
                   "embedding_dim": 512, "d": 512, "num_heads": 8, "dropout": 0.1,
                   "max_words": 1000, "max_sentences": 64, "values_from_inputs": False,
                   "embeddings_initializer": "uniform"},
        "train": {"learning_rate": 2e-05, "batch_size": 32, "text_mode": "hcan",
                  "max_length": 1000, "min_freq": 5},
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
        "description": ("CAN (flat): two parallel self-attentions, target attention pooling, "
                        "d=512, 8 heads (Gao et al. 2018)"),
        "config": {"hierarchical": False, "num_self_attentions": 2, "pooling": "target",
                   "embedding_dim": 512, "d": 512, "num_heads": 8, "dropout": 0.1,
                   "max_words": 1000, "max_sentences": 64, "values_from_inputs": False,
                   "embeddings_initializer": "uniform"},
        "train": {"learning_rate": 2e-05, "batch_size": 32, "text_mode": "hcan",
                  "max_length": 1000, "min_freq": 5},
        "recipes": {
            "default": {
                "description": ("d = 128, dropout 0.3, Adam 5e-4 on batches of 32 (the paper: "
                                "d = 512, 2e-5 one document at a time)"),
                "train": {"learning_rate": 0.0005},
                "model_options": {"d": 128, "embedding_dim": 128, "dropout": 0.3},
            },
        },
    },
    "hcan-1sa-maxpool": {
        "description": ("HCAN (hierarchical): one self-attention, max pooling, d=512, 8 heads "
                        "(Gao et al. 2018)"),
        "hierarchical": True,
        "config": {"hierarchical": True, "num_self_attentions": 1, "pooling": "max",
                   "embedding_dim": 512, "d": 512, "num_heads": 8, "dropout": 0.1,
                   "max_words": 64, "max_sentences": 64, "values_from_inputs": False,
                   "embeddings_initializer": "uniform"},
        "train": {"learning_rate": 2e-05, "batch_size": 32, "text_mode": "hcan",
                  "max_sentences": 50, "max_words": 50, "min_freq": 5},
        "recipes": {
            "default": {
                "description": ("d = 128, Adam 5e-4 on batches of 32 (the paper: d = 512, 2e-5 "
                                "one document at a time)"),
                "train": {"learning_rate": 0.0005},
                "model_options": {"d": 128, "embedding_dim": 128},
            },
        },
    },
    "hcan-1sa-target": {
        "description": ("HCAN (hierarchical): one self-attention, target attention pooling, "
                        "d=512, 8 heads (Gao et al. 2018)"),
        "hierarchical": True,
        "config": {"hierarchical": True, "num_self_attentions": 1, "pooling": "target",
                   "embedding_dim": 512, "d": 512, "num_heads": 8, "dropout": 0.1,
                   "max_words": 64, "max_sentences": 64, "values_from_inputs": False,
                   "embeddings_initializer": "uniform"},
        "train": {"learning_rate": 2e-05, "batch_size": 32, "text_mode": "hcan",
                  "max_sentences": 50, "max_words": 50, "min_freq": 5},
        "recipes": {
            "default": {
                "description": ("d = 128, dropout 0.3, Adam 5e-4 on batches of 32 (the paper: "
                                "d = 512, 2e-5 one document at a time)"),
                "train": {"learning_rate": 0.0005},
                "model_options": {"d": 128, "embedding_dim": 128, "dropout": 0.3},
            },
        },
    },
    "hcan-2sa-maxpool": {
        "description": ("HCAN (hierarchical): two parallel self-attentions, max pooling, "
                        "d=512, 8 heads (Gao et al. 2018)"),
        "hierarchical": True,
        "config": {"hierarchical": True, "num_self_attentions": 2, "pooling": "max",
                   "embedding_dim": 512, "d": 512, "num_heads": 8, "dropout": 0.1,
                   "max_words": 64, "max_sentences": 64, "values_from_inputs": False,
                   "embeddings_initializer": "uniform"},
        "train": {"learning_rate": 2e-05, "batch_size": 32, "text_mode": "hcan",
                  "max_sentences": 50, "max_words": 50, "min_freq": 5},
        "recipes": {
            "default": {
                "description": ("d = 128, Adam 5e-4 on batches of 32 (the paper: d = 512, 2e-5 "
                                "one document at a time)"),
                "train": {"learning_rate": 0.0005},
                "model_options": {"d": 128, "embedding_dim": 128},
            },
        },
    },
    "hcan-2sa-target": {
        "description": ("HCAN (hierarchical): two parallel self-attentions, target attention "
                        "pooling, d=512, 8 heads (Gao et al. 2018)"),
        "hierarchical": True,
        "config": {"hierarchical": True, "num_self_attentions": 2, "pooling": "target",
                   "embedding_dim": 512, "d": 512, "num_heads": 8, "dropout": 0.1,
                   "max_words": 64, "max_sentences": 64, "values_from_inputs": False,
                   "embeddings_initializer": "uniform"},
        "train": {"learning_rate": 2e-05, "batch_size": 32, "text_mode": "hcan",
                  "max_sentences": 50, "max_words": 50, "min_freq": 5},
        "recipes": {
            "default": {
                "description": ("d = 128, dropout 0.3, Adam 5e-4 on batches of 32 (the paper: "
                                "d = 512, 2e-5 one document at a time)"),
                "train": {"learning_rate": 0.0005},
                "model_options": {"d": 128, "embedding_dim": 128, "dropout": 0.3},
            },
        },
    },
}
