"""The IRAM presets (Tutek & Šnajder 2018: vanilla, full, and the LSTM-only baseline), as
data: one entry per preset, in the format :mod:`kerasattn.models.registry` describes.
Why each default departs from the paper, with the figures that chose it:
``docs/models/iram.md``. ``"cpu"``: the default sized for a machine without a GPU, which
the command line takes there unless ``--recipe`` says otherwise.
"""

FAMILY = "iram"
PAPER = ("Tutek & Šnajder 2018, Iterative Recursive Attention Model for Interpretable "
         "Sequence Classification (IRAM)")

PRESETS = {
    "iram-vanilla": {
        "description": ("IRAM vanilla (Tutek & Šnajder 2018): BiLSTM 400 + T=3 iterative "
                        "recursive attention + maxout"),
        "config": {"embedding_dim": 300, "units": 400, "steps": 3, "gamma": 0.0003,
                   "maxout_units": 200, "maxout_pool_size": 4, "maxout_layers": 2,
                   "embedding_dropout": 0.1, "dropout": 0.1, "init_stddev": 0.01,
                   "embedding_stddev": 1.0, "lstm_init": "keras", "highway_gate": "transform",
                   "attention": True},
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
    },
    "iram-full": {
        "description": ("IRAM full: word + hashed char n-gram embeddings, 2-layer highway, "
                        "3-layer BiLSTM (H from layer 2, query from layer 3 + highway)"),
        "needs_vocabulary": True,
        "config": {"embedding_dim": 300, "units": 400, "steps": 3, "gamma": 0.0003,
                   "maxout_units": 200, "maxout_pool_size": 4, "maxout_layers": 2,
                   "embedding_dropout": 0.1, "dropout": 0.1, "init_stddev": 0.01,
                   "embedding_stddev": 1.0, "lstm_init": "keras", "highway_gate": "transform",
                   "ngram_dim": 100, "ngram_buckets": 100000, "context_layers": 2,
                   "query_layers": 1, "summary_gate": None, "highway_layers": 2},
        "train": {"learning_rate": 0.0003, "batch_size": 32, "max_length": 200},
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
        "description": "IRAM's §4.3 baseline: maxout over the BiLSTM's last states",
        "config": {"embedding_dim": 300, "units": 400, "steps": 3, "gamma": 0.0003,
                   "maxout_units": 200, "maxout_pool_size": 4, "maxout_layers": 2,
                   "embedding_dropout": 0.1, "dropout": 0.1, "init_stddev": 0.01,
                   "embedding_stddev": 1.0, "lstm_init": "keras", "highway_gate": "transform",
                   "attention": False},
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
    },
}
