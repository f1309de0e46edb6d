import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")


def data_dir():
    return os.environ.get("KERASATTN_DATA_DIR")


@pytest.fixture(scope="session")
def shared_data():
    """The real datasets (../shared/datasets in CI); tests needing them skip without."""
    d = data_dir()
    if not d or not os.path.isdir(d):
        pytest.skip("set KERASATTN_DATA_DIR to the datasets mirror (../shared/datasets)")
    return d


@pytest.fixture(autouse=True)
def _float32_policy():
    """Every test starts and ends with the float32 policy."""
    import keras

    keras.mixed_precision.set_global_policy("float32")
    yield
    keras.mixed_precision.set_global_policy("float32")


def write(path, text, mode="w"):
    with open(path, mode, encoding=None if "b" in mode else "utf-8") as fh:
        fh.write(text)
    return str(path)
