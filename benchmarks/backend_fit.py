"""TextClassifier.fit under each Keras backend: the first epoch (vocabulary, build,
compilation) and a second one, and how many train-step programs JAX compiled.

    python -m benchmarks.backend_fit [--models cnn transformer] [--texts 1500]

Each (backend, preset) runs in a fresh process (``KERAS_BACKEND`` is read once, at
import): ``from_preset(PRESET)`` fitted one epoch on the first ``--texts`` SST-2
training texts (batches of 32), then one more. A step's trace is counted by wrapping
``train_step`` (it runs once per compilation under JAX, once per tf.function trace
under TensorFlow). Writes ``benchmarks/results/backend_fit.md`` (and ``.json``) with
the commit, command and device (``kerasattn.provenance``). Needs the datasets
(KERASATTN_DATA_DIR).
"""

import argparse
import json
import os
import subprocess
import sys
import time

from kerasattn.cli.parsing import ArgumentParser

RESULTS_DIR = os.path.join(os.path.dirname(__file__), "results")


def measure(preset, n):
    """One process's figures: ``{"first", "second", "traces", "shapes"}``."""
    import keras

    import kerasattn
    from kerasattn.data import datasets

    ds = datasets.load("sst2")
    texts, labels = list(ds.train.texts[:n]), list(ds.train.labels[:n])
    keras.utils.set_random_seed(0)
    clf = kerasattn.TextClassifier.from_preset(preset, num_classes=2)
    shapes, step = [], type(clf).train_step

    def counted(self, *args):
        shapes.append(list(args[-1][0].shape))
        return step(self, *args)

    type(clf).train_step = counted
    start = time.perf_counter()
    clf.fit(texts, labels, epochs=1, batch_size=32, verbose=0)
    first = time.perf_counter() - start
    start = time.perf_counter()
    clf.fit(texts, labels, epochs=1, batch_size=32, verbose=0)
    second = time.perf_counter() - start
    return {"first": first, "second": second, "traces": len(shapes), "shapes": shapes}


def main(argv=None):
    p = ArgumentParser(prog="python -m benchmarks.backend_fit")
    p.add_argument("--models", nargs="+", default=["cnn", "transformer"])
    p.add_argument("--backends", nargs="+", default=["tensorflow", "jax"])
    p.add_argument("--texts", type=int, default=1500)
    p.add_argument("--one", nargs=2, metavar=("PRESET", "TEXTS"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.one:  # a child: one backend (from the environment), one preset
        print(json.dumps(measure(args.one[0], int(args.one[1]))))
        return 0

    from kerasattn import ownership, provenance

    start = provenance.started(provenance.command_of("benchmarks.backend_fit", argv), 0)
    rows = []
    for preset in args.models:
        for backend in args.backends:
            env = {**os.environ, "KERAS_BACKEND": backend, "TF_CPP_MIN_LOG_LEVEL": "3"}
            done = subprocess.run([sys.executable, "-m", "benchmarks.backend_fit", "--one",
                                   preset, str(args.texts)], env=env, capture_output=True,
                                  text=True, cwd=os.path.dirname(os.path.dirname(__file__)))
            if done.returncode != 0:
                print(done.stderr[-3000:], file=sys.stderr)
                return 1
            row = {"preset": preset, "backend": backend,
                   **json.loads(done.stdout.strip().splitlines()[-1])}
            rows.append(row)
            print(f"{preset:<12} {backend:<10} first epoch {row['first']:6.1f} s  second "
                  f"{row['second']:5.1f} s  train-step traces {row['traces']}", flush=True)
    record = provenance.entry(start)
    base = {r["preset"]: r["first"] for r in rows if r["backend"] == "tensorflow"}
    lines = ["# TextClassifier.fit under each backend", "",
             f"`from_preset(PRESET).fit` on the first {args.texts:,} SST-2 training texts, "
             "batches of 32: the first epoch (vocabulary, build, compiling) and a second "
             "one, each process fresh. Under JAX the batches are bounded "
             "(`kerasattn.data.widths`); under TensorFlow each is padded to its longest text.",
             "", provenance.describe(record), "",
             "| preset | backend | first epoch (s) | second epoch (s) | train-step traces | "
             "first epoch / TensorFlow's |", "|---|---|---|---|---|---|"]
    lines += [f"| {r['preset']} | {r['backend']} | {r['first']:.1f} | {r['second']:.1f} | "
              f"{r['traces']} | {r['first'] / base[r['preset']]:.2f} |"
              if r["preset"] in base else
              f"| {r['preset']} | {r['backend']} | {r['first']:.1f} | {r['second']:.1f} | "
              f"{r['traces']} | |" for r in rows]
    ownership.write_text(os.path.join(RESULTS_DIR, "backend_fit.md"), "\n".join(lines) + "\n")
    ownership.write_json(os.path.join(RESULTS_DIR, "backend_fit.json"),
                         {"provenance": record, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
