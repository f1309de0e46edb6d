"""Datasets (the datasets package), text ops (text.py), the preprocessor and tf.data pipelines."""
