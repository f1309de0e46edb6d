"""The widths a batch of token ids is padded to: one rule for the portable path's
batches (:mod:`kerasattn.training.buckets`) and for a ``TextClassifier``'s under a
backend that compiles once per input shape (:mod:`kerasattn.data.pipeline`).

JAX (and PyTorch compiled, and TensorFlow with ``jit_compile``) compile a program for
each new batch shape: a batch padded only to its longest text has a width of its own
(24 shapes, 87 s of compiling, in one epoch of ``cnn`` on 1,500 SST-2 texts under JAX,
against 5.5 s for the whole epoch under TensorFlow). Bounded, a token axis is padded to
a multiple of :data:`STEP` and a sentence or word axis to a power of two, each at most
its text limit, so a split has a handful of shapes; training batches are also padded
to the full batch size with rows of weight 0 (:func:`kerasattn.data.pipeline.make_dataset`,
``bounded=True``).

TensorFlow without XLA does not compile per shape, so there a ``TextClassifier`` pads each
batch to its longest text only (:func:`compiles_per_shape`).
"""

import numpy as np

STEP = 64  # tokens: a flat batch's width is a multiple of this


def compiles_per_shape(backend):
    """Whether Keras's ``backend`` compiles a program for each new input shape (all but
    TensorFlow, whose graphs ``TextClassifier`` runs without XLA)."""
    return backend != "tensorflow"


def widths(lengths, step=STEP, cap=None):
    """Each length (at least 1) rounded up to a multiple of ``step`` (``None``: to a
    power of two), at most ``cap`` (at least 1)."""
    lengths = np.maximum(1, np.asarray(lengths, np.int64))
    if step is None:
        out = 2 ** np.ceil(np.log2(lengths)).astype(np.int64)
    else:
        out = -(-lengths // step) * step
    return out if cap is None else np.minimum(out, max(1, cap))


def width(length, step=STEP, cap=None):
    """:func:`widths` of one length, an int."""
    return int(widths([length], step, cap)[0])


def all_widths(cap, step=STEP, largest=4096):
    """Every width :func:`widths` gives for lengths up to ``cap`` (``None``: up to
    ``largest``), ascending."""
    top = cap or largest
    if step is None:
        found = [2 ** i for i in range(int(np.ceil(np.log2(max(top, 1)))) + 1)]
    else:
        found = list(range(step, top + step, step))
    return sorted({min(w, top) for w in found})
