"""Iterative recursive attention (IRAM, Tutek & Šnajder 2018, §3.1–3.2, Equations 1–4)."""

import keras
from keras import ops

from kerasattn.layers._attention_ops import masked_softmax
from kerasattn.layers.highway import GATES, Highway
from kerasattn.layers._initializers import clone_initializer


def attention_regularizer(attention, gamma, steps=None):
    """IRAM's Equation 3 for a batch of step × memory matrices A: ``γ/(2T) Σ_{i≠j} [AAᵀ]_ij``.

    Args:
        attention: (batch, T, N + T − 1) weights, laid out as Equation 4.
        gamma: the regularisation strength γ.
        steps: T (default: the second axis of ``attention``).

    Returns:
        The mean over the batch (a scalar).
    """
    a = ops.cast(attention, "float32")
    t = steps or a.shape[1]
    gram = ops.matmul(a, ops.transpose(a, (0, 2, 1)))                  # (b, T, T)
    off_diagonal = ops.sum(gram, axis=(1, 2)) - ops.trace(gram, axis1=1, axis2=2)
    return ops.mean(off_diagonal) * (gamma / (2.0 * t))


@keras.saving.register_keras_serializable(package="kerasattn")
class IterativeRecursiveAttention(keras.layers.Layer):
    """T steps of attention whose query a GRU refines and whose summaries join the memory.

    For t = 1 … T (§3.1)::

        q(t) = GRUCell(input = s(t−1), state = q(t−1))    q(0) = x̂, s(0) = 0
        a(t) = softmax(q(t) W [h_1 … h_N, s(1) … s(t−1)])     (Equation 1, bilinear)
        ŝ(t) = Σ_i a(t)_i m_i                                   (Equation 2, m: the memory)
        s(t) = Highway(ŝ(t))                                    (one shared highway layer)

    and the output is s(T). The paper leaves the first step's controller input
    open; we use a zero summary, so q(1) = GRU(0, x̂) is already a learned
    transformation of the initial query. Padded inputs and summaries not yet
    produced get exactly zero weight (float32 softmax with a boolean mask); N
    may change from batch to batch. With ``gamma > 0`` the layer adds
    Equation 3's penalty ``γ/(2T) Σ_{i≠j} [AAᵀ]_ij`` (batch mean) with
    ``add_loss``.

    Args:
        steps: T (3 in §4.2).
        gamma: γ of Equation 3 (3e-4 in §4.4); 0 disables the penalty.
        kernel_initializer: initializer of W, the GRU and the highway layer
            (IRAM: N(0, 0.01)).
        highway_gate: what the summary highway's gate opens, ``"transform"``
            (default) or ``"carry"`` (:class:`~kerasattn.layers.Highway`).

    Call arguments:
        inputs: ``[hidden_states, initial_query]``: (batch, N, d_h) and (batch, d_q).
        mask: a boolean (batch, N) mask of the hidden states, or ``[mask, None]``.
        training: passed to the GRU cell and highway layer.
        return_attention_scores: also return A, (batch, T, N + T − 1), row t
            holding the weights over the N inputs then the t − 1 summaries
            then T − t trailing zeros (Equation 4).

    Example:
    >>> import numpy as np
    >>> from kerasattn.layers import IterativeRecursiveAttention
    >>> h, q = np.ones((2, 5, 8), "float32"), np.ones((2, 6), "float32")
    >>> s, a = IterativeRecursiveAttention(steps=3)([h, q], return_attention_scores=True)
    >>> tuple(s.shape), tuple(a.shape)
    ((2, 8), (2, 3, 7))
    """

    # its inputs are not one (batch, time, features) sequence: the shared harness
    # (tests/layers/test_harness.py) leaves it to its own tests, in this file
    harness_examples = "tests/layers/test_iterative_recursive_attention.py"

    # The weights returned with ``return_attention_scores=True`` are shaped
    # (batch, *attention_axes); attention extraction reads these names.
    attention_axes = ("step", "memory")

    def __init__(self, steps=3, gamma=3e-4, kernel_initializer="glorot_uniform",
                 highway_gate="transform", **kwargs):
        super().__init__(**kwargs)
        if not isinstance(steps, int) or steps < 1:
            raise ValueError(f"steps must be a positive integer, got {steps!r}")
        if gamma < 0:
            raise ValueError(f"gamma must be >= 0, got {gamma!r}")
        self.steps = steps
        self.gamma = float(gamma)
        if highway_gate not in GATES:
            raise ValueError(f"highway_gate must be one of {', '.join(GATES)}, "
                             f"got {highway_gate!r}")
        self.highway_gate = highway_gate
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.supports_masking = True
        self._softmax = keras.layers.Softmax(axis=-1, dtype="float32", name="softmax")

    def build(self, input_shape):
        h_shape, q_shape = input_shape
        d_h, d_q = h_shape[-1], q_shape[-1]
        if d_h is None or d_q is None:
            raise ValueError("IterativeRecursiveAttention needs known hidden and query sizes")
        self.bilinear = self.add_weight(name="bilinear", shape=(d_q, d_h),
                                        initializer=clone_initializer(self.kernel_initializer))
        init = self.kernel_initializer  # cloned for each weight: see _initializers
        self._controller = keras.layers.GRUCell(d_q, name="controller",
                                                kernel_initializer=clone_initializer(init),
                                                recurrent_initializer=clone_initializer(init),
                                                dtype=self.dtype_policy)
        self._controller.build((None, d_h))
        self._highway = Highway(num_layers=1, kernel_initializer=init,
                                gate=self.highway_gate,
                                name="summary_highway", dtype=self.dtype_policy)
        self._highway.build((None, d_h))

    def call(self, inputs, mask=None, training=None, return_attention_scores=False):
        hidden, query = inputs
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        batch, n = ops.shape(hidden)[0], ops.shape(hidden)[1]
        real = (ops.ones((batch, n), "bool") if mask is None else ops.cast(mask, "bool"))
        memory, rows = hidden, []
        summary = ops.zeros_like(hidden[:, 0])
        for t in range(self.steps):
            query, _ = self._controller(summary, [query], training=training)
            keys = ops.matmul(query, ops.cast(self.bilinear, query.dtype))   # (b, d_h)
            scores = ops.einsum("bd,bnd->bn", ops.cast(keys, "float32"),
                                ops.cast(memory, "float32"))
            available = ops.concatenate([real, ops.ones((batch, t), "bool")], axis=1)
            weights = masked_softmax(self._softmax, scores[:, None, None, :], available)[:, 0, 0]
            rows.append(ops.pad(weights, [[0, 0], [0, self.steps - 1 - t]]))
            weights = ops.cast(weights, self.compute_dtype)
            summary = self._highway(ops.einsum("bn,bnd->bd", weights, memory), training=training)
            memory = ops.concatenate([memory, summary[:, None]], axis=1)
        attention = ops.stack(rows, axis=1)                                   # (b, T, N+T-1)
        if self.gamma:
            self.add_loss(attention_regularizer(attention, self.gamma, self.steps))
        if return_attention_scores:
            return summary, ops.cast(attention, self.compute_dtype)
        return summary

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape):
        h_shape, _ = input_shape
        return (h_shape[0], h_shape[-1])

    def compute_output_spec(self, inputs, mask=None, training=None,
                            return_attention_scores=False):
        hidden, _ = inputs
        out = keras.KerasTensor((hidden.shape[0], hidden.shape[-1]), dtype=self.compute_dtype)
        if not return_attention_scores:
            return out
        n = hidden.shape[1]
        memory = None if n is None else n + self.steps - 1
        return out, keras.KerasTensor((hidden.shape[0], self.steps, memory),
                                      dtype=self.compute_dtype)

    def get_config(self):
        config = super().get_config()
        config.update(steps=self.steps, gamma=self.gamma, highway_gate=self.highway_gate,
                      kernel_initializer=keras.initializers.serialize(self.kernel_initializer))
        return config
