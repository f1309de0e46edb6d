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


def write_aclimdb(root, reviews=3, films=None, drop=()):
    """A small ``aclImdb/`` directory under ``root`` in the published layout: ``reviews``
    reviews a split and polarity (``ID_RATING.txt``, text ``"POL review ID of SPLIT"``),
    ``imdb.vocab``, and each split's ``urls_{pos,neg}.txt`` (review ID is line ID; by
    default two reviews a film, or the lines ``films``) but for the (split, polarity)
    pairs in ``drop``. Returns ``root``."""
    for split in ("train", "test"):
        for pol, rating in (("pos", 8), ("neg", 2)):
            folder = root / "aclImdb" / split / pol
            folder.mkdir(parents=True)
            for i in range(reviews):
                write(folder / f"{i}_{rating}.txt", f"{pol} review {i} of {split}")
            lines = films or [f"http://www.imdb.com/title/tt000000{i // 2}/usercomments"
                              for i in range(reviews)]
            if (split, pol) not in drop:
                write(root / "aclImdb" / split / f"urls_{pol}.txt", "\n".join(lines) + "\n")
    write(root / "aclImdb" / "imdb.vocab", "the\n")
    return root


def write_yelp_polarity(root, n_train=20):
    """``root/yelp_review_polarity_csv/`` in Zhang et al.'s layout: ``n_train`` rows
    ``"1|2","review I"`` in train.csv, the test rows "bad" (1) and "good" (2). Returns
    the folder."""
    folder = root / "yelp_review_polarity_csv"
    folder.mkdir(parents=True)
    write(folder / "train.csv", "".join(f'"{1 + i % 2}","review {i}"\n' for i in range(n_train)))
    write(folder / "test.csv", '"1","bad"\n"2","good"\n')
    return folder


def learnability_csv(tmp_path, learnable):
    """A 200-row CSV dataset. Learnable: the first word gives the label. Not learnable:
    every text is the same (two thirds positive), so the best a model can do is the
    majority class."""
    rows = []
    for i in range(200):
        label = i % 2 if learnable else int(i % 3 != 0)
        text = f"{'good' if label else 'bad'} film number {i % 7}" if learnable \
            else "the same film"
        rows.append(f"{text},{label}\n")
    return write(tmp_path / f"d{int(learnable)}.csv", "text,label\n" + "".join(rows))


def require_browser():
    """Chromium's path for a browser test; skips without one, but fails under CI (where
    .ci/run installs it), so a browser test can never be skipped silently there."""
    from tests import render

    path = render.find_browser()
    if path is None:
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail("CI is set but no Chromium was found: the browser tests must run "
                        "(.ci/run installs it: apt-get install chromium)", pytrace=False)
        pytest.skip("no Chromium (apt-get install chromium)")
    return path


class JaxRuntimeError(RuntimeError):
    """Named as ``jax.errors.JaxRuntimeError`` (what JAX raises when the GPU runs out of
    memory), without importing JAX into a process that has TensorFlow."""


def train_in_process(module, monkeypatch):
    """``module``'s training subprocesses (``python -m kerasattn.cli.train ...``) run in
    this process instead (a fresh one spends about 9 s importing TensorFlow)."""
    import subprocess
    import types

    from kerasattn.cli import train

    def run(cmd, check=False):
        assert cmd[1:3] == ["-m", "kerasattn.cli.train"], cmd
        code = train.main(cmd[3:])
        if check and code:
            raise subprocess.CalledProcessError(code, cmd)
        return subprocess.CompletedProcess(cmd, code)

    monkeypatch.setattr(module, "subprocess", types.SimpleNamespace(run=run))
