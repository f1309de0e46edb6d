"""Faithfulness of token explanations (ERASER) and the attention tests of Jain & Wallace.

**Erasure** (DeYoung et al. 2020, ERASER §4): a document's tokens are ranked by
an explanation (highest score first; ties keep text order; ``magnitude=True``
ranks by |score|) and, for each k in ``ks`` (percent), its top m_k tokens are

- REMOVED (comprehensiveness = p_c(x) − p_c(x \\ top): a faithful ranking puts
  first the tokens whose loss hurts), or
- KEPT ALONE (sufficiency = p_c(x) − p_c(top only): they should suffice),

where c is the class the explanation explains (the predicted class by
default). Removal takes the ids out and shortens the text (the rest shift
left; the padding mask covers the end of the batch row); no token the model
has seen replaces them. In a hierarchical model the words leave their
sentences and a sentence left with no word is removed.
m_k = min(n, max(1, ⌊k·n/100 + ½⌋)): k % of the n tokens rounded half up,
and at least one token, so the 1 % bin of a short text still removes one.
AOPC (area over the perturbation curve) is the mean over the bins
(ERASER's Σ_k over |B| bins, without a k = 0 term, which is 0 for
comprehensiveness). A random ranking is the baseline: the mean over
``random_draws`` seeded permutations of each document's tokens.

**Agreement** (Jain & Wallace 2019, §4.1): Kendall τ_b (scipy) between the
attention's token ranking and another method's, per document (by magnitude:
|score|, as Jain & Wallace rank gradients by magnitude and leave-one-out by
the size of the output change).

**Counterfactual attention** (Jain & Wallace 2019, §4.2.1): a pooling
attention layer's weights are randomly permuted among the real tokens (or
sentences) and the model run again with the permuted weights; the change of
output is the total variation distance ½ Σ|p − p'| and whether the predicted
label flips. Supported layers: :class:`~kerasattn.layers.AttentionPooling`
(HAN, both levels), :class:`~kerasattn.layers.InterAttention` (transformer)
and :class:`~kerasattn.layers.TargetAttention` (CAN/HCAN ``*-target``, all
heads permuted alike). IRAM's iterative attention is not a single pooling (each
step's weights feed the next step's query and memory) and self-attention
is not pooling: both are refused with a ValueError.
"""

import dataclasses
import math

import numpy as np
from keras import ops
from scipy.stats import kendalltau

from kerasattn.data import layout
from kerasattn.heads import as_probabilities
from kerasattn.interpret.attention import attention_layers
from kerasattn.interpret.attributions import (METHODS, _chunks, _plan, _replaced_calls, _unwrap,
                                              applicable_methods, explain_tokens,
                                              keep_tokens,
                                              predict_probabilities, prepare_documents,
                                              remove_tokens)
from kerasattn.layers import AttentionPooling, TargetAttention
from kerasattn.metrics import mean_std

DEFAULT_KS = (1, 5, 10, 20, 50)

__all__ = ["DEFAULT_KS", "ErasureScores", "PermutationResult", "aopc", "erasure",
           "faithfulness_report", "format_report", "kendall_tau", "keep_tokens",
           "permutation_test", "permuted_probabilities", "pooling_layers", "random_erasure",
           "rank_agreement", "rank_tokens", "removal_counts", "remove_tokens",
           "total_variation"]


def removal_counts(n, ks=DEFAULT_KS):
    """How many tokens each bin k (percent) takes of n: min(n, max(1, ⌊k·n/100 + ½⌋));
    0 for an empty text."""
    for k in ks:
        if not 0 < k <= 100:
            raise ValueError(f"ks must be percentages in (0, 100], got {k!r}")
    if n <= 0:
        return [0 for _ in ks]
    return [min(n, max(1, math.floor(k * n / 100.0 + 0.5))) for k in ks]


def rank_tokens(scores, magnitude=False):
    """Token positions, most important first (ties: earlier tokens first)."""
    s = np.asarray(scores, np.float64).reshape(-1)
    s = np.abs(s) if magnitude else s
    s = np.where(np.isnan(s), -np.inf, s)
    return np.argsort(-s, kind="stable")


def total_variation(p, q):
    """½ Σ |p − q| over the last axis."""
    return 0.5 * np.abs(np.asarray(p, np.float64) - np.asarray(q, np.float64)).sum(axis=-1)


def aopc(curve):
    """The mean over the k bins (last axis) of a comprehensiveness or sufficiency curve."""
    return np.asarray(curve, np.float64).mean(axis=-1)


