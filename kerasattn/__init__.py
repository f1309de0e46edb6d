"""kerasattn: interpretable attention models for text classification, with their baselines.

Importing the package has no side effects. Entry points:
``kerasattn.data.datasets.load``, ``kerasattn.data.preprocessing.TextPreprocessor``,
``kerasattn.data.pipeline.make_dataset``, ``kerasattn.models.get`` and the
``training`` commands.
"""

__version__ = "0.1.0"
