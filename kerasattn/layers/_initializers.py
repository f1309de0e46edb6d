"""One initializer instance per weight (private).

A Keras 3 initializer object draws the same values on every call: its seed is fixed
when the object is made. Handed to two weights of equal shape it starts them equal
(query and key projections that start equal give symmetric scores peaked on the
diagonal; heads that start as copies of one another). Every layer and builder of
kerasattn therefore passes ``clone_initializer(init)`` at each use, as keras-hub's
``clone_initializer`` does, and keeps the original only for ``get_config``.
"""

import itertools

import keras

# the clone count of each initializer given an explicit integer seed
_CLONES = "_kerasattn_clone_count"


def clone_initializer(initializer):
    """A new initializer instance with ``initializer``'s configuration.

    ``initializer`` is anything ``keras.initializers.get`` takes: a name, a config
    dict or an instance. An instance with no seed gives a clone with a fresh seed,
    drawn from Python's generator, so ``keras.utils.set_random_seed`` still fixes
    every clone. An instance with an explicit integer seed gives ``seed``, then
    ``seed + 1``, ``seed + 2``... on successive clones, so its weights differ and
    still repeat exactly from build to build of the same layer order.

    Example:
    >>> import keras
    >>> init = keras.initializers.GlorotUniform()
    >>> a, b = clone_initializer(init), clone_initializer(init)
    >>> bool((keras.ops.convert_to_numpy(a((3, 3)))
    ...       == keras.ops.convert_to_numpy(b((3, 3)))).all())
    False
    """
    if not isinstance(initializer, keras.initializers.Initializer):
        # a name or a config: ``get`` makes a new instance on every call
        return keras.initializers.get(initializer)
    config = initializer.get_config()
    seed = config.get("seed")
    if isinstance(seed, int) and not isinstance(seed, bool):
        counter = initializer.__dict__.setdefault(_CLONES, itertools.count())
        config = {**config, "seed": seed + next(counter)}
    return initializer.__class__.from_config(config)