@dataclasses.dataclass
class ErasureScores:
    """Comprehensiveness and sufficiency of a set of documents.

    Attributes:
        ks: the bins (percent).
        comprehensiveness: (documents, bins) p_c(x) − p_c(x without the top m_k).
        sufficiency: (documents, bins) p_c(x) − p_c(only the top m_k).
        probabilities: (documents,) p_c(x).
        targets: (documents,) the class c.
    """

    ks: tuple
    comprehensiveness: np.ndarray
    sufficiency: np.ndarray
    probabilities: np.ndarray
    targets: np.ndarray

    @property
    def comprehensiveness_aopc(self):
        return aopc(self.comprehensiveness)

    @property
    def sufficiency_aopc(self):
        return aopc(self.sufficiency)


def _erase(model, docs, rankings, targets, ks, batch_size, lay):
    """Comprehensiveness and sufficiency curves of ``docs`` under ``rankings``."""
    full = predict_probabilities(model, docs, batch_size)
    targets = np.argmax(full, axis=1) if targets is None else np.asarray(targets, int)
    p = full[np.arange(len(docs)), targets] if len(docs) else np.zeros(0)
    comp = np.zeros((len(docs), len(ks)))
    suff = np.zeros((len(docs), len(ks)))

    counts = []

    def variants():
        for d, (doc, order) in enumerate(zip(docs, rankings)):
            n = lay.size(doc)
            if len(order) != n:
                raise ValueError(f"document {d} has {n} tokens but its ranking {len(order)}")
            counts.append(removal_counts(n, ks))
            for m in sorted(set(counts[-1])):  # bins of a short text often share m
                top = np.asarray(order)[:m]
                yield d, m, 0, lay.remove(doc, top)
                yield d, m, 1, lay.keep(doc, top)

    for chunk in _chunks(variants(), batch_size):
        probs = predict_probabilities(model, [v[-1] for v in chunk], batch_size)
        for (d, m, which, _), q in zip(chunk, probs):
            for j, mj in enumerate(counts[d]):
                if mj == m:
                    (comp if which == 0 else suff)[d, j] = p[d] - q[targets[d]]
    return ErasureScores(tuple(ks), comp, suff, p, targets)


def erasure(model, explanations, ks=DEFAULT_KS, magnitude=False, batch_size=32):
    """ERASER comprehensiveness and sufficiency of token explanations.

    Args:
        model: the model the explanations are of (or its TextClassifier).
        explanations: a list of :class:`TokenAttribution` (their ids, scores
            and explained class are used).
        ks: bins, percent of each document's tokens (:func:`removal_counts`).
        magnitude: rank by |score| instead of the signed score.
        batch_size: perturbed documents per forward pass.

    Returns:
        :class:`ErasureScores`.
    """
    model, _ = _unwrap(model)
    docs = [e.ids for e in explanations]
    rankings = [rank_tokens(e.flat_scores, magnitude) for e in explanations]
    targets = [e.target for e in explanations]
    return _erase(model, docs, rankings, targets, ks, batch_size, layout.of_model(model))


def random_erasure(model, texts_or_ids, preprocessor=None, ks=DEFAULT_KS, draws=5, seed=0,
                   target=None, batch_size=32):
    """The random-ranking baseline: :func:`erasure` under uniformly random token
    orders (``numpy.random.default_rng(seed)``), averaged over ``draws`` per document.
    ``target``: None (predicted classes), an int, or one per document."""
    model, docs, _, lay = prepare_documents(model, texts_or_ids, preprocessor)
    if draws < 1:
        raise ValueError(f"draws must be >= 1, got {draws!r}")
    targets = None
    if target is not None:
        targets = np.broadcast_to(np.asarray(target, int), (len(docs),))
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(draws):
        rankings = [rng.permutation(lay.size(doc)) for doc in docs]
        runs.append(_erase(model, docs, rankings, targets, ks, batch_size, lay))
    return ErasureScores(tuple(ks), np.mean([r.comprehensiveness for r in runs], axis=0),
                         np.mean([r.sufficiency for r in runs], axis=0),
                         runs[0].probabilities, runs[0].targets)


# -- agreement -------------------------------------------------------------------------

def kendall_tau(a, b):
    """Kendall's τ_b between two score vectors (scipy.stats.kendalltau); NaN when
    either has fewer than two tokens or is constant."""
    a, b = np.asarray(a, np.float64).reshape(-1), np.asarray(b, np.float64).reshape(-1)
    if a.shape != b.shape:
        raise ValueError(f"score vectors of different lengths: {len(a)} and {len(b)}")
    if len(a) < 2 or np.all(a == a[0]) or np.all(b == b[0]):
        return float("nan")
    return float(kendalltau(a, b).statistic)


