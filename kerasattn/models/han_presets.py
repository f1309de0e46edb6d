"""The HAN preset (Yang et al. 2016, HCAN's baseline), as data: one entry per preset, in
the format :mod:`kerasattn.models.registry` describes. Why each default departs from the
paper, with the figures that chose it: ``docs/models/hcan.md``.
"""

FAMILY = "hcan"
PAPER = ("Yang et al. 2016, Hierarchical Attention Networks (HAN; HCAN's baseline, Gao et "
         "al. 2018)")

PRESETS = {
    "han": {
        "description": ("HAN (Yang et al. 2016): BiGRU 50 + attention (200 hidden) at the word "
                        "and sentence levels"),
        "hierarchical": True,
        "config": {"embedding_dim": 200, "units": 50, "attention_units": 200, "dropout": 0.0,
                   "embeddings_initializer": "uniform"},
        "train": {"learning_rate": 2e-05, "batch_size": 32, "text_mode": "hcan",
                  "max_sentences": 50, "max_words": 50, "min_freq": 5},
        "recipes": {
            "default": {
                "description": ("Adam 1e-3 on batches of 32 (the paper's 2e-5 is for one "
                                "document at a time)"),
                "train": {"learning_rate": 0.001},
            },
        },
    },
}
