"""Token attributions for every zoo model: is the attention an explanation?

One score per real token (padding never gets one) by five methods:

- ``"gradient_x_input"``: ∂p_c/∂e_i · e_i, the gradient of the explained class's
  probability with respect to token i's embedding, times that embedding,
  summed over the embedding dimension.
- ``"integrated_gradients"`` (Sundararajan et al. 2017, Equation 1):
  (e_i − e'_i) · ∫₀¹ ∂p_c(e' + α(e − e'))/∂e_i dα, with a zero-embedding
  baseline e' = 0 (``baseline="zero"``) or the embedding of the padding id at
  every position (``baseline="padding"``); the integral is a Riemann sum of
  ``steps`` intervals (``rule="trapezoid"``: steps + 1 gradient evaluations at
  α = k/steps, end points weighted ½; ``rule="midpoint"``: ``steps``
  evaluations at α = (k + ½)/steps). Completeness: the scores sum to
  p_c(e) − p_c(e') up to the discretisation error, which each result reports
  as ``extras["completeness_gap"]``. The mask stays that of the real ids (the
  baseline replaces the vectors of the real tokens, it does not shorten the text).
- ``"leave_one_out"``: p_c(x) − p_c(x without token i), the token REMOVED
  (the id is taken out and the rest shifted left: the text is one token shorter,
  as if it had never been written; no replacement token the model has seen).
- ``"attention"``: the model's own attention per token. Per level of the model
  (the words of a flat model; words and sentences of a hierarchical one): the
  weights of the pooling attention (``AttentionPooling``, ``InterAttention``,
  ``TargetAttention``; heads averaged) when the level has one; else IRAM's
  effective weights of its final summary (each step's weights on the tokens,
  plus its weights on earlier summaries times those summaries' own token
  weights); else, for self-attention only (SANet, CAN/HCAN with max pooling),
  the attention each token *receives* in the last self-attention layer (heads
  averaged, mean over the real query rows). Hierarchical models: word score =
  its weight within its sentence × its sentence's weight in the document.
- ``"rollout"`` (Abnar & Zuidema 2020): per level with stacked self-attention
  layers (SANet blocks, Transformer encoder layers, HCAN's convolutional
  self-attention), the head-averaged matrices Ā_l = (A_l + I) with rows
  renormalised, multiplied through the layers, R = Ā_L ⋯ Ā_1 (row i: how much
  output position i draws from each input token). The row reported is the
  one the pooling reads: with a pooling attention p on top, pᵀR (the pooled
  attention carried down to the input tokens); with max pooling (SANet, CAN
  max-pool), the mean of R's rows over the real queries. Each such row sums
  to 1. ``extras["attention"]`` holds the ``"attention"`` scores beside it.
  (HCAN's convolutional self-attention has no residual connection around it;
  the identity term is then the recipe's assumption, not the architecture's.)

Gradients are taken with respect to the output of the model's token-embedding
layers: every ``keras.layers.Embedding`` (or layer with an ``embeddings``
weight, like :class:`~kerasattn.layers.CharNgramEmbedding`) that reads the id
input directly. While the gradient is taken, each such layer's ``call`` is
replaced on the instance (and restored after) by one returning the given
vectors, so the whole functional graph runs as usual: masks are still
computed from the real ids by the layers' ``compute_mask``, and every later
layer (positions added by SANet and HCAN, IRAM-full's n-gram concatenation)
sees the vectors. IRAM-full has two such layers (word and character n-gram
vectors); a token's score is the sum over both. TensorFlow backend only
(``tf.GradientTape``). While an attribution runs, the model must not be
called from another thread (its embedding layers are hooked).

Scores explain one class: the predicted class (``target=None``), or a given
class (an int, or one per document). Models ending in one sigmoid unit are
read as the two probabilities [1 − p, p].
"""

import contextlib
import dataclasses
import itertools
import weakref

import keras
import numpy as np

from kerasattn.data import layout
from kerasattn.explanation_pages import trim_document
from kerasattn.heads import as_probabilities, probability_tensor
from kerasattn.interpret.attention import (_decode, _name_ids, attention_layers,
                                           attention_model, check_layout)
