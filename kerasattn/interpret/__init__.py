"""Attention analysis: extraction from any zoo model, metrics (SANet §5.3) and plots."""

from kerasattn.interpret.attention import (Explanation, attention_layers, attention_model,
                                           extract_attention, iter_attention,
                                           register_attention)
from kerasattn.interpret.attributions import (TokenAttribution, attention_rollout,
                                              embedding_layers, explain_tokens)
from kerasattn.interpret.faithfulness import (faithfulness_report, format_report, kendall_tau,
                                              permutation_test)
from kerasattn.interpret.statistics import (attention_statistics, diagonality, gini,
                                         step_overlap, step_statistics)

__all__ = ["Explanation", "TokenAttribution", "attention_layers", "attention_model",
           "attention_rollout", "attention_statistics", "diagonality", "embedding_layers",
           "explain_tokens", "extract_attention", "faithfulness_report", "format_report", "gini",
           "iter_attention", "kendall_tau", "permutation_test", "register_attention",
           "step_overlap", "step_statistics"]
