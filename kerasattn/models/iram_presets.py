"""The IRAM presets (Tutek & Šnajder 2018: vanilla, full, and the LSTM-only baseline), as
data: a family base and each preset's departures from it, in the format
:mod:`kerasattn.models.registry` describes. Why each default departs from the paper, with
the figures that chose it: ``docs/models/iram.md``. ``"cpu"``: the default sized for a
machine without a GPU, which the command line takes there unless ``--recipe`` says
otherwise.
"""

PAPER = ("Tutek & Šnajder 2018, Iterative Recursive Attention Model for Interpretable "
         "Sequence Classification (IRAM)")

# §4.2: BiLSTM 400, T = 3 steps, γ = 3e-4, a 2-layer maxout of 200 (pool 4), dropout 0.1,
# weights from N(0, 0.01), AMSGrad at 3e-4 on batches of 32, texts cut at 200 tokens
BASE = {
    "builder": "kerasattn.models.iram:build_iram",
    "make_optimizer": "kerasattn.models.iram:paper_optimizer",
    "config": {"embedding_dim": 300, "units": 400, "steps": 3, "gamma": 0.0003,
               "maxout_units": 200, "maxout_pool_size": 4, "maxout_layers": 2,
               "embedding_dropout": 0.1, "dropout": 0.1, "init_stddev": 0.01,
               "embedding_stddev": 1.0, "lstm_init": "keras", "highway_gate": "transform"},
    "train": {"learning_rate": 0.0003, "batch_size": 32, "max_length": 200},
    "recipes": {
        "default": {
            "description": ("the paper's recipe with word vectors from N(0, 0.1) and other "
                            "weights from N(0, 0.05)"),
            "model_options": {"embedding_stddev": 0.1, "init_stddev": 0.05},
        },
        "cpu": {
            "description": ("the default sized for a machine without a GPU: LSTM 200 per "
                            "direction, batch 64, AMSGrad at 6e-4"),
            "train": {"batch_size": 64, "epochs": 10, "learning_rate": 0.0006},
            "model_options": {"embedding_stddev": 0.1, "init_stddev": 0.05, "units": 200},
        },
    },
}

PRESETS = {
    "iram-vanilla": {
        "description": ("IRAM vanilla (Tutek & Šnajder 2018): BiLSTM 400 + T=3 iterative "
                        "recursive attention + maxout"),
        "config": {"attention": True},
    },
    "iram-full": {
        "description": ("IRAM full: word + hashed char n-gram embeddings, 2-layer highway, "
                        "3-layer BiLSTM (H from layer 2, query from layer 3 + highway)"),
        "builder": "kerasattn.models.iram:build_iram_full",
        "needs_vocabulary": True,
        "config": {"ngram_dim": 100, "ngram_buckets": 100000, "context_layers": 2,
                   "query_layers": 1, "summary_gate": None, "highway_layers": 2},
        "recipes": {
            "default": {
                "description": ("the paper's recipe with word vectors from N(0, 0.1) and other "
                                "weights from N(0, 0.05), no highways over the embeddings (the "
                                "paper's two), and query and summary highways that start "
                                "carrying their input"),
                "model_options": {"embedding_stddev": 0.1, "init_stddev": 0.05,
                                  "highway_gate": "carry", "highway_layers": 0},
            },
            "cpu": {
                "description": ("the default sized for a machine without a GPU: LSTM 200 per "
                                "direction, batch 64"),
                "train": {"batch_size": 64, "epochs": 10},
                "model_options": {"embedding_stddev": 0.1, "init_stddev": 0.05,
                                  "highway_gate": "carry", "highway_layers": 0, "units": 200},
            },
        },
    },
    "iram-baseline": {
        "base": "iram-vanilla",
        "description": "IRAM's §4.3 baseline: maxout over the BiLSTM's last states",
        "config": {"attention": False},
    },
}
