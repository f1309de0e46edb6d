"""kerasattn: interpretable attention models for text classification, with their baselines.

Importing the package registers its Keras layers and optimizer for
deserialisation, so ``keras.saving.load_model(path)`` (safe mode included)
loads any zoo model in a process that has only done ``import kerasattn``.
Entry points: ``kerasattn.data.datasets.load``,
``kerasattn.data.preprocessing.TextPreprocessor``,
``kerasattn.data.pipeline.make_dataset``, ``kerasattn.models.get`` and the
``training`` commands.
"""

from kerasattn import layers, optimizers  # noqa: F401  (register_keras_serializable)

__version__ = "0.1.0"
