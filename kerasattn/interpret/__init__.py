"""Attention analysis: metrics of attention matrices (and, as families land, extraction and plots)."""

from kerasattn.interpret.metrics import attention_statistics, diagonality, gini

__all__ = ["attention_statistics", "diagonality", "gini"]