from kerasattn.interpret.plots import attribution_html

METHODS = ("gradient_x_input", "integrated_gradients", "leave_one_out", "attention", "rollout")
BASELINES = ("zero", "padding")
RULES = ("trapezoid", "midpoint")


@dataclasses.dataclass
class TokenAttribution:
    """One document's token scores by one method.

    Attributes:
        tokens: the words the model saw; for a hierarchical model a list of
            sentences, each a list of words (as :class:`Explanation.tokens`).
        scores: one float per token, nested like ``tokens``: a (n,) array, or
            a list of (n_s,) arrays, one per sentence.
        probabilities: (classes,) the model's output on the whole document.
        target: the class the scores explain.
        method: the method's name.
        ids: the token ids, nested like ``tokens``.
        hierarchical: whether ``tokens`` is a list of sentences.
        extras: what the method adds (integrated gradients: the baseline's
            probability and the completeness gap; rollout: the attention scores).
        class_names: the label of each class, where known (``TextClassifier.attribute``
            sets them).

    In a notebook an attribution shows itself as words coloured by their scores
    (``_repr_html_``: :func:`kerasattn.interpret.plots.attribution_html`, a fragment whose
    styles and ids apply only inside it).
    """

    tokens: list
    scores: object
    probabilities: np.ndarray
    target: int
    method: str
    ids: list
    hierarchical: bool = False
    extras: dict = dataclasses.field(default_factory=dict)
    class_names: list = None

    def _repr_html_(self) -> str:
        # a fresh root id each time: every output of the notebook is its own fragment
        return attribution_html(self)

    @property
    def label(self):
        """The predicted class."""
        return int(np.argmax(self.probabilities))

    @property
    def flat_scores(self):
        """The scores as one (n,) array, sentences one after another."""
        return layout.layout(self.hierarchical).flat_scores(self.scores)

    @property
    def flat_tokens(self):
        return layout.layout(self.hierarchical).flatten(self.tokens)


# -- documents ---------------------------------------------------------------------

def is_hierarchical(model):
    """Whether ``model`` takes (batch, sentences, words) ids."""
    return layout.of_model(model).hierarchical


def num_tokens(doc, hierarchical):
    """The tokens of ``doc`` (:mod:`kerasattn.data.layout`)."""
    return layout.layout(hierarchical).size(doc)


def _unwrap(model, preprocessor=None):
    """A :class:`~kerasattn.tasks.TextClassifier` -> its backbone and text preprocessor."""
    if hasattr(model, "backbone") and hasattr(model, "preprocessor"):
        if model.backbone is None:
            raise ValueError("the classifier has no backbone yet: fit it first")
        preprocessor = model.preprocessor if preprocessor is None else preprocessor
        model = model.backbone
    preprocessor = getattr(preprocessor, "text_preprocessor", preprocessor)
    if not isinstance(model, keras.Model) or not getattr(model, "inputs", None):
        raise ValueError(f"expected a functional Keras model on token ids, got {model!r}")
    return model, preprocessor


def prepare_documents(model, texts_or_ids, preprocessor=None):
    """Texts or ids -> ``(model, docs, tokens, layout)``.

    ``docs`` holds each document's ids without padding (a list of ints, or a
    list of sentences); ``tokens`` the words (from the preprocessor, or the
    ids' vocabulary entries, or the ids as strings). ``model`` may be a
    :class:`~kerasattn.tasks.TextClassifier` (its backbone is returned); ``layout`` is
    the documents' :class:`~kerasattn.data.layout.Layout` (flat, or sentences of words).
    """
    model, preprocessor = _unwrap(model, preprocessor)
    lay = layout.of_model(model)
    items = texts_or_ids if isinstance(texts_or_ids, np.ndarray) else list(texts_or_ids)
    check_layout(model, lay, preprocessor)
    if len(items) == 0:
        return model, [], [], lay
    if isinstance(items[0], (str, bytes)):
        if preprocessor is None:
            raise ValueError("texts need the run's preprocessor (preprocessor=...); "
                             "or pass token ids")
        import tensorflow as tf  # late: kerasattn.interpret loads without it (JAX, PyTorch)

        docs, words = [], []
        for start in range(0, len(items), 256):
            chunk = [t.decode("utf-8") if isinstance(t, bytes) else str(t)
                     for t in items[start:start + 256]]
            tokens = preprocessor.tokenize(tf.constant(chunk))
            docs += preprocessor.lookup(tokens).to_list()
            words += _decode(tokens.to_list())
        return model, docs, words, lay
    docs = [lay.strip(row) for row in items]
    vocab = preprocessor.vocabulary if preprocessor is not None else None
    return model, docs, _name_ids(docs, vocab), lay


