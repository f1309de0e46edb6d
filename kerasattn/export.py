"""Export a trained run as a SavedModel that takes raw text, for TensorFlow Serving.

    from kerasattn import export
    path = export.export_run("runs/transformer-imdb-...")   # saved_models/<run>/<next version>

The SavedModel follows TF Serving's base-path layout (``<base>/<version>/`` with
``saved_model.pb``, ``variables/`` and ``assets/``) and has two signatures
(method ``tensorflow/serving/predict``):

- ``serving_default``: ``text`` (string [None]) -> ``probabilities`` (float32
  [None, classes]), ``label`` (int64 [None]), ``label_name`` (string [None]);
- ``explain``: ``text`` -> ``tokens`` (string, [None, L] or, for hierarchical
  models, [None, S, W], padded with ""), ``probabilities``, and one float32
  tensor per attention layer, named after the layer, laid out as
  :func:`kerasattn.interpret.attention_model` gives it (axes in
  ``assets/attention.json``) and sized to the same padded length as ``tokens``
  (padding gets zero weight).

Preprocessing inside the graph is the training preprocessor itself
(:class:`~kerasattn.data.preprocessing.TextPreprocessor`: ``tf.strings`` and
``tf.lookup`` ops only), reading its vocabulary from ``assets/vocab.txt``; the
label names are ``assets/labels.txt``. Texts are cut at the run's training
length, or at :data:`SERVING_MAX_LENGTH` tokens (hierarchical models:
:data:`SERVING_MAX_SENTENCES` × :data:`SERVING_MAX_WORDS`) when it trained on
whole texts, so a 100,000-word request costs what a long review does. An
empty (or whitespace-only) text is one padding token: its probabilities are
the model's output for no words. An empty batch gives empty outputs
(probabilities of shape (0, classes)) for every model: the signatures run the
model on one padding row and drop it, since some kernels mishandle a batch of
zero rows (oneDNN's CPU convolution returns its input's shape: ``cnn`` failed).
Bytes that are not UTF-8 are replaced by U+FFFD (TensorFlow's lower-casing
does that), never an error.

``assets/labels.txt`` holds one class name per line, so :func:`export_model`
refuses (``ValueError``) a class name with a line break (``\\n`` or ``\\r``).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import keras
import tensorflow as tf
from tensorflow.core.protobuf import saved_model_pb2
# private: TensorFlow has no public op registry lookup (tf.raw_ops lists only ops with
# Python wrappers); pinned by tests/test_private_keras_api.py
from tensorflow.python.framework import op_def_registry

from kerasattn import ownership, runs
from kerasattn.data.preprocessing import TextPreprocessor
from kerasattn.heads import probability_tensor

SERVING_MAX_LENGTH = 2048
SERVING_MAX_SENTENCES = 100
SERVING_MAX_WORDS = 100


def next_version(base):
    """1 + the largest integer-named folder in ``base`` (1 when there is none)."""
    if not os.path.isdir(base):
        return 1
    versions = [int(n) for n in os.listdir(base) if n.isdigit()]
    return max(versions, default=0) + 1


def resolve_output(run_dir, output=None, root="saved_models"):
    """Where to export: ``output`` when it ends in a version number, else
    ``output`` (default ``saved_models/<run name>``) / its next version. Raises
    ``FileExistsError`` for a version that exists and is not empty, ``ValueError`` for
    a base path (or a folder above it) that is a file or is not writable."""
    if output and os.path.basename(os.path.normpath(output)).isdigit():
        path = output
    else:
        base = output or os.path.join(root, os.path.basename(os.path.normpath(run_dir)))
        if os.path.exists(base) and not os.path.isdir(base):
            raise ValueError(f"{base} is a file, not a SavedModel base directory")
        path = os.path.join(base, str(next_version(base)))
    if os.path.exists(path) and not os.path.isdir(path):
        raise ValueError(f"{path} is a file, not a SavedModel version directory")
    if os.path.exists(path) and os.listdir(path):
        raise FileExistsError(f"{path} exists and is not empty: choose another version")
    probe = os.path.abspath(path)
    while not os.path.exists(probe):  # the nearest folder that exists must take files
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe):
        raise ValueError(f"cannot export to {path}: {probe} is a file, not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ValueError(f"cannot export to {path}: {probe} is not writable")
    return path


SERVABLE = "model.json"  # assets/model.json: the preset and classes a version serves


def check_servable(path, class_names, preset=None):
    """Raise ``ValueError`` when the servable ``path`` is a version of (its base path's
    other versions) answers with other classes or comes from another preset: TF Serving
    moves clients to the newest version, and they would get other labels from it."""
    base = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(base):
        return
    mine = os.path.basename(os.path.abspath(path))
    for version in sorted((n for n in os.listdir(base) if n.isdigit() and n != mine), key=int):
        assets = os.path.join(base, version, "assets")
        try:
            with open(os.path.join(assets, "labels.txt"), encoding="utf-8") as fh:
                theirs = fh.read().split("\n")[:-1]
        except OSError:
            continue  # not an export of kerasattn
        if theirs != list(class_names):
            raise ValueError(f"{base} serves the classes {theirs} (version {version}); this "
                             f"model's are {list(class_names)}: export it to another base "
                             "path (a servable's versions must answer alike)")
        try:
            with open(os.path.join(assets, SERVABLE), encoding="utf-8") as fh:
                their_preset = json.load(fh).get("preset")
        except (OSError, ValueError):
            continue
        if preset and their_preset and their_preset != preset:
            raise ValueError(f"{base} serves {their_preset!r} (version {version}); this is "
                             f"{preset!r}: export it to another base path")


class _AssetVocabulary(tf.Module):
    """Token -> id from a vocabulary file of the tokens with ids 2, 3, ... (one per
    line; TF's text-file tables refuse the empty padding token), OOV -> 1."""

    def __init__(self, path):
        super().__init__()
        self.asset = tf.saved_model.Asset(path)
        self.table = tf.lookup.StaticHashTable(
            tf.lookup.TextFileInitializer(self.asset, tf.string,
                                          tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
                                          tf.lookup.TextFileIndex.LINE_NUMBER), -1)

    def lookup(self, tokens):
        ids = self.table.lookup(tokens)
        return tf.where(ids < 0, tf.constant(1, tf.int64), ids + 2)


def _signature_name(name):
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


class ServingModule(tf.Module):
    """The exported object: the model, its attention probe and the preprocessing."""

    def __init__(self, model, preprocessor, assets_dir):
        super().__init__()
        # late: kerasattn.tasks imports this module, and registering the task with Keras
        # must not load kerasattn.interpret (tests/interpret/test_layer_declarations.py)
        from kerasattn.interpret import attention_layers, attention_model  # late: see above

        self.model = model
        self.probe = attention_model(model) if attention_layers(model) else None
        self.attention_axes = dict(getattr(self.probe, "attention_axes", {}))
        self.preprocessor = preprocessor
        self.vocabulary = _AssetVocabulary(os.path.join(assets_dir, "vocab.txt"))
        preprocessor.set_lookup(self.vocabulary)
        # the stop-word table (None unless remove_stopwords), tracked so that it is saved
        self.stop_table = preprocessor._stop_table
        self.labels_asset = tf.saved_model.Asset(os.path.join(assets_dir, "labels.txt"))
        self.labels = tf.lookup.StaticHashTable(
            tf.lookup.TextFileInitializer(self.labels_asset, tf.int64,
                                          tf.lookup.TextFileIndex.LINE_NUMBER, tf.string,
                                          tf.lookup.TextFileIndex.WHOLE_LINE), "")
        self.serve = tf.function(self._serve, input_signature=[
            tf.TensorSpec([None], tf.string, name="text")])
        self.explain = tf.function(self._explain, input_signature=[
            tf.TensorSpec([None], tf.string, name="text")])

    def _ids_and_tokens(self, text):
        tokens = self.preprocessor.tokenize(text)
        ids = self.preprocessor.lookup(tokens)
        # at least one position per axis: an empty text (or batch) is one padding token
        ids, tokens = ids.to_tensor(0), tokens.to_tensor("")
        pad = [[0, 0]] + [[0, tf.maximum(0, 1 - tf.shape(ids)[i])]
                          for i in range(1, self.preprocessor.layout.rank)]
        return tf.pad(ids, pad), tf.pad(tokens, pad, constant_values="")

    @staticmethod
    def _call(fn, ids):
        """``fn(ids)`` with every output cut to the batch: an empty batch runs as one
        row of padding (dropped again), as some kernels fail on zero rows."""
        n = tf.shape(ids)[0]
        pad = [[0, tf.maximum(0, 1 - n)]] + [[0, 0]] * (len(ids.shape) - 1)
        out = fn(tf.pad(ids, pad), training=False)
        return tf.nest.map_structure(lambda t: t[:n], out)

    def _predictions(self, p):
        label = tf.argmax(p, axis=-1, output_type=tf.int64)
        return {"probabilities": p, "label": label, "label_name": self.labels.lookup(label)}

    def _serve(self, text):
        ids, _ = self._ids_and_tokens(text)
        return self._predictions(probability_tensor(self._call(self.model, ids)))

    def _explain(self, text):
        ids, tokens = self._ids_and_tokens(text)
        if self.probe is None:
            p, attention = self._call(self.model, ids), {}
        else:
            out = dict(self._call(self.probe, ids))
            p = out.pop("probabilities")
            attention = {_signature_name(k): tf.cast(v, tf.float32) for k, v in out.items()}
        return {"tokens": tokens, **self._predictions(probability_tensor(p)), **attention}


def check_class_names(class_names):
    """Raise ``ValueError`` for class names that ``assets/labels.txt`` (one per line)
    cannot hold: one with a line break would shift every name after it."""
    for i, name in enumerate(class_names):
        if "\n" in str(name) or "\r" in str(name):
            raise ValueError(f"class {i} has a name with a line break ({str(name)!r}): "
                             f"the SavedModel's assets/labels.txt holds one name per line; "
                             f"rename the class")


def export_model(model, preprocessor, class_names, path, max_length=None, preset=None):
    """Write ``model`` with ``preprocessor`` to ``path`` as a SavedModel (see the module
    docstring); returns ``path``. ``preset`` (the zoo's name of the model) is recorded
    in ``assets/model.json``. Raises, before writing anything, ``ValueError`` for a
    class name with a line break or a base path whose other versions serve other
    classes or another preset (:func:`check_servable`), and ``FileExistsError`` when
    ``path`` exists and is not an empty directory (a version is never overwritten)."""
    check_class_names(class_names)
    if os.path.exists(path) and not (os.path.isdir(path) and not os.listdir(path)):
        raise FileExistsError(f"{path} exists and is not an empty directory: choose another "
                              "version")
    check_servable(path, class_names, preset)

    config = preprocessor.get_config()
    config.update(preprocessor.layout.limits(  # served texts are always cut somewhere
        max_length=max_length or config["max_length"] or SERVING_MAX_LENGTH,
        max_sentences=config["max_sentences"] or SERVING_MAX_SENTENCES,
        max_words=config["max_words"] or SERVING_MAX_WORDS))
    serving = TextPreprocessor(**config)
    serving.vocabulary = list(preprocessor.vocabulary)
    with tempfile.TemporaryDirectory() as assets:
        with open(os.path.join(assets, "vocab.txt"), "w", encoding="utf-8") as fh:
            fh.write("".join(t + "\n" for t in preprocessor.vocabulary[2:]))
        with open(os.path.join(assets, "labels.txt"), "w", encoding="utf-8") as fh:
            fh.write("".join(f"{n}\n" for n in class_names))
        with open(os.path.join(assets, "preprocessor.json"), "w") as fh:
            json.dump(config, fh, indent=2)
        module = ServingModule(model, serving, assets)
        with open(os.path.join(assets, "attention.json"), "w") as fh:
            json.dump({_signature_name(k): list(v) for k, v in module.attention_axes.items()},
                      fh, indent=2)

        # built in a marked directory beside the version, then renamed to it (what a
        # killed export left beside it is deleted first)
        ownership.recover(path.rstrip("/"), "export")
        tmp, _ = ownership.work_dir(path.rstrip("/"), "export")
        # keras.export.ExportArchive lists the tf.Variables the endpoints capture on
        # the saved object itself; without that the TF1 session loader (TF Serving,
        # saved_model_cli) fails with "Could not find variable" (keras-team/keras#19274,
        # tensorflow/serving#2250)
        archive = keras.export.ExportArchive()
        archive.track(model)
        archive.track(module)  # the lookup tables and the assets
        archive.add_endpoint("serving_default", module.serve)
        archive.add_endpoint("explain", module.explain)
        with open(os.path.join(assets, SERVABLE), "w") as fh:
            json.dump({"preset": preset, "class_names": list(class_names)}, fh, indent=2)
        try:
            archive.write_out(tmp, verbose=False)
            # documentation, not graph inputs
            for name in ("attention.json", "preprocessor.json", SERVABLE):
                with open(os.path.join(assets, name), "rb") as fh:
                    ownership.write_bytes(os.path.join(tmp, "assets", name), fh.read())
            if ownership.is_empty_dir(path):
                os.rmdir(path)  # empty (resolve_output refuses a non-empty one)
            # a version appears whole or not at all (TF Serving polls)
            ownership.rename(tmp, path)
        finally:
            if os.path.isdir(tmp) and ownership.owner_of(tmp, "export"):
                shutil.rmtree(tmp)  # a half-written export (a full disk, a failure)
    return path


def export_classifier(classifier, path, max_length=None):
    """Export a fitted :class:`~kerasattn.tasks.TextClassifier` (its backbone, text
    preprocessor, class names and preset) to ``path`` with :func:`export_model`; returns
    ``path``. What ``TextClassifier.export`` does.

    A SavedModel is a TensorFlow graph: under another Keras backend (JAX, PyTorch) the
    classifier is saved to a ``.keras`` file in a temporary directory and exported from
    it by a TensorFlow process (:func:`export_saved_classifier`), the same SavedModel."""
    if classifier.backbone is None:
        raise ValueError("nothing to export: the classifier has not been fitted")
    path = os.fspath(path)
    if keras.backend.backend() != "tensorflow":
        return _export_in_tensorflow(classifier, path, max_length)
    return export_model(classifier.backbone, classifier.preprocessor.text_preprocessor,
                        classifier.class_names, path, max_length,
                        preset=classifier.preset)


def export_saved_classifier(keras_file, path, max_length=None):
    """:func:`export_classifier` of the ``TextClassifier`` saved in ``keras_file`` (under
    the TensorFlow backend)."""
    return export_classifier(keras.saving.load_model(keras_file), path, max_length)


_IN_TENSORFLOW = """
import sys
from kerasattn import export
try:
    export.export_saved_classifier(sys.argv[1], sys.argv[2], int(sys.argv[3]) or None)
except (ValueError, FileExistsError, OSError) as error:
    print(f"error: {error}", file=sys.stderr)
    sys.exit(2)
"""


def _export_in_tensorflow(classifier, path, max_length):
    """Export from a TensorFlow process: the checks first (nothing written when one
    fails), then the classifier as a ``.keras`` file that process reads."""
    check_class_names(classifier.class_names)
    if os.path.exists(path) and not (os.path.isdir(path) and not os.listdir(path)):
        raise FileExistsError(f"{path} exists and is not an empty directory: choose another "
                              "version")
    check_servable(path, classifier.class_names, classifier.preset)
    with tempfile.TemporaryDirectory() as tmp:
        keras_file = os.path.join(tmp, "classifier.keras")
        classifier.save(keras_file)
        env = {**os.environ, "KERAS_BACKEND": "tensorflow"}
        done = subprocess.run([sys.executable, "-c", _IN_TENSORFLOW, keras_file,
                               os.path.abspath(path), str(max_length or 0)],
                              env=env, capture_output=True, text=True)
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
        raise RuntimeError(
            (lines[-1][len("error: "):] if lines else done.stderr.strip()[-1000:]) +
            f" (exporting under the {keras.backend.backend()} backend runs TensorFlow in "
            "a process of its own; save the classifier with .save('model.keras') and export "
            "it under KERAS_BACKEND=tensorflow with kerasattn.export.export_saved_classifier)")
    return path


def export_run(run_dir, output=None, max_length=None):
    """Export a Keras run directory; returns the SavedModel path. It does not check
    that the run finished (``training.export`` does: see :func:`unfinished`)."""
    config = runs.open_run(run_dir, finished=False)  # its files: when loaded, below
    if not config.get("class_names"):
        raise runs.RunError(f"{run_dir}/{runs.CONFIG} names no classes; the run directory "
                            "is damaged")
    check_class_names(config["class_names"])
    path = resolve_output(run_dir, output)
    check_servable(path, config["class_names"], config.get("model"))  # before loading
    config, model, preprocessor = runs.load_keras_run(run_dir)
    return export_model(model, preprocessor, config["class_names"], path, max_length,
                        preset=config.get("model"))


def unfinished(run_dir):
    """Whether ``run_dir`` is a run whose training did not finish (no ``metrics.json``:
    interrupted, or still running); its ``model.keras``, if any, is the best epoch so far."""
    return not os.path.exists(os.path.join(run_dir, runs.METRICS))


def saved_model_ops(path):
    """The set of op types the SavedModel's graphs run (inside its functions too;
    calls of its own functions are not counted)."""
    sm = saved_model_pb2.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as fh:
        sm.ParseFromString(fh.read())
    ops, functions = set(), set()
    for meta in sm.meta_graphs:
        ops.update(n.op for n in meta.graph_def.node)
        for f in meta.graph_def.library.function:
            functions.add(f.signature.name)
            ops.update(n.op for n in f.node_def)
    return ops - functions


def unregistered_ops(path):
    """The ops of the SavedModel that the running TensorFlow does not know: in a
    process that loaded no custom-op library, the ones stock TF Serving lacks."""
    return {op for op in saved_model_ops(path) if op_def_registry.get(op) is None}


__all__ = ["ServingModule", "check_class_names", "check_servable", "export_model", "export_run",
           "next_version", "resolve_output", "saved_model_ops", "unfinished", "unregistered_ops",
           "SERVING_MAX_LENGTH"]