def rank_agreement(explanations_a, explanations_b, magnitude=True):
    """Kendall τ per document between two lists of :class:`TokenAttribution` of the same
    documents (``magnitude``: compare |scores|). A (documents,) array, NaN where undefined."""
    if len(explanations_a) != len(explanations_b):
        raise ValueError("the two lists explain different numbers of documents")
    out = []
    for a, b in zip(explanations_a, explanations_b):
        sa, sb = a.flat_scores, b.flat_scores
        if magnitude:
            sa, sb = np.abs(sa), np.abs(sb)
        out.append(kendall_tau(sa, sb))
    return np.asarray(out, np.float64)


# -- permuting a pooling attention --------------------------------------------------------

def _supported_pooling(layer):
    return isinstance(layer, (AttentionPooling, TargetAttention))


def pooling_layers(model):
    """The model's pooling attention layers that :func:`permutation_test` can permute,
    in graph order (``AttentionPooling``, ``InterAttention``, ``TargetAttention``)."""
    model, _ = _unwrap(model)
    return [layer for layer in attention_layers(model) if _supported_pooling(layer)]


def _resolve_pooling(model, layer):
    found = pooling_layers(model)
    if layer is None:
        if not found:
            names = [f"{l.name} ({type(l).__name__})" for l in attention_layers(model)]
            raise ValueError(
                f"model {model.name!r} has no pooling attention to permute (supported: "
                f"AttentionPooling, InterAttention, TargetAttention); its attention layers: "
                f"{', '.join(names) or 'none'} (IRAM's iterative attention and "
                f"self-attention are not supported)")
        return found[0]
    if isinstance(layer, str):
        match = [l for l in attention_layers(model) if l.name == layer]
        if not match:
            raise ValueError(f"model {model.name!r} has no attention layer named {layer!r}")
        layer = match[0]
    if not _supported_pooling(layer):
        raise ValueError(f"layer {layer.name!r} ({type(layer).__name__}) is not a supported "
                         f"pooling attention (AttentionPooling, InterAttention, TargetAttention)")
    return layer


def _word_level(model, layer):
    """Whether ``layer`` runs on the folded words of a hierarchical model (its weights'
    first axis is the sentences)."""
    axes = _plan(model).axes
    return axes.get(layer.name, ("",))[0] == "sentence"


def _permuting_call(layer, permutation):
    original = type(layer).call

    def call(inputs, mask=None, return_attention_scores=False, **kwargs):
        _, weights = original(layer, inputs, mask=mask, return_attention_scores=True, **kwargs)
        index = ops.convert_to_tensor(permutation, "int32")
        if tuple(index.shape) != (weights.shape[0], weights.shape[-1]):
            raise ValueError(f"permutations of shape {tuple(index.shape)} for {layer.name!r}'s "
                             f"weights of shape {tuple(weights.shape)}")
        if len(weights.shape) == 3:  # heads: the same permutation for every head
            index = ops.broadcast_to(index[:, None, :], ops.shape(weights))
        permuted = ops.take_along_axis(weights, index, axis=-1)
        pooled = layer.pool(inputs, permuted, mask=mask)  # the layer's own pooling
        return (pooled, permuted) if return_attention_scores else pooled
    return call


def permuted_probabilities(model, ids, permutations, layer=None):
    """The model's probabilities with ``layer``'s pooling weights permuted:
    w'_i = w_{π(i)}.

    Args:
        model: the model (or its TextClassifier).
        ids: one 0-padded int batch, (batch, n) or (batch, sentences, words).
        permutations: int indices along the pooled axis, one row per pooled
            sequence: (batch, n) for a flat model or a sentence-level layer
            ((batch, sentences)), (batch, sentences, words) for a word-level
            layer. The identity reproduces the model.
        layer: the pooling layer or its name (default: the first supported one).

    Returns:
        (batch, classes) probabilities.
    """
    model, _ = _unwrap(model)
    layer = _resolve_pooling(model, layer)
    ids = np.asarray(ids, np.int32)
    permutations = np.asarray(permutations, np.int32)
    rows = permutations.reshape(-1, permutations.shape[-1])
    with _replaced_calls([layer], [_permuting_call(layer, rows)]):
        out = model(ids, training=False)
    return as_probabilities(np.asarray(out))