def remove_tokens(doc, positions, hierarchical=False):
    """``doc`` without the tokens at ``positions`` (flat indices, sentences one after another).

    The tokens are taken out and the rest shift left: the text gets shorter,
    nothing replaces them. Hierarchical: words leave their sentences, and a
    sentence left with no word is removed (the next sentences move up).
    """
    return layout.layout(hierarchical).remove(doc, positions)


def keep_tokens(doc, positions, hierarchical=False):
    """``doc`` with ONLY the tokens at ``positions``, in their original order
    (the others removed as by :func:`remove_tokens`)."""
    return layout.layout(hierarchical).keep(doc, positions)


def _chunks(iterable, size):
    iterator = iter(iterable)
    while True:
        chunk = list(itertools.islice(iterator, size))
        if not chunk:
            return
        yield chunk


def predict_probabilities(model, docs, batch_size=32):
    """(len(docs), classes) probabilities of documents of ids (no padding needed);
    a sigmoid head gives [1 − p, p]. ``docs`` may be any iterable."""
    model, _ = _unwrap(model)
    lay = layout.of_model(model)
    out = []
    for chunk in _chunks(docs, batch_size):
        probs = model(lay.pad(chunk), training=False)
        out.append(as_probabilities(np.asarray(probs)))
    if not out:
        return np.zeros((0, _num_classes(model)))
    return np.concatenate(out)


def _targets(target, probabilities):
    """None -> the predicted classes; an int -> that class for all; a sequence -> as given."""
    n, classes = probabilities.shape
    if target is None:
        t = np.argmax(probabilities, axis=1) if n else np.zeros(0, int)
    elif np.ndim(target) == 0:
        t = np.full(n, int(target))
    else:
        t = np.asarray(target, dtype=int).reshape(-1)
        if len(t) != n:
            raise ValueError(f"{len(t)} targets for {n} documents")
    if n and (t.min() < 0 or t.max() >= classes):
        raise ValueError(f"target classes must be in [0, {classes}), got {sorted(set(t))}")
    return t.astype(int)


def _check_target_count(target, n):
    if target is not None and np.ndim(target) > 0 and len(np.ravel(target)) != n:
        raise ValueError(f"{len(np.ravel(target))} targets for {n} documents")


def _results(docs, tokens, scores, probabilities, targets, method, hierarchical, extras=None):
    return [TokenAttribution(tokens=tokens[i], scores=scores[i],
                             probabilities=np.asarray(probabilities[i], np.float32),
                             target=int(targets[i]), method=method, ids=docs[i],
                             hierarchical=hierarchical,
                             extras=extras[i] if extras is not None else {})
            for i in range(len(docs))]


# -- the embedding hook --------------------------------------------------------------

def _is_embedding(layer):
    return isinstance(layer, keras.layers.Embedding) or \
        isinstance(getattr(layer, "embeddings", None), keras.Variable)


def embedding_layers(model):
    """The layers that embed the token ids: every ``keras.layers.Embedding`` (or layer
    with an ``embeddings`` weight) called on the model's id input.

    Raises:
        ValueError: no such layer (attributions on embeddings do not apply).
    """
    model, _ = _unwrap(model)
    inputs = {id(t) for t in model.inputs}
    found = []
    for layer in model._flatten_layers(include_self=False, recursive=True):
        if not _is_embedding(layer):
            continue
        try:  # the tensors the layer was (first) called on
            called_on = keras.tree.flatten(layer.input)
        except (AttributeError, ValueError):  # a layer never called in a graph
            continue
        if any(id(t) in inputs for t in called_on):
            found.append(layer)
    if not found:
        raise ValueError(
            f"model {model.name!r} has no token-embedding layer (a keras.layers.Embedding, or "
            f"a layer with an `embeddings` weight, called on the token ids); gradient "
            f"attributions need one")
    return found


