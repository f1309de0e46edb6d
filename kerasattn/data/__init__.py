"""Datasets (datasets.py), text ops (text.py), the preprocessor and tf.data pipelines."""