@dataclasses.dataclass
class PermutationResult:
    """One document under random permutations of a pooling attention.

    Attributes:
        probabilities: (classes,) the model's output.
        permuted: (draws, classes) its output under each permutation.
        tvd: (draws,) total variation distance from ``probabilities``.
        flipped: (draws,) whether the predicted label changed.
        max_attention: the largest weight of the layer on this document.
        layer: the permuted layer's name.
    """

    probabilities: np.ndarray
    permuted: np.ndarray
    tvd: np.ndarray
    flipped: np.ndarray
    max_attention: float
    layer: str

    @property
    def median_tvd(self):
        return float(np.median(self.tvd)) if len(self.tvd) else float("nan")

    @property
    def flip_rate(self):
        return float(np.mean(self.flipped)) if len(self.flipped) else float("nan")


def permutation_test(model, texts_or_ids, preprocessor=None, layer=None, num_permutations=20,
                     seed=0, batch_size=32):
    """Jain & Wallace's permuted attention: each document's output under
    ``num_permutations`` random permutations of ``layer``'s weights among its real
    tokens (sentences for a sentence-level layer; each sentence's words on their own
    for a word-level one); ``numpy.random.default_rng(seed)``.

    Returns:
        A list of :class:`PermutationResult`.

    Raises:
        ValueError: no supported pooling attention (see the module docstring).
    """
    model, docs, _, lay = prepare_documents(model, texts_or_ids, preprocessor)
    layer = _resolve_pooling(model, layer)
    word_level = _word_level(model, layer)
    probe = _plan(model).probe
    rng = np.random.default_rng(seed)
    results = []
    for start in range(0, len(docs), batch_size):
        chunk = docs[start:start + batch_size]
        batch = lay.pad(chunk)
        out = probe(batch, training=False)
        probs = as_probabilities(np.asarray(out["probabilities"]))
        weights = np.asarray(out[layer.name], np.float64)
        if word_level:  # each sentence's words among themselves
            lengths = np.zeros(batch.shape[:2], int)                    # (b, S)
            for i, doc in enumerate(chunk):
                lengths[i, :len(doc)] = [len(s) for s in doc]
        else:  # a document's tokens: its words, or a hierarchical model's sentences
            lengths = np.array([[len(d)] for d in chunk])               # (b, 1)
        n = batch.shape[-1] if word_level else batch.shape[1]
        permuted = np.zeros((num_permutations, *probs.shape))
        for r in range(num_permutations):
            perm = np.tile(np.arange(n), (*lengths.shape, 1))
            for index in np.ndindex(*lengths.shape):
                m = lengths[index]
                perm[index][:m] = rng.permutation(m)
            perm = perm if word_level else perm[:, 0]
            permuted[r] = permuted_probabilities(model, batch, perm, layer)
        for i, doc in enumerate(chunk):
            tvd = total_variation(permuted[:, i], probs[i])
            flipped = np.argmax(permuted[:, i], axis=-1) != np.argmax(probs[i])
            w = weights[i]
            results.append(PermutationResult(
                probabilities=probs[i].astype(np.float32), permuted=permuted[:, i],
                tvd=tvd, flipped=flipped, max_attention=float(w.max()) if w.size else 0.0,
                layer=layer.name))
    return results


# -- the report ----------------------------------------------------------------------------

def _mean_std(values):
    # over the documents of a fixed sample: the population's spread
    return mean_std(values, ddof=0)


def erasure_row(method, scores, ks):
    """The report's row of one method's :func:`erasure` (or :func:`random_erasure`)
    scores: comprehensiveness and sufficiency AOPC (mean and standard deviation over
    the documents) and the mean at each ``k``."""
    row = {"kind": "erasure", "method": method, "documents": len(scores.probabilities)}
    row["comprehensiveness_aopc"], row["comprehensiveness_aopc_std"] = \
        _mean_std(scores.comprehensiveness_aopc)
    row["sufficiency_aopc"], row["sufficiency_aopc_std"] = _mean_std(scores.sufficiency_aopc)
    for j, k in enumerate(ks):
        row[f"comprehensiveness@{k}"] = _mean_std(scores.comprehensiveness[:, j])[0]
        row[f"sufficiency@{k}"] = _mean_std(scores.sufficiency[:, j])[0]
    return row


