"""Shared pieces of the multi-head attention layers (private)."""

import keras
from keras import ops

from kerasattn.layers._initializers import clone_initializer


def split_heads(x, num_heads):
    """(batch, n, d) -> (batch, heads, n, d / heads)."""
    batch, n, d = ops.shape(x)[0], ops.shape(x)[1], x.shape[-1]
    return ops.transpose(ops.reshape(x, (batch, n, num_heads, d // num_heads)), (0, 2, 1, 3))


def merge_heads(x):
    """(batch, heads, n, dh) -> (batch, n, heads * dh)."""
    batch, h, n, dh = ops.shape(x)[0], x.shape[1], ops.shape(x)[2], x.shape[-1]
    return ops.reshape(ops.transpose(x, (0, 2, 1, 3)), (batch, n, h * dh))


def softmax_over_last(softmax, scores, mask=None):
    """``softmax(scores, mask=mask)``, but one key (a last axis of static size 1, as a
    one-sentence document's sentence attention under a backend with static shapes) gets
    its weight directly: 1, or 0 where masked. The same numbers, without Keras's warning
    that a softmax over one element is always 1."""
    if scores.shape[-1] == 1:
        ones = ops.ones_like(ops.cast(scores, "float32"))
        return ones if mask is None else ones * ops.cast(mask, "float32")
    return softmax(scores) if mask is None else softmax(scores, mask=mask)


def masked_softmax(softmax, scores, key_mask=None, query_mask=None):
    """Float32 softmax over the last axis with a boolean mask.

    ``softmax`` is a ``keras.layers.Softmax(dtype="float32")``; ``scores`` is
    (batch, heads, queries, keys); ``key_mask`` (batch, keys) and
    ``query_mask`` (batch, queries) are True for real positions. Padded keys
    get exactly zero weight, as do padded queries and rows whose keys are all
    padding (never NaN).
    """
    if key_mask is None:
        return softmax_over_last(softmax, scores)
    # One broadcastable mask, (batch, 1, 1, keys) or (batch, 1, queries, keys): Keras's
    # Softmax sets masked scores to -1e9 and zeroes masked weights afterwards (so rows
    # with no real key, padded queries included, are all zero), and nothing of the
    # size of the scores is built for the mask (profiled: the (batch, heads, n, n)
    # broadcast and a third select made masking ~14% of a SANet training step's
    # op time; ~8% now).
    keep = ops.cast(key_mask, "bool")[:, None, None, :]
    if query_mask is not None:
        keep = ops.logical_and(keep, ops.cast(query_mask, "bool")[:, None, :, None])
    return softmax_over_last(softmax, scores, keep)


def takes_fused_path(return_attention_scores, training=False, dropout=0.0):
    """Whether a multi-head attention call (the Transformer's, HCAN's) takes
    :func:`fused_attention`: no one asked for the weights, and no dropout falls on them
    in training (the fused op cannot apply it). The explicit path builds the
    (batch, heads, n, n) weights, for ``return_attention_scores=True`` (explanations,
    export's ``explain`` signature) and for training with ``dropout`` > 0; inference, or
    ``dropout=0``, takes the fused one."""
    return not return_attention_scores and not (training and dropout > 0)


def fused_attention(query, key, value, mask=None, scale=None, dtype="float32"):
    """Softmax attention through ``keras.ops.dot_product_attention``: the weights are
    never returned, so the backend may fuse them away (the path of an attention layer
    called without ``return_attention_scores``).

    ``query`` (batch, queries, heads, dim), ``key`` (batch, keys, heads, dim) and
    ``value`` (batch, keys, heads, dim_v), the layout of ``dot_product_attention`` (the
    JAX backend needs dim_v == dim); ``mask`` (batch, n), True for real positions, is the
    key mask and, for self-attention, the query mask; ``scale`` multiplies the scores
    (1/√dim when None). Returns (batch, queries, heads, dim_v) in ``dtype``, the same
    numbers as ``masked_softmax`` and a product with the values: padded keys get no
    weight, and padded queries and rows with no real key give exactly zero (the op gives
    such a row a uniform average of the values, which the query mask then zeroes).

    Under float16 the call runs in float32 and casts back: the TensorFlow backend takes
    the query·key product in the inputs' dtype, and a product past 65504 turns the row
    into NaN (JAX's accumulates in float32); the explicit path's scores are float32 too.
    """
    run_dtype = "float32" if dtype == "float16" else dtype
    query, key, value = (ops.cast(t, run_dtype) for t in (query, key, value))
    # one (batch, 1, 1, keys) mask broadcasts to (batch, heads, queries, keys) on every
    # backend; the query half is applied to the output instead
    keep = None if mask is None else ops.cast(mask, "bool")[:, None, None, :]
    out = ops.cast(ops.dot_product_attention(query, key, value, mask=keep, scale=scale), dtype)
    if mask is None:
        return out
    return out * ops.cast(mask, dtype)[:, :, None, None]


def zero_padding(x, mask):
    """Zero the padded positions of (batch, n, d) so nothing leaks through a convolution."""
    if mask is None:
        return x
    return x * ops.cast(mask, x.dtype)[:, :, None]


def conv(filters, activation, name, policy, initializer):
    """The window-3 'same' convolution of HCAN Equation 2."""
    return keras.layers.Conv1D(filters, 3, padding="same", activation=activation, name=name,
                               dtype=policy, kernel_initializer=clone_initializer(initializer))
