"""Pretrained word vectors (GloVe text format) for any zoo model's embedding layer.

GloVe files are plain text, one ``word v1 ... vD`` per line (Pennington et
al. 2014; https://nlp.stanford.edu/projects/glove/). We read them ourselves:
the format is one line of text per word, and a library (gensim) would be a
heavy dependency for a ten-line reader that also has to report bad lines.

Words of the vocabulary that the file lacks get random vectors drawn with the
mean and standard deviation of the vectors that were found, so they start on
the same scale (uniform(±0.05), Keras's default, would be ten times smaller
than GloVe's vectors and leave those words nearly silent).
"""

import numpy as np

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
    import keras

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
