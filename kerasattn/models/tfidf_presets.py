"""The classical TF-IDF presets (HCAN §4.2: Naive Bayes and logistic regression), as data:
one entry per preset, in the format :mod:`kerasattn.models.registry` describes. Why each
default departs from the paper, with the figures that chose it:
``docs/models/baselines.md``.
"""

FAMILY = "baselines"
PAPER = "Gao et al. 2018, HCAN §4.2 (the classical baselines)"

PRESETS = {
    "nb": {
        "description": "multinomial Naive Bayes on TF-IDF 1-2-grams, min df 5 (HCAN §4.2)",
        "kind": "classical",
        "config": {"alpha": 1.0, "ngram_range": (1, 2), "min_df": 5, "preprocessor_config": None},
        "train": {},
    },
    "lr": {
        "description": ("L1 logistic regression, C=1.0, on TF-IDF 1-2-grams, min df 5 (HCAN "
                        "§4.2)"),
        "kind": "classical",
        "config": {"C": 1.0, "max_iter": 200, "ngram_range": (1, 2), "min_df": 5, "seed": 0,
                   "preprocessor_config": None, "l1_ratio": 1.0},
        "train": {},
    },
}