_MISSING = object()


@contextlib.contextmanager
def _replaced_calls(layers, calls):
    """Each layer's ``call`` replaced on the instance by the given function, restored after.

    The gradients need the embeddings' outputs as given tensors, and the faithfulness
    permutations a pooling's weights permuted, in the model's own forward pass (masks
    included); Keras has no public per-call hook for an eager pass. It relies on
    ``Layer.__call__`` looking ``call`` up on the instance each time, which
    tests/test_private_keras_api.py pins."""
    saved = [vars(layer).get("call", _MISSING) for layer in layers]
    try:
        for layer, call in zip(layers, calls):
            layer.call = call
        yield
    finally:
        for layer, old in zip(layers, saved):
            if old is _MISSING:
                if "call" in vars(layer):
                    del layer.call
            else:
                layer.call = old


def _constant(value, dtype):
    def call(*args, **kwargs):
        return keras.ops.cast(value, dtype)
    return call


def _embed(layers, ids):
    """The layers' float32 outputs on ``ids`` (numpy)."""
    return [np.asarray(keras.ops.cast(layer(ids), "float32")) for layer in layers]


def _check_backend():
    if keras.backend.backend() != "tensorflow":
        raise ValueError("gradient attributions need the TensorFlow backend "
                         f"(KERAS_BACKEND=tensorflow), not {keras.backend.backend()!r}")


