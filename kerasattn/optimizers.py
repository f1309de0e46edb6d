"""Optimizers the paper recipes need and Keras 3 does not have."""

import re

import keras
from keras import ops


@keras.saving.register_keras_serializable(package="kerasattn")
class GroupedSGD(keras.optimizers.SGD):
    """SGD with its own learning rate and momentum for the embedding weights.

    SANet's recipe (Letarte et al. 2018, §4): SGD with momentum 0.9 and
    learning rate 0.01 for every weight except the word embeddings, which use
    learning rate 0.001 without momentum. Keras 3 has no per-variable
    optimizer, so this subclass of ``keras.optimizers.SGD`` picks the rate
    and momentum per variable in ``update_step``: it works with ``model.fit``,
    inside the ``LossScaleOptimizer`` that Keras adds under ``mixed_float16``,
    and with ``.keras`` saving (its config holds every option).

    A variable belongs to the embedding group when ``embedding_pattern`` (a
    regular expression) matches its path, e.g. ``"sanet-base/embedding/embeddings"``.
    A learning-rate schedule given as ``learning_rate`` applies to the other
    weights; the embedding rate is constant.

    Args:
        learning_rate: rate of the non-embedding weights (0.01 in §4).
        momentum: their momentum (0.9 in §4).
        embedding_learning_rate: rate of the embedding weights (0.001 in §4).
        embedding_momentum: their momentum (0 in §4).
        embedding_pattern: regular expression matched against variable paths.
        **kwargs: the other arguments of ``keras.optimizers.SGD``.

    Example:
    >>> from kerasattn.optimizers import GroupedSGD
    >>> opt = GroupedSGD()  # the §4 recipe of sanet-base
    >>> opt_big = GroupedSGD(0.005, embedding_learning_rate=0.0005)  # halved, sanet-big
    """

    def __init__(self, learning_rate=0.01, momentum=0.9, embedding_learning_rate=0.001,
                 embedding_momentum=0.0, embedding_pattern=r"(^|/)embedding[^/]*/",
                 name="grouped_sgd", **kwargs):
        super().__init__(learning_rate=learning_rate, momentum=momentum, name=name, **kwargs)
        if embedding_learning_rate <= 0:
            raise ValueError(f"embedding_learning_rate must be > 0, got {embedding_learning_rate}")
        if not 0.0 <= embedding_momentum <= 1.0:
            raise ValueError(f"embedding_momentum must be in [0, 1], got {embedding_momentum}")
        self.embedding_learning_rate = float(embedding_learning_rate)
        self.embedding_momentum = float(embedding_momentum)
        self.embedding_pattern = embedding_pattern
        self._embedding_re = re.compile(embedding_pattern)

    def is_embedding(self, variable):
        return bool(self._embedding_re.search(variable.path))

    def build(self, variables):
        if self.built:
            return
        keras.optimizers.Optimizer.build(self, variables)
        # a momentum slot for every variable: either group may use momentum
        self.momentums = self.add_optimizer_variables(variables, "momentum")
        # grouped here, where variables are Keras variables with paths (the
        # TensorFlow backend hands update_step the raw tf.Variable)
        self._in_embedding_group = [self.is_embedding(v) for v in variables]

    def update_step(self, gradient, variable, learning_rate):
        if self._in_embedding_group[self._get_variable_index(variable)]:
            lr, momentum = self.embedding_learning_rate, self.embedding_momentum
        else:
            lr, momentum = learning_rate, self.momentum
        lr = ops.cast(lr, variable.dtype)
        gradient = ops.cast(gradient, variable.dtype)
        if momentum == 0:
            self.assign_sub(variable, ops.multiply(gradient, lr))
            return
        m = self.momentums[self._get_variable_index(variable)]
        momentum = ops.cast(momentum, variable.dtype)
        self.assign(m, ops.subtract(ops.multiply(m, momentum), ops.multiply(gradient, lr)))
        if self.nesterov:
            self.assign_add(variable, ops.subtract(ops.multiply(m, momentum),
                                                   ops.multiply(gradient, lr)))
        else:
            self.assign_add(variable, m)

    def get_config(self):
        config = super().get_config()
        config.update(embedding_learning_rate=self.embedding_learning_rate,
                      embedding_momentum=self.embedding_momentum,
                      embedding_pattern=self.embedding_pattern)
        return config
