"""Extract the attention weights of any zoo model, without retraining.

Attention layers declare the axes of the weights they return with
``return_attention_scores=True`` as a class attribute, ``attention_axes``: a
tuple of axis names (e.g. ``("head", "query", "key")``), or a property when
the layout depends on the layer's config (e.g. its number of heads). Layers
know nothing of this module; a third-party layer that cannot declare the
attribute is described with :func:`register_attention` instead.
:func:`attention_model` replays a trained functional model's graph with every
attention layer asked for its weights, which gives a second Keras model that
shares all the weights and outputs ``{"probabilities", <layer name>: weights,
...}``; :func:`extract_attention` runs it on texts or ids and cuts the padding
away, so each document gets exactly one weight per real token on each token
axis.

Axis names: ``"query"``, ``"key"`` and ``"token"`` run over the text's tokens
(trimmed to its length); ``"memory"`` runs over the tokens and then one
entry per ``"step"`` but the last (IRAM's summaries: the padding between the
two is cut away); any other name (``"head"``, ``"step"``) is kept whole.

Hierarchical models (HCAN, HAN) fold sentences into the batch for their word
level (:class:`~kerasattn.layers.FoldSentences`). The weights of a word-level
layer are unfolded back to one row per sentence and get a leading
``"sentence"`` axis, e.g. ``("sentence", "head", "token")``; their token axes
run over the words of each sentence. The token axes of sentence-level layers
run over the sentences.
"""

import dataclasses
import inspect

import keras
import keras.tree
import numpy as np

from kerasattn import layers as _layers
from kerasattn.data import layout
from kerasattn.explanation_pages import trim_document
from kerasattn.heads import as_probabilities
from kerasattn.interpret.plots import explanation_html
from kerasattn.layers import FoldSentences, UnfoldSentences
from kerasattn.layers.fold_sentences import FoldMask


_REGISTRY = {}


def register_attention(layer_class, axes):
    """Declare the attention axes of a layer class that does not declare them itself.

    Optional: a layer class normally declares ``attention_axes`` as a class
    attribute. This is for third-party layers whose source you do not own; a
    registration overrides the attribute for that class and its subclasses.

    ``layer_class(..., return_attention_scores=True)`` must return
    ``(outputs, weights)``, with ``weights`` shaped ``(batch, *axes)``, and the
    layer's ``compute_output_spec`` (or ``compute_output_shape``) must accept
    ``return_attention_scores`` too and describe both outputs, so the weights
    can be wired into a functional model.

    Args:
        layer_class: a Keras layer class.
        axes: a tuple of axis names, or a function ``layer -> tuple`` when the
            layout depends on the layer's config (e.g. its number of heads).
    """
    _REGISTRY[layer_class] = axes
    return layer_class


def attention_axes(layer):
    """The axis names of ``layer``'s attention weights, or None if it has no attention.

    The first class in ``type(layer).__mro__`` that is registered with
    :func:`register_attention` or defines ``attention_axes`` decides. Only a
    tuple (or list) of strings counts: Keras's own ``MultiHeadAttention``
    has an ``attention_axes`` of integer axes (or None) that means something else.
    """
    for cls in type(layer).__mro__:
        if cls in _REGISTRY:
            axes = _REGISTRY[cls]
            return tuple(axes(layer) if callable(axes) else axes)
        if "attention_axes" in vars(cls):
            axes = inspect.getattr_static(layer, "attention_axes")
            if hasattr(axes, "__get__"):  # a property or a method
                axes = axes.__get__(layer, type(layer))
            if callable(axes):
                axes = axes()
            if (isinstance(axes, (tuple, list)) and axes
                    and all(isinstance(a, str) for a in axes)):
                return tuple(axes)
            return None
    return None


def attention_layers(model):
    """The model's attention layers, in graph order."""
    # every nested layer: keras-hub's way (no public walk); pinned by
    # tests/test_private_keras_api.py
    return [l for l in model._flatten_layers(include_self=False, recursive=True)
            if attention_axes(l) is not None]


def _attention_classes():
    """Names of the known attention layer classes: the zoo's and the registered."""
    ours = {c for c in vars(_layers).values()
            if isinstance(c, type) and issubclass(c, keras.layers.Layer)
            and "attention_axes" in dir(c)}
    return sorted(c.__name__ for c in ours | set(_REGISTRY))


