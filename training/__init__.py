"""``python -m training.<command>``: the ``kerasattn <command>`` entry points.

Each module here only hands its arguments to :mod:`kerasattn.cli`. Importing
``kerasattn`` (or ``kerasattn.cli``) imports neither Keras nor TensorFlow, so
``predict`` and ``serving_client``, which stand on a SavedModel or a server alone,
report a bad argument before TensorFlow starts.
"""
