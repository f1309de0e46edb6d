"""Word vectors for any zoo model's embedding layer: pretrained (GloVe text format),
or trained on your own texts (Word2Vec or FastText) and written in that format.

GloVe files are plain text, one ``word v1 ... vD`` per line (Pennington et
al. 2014; https://nlp.stanford.edu/projects/glove/). We read them ourselves:
the format is one line of text per word, and a library (gensim) would be a
heavy dependency for a ten-line reader that also has to report bad lines.

Words of the vocabulary that the file lacks get random vectors drawn with the
mean and standard deviation of the vectors that were found, so they start on
the same scale (uniform(±0.05), Keras's default, would be ten times smaller
than GloVe's vectors and leave those words nearly silent).

**In-domain vectors.** Pretrained GloVe vectors help the papers' models, but a full
GloVe file is not always at hand (and a general-purpose one knows little of a domain's
words). :func:`train_word_vectors` trains vectors on the texts you have (a dataset's
*training* texts and any unlabelled texts of the same domain) with gensim (Řehůřek &
Sojka 2010, the ``[vectors]`` extra), tokenised exactly as the models'
preprocessor tokenises, and :func:`write_glove` writes them in the GloVe text format
that ``--embeddings`` and :func:`load_into` read::

    from kerasattn import embeddings

    vectors, stats = embeddings.train_word_vectors(texts, dim=100, method="fasttext")
    embeddings.write_glove(vectors, "vectors.txt", words=stats["corpus_words"])

FastText (Bojanowski et al. 2017) builds a word's vector from its character
n-grams too, so words seen fewer than ``min_count`` times still get a vector
(:func:`write_glove` writes every word of the corpus); Word2Vec (Mikolov et al.
2013) keeps only the words seen ``min_count`` times. The vector size must equal
the model's embedding size (``--model-option embedding_dim=D``). Training is seeded,
but gensim's threads make runs with ``workers > 1`` differ slightly; ``workers=1``
(and a fixed ``PYTHONHASHSEED``) repeats exactly.
"""

import os
import time

import numpy as np

from kerasattn import ownership
from kerasattn.data.datasets import DatasetFormatError


def read_glove(path, vocabulary=None):
    """Read a GloVe text file.

    Args:
        path: the ``.txt`` file.
        vocabulary: if given, keep only these words (saves memory on 400k-word files).

    Returns:
        ``(vectors, dim)``: a dict word → float32 vector, and the vector size.

    Raises:
        FileNotFoundError: no such file.
        DatasetFormatError: a line whose number of values differs from the
            first line's, or a value that is not a number (with file:line).
    """
    wanted = None if vocabulary is None else set(vocabulary)
    vectors, dim = {}, None
    with open(path, "rb") as f:
        for line_no, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise DatasetFormatError(f"{path}:{line_no}: not valid UTF-8") from None
            parts = line.rstrip("\n").rstrip("\r").rstrip(" ").split(" ")
            if len(parts) < 2:
                if not line.strip():
                    continue
                raise DatasetFormatError(f"{path}:{line_no}: expected 'word v1 ... vD'")
            if dim is None:
                dim = len(parts) - 1
            if len(parts) - 1 != dim:
                raise DatasetFormatError(
                    f"{path}:{line_no}: {len(parts) - 1} values, expected {dim} "
                    f"(as on line 1)")
            word = parts[0]
            if wanted is not None and word not in wanted:
                continue
            try:
                vectors[word] = np.asarray(parts[1:], dtype=np.float32)
            except ValueError:
                raise DatasetFormatError(f"{path}:{line_no}: a value is not a number") from None
    if dim is None:
        raise DatasetFormatError(f"{path}: no vectors in the file")
    return vectors, dim


def check_file(path, dim=None):
    """Read every line of a GloVe file without keeping a vector, before a run writes
    anything: raises ``FileNotFoundError``/``OSError`` for a file that cannot be read,
    :class:`DatasetFormatError` (with file:line) for a malformed one, and ``ValueError``
    when its vectors are not ``dim``-dimensional. Returns the vector size."""
    _, found = read_glove(path, vocabulary=())
    if dim is not None and found != dim:
        raise ValueError(f"{path} has {found}-d vectors but the model's embeddings are "
                         f"{dim}-d; set --model-option embedding_dim={found}")
    return found