def attention_model(model):
    """A model sharing ``model``'s weights whose outputs are a dict
    ``{"probabilities": ..., <attention layer name>: weights, ...}``.

    Raises:
        ValueError: ``model`` is not a functional model or has no registered
            attention layer.
    """
    if not attention_layers(model):
        raise ValueError(
            f"model {model.name!r} has no attention layer (known attention layers: "
            f"{', '.join(_attention_classes())})")
    if isinstance(model, keras.Sequential) or not getattr(model, "inputs", None):
        raise ValueError(f"model {model.name!r} is not a functional Keras model; "
                         f"attention extraction replays a functional graph")
    found, axes = {}, {}
    folded = {}  # id(symbolic tensor) -> the (batch, sentences, ...) tensor it was folded from

    def call(layer, *args, **kwargs):
        if isinstance(layer, (FoldSentences, FoldMask)):
            outputs = layer(*args, **kwargs)
            folded[id(outputs)] = args[0]
            return outputs
        sources = [folded[id(t)] for t in keras.tree.flatten((args, kwargs)) if id(t) in folded]
        if isinstance(layer, UnfoldSentences) or (attention_axes(layer) is None):
            outputs = layer(*args, **kwargs)
        else:
            outputs, weights = AttentionTap(layer)(*args, **kwargs)
            axes[layer.name] = attention_axes(layer)
            if sources:  # a word-level layer: one row of weights per sentence
                weights = UnfoldSentences(name=f"{layer.name}_unfold")([weights, sources[0]])
                axes[layer.name] = ("sentence", *axes[layer.name])
            found[layer.name] = weights
        if sources and not isinstance(layer, UnfoldSentences):
            for t in keras.tree.flatten(outputs):
                folded[id(t)] = sources[0]
        return outputs

    # the graph replayed on the model's own inputs with a hook per layer (Keras's public
    # clone_model with call_function): every layer, kept as it is (so all weights are
    # shared), is called again on new symbolic tensors with the same arguments, masks
    # included
    try:
        replay = keras.models.clone_model(model, input_tensors=model.input,
                                          clone_function=lambda layer: layer,
                                          call_function=call)
    except ValueError as error:  # a subclassed model: no graph to replay
        raise ValueError(f"model {model.name!r} is not a functional Keras model; "
                         f"attention extraction replays a functional graph") from error
    outputs = replay.output
    outputs = outputs[0] if isinstance(outputs, (list, tuple)) else outputs
    inputs = model.inputs[0] if len(model.inputs) == 1 else model.inputs
    probe = keras.Model(inputs, {"probabilities": outputs, **found},
                        name=f"{model.name}_attention")
    probe.attention_axes = axes  # layer name -> axis names, "sentence" first at the word level
    return probe


class AttentionTap(keras.layers.Layer):
    """A layer calling an attention layer with ``return_attention_scores=True``.

    Keras checks a functional graph with each layer's *first* call's output
    structure, so the model's layer itself cannot be called again for two
    outputs; this wrapper owns no weights and shares the wrapped layer's.
    """

    def __init__(self, layer):
        super().__init__(name=f"{layer.name}_tap", dtype=layer.dtype_policy)
        self.layer = layer
        self.supports_masking = True

    def compute_mask(self, inputs, mask=None):
        return [mask, None]

    def call(self, *args, **kwargs):
        return self.layer(*args, return_attention_scores=True, **kwargs)

    def compute_output_spec(self, *args, **kwargs):
        return self.layer.compute_output_spec(*args, return_attention_scores=True, **kwargs)


@dataclasses.dataclass
class Explanation:
    """One document: its tokens, the class probabilities and every attention tensor.

    Attributes:
        tokens: the words the model saw (after preprocessing and truncation);
            for a hierarchical model, a list of sentences, each a list of words.
        probabilities: (classes,) float array.
        attention: layer name -> weights with padding cut away, e.g. SANet's
            (n, n) matrix, row i = the weights word i puts on every word. For
            a hierarchical model, word-level weights are (sentences, ...,
            words) with the word axes cut to the longest sentence (shorter
            sentences' padding weighs exactly 0), and sentence-level weights
            run over the sentences.
        axes: layer name -> the axis names of its weights.
        hierarchical: whether ``tokens`` is a list of sentences.
        class_names: the label of each class, where known (``TextClassifier.explain``
            sets them); the HTML view names the prediction with them.
        attribution: for a model without attention, the
            :class:`~kerasattn.interpret.attributions.TokenAttribution` that
            ``TextClassifier.explain`` gives in its place (each token's gradient × input
            score for the predicted class); the HTML view draws its words in the
            attribution's signed colours. ``None`` otherwise.

    In a notebook an explanation shows itself as coloured words (``_repr_html_``:
    :func:`kerasattn.interpret.plots.explanation_html`, a fragment whose styles and ids
    apply only inside it).
    """

    tokens: list
    probabilities: np.ndarray
    attention: dict
    axes: dict
    hierarchical: bool = False
    class_names: list = None
    attribution: object = None

    @property
    def label(self):
        return int(np.argmax(self.probabilities))

    def _repr_html_(self) -> str:
        # a fresh root id each time: every output of the notebook is its own fragment
        return explanation_html(self)


