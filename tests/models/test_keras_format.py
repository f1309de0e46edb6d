"""Every Keras preset saves to .keras and loads in a fresh process that imports only
kerasattn, with safe_mode=True (no Lambda layer or pickled code anywhere)."""

import json
import subprocess
import sys
import textwrap

import keras
import numpy as np

from kerasattn import models
from tests.models.test_baselines import VOCAB, WORDS, ids_batch, shaped_for

FRESH = textwrap.dedent("""
    import json, os, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import numpy as np
    import kerasattn  # noqa: F401  (registers the zoo's layers)
    import keras
    out = {}
    for name, (path, x) in json.loads(sys.stdin.read()).items():
        model = keras.saving.load_model(path, safe_mode=True)
        out[name] = np.asarray(model(np.array(x, "int32"))).tolist()
    print(json.dumps(out))
""")


def test_every_preset_loads_in_a_fresh_process_in_safe_mode(tmp_path):
    rng = np.random.default_rng(0)
    saved, expected = {}, {}
    for name in models.names(kind="keras"):
        keras.utils.set_random_seed(0)
        model = models.get(name, vocab_size=VOCAB, num_classes=3, vocabulary=WORDS)
        x = shaped_for(name, ids_batch(rng, [5, 8], 8))
        path = str(tmp_path / f"{name}.keras")
        model.save(path)
        saved[name] = (path, x.tolist())
        expected[name] = np.asarray(model(x))
    result = subprocess.run([sys.executable, "-c", FRESH], input=json.dumps(saved),
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    got = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(got) == set(expected)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-5, atol=1e-6,
                                   err_msg=name)