def embedding_matrix(path, vocabulary, seed=0):
    """A (len(vocabulary), dim) matrix: GloVe rows where known, random rows elsewhere.

    Row 0 (padding) is zero. Returns ``(matrix, found)`` where ``found`` is
    the number of vocabulary words (padding and OOV excluded) with a vector.
    """
    vectors, dim = read_glove(path, vocabulary)
    if vectors:
        known = np.stack(list(vectors.values()))
        mean, std = float(known.mean()), float(known.std()) or 1.0
    else:
        mean, std = 0.0, 0.4
    rng = np.random.default_rng(seed)
    matrix = rng.normal(mean, std, size=(len(vocabulary), dim)).astype(np.float32)
    matrix[0] = 0.0
    found = 0
    for i, word in enumerate(vocabulary):
        if i >= 2 and word in vectors:
            matrix[i] = vectors[word]
            found += 1
    return matrix, found


def find_embedding_layer(model):
    """The model's word-embedding layer: the ``keras.layers.Embedding`` named
    ``embedding`` (every zoo model names it so), else the only Embedding."""
    import keras  # late: kerasattn word-vectors checks its input before Keras loads

    # every nested layer: keras-hub's way (no public walk); pinned by
    # tests/test_private_keras_api.py
    layers = [l for l in model._flatten_layers(include_self=False, recursive=True)
              if isinstance(l, keras.layers.Embedding)]
    named = [l for l in layers if l.name == "embedding"]
    if len(named) == 1:
        return named[0]
    if len(layers) == 1:
        return layers[0]
    raise ValueError(f"model {model.name!r} has {len(layers)} Embedding layers and none "
                     f"(or several) named 'embedding'")


def load_into(model, path, vocabulary, seed=0):
    """Initialise ``model``'s embedding layer from a GloVe file (it keeps training).

    Returns the number of vocabulary words found in the file.

    Raises:
        ValueError: the file's vector size differs from the layer's output size.
    """
    matrix, found = embedding_matrix(path, vocabulary, seed=seed)
    assign(model, matrix, path)
    return found


def assign(model, matrix, source):
    """Set ``model``'s word embeddings to ``matrix`` (from :func:`embedding_matrix`;
    ``source`` names where it came from in the error).

    Raises:
        ValueError: the matrix's shape differs from the embedding layer's.
    """
    layer = find_embedding_layer(model)
    want = tuple(layer.embeddings.shape)
    if tuple(matrix.shape) != want:
        raise ValueError(
            f"{source} has {matrix.shape[1]}-d vectors for {matrix.shape[0]} words but the "
            f"embedding layer {layer.name!r} is {want[0]}×{want[1]}; set the model's "
            f"embedding size to {matrix.shape[1]} (e.g. --model-option embedding_dim="
            f"{matrix.shape[1]})")
    layer.embeddings.assign(matrix)


# -- in-domain vectors (gensim) ----------------------------------------------------
METHODS = ("fasttext", "word2vec")


def tokenize(texts, text_mode="default", remove_punctuation=False, remove_stopwords=False,
             batch_size=2048):
    """Yield each text's tokens (a list of str), split as the models' preprocessor
    (:class:`kerasattn.data.preprocessing.TextPreprocessor`) splits them."""
    # late: TensorFlow, absent where training.portable fit imports this module (JAX)
    from kerasattn.data.preprocessing import TextPreprocessor  # late: see above

    pre = TextPreprocessor(mode=text_mode, remove_punctuation=remove_punctuation,
                           remove_stopwords=remove_stopwords)
    texts = list(texts)
    for start in range(0, len(texts), batch_size):
        for tokens in pre.tokenize(texts[start:start + batch_size]).to_list():
            yield [t.decode("utf-8") for t in tokens]


GENSIM_MISSING = ("word vectors need gensim: pip install 'kerasattn[vectors]' "
                  "(or gensim==4.4.0)")


def require_gensim():
    """gensim's ``(FastText, Word2Vec)``; ImportError with how to install it if missing."""
    try:
        from gensim.models import FastText, Word2Vec  # optional: word-vector training only
    except ImportError:
        raise ImportError(GENSIM_MISSING) from None
    return FastText, Word2Vec