def extract_attention(model, texts_or_ids, preprocessor=None, batch_size=32):
    """Tokens, probabilities and attention weights of ``model`` for each document.

    A list; :func:`iter_attention` yields the same one document at a time
    (for a whole test set, whose matrices would not fit in memory together).

    Args:
        model: a trained zoo model (functional, with registered attention
            layers), or an :func:`attention_model` built from one.
        texts_or_ids: a list of strings (needs ``preprocessor``), or token ids:
            a list of int lists or a (batch, n) int array padded with 0.
        preprocessor: the run's :class:`~kerasattn.data.preprocessing.TextPreprocessor`;
            needed for texts, and used to name the tokens of ids.
        batch_size: documents per forward pass (each batch is padded to its longest).

    Returns:
        A list of :class:`Explanation`, one per document, in order.
    """
    return list(iter_attention(model, texts_or_ids, preprocessor, batch_size))


def iter_attention(model, texts_or_ids, preprocessor=None, batch_size=32):
    """Like :func:`extract_attention`, as a generator."""
    import tensorflow as tf  # late: kerasattn.interpret loads without it (JAX, PyTorch)

    is_probe = isinstance(model.output, dict) and "probabilities" in model.output
    probe = model if is_probe else attention_model(model)
    axes = getattr(probe, "attention_axes", None) or {
        l.name: attention_axes(l) for l in attention_layers(model)}
    items = list(texts_or_ids) if not isinstance(texts_or_ids, np.ndarray) else texts_or_ids
    if len(items) == 0:
        return
    is_text = isinstance(items[0], (str, bytes))
    if is_text and preprocessor is None:
        raise ValueError("texts need the run's preprocessor (preprocessor=...); "
                         "or pass token ids")
    lay = layout.of_model(probe)
    check_layout(model, lay, preprocessor)
    vocab = preprocessor.vocabulary if preprocessor is not None else None
    for start in range(0, len(items), batch_size):
        chunk = items[start:start + batch_size]
        if is_text:
            tokens = preprocessor.tokenize(tf.constant([str(t) for t in chunk]))
            ids = preprocessor.lookup(tokens).to_list()
            words = _decode(tokens.to_list())
        else:
            ids = [lay.strip(row) for row in chunk]
            words = _name_ids(ids, vocab)
        batch = lay.pad(ids)
        out = probe(batch, training=False)
        out = {k: np.asarray(v) for k, v in out.items()}
        out["probabilities"] = as_probabilities(out["probabilities"])
        for i, row in enumerate(ids):
            trimmed = trim_document({name: out[name][i] for name in axes}, axes, row, lay)
            yield Explanation(tokens=words[i],
                              probabilities=out["probabilities"][i].astype(np.float32),
                              attention=trimmed, axes=dict(axes),
                              hierarchical=lay.hierarchical)


def _decode(tokens):
    """Nested lists of bytes -> the same nesting of str."""
    if isinstance(tokens, bytes):
        return tokens.decode("utf-8")
    return [_decode(t) for t in tokens]


def check_layout(model, lay, preprocessor):
    """``ValueError`` when the preprocessor's texts are not laid out as the model reads
    them (flat ids for a hierarchical model, or the other way round)."""
    if preprocessor is not None and preprocessor.hierarchical != lay.hierarchical:
        takes = "(sentences, words)" if lay.hierarchical else "flat"
        raise ValueError(f"model {model.name!r} takes {takes} ids but the preprocessor is "
                         f"{'' if preprocessor.hierarchical else 'not '}hierarchical")


def _name_ids(ids, vocab):
    if isinstance(ids, int):
        return vocab[ids] if vocab and ids < len(vocab) else str(ids)
    return [_name_ids(i, vocab) for i in ids]