def _forward(model, layers, ids, values, targets=None, gradients=True):
    """The model on ``ids`` with the embedding layers' outputs replaced by ``values``.

    Returns (probabilities (b, classes), targets (b,), gradients of each row's
    target probability with respect to each of ``values`` (or None)).
    """
    import tensorflow as tf  # late: kerasattn.interpret loads without it (JAX, PyTorch)

    values = [tf.convert_to_tensor(v, tf.float32) for v in values]
    calls = [_constant(v, layer.compute_dtype) for layer, v in zip(layers, values)]
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        for v in values:
            tape.watch(v)
        with _replaced_calls(layers, calls):
            probs = probability_tensor(model(ids, training=False))
        if targets is None:
            targets = tf.argmax(probs, axis=1, output_type=tf.int32)
        y = tf.gather(probs, tf.cast(targets, tf.int32), axis=1, batch_dims=1)
    grads = None
    if gradients:
        grads = tape.gradient(y, values, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        grads = [np.asarray(g, np.float64) for g in grads]
    return np.asarray(probs, np.float64), np.asarray(targets, int), grads


def _prepare_ids(model, ids, preprocessor=None):
    return prepare_documents(model, ids, preprocessor)


def gradient_x_input(model, ids, target=None, batch_size=32, preprocessor=None):
    """Gradient × input on the token embeddings, one score per token.

    Args:
        model: a zoo model (functional, on token ids) or a TextClassifier.
        ids: documents of token ids (lists, or a 0-padded int array), or texts
            with ``preprocessor``.
        target: the class to explain: None (each document's predicted class),
            an int, or one int per document.
        batch_size: documents per forward pass.

    Returns:
        A list of :class:`TokenAttribution`.
    """
    _check_backend()
    model, docs, tokens, lay = _prepare_ids(model, ids, preprocessor)
    layers = embedding_layers(model)
    _check_target_count(target, len(docs))
    scores, probabilities, targets = [], [], []
    for start in range(0, len(docs), batch_size):
        chunk = docs[start:start + batch_size]
        batch = lay.pad(chunk)
        values = _embed(layers, batch)
        t = _chunk_targets(target, start, len(chunk), _num_classes(model))
        probs, t, grads = _forward(model, layers, batch, values, t)
        total = sum((g * v).sum(axis=-1) for g, v in zip(grads, values))
        scores += [lay.unpad(total[i], doc)
                   for i, doc in enumerate(chunk)]
        probabilities.append(probs)
        targets.append(t)
    probabilities, targets = _stack(probabilities, targets, model)
    return _results(docs, tokens, scores, probabilities, targets, "gradient_x_input",
                    lay.hierarchical)


def _stack(probabilities, targets, model):
    if not probabilities:
        return np.zeros((0, _num_classes(model))), np.zeros(0, int)
    return np.concatenate(probabilities), np.concatenate(targets)


def _num_classes(model):
    classes = model.output_shape[-1]
    return 2 if classes == 1 else classes


def _chunk_targets(target, start, size, classes):
    """The given targets of documents start … start + size (None: predicted)."""
    if target is None:
        return None
    if np.ndim(target) == 0:
        t = np.full(size, int(target))
    else:
        t = np.asarray(target, dtype=int).reshape(-1)[start:start + size]
        if len(t) != size:
            raise ValueError("give one target per document")
    if size and (t.min() < 0 or t.max() >= classes):
        raise ValueError(f"target classes must be in [0, {classes}), got {sorted(set(t))}")
    return t


def riemann_grid(steps=50, rule="trapezoid"):
    """The α values and weights of integrated gradients' Riemann sum on [0, 1].

    ``"trapezoid"``: α = 0, 1/steps, …, 1 with weights 1/steps, halved at both
    ends (steps + 1 points); ``"midpoint"``: α = (k + ½)/steps, weights 1/steps.
    """
    if not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps must be a positive integer, got {steps!r}")
    if rule == "trapezoid":
        alphas = np.linspace(0.0, 1.0, steps + 1)
        weights = np.full(steps + 1, 1.0 / steps)
        weights[[0, -1]] /= 2.0
    elif rule == "midpoint":
        alphas = (np.arange(steps) + 0.5) / steps
        weights = np.full(steps, 1.0 / steps)
    else:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
    return alphas, weights


def integrated_gradients(model, ids, target=None, steps=50, baseline="zero", rule="trapezoid",
                         batch_size=32, preprocessor=None):
    """Integrated gradients (Sundararajan et al. 2017) on the token embeddings.

    Args:
        model, ids, target, batch_size: as :func:`gradient_x_input`.
        steps: intervals of the Riemann sum (50).
        baseline: ``"zero"`` (zero vectors) or ``"padding"`` (the padding
            id's embedding at every real position); the mask stays the real one.
        rule: ``"trapezoid"`` or ``"midpoint"`` (:func:`riemann_grid`).
        batch_size: documents per chunk; a chunk's interpolations run
            ``max(1, batch_size // chunk size)`` at a time.

    Returns:
        A list of :class:`TokenAttribution`; ``extras`` holds
        ``"baseline_probability"`` (p_c at the baseline) and
        ``"completeness_gap"`` (p_c(x) − p_c(baseline) − Σ scores).
    """
    _check_backend()
    if baseline not in BASELINES:
        raise ValueError(f"baseline must be one of {BASELINES}, got {baseline!r}")
    alphas, weights = riemann_grid(steps, rule)
    model, docs, tokens, lay = _prepare_ids(model, ids, preprocessor)
    layers = embedding_layers(model)
    _check_target_count(target, len(docs))
    scores, probabilities, targets, extras = [], [], [], []
    for start in range(0, len(docs), batch_size):
        chunk = docs[start:start + batch_size]
        b = len(chunk)
        batch = lay.pad(chunk)
        x = _embed(layers, batch)
        x0 = ([np.zeros_like(v) for v in x] if baseline == "zero"
              else _embed(layers, np.zeros_like(batch)))
        t = _chunk_targets(target, start, b, _num_classes(model))
        probs, t, _ = _forward(model, layers, batch, x, t, gradients=False)
        base_probs, _, _ = _forward(model, layers, batch, x0, t, gradients=False)
        total = [np.zeros(v.shape, np.float64) for v in x]
        per_pass = max(1, batch_size // b)
        tile = (1,) * (batch.ndim - 1)
        for g in range(0, len(alphas), per_pass):
            a, w = alphas[g:g + per_pass], weights[g:g + per_pass]
            values = [(v0[None] + a.reshape(-1, *(1,) * v.ndim) * (v - v0)[None])
                      .reshape(len(a) * b, *v.shape[1:]) for v, v0 in zip(x, x0)]
            _, _, grads = _forward(model, layers, np.tile(batch, (len(a), *tile)), values,
                                   np.tile(t, len(a)))
            for i, grad in enumerate(grads):
                total[i] += np.tensordot(w, grad.reshape(len(a), *x[i].shape), axes=1)
        attributions = sum(((v - v0) * g).sum(axis=-1) for v, v0, g in zip(x, x0, total))
        for i, doc in enumerate(chunk):
            s = lay.unpad(attributions[i], doc)
            f_x, f_0 = probs[i, t[i]], base_probs[i, t[i]]
            scores.append(s)
            extras.append({"baseline": baseline, "steps": steps, "rule": rule,
                           "baseline_probability": float(f_0),
                           "completeness_gap": float(
                               f_x - f_0 - lay.flat_scores(s).sum())})
        probabilities.append(probs)
        targets.append(t)
    probabilities, targets = _stack(probabilities, targets, model)
    return _results(docs, tokens, scores, probabilities, targets, "integrated_gradients",
                    lay.hierarchical, extras)


def leave_one_out(model, ids, target=None, batch_size=32, preprocessor=None):
    """Leave-one-out erasure: p_c(x) − p_c(x with token i removed), for every token.

    The token is removed by :func:`remove_tokens` (the text gets one token
    shorter; hierarchical: a sentence left empty is removed). ``batch_size``
    counts the shortened copies run together.
    """
    model, docs, tokens, lay = _prepare_ids(model, ids, preprocessor)
    probabilities = predict_probabilities(model, docs, batch_size)
    targets = _targets(target, probabilities)
    variants = ((d, i, lay.remove(doc, [i]))
                for d, doc in enumerate(docs) for i in range(lay.size(doc)))
    flat = [np.zeros(lay.size(doc)) for doc in docs]
    for chunk in _chunks(variants, batch_size):
        probs = predict_probabilities(model, [v for _, _, v in chunk], batch_size)
        for (d, i, _), p in zip(chunk, probs):
            flat[d][i] = probabilities[d, targets[d]] - p[targets[d]]
    scores = [lay.nest_scores(f, doc) for f, doc in zip(flat, docs)]
    return _results(docs, tokens, scores, probabilities, targets, "leave_one_out",
                    lay.hierarchical)


# -- attention and rollout -------------------------------------------------------------

def attention_rollout(matrices, add_identity=True):
    """Attention rollout (Abnar & Zuidema 2020) of self-attention layers, first layer first.

    Each matrix is (n, n) or (heads, …, n, n) (the leading axes are
    averaged); row i holds the weights query i puts on every key. Each layer
    becomes Ā = A + I (``add_identity``: the residual connection) with rows
    renormalised to sum to 1 (a row of zeros stays zero), and the rollout is
    R = Ā_L ⋯ Ā_2 Ā_1: R[i, j] is how much position i after the last layer
    draws from input token j.
    """
    result = None
    for a in matrices:
        a = np.asarray(a, np.float64)
        if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
            raise ValueError(f"attention matrices must be (..., n, n), got shape {a.shape}")
        a = a.reshape(-1, *a.shape[-2:]).mean(axis=0)
        if add_identity:
            a = a + np.eye(a.shape[-1])
        rows = a.sum(axis=-1, keepdims=True)
        a = np.divide(a, rows, out=np.zeros_like(a), where=rows > 0)
        if result is not None and result.shape != a.shape:
            raise ValueError("all attention matrices must have the same size")
        result = a if result is None else a @ result
    if result is None:
        raise ValueError("attention rollout needs at least one attention matrix")
    return result


def _kind(axes):
    a = [x for x in axes if x != "sentence"]
    if "query" in a and "key" in a:
        return "self"
    if "step" in a and "memory" in a:
        return "iram"
    if "token" in a:
        return "pool"
    return None


def _average(weights, axes, keep):
    """Average ``weights`` (axes named ``axes``) over every axis not in ``keep``;
    the result's axes are ``keep``, in that order."""
    axes = list(axes)
    other = tuple(i for i, a in enumerate(axes) if a not in keep)
    w = np.asarray(weights, np.float64)
    if other:
        w = w.mean(axis=other)
    remaining = [a for a in axes if a in keep]
    return np.transpose(w, [remaining.index(k) for k in keep])


def _iram_token_weights(a, n):
    """IRAM's (steps, n + steps − 1) weights -> the final summary's effective weights
    on the n tokens: e_t = a_t[:n] + Σ_{j<t} a_t[n + j] e_j."""
    effective = []
    for t in range(a.shape[0]):
        e = a[t, :n].copy()
        for j in range(t):
            e += a[t, n + j] * effective[j]
        effective.append(e)
    return effective[-1] if effective else np.zeros(n)


class _Plan:
    """Which attention layers of a model serve each level, and the probe that taps them."""

    def __init__(self, model):
        self.probe = attention_model(model)
        self.axes = self.probe.attention_axes
        self.hierarchical = is_hierarchical(model)
        # graph order; layers nested in a tapped one (HCAN's parallel branches) are not tapped
        names = [layer.name for layer in attention_layers(model) if layer.name in self.axes]
        self.levels = {"word": [], "sentence": []}
        for name in names:
            kind = _kind(self.axes[name])
            if kind is None:
                continue
            word = not self.hierarchical or self.axes[name][0] == "sentence"
            self.levels["word" if word else "sentence"].append((name, kind))
        self.has_self = any(k == "self" for level in self.levels.values() for _, k in level)

    def describe(self):
        return ", ".join(f"{n} ({k})" for level in self.levels.values() for n, k in level)


_PLANS = weakref.WeakKeyDictionary()


def _plan(model):
    try:
        return _PLANS[model]
    except (KeyError, TypeError):
        plan = _Plan(model)
        try:
            _PLANS[model] = plan
        except TypeError:
            pass
        return plan


def _level_scores(layers, n, method):
    """One sequence's scores from its level's attention (``layers``: [(kind, weights,
    axes)], token axes trimmed to n); None when the level has nothing to say."""
    pools = [(w, ax) for kind, w, ax in layers if kind == "pool"]
    selfs = [(w, ax) for kind, w, ax in layers if kind == "self"]
    irams = [(w, ax) for kind, w, ax in layers if kind == "iram"]
    if n == 0:
        return np.zeros(0)
    pooled = _average(*pools[-1], ("token",)) if pools else None
    if method == "rollout" and selfs:
        r = attention_rollout([_average(w, ax, ("query", "key")) for w, ax in selfs])
        return pooled @ r if pooled is not None else r.mean(axis=0)
    if pooled is not None:
        return pooled
    if irams:
        w, ax = irams[-1]
        return _iram_token_weights(_average(w, ax, ("step", "memory")), n)
    if selfs:
        return _average(*selfs[-1], ("query", "key")).mean(axis=0)
    return None


def _document_scores(plan, trimmed, doc, method):
    """Scores of one document from its trimmed attention tensors."""
    def strip(axes):
        return tuple(a for a in axes if a != "sentence")

    if not plan.hierarchical:
        layers = [(k, trimmed[name], plan.axes[name]) for name, k in plan.levels["word"]]
        s = _level_scores(layers, len(doc), method)
        return np.zeros(len(doc)) if s is None else s
    sentence_layers = [(k, trimmed[name], plan.axes[name]) for name, k in plan.levels["sentence"]]
    sentence_scores = _level_scores(sentence_layers, len(doc), method)
    out = []
    for s, sentence in enumerate(doc):
        n = len(sentence)
        layers = []
        for name, k in plan.levels["word"]:
            w, ax = trimmed[name][s], strip(plan.axes[name])
            index = tuple(slice(0, n) if a in ("query", "key", "token") else slice(None)
                          for a in ax)
            layers.append((k, w[index], ax))
        words = _level_scores(layers, n, method)
        words = np.full(n, 1.0 / max(n, 1)) if words is None else words
        out.append(words * (1.0 if sentence_scores is None else sentence_scores[s]))
    return out


def _attention_method(model, ids, method, batch_size=32, preprocessor=None):
    model, docs, tokens, lay = _prepare_ids(model, ids, preprocessor)
    plan = _plan(model)
    if method == "rollout" and not plan.has_self:
        raise ValueError(f"attention rollout needs self-attention layers (query × key "
                         f"weights); model {model.name!r} has only: {plan.describe()}")
    scores, extras, probabilities = [], [], []
    for start in range(0, len(docs), batch_size):
        chunk = docs[start:start + batch_size]
        out = plan.probe(lay.pad(chunk), training=False)
        out = {k: np.asarray(v) for k, v in out.items()}
        probabilities.append(as_probabilities(out["probabilities"]))
        for i, doc in enumerate(chunk):
            trimmed = trim_document({name: out[name][i] for name in plan.axes}, plan.axes,
                                    doc, lay)
            scores.append(_document_scores(plan, trimmed, doc, method))
            extra = {"layers": plan.describe()}
            if method == "rollout":
                extra["attention"] = _document_scores(plan, trimmed, doc, "attention")
            extras.append(extra)
    probabilities = np.concatenate(probabilities) if probabilities else \
        np.zeros((0, _num_classes(model)))
    targets = _targets(None, probabilities)
    return _results(docs, tokens, scores, probabilities, targets, method, lay.hierarchical,
                    extras)


def attention_scores(model, ids, batch_size=32, preprocessor=None):
    """The model's attention per token (see the module docstring for each family).

    Raises:
        ValueError: the model has no attention layer.
    """
    return _attention_method(model, ids, "attention", batch_size, preprocessor)


def applicable_methods(model):
    """The methods of :data:`METHODS` that apply to ``model``."""
    model, _ = _unwrap(model)
    methods = ["leave_one_out"]
    try:
        embedding_layers(model)
        if keras.backend.backend() == "tensorflow":
            methods[:0] = ["gradient_x_input", "integrated_gradients"]
    except ValueError:
        pass
    if attention_layers(model):
        try:
            plan = _plan(model)
        except ValueError:
            return methods
        if any(plan.levels.values()):
            methods.append("attention")
        if plan.has_self:
            methods.append("rollout")
    return methods


def explain_tokens(model, texts_or_ids, preprocessor=None, method="integrated_gradients",
                   target=None, steps=50, baseline="zero", rule="trapezoid", batch_size=32):
    """One score per real token of each document, by ``method``.

    Args:
        model: a zoo Keras model on token ids (flat or hierarchical), or a
            :class:`~kerasattn.tasks.TextClassifier`.
        texts_or_ids: strings (need ``preprocessor``), or token ids: lists of
            ints (lists of sentences for hierarchical models) or a 0-padded array.
        preprocessor: the run's :class:`~kerasattn.data.preprocessing.TextPreprocessor`.
        method: one of :data:`METHODS`.
        target: the class explained (gradient methods and leave-one-out):
            None for each document's predicted class, an int, or one per
            document. ``"attention"`` and ``"rollout"`` do not depend on a class.
        steps, baseline, rule: integrated gradients' options.
        batch_size: documents per forward pass.

    Returns:
        A list of :class:`TokenAttribution`, one per document, in order.
    """
    if method == "gradient_x_input":
        return gradient_x_input(model, texts_or_ids, target, batch_size, preprocessor)
    if method == "integrated_gradients":
        return integrated_gradients(model, texts_or_ids, target, steps, baseline, rule,
                                    batch_size, preprocessor)
    if method == "leave_one_out":
        return leave_one_out(model, texts_or_ids, target, batch_size, preprocessor)
    if method in ("attention", "rollout"):
        return _attention_method(model, texts_or_ids, method, batch_size, preprocessor)
    raise ValueError(f"method must be one of {METHODS}, got {method!r}")
