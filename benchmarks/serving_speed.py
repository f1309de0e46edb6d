"""Latency and throughput of exported SavedModels, one model per family.

    python -m benchmarks.serving_speed [--dataset imdb] [--requests 200] [--batches 5]

For each family (``sanet-base``, ``hcan-2sa-target``, ``han``, ``iram-vanilla``,
``transformer``, ``gru``) at its preset size, builds the preset with a vocabulary
from the dataset's training texts (untrained weights cost the same as trained
ones), exports it with :func:`kerasattn.export.export_model`, loads the
SavedModel back with ``tf.saved_model.load`` and calls its ``serving_default``
signature on raw test texts, as TF Serving would:

- single-text latency: ``--requests`` calls of one text each (after 10 warm-up
  calls), p50 and p99 in milliseconds;
- batch throughput: ``--batches`` calls of 256 texts each (after one warm-up
  call), texts per second (the median batch).

Prints the table and writes ``benchmarks/results/serving_speed.md``/``.json`` (the JSON's
``"provenance"``, :func:`kerasattn.provenance.entry`: the commit, command, seed, device,
versions, UTC start and end and what cut the measurement).
"""

import argparse
import datetime
import os
import shlex
import statistics
import sys
import tempfile
import time

from kerasattn.cli.parsing import ArgumentParser

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
FAMILIES = {"SANet": "sanet-base", "HCAN": "hcan-2sa-target", "HAN": "han",
            "IRAM": "iram-vanilla", "Transformer": "transformer", "baseline (GRU)": "gru"}
BATCH = 256


def _preprocessor(preset, texts):
    from kerasattn import recipes
    from kerasattn.data.preprocessing import TextPreprocessor

    t = preset.training_defaults()
    return TextPreprocessor(**recipes.preprocessor_options(preset)).adapt(
        texts, min_freq=t["min_freq"], max_size=t["vocab_size"])


def measure(name, train_texts, test_texts, requests, batches, workdir, overrides=None):
    """{p50_ms, p99_ms, batch_texts_per_s, ...} of one preset's exported SavedModel."""
    import keras
    import numpy as np
    import tensorflow as tf

    from kerasattn import export, models

    preset = models.get_preset(name)
    pre = _preprocessor(preset, train_texts)
    keras.utils.set_random_seed(0)
    model = models.get(name, vocab_size=pre.vocabulary_size, num_classes=2,
                       vocabulary=pre.vocabulary, **(overrides or {}))
    path = export.export_model(model, pre, ["negative", "positive"],
                               os.path.join(workdir, name, "1"))
    serve = tf.saved_model.load(path).signatures["serving_default"]
    for text in test_texts[:10]:
        serve(text=tf.constant([text]))
    latencies = []
    for i in range(requests):
        text = tf.constant([test_texts[i % len(test_texts)]])
        start = time.perf_counter()
        serve(text=text)["probabilities"].numpy()
        latencies.append(1000 * (time.perf_counter() - start))
    chunks = [test_texts[(i * BATCH) % len(test_texts):][:BATCH] for i in range(batches + 1)]
    chunks = [c if len(c) == BATCH else (c + test_texts)[:BATCH] for c in chunks]
    serve(text=tf.constant(chunks[0]))
    per_batch = []
    for chunk in chunks[1:]:
        start = time.perf_counter()
        serve(text=tf.constant(chunk))["probabilities"].numpy()
        per_batch.append(time.perf_counter() - start)
    return {"model": name, "parameters": int(model.count_params()),
            "p50_ms": float(np.percentile(latencies, 50)),
            "p99_ms": float(np.percentile(latencies, 99)),
            "batch_texts_per_s": BATCH / statistics.median(per_batch),
            "requests": requests, "batches": batches}


def main(argv=None):
    p = ArgumentParser(prog="python -m benchmarks.serving_speed", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dataset", default="imdb")
    p.add_argument("--requests", type=int, default=200, help="single-text calls per model")
    p.add_argument("--batches", type=int, default=5, help="256-text calls per model")
    p.add_argument("--families", nargs="*", choices=list(FAMILIES), default=list(FAMILIES))
    p.add_argument("--train-texts", type=int, default=5000,
                   help="training texts the vocabularies are built from")
    p.add_argument("--results-dir", default=RESULTS)
    args = p.parse_args(argv)
    if args.requests < 1 or args.batches < 1:
        p.error("--requests and --batches must be >= 1")
    from kerasattn import provenance, runs
    from kerasattn.data import datasets

    start = provenance.started(provenance.command_of("benchmarks.serving_speed", argv), 0)
    ds = datasets.load(args.dataset)
    train, test = ds.train.texts[:args.train_texts], list(ds.test.texts)
    rows = {}
    with tempfile.TemporaryDirectory() as workdir:
        for family in args.families:
            print(f"{family}: {FAMILIES[family]} ...", flush=True)
            rows[family] = measure(FAMILIES[family], train, test, args.requests, args.batches,
                                   workdir)
            r = rows[family]
            print(f"  p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, batch of {BATCH}: "
                  f"{r['batch_texts_per_s']:.0f} texts/s", flush=True)
    env = runs.environment()
    command = "python -m benchmarks.serving_speed " + " ".join(
        shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
    record = {"command": command, "dataset": args.dataset, "machine": env["machine"],
              "versions": f"TensorFlow {env['tensorflow']}, Keras {env['keras']}",
              "measured": str(datetime.date.today()), "rows": rows,
              "provenance": provenance.entry(start)}
    os.makedirs(args.results_dir, exist_ok=True)
    runs.write_json(os.path.join(args.results_dir, "serving_speed.json"), record)
    lines = [
        "# Exported SavedModels: single-text latency and batch throughput",
        "",
        f"Written by `{command}` on {record['machine']} ({record['versions']}), "
        f"{record['measured']}. Each preset at its default size with a vocabulary from "
        f"{len(train):,} {args.dataset} training texts, exported and called through its "
        f"`serving_default` signature on raw {args.dataset} test texts (preprocessing in "
        f"the graph included).",
        "",
        provenance.describe(record["provenance"]),
        "",
        f"| family | preset | parameters | p50 ms (1 text) | p99 ms (1 text) "
        f"| texts/s (batches of {BATCH}) |",
        "|---|---|---|---|---|---|",
    ]
    for family, r in rows.items():
        lines.append(f"| {family} | `{r['model']}` | {r['parameters']:,} | {r['p50_ms']:.1f} | "
                     f"{r['p99_ms']:.1f} | {r['batch_texts_per_s']:.0f} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.results_dir, "serving_speed.md"), "w") as fh:
        fh.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
