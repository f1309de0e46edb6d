"""Attention analysis: extraction from any zoo model, metrics (SANet §5.3) and plots."""

from kerasattn.interpret.attention import (Explanation, attention_layers, attention_model,
                                           extract_attention, iter_attention,
                                           register_attention)
from kerasattn.interpret.metrics import (attention_statistics, diagonality, gini,
                                         step_overlap, step_statistics)

__all__ = ["Explanation", "attention_layers", "attention_model", "attention_statistics",
           "diagonality", "extract_attention", "gini", "iter_attention", "register_attention",
           "step_overlap", "step_statistics"]
