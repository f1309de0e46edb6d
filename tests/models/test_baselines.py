"""The baselines (mlp, Kim's cnn, the recurrent ones; nb and lr are in
tests/test_classical.py): what the registry says of them. Padding invariance, empty
texts, the training step and the .keras round trip of each, and of the pooling variants
below, are the shared harness's (tests/models/test_presets.py)."""

import pytest

from kerasattn import models


def small_options(name):
    """Model options that make ``name`` small, its architecture unchanged (the harness)."""
    if name == "cnn":
        return {"embedding_dim": 8, "filters": 4}
    if name == "mlp":
        return {"embedding_dim": 8, "hidden_units": 8}
    return {"embedding_dim": 8, "units": 8}  # rnn, gru, lstm, bilstm


# option variants that change the graph, through the harness too
OPTION_VARIANTS = {"gru-pooling=max": ("gru", {"pooling": "max"}),
            "bilstm-pooling=last": ("bilstm", {"pooling": "last"}),
            "bilstm-pooling=max": ("bilstm", {"pooling": "max"})}
# default tests that train these in graph mode (the harness takes their step eagerly)
TRAINED_IN_GRAPH_MODE = {
    "mlp": "tests/training/test_commands.py::test_train_mlp_on_sst2_learns_and_evaluate_reproduces",
    "cnn": "tests/training/test_faithfulness_commands.py::test_explain_works_for_models_without_attention",
    "gru": "tests/training/test_faithfulness_commands.py::test_explain_works_for_models_without_attention",
}
SERVED = "gru"


def test_registry_lists_the_foundation_models():
    assert set(models.names(kind="keras")) >= {"mlp", "cnn", "rnn", "lstm", "bilstm", "gru"}
    assert set(models.names(kind="classical")) == {"nb", "lr"}
    with pytest.raises(ValueError, match="unknown model"):
        models.get("nope", vocab_size=10)
    with pytest.raises(ValueError, match="has no option"):
        models.get("gru", vocab_size=10, wings=2)
    with pytest.raises(ValueError, match="vocab_size"):
        models.get("gru", vocab_size=0)
    with pytest.raises(ValueError, match="pooling"):
        models.get("gru", vocab_size=10, pooling="mean")