def train_word_vectors(texts, dim=100, method="fasttext", window=5, min_count=2, epochs=10,
                       seed=0, workers=None, sg=True, text_mode="default",
                       remove_punctuation=False, remove_stopwords=False, progress=None):
    """Train word vectors on ``texts``.

    Args:
        texts: raw strings (tokenised here).
        dim: the vector size (the model's ``embedding_dim``).
        method: ``"fasttext"`` (subword n-grams, vectors for rare words too) or
            ``"word2vec"``.
        window: context words on each side.
        min_count: words seen fewer times get no vector of their own (FastText still
            gives them one from their n-grams).
        epochs: passes over the texts.
        seed: gensim's seed.
        workers: threads (default: the machine's cores).
        sg: skip-gram (True) or CBOW (False).
        text_mode, remove_punctuation, remove_stopwords: the preprocessor's options
            (use the model's, so the words match its vocabulary).
        progress: optional ``f(message)`` told what happens.

    Returns:
        ``(vectors, stats)``: gensim ``KeyedVectors``, and a dict with the corpus's
        ``texts``, ``tokens``, ``words`` (distinct), the ``vocabulary`` gensim kept,
        ``seconds`` and the ``corpus_words`` (every distinct token, for
        :func:`write_glove`).

    Raises:
        ValueError: an unknown method, a size below 1, or no word in ``texts``.
        ImportError: gensim is not installed (``pip install 'kerasattn[vectors]'``).
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")
    for name, value in (("dim", dim), ("window", window), ("min_count", min_count),
                        ("epochs", epochs)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    say = progress or (lambda message: None)
    start = time.perf_counter()
    corpus = [tokens for tokens in tokenize(texts, text_mode, remove_punctuation,
                                            remove_stopwords) if tokens]
    counts = {}
    for tokens in corpus:
        for token in tokens:
            counts[token] = counts.get(token, 0) + 1
    if not counts:
        raise ValueError("no words in the texts: nothing to train word vectors on")
    kept = sum(1 for c in counts.values() if c >= min_count)
    if not kept:
        raise ValueError(f"no word occurs {min_count} times (min_count); lower it or give "
                         f"more text")
    n_tokens = sum(counts.values())
    say(f"{len(corpus):,} texts, {n_tokens:,} tokens, {len(counts):,} distinct words "
        f"({kept:,} seen >= {min_count} times)")
    FastText, Word2Vec = require_gensim()

    cls = FastText if method == "fasttext" else Word2Vec
    model = cls(vector_size=dim, window=window, min_count=min_count, epochs=epochs, seed=seed,
                workers=workers or os.cpu_count() or 1, sg=1 if sg else 0)
    model.build_vocab(corpus_iterable=corpus)
    say(f"training {method} ({'skip-gram' if sg else 'CBOW'}, {dim} dimensions, window "
        f"{window}, {epochs} epochs) ...")
    model.train(corpus_iterable=corpus, total_examples=len(corpus), epochs=epochs)
    seconds = time.perf_counter() - start
    stats = {"texts": len(corpus), "tokens": n_tokens, "words": len(counts),
             "vocabulary": len(model.wv.index_to_key), "seconds": round(seconds, 1),
             "corpus_words": sorted(counts, key=lambda w: (-counts[w], w))}
    return model.wv, stats


def write_glove(vectors, path, words=None, digits=6):
    """Write ``vectors`` (gensim ``KeyedVectors``) as a GloVe text file: one
    ``word v1 ... vD`` line per word, no header.

    ``words`` (default: the vectors' own vocabulary) are written in order;
    with FastText vectors a word outside the vocabulary gets its n-gram vector,
    with Word2Vec it is left out. The file is written beside ``path`` (never
    through a link) and then renamed, so a failure leaves no partial file.

    Returns the number of words written.
    """
    from gensim.models.fasttext import FastTextKeyedVectors  # optional: as require_gensim

    has_subwords = isinstance(vectors, FastTextKeyedVectors)
    words = list(vectors.index_to_key if words is None else words)

    written = 0
    with ownership.atomic_file(path, text=True) as fh:  # whole or absent, no link followed
        for word in words:
            if not word or " " in word or "\n" in word:
                continue
            if word not in vectors.key_to_index and not has_subwords:
                continue
            values = vectors[word]
            fh.write(word + " " + " ".join(f"{v:.{digits}g}" for v in values) + "\n")
            written += 1
    return written
