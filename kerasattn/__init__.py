"""kerasattn: interpretable attention models for text classification, with their baselines.

Importing the package registers its Keras layers, optimizer and task for
deserialisation, so ``keras.saving.load_model(path)`` (safe mode included)
loads any zoo model or :class:`TextClassifier` in a process that has only done
``import kerasattn``.
Entry points: :class:`TextClassifier` (raw strings in, probabilities and
attention out), ``kerasattn.data.datasets.load``, ``kerasattn.models.get``,
``kerasattn.interpret`` and the ``kerasattn`` command (``python -m training.*``).
"""

import os

# TensorFlow's C++ start-up logging, quieter (set before TensorFlow is first imported;
# an explicit setting of the user's wins)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from kerasattn._quiet import physical_gpus, quiet_native_import  # noqa: E402

# Keras imports TensorFlow here, and some of its import-time log lines ignore
# TF_CPP_MIN_LOG_LEVEL (tensorflow/tensorflow#100442): kerasattn._quiet drops them
with quiet_native_import():
    from kerasattn import layers, optimizers  # noqa: E402,F401  (register_keras_serializable)

    # The task needs TensorFlow (its preprocessing is tf.strings / tf.lookup); a JAX or
    # PyTorch machine without TensorFlow (kerasattn portable fit) still imports the rest.
    try:
        import tensorflow  # noqa: F401
    except ImportError:
        _TENSORFLOW = False
    else:
        _TENSORFLOW = True
        from kerasattn.tasks import TextClassifier, TextClassifierPreprocessor  # noqa: F401

if _TENSORFLOW:
    # TensorFlow's first device query logs a cuInit failure at ERROR on a machine without
    # a GPU: made here, where kerasattn._quiet.physical_gpus drops that line
    physical_gpus()

__version__ = "0.1.0"