def faithfulness_report(model, texts, labels=None, preprocessor=None, methods=None,
                        ks=DEFAULT_KS, seed=0, random_draws=5, steps=50, baseline="zero",
                        num_permutations=20, magnitude=False, batch_size=32):
    """How faithful each explanation method is on ``texts``, as a list of dict rows.

    Rows (``"kind"``):

    - ``"erasure"``, one per method and one for ``"random"``:
      ``comprehensiveness_aopc`` ± ``comprehensiveness_aopc_std`` and
      ``sufficiency_aopc`` ± ``sufficiency_aopc_std`` (mean ± standard
      deviation over documents), ``comprehensiveness@k`` / ``sufficiency@k``
      per bin, ``documents``; with ``labels``, ``accuracy`` of the model on them.
    - ``"agreement"`` where the model has attention: ``method`` =
      ``"attention~<other>"``, ``kendall_tau`` ± ``kendall_tau_std`` over the
      documents where τ is defined (``documents``), ranks by |score|.
    - ``"permutation"`` where the model has a supported pooling attention:
      ``median_tvd`` (mean over documents of each one's median), its std,
      ``flip_rate`` (of all permutations), ``max_attention`` (mean).

    Args:
        model: a zoo model or a TextClassifier.
        texts: strings (with ``preprocessor``) or token ids.
        labels: optional gold labels (ints); only used for ``accuracy``: every
            metric is about the class the model predicts.
        preprocessor: the run's TextPreprocessor.
        methods: attribution methods (default: every one of :data:`METHODS`
            that applies to the model; naming one that does not raises).
        ks: erasure bins, percent.
        seed: seed of the random baseline and the permutations.
        random_draws: random rankings averaged per document.
        steps, baseline: integrated gradients' options.
        num_permutations: permutations per document (Jain & Wallace use 100).
        magnitude: rank tokens by |score| for erasure.
        batch_size: documents per forward pass.
    """
    model, docs, _, _ = prepare_documents(model, texts, preprocessor)
    available = applicable_methods(model)
    if methods is None:
        methods = [m for m in METHODS if m in available]
    for m in methods:
        if m not in METHODS:
            raise ValueError(f"unknown method {m!r}; methods: {METHODS}")
        if m not in available:
            raise ValueError(f"method {m!r} does not apply to model {model.name!r} "
                             f"(applicable: {available})")
    ids = docs
    explanations = {m: explain_tokens(model, ids, method=m, steps=steps, baseline=baseline,
                                      batch_size=batch_size) for m in methods}
    accuracy = None
    if labels is not None:
        labels = np.asarray(labels).reshape(-1)
        if len(labels) != len(docs):
            raise ValueError(f"{len(labels)} labels for {len(docs)} texts")
        predicted = np.argmax(predict_probabilities(model, docs, batch_size), axis=1) \
            if docs else np.zeros(0, int)
        accuracy = float(np.mean(predicted == labels.astype(int))) if len(docs) else float("nan")
    rows = []
    for m in methods:
        # attention and rollout do not depend on a class: they explain the predicted one
        rows.append(erasure_row(m, erasure(model, explanations[m], ks, magnitude, batch_size),
                                 ks))
    rows.append(erasure_row("random", random_erasure(model, ids, None, ks, random_draws, seed,
                                                      None, batch_size), ks))
    if accuracy is not None:
        for row in rows:
            row["accuracy"] = accuracy
    if "attention" in explanations:
        for m in methods:
            if m == "attention":
                continue
            tau = rank_agreement(explanations["attention"], explanations[m], magnitude=True)
            mean, std = _mean_std(tau)
            rows.append({"kind": "agreement", "method": f"attention~{m}", "kendall_tau": mean,
                         "kendall_tau_std": std, "documents": int(np.isfinite(tau).sum())})
    if pooling_layers(model):
        results = permutation_test(model, ids, None, None, num_permutations, seed, batch_size)
        medians = [r.median_tvd for r in results]
        mean, std = _mean_std(medians)
        flips = np.concatenate([r.flipped for r in results]) if results else np.zeros(0)
        rows.append({"kind": "permutation", "method": f"permute {results[0].layer}"
                     if results else "permute", "median_tvd": mean, "median_tvd_std": std,
                     "flip_rate": float(flips.mean()) if len(flips) else float("nan"),
                     "max_attention": _mean_std([r.max_attention for r in results])[0],
                     "documents": len(results)})
    return rows


def format_report(rows, digits=3):
    """The rows of :func:`faithfulness_report` as Markdown tables, one per kind."""
    out = []
    for kind in ("erasure", "agreement", "permutation"):
        part = [r for r in rows if r.get("kind") == kind]
        if not part:
            continue
        columns = list(dict.fromkeys(c for r in part for c in r if c != "kind"))
        out.append("| " + " | ".join(columns) + " |")
        out.append("|" + "---|" * len(columns))
        for r in part:
            cells = [f"{r[c]:.{digits}f}" if isinstance(r.get(c), float) else str(r.get(c, ""))
                     for c in columns]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)
