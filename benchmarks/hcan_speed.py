"""HCAN's headline: milliseconds per training document, HCAN vs HAN, on the same batches.

    python -m benchmarks.hcan_speed [--dataset imdb] [--batches 20] [--repeats 3]
    python -m benchmarks.hcan_speed --hcan-config "d=128 embedding_dim=128"

Gao et al. (2018, Table 2) report HCAN training more than twice as fast per
document as HAN. This trains ``hcan-2sa-target`` and ``han`` (their preset
configurations; ``--hcan-config "d=128 embedding_dim=128"`` adds a smaller
HCAN, repeatable) on the same fixed batches of real training documents (the presets'
preprocessing: 50 sentences × 50 words, batches of 32 bucketed by number of
sentences), after warm-up, and reports the median over ``--repeats`` passes
of milliseconds per training document for each model and their ratio. It
prints the figures and writes ``benchmarks/results/hcan_speed.md``/``.json`` (the JSON's
``"provenance"``, :func:`kerasattn.provenance.entry`: the commit, command, seed, device,
versions, UTC start and end and what cut the measurement).
"""

import datetime
import json
import os
import platform
import shlex
import statistics
import sys
import time

from kerasattn.cli.parsing import ArgumentParser

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
MODELS = ("hcan-2sa-target", "han")


def make_batches(dataset, n_batches, seed=0):
    """(ids, labels, vocabulary size, number of classes) of the first ``n_batches`` shuffled
    training batches, with the presets' own preprocessing."""
    from kerasattn import models, recipes
    from kerasattn.data import datasets
    from kerasattn.data.pipeline import make_dataset
    from kerasattn.data.preprocessing import TextPreprocessor

    preset = models.get_preset("hcan-2sa-target")
    train = preset.training_defaults()
    ds = datasets.load(dataset)
    pre = TextPreprocessor(**recipes.preprocessor_options(preset))
    pre.adapt(ds.train.texts, min_freq=train["min_freq"], max_size=train["vocab_size"])
    batches = make_dataset(ds.train.texts, ds.train.labels, pre, train["batch_size"],
                           shuffle=True, seed=seed).take(n_batches)
    xs, ys = zip(*[(x.numpy(), y.numpy()) for x, y in batches])
    return list(xs), list(ys), pre.vocabulary_size, ds.num_classes


def time_training(name, xs, ys, vocab_size, num_classes, repeats, overrides, log):
    """(median seconds per pass over the batches after one warm-up pass, parameters,
    analytic training FLOPs of one pass)."""
    import keras
    import numpy as np

    from kerasattn import heads, models, recipes

    keras.utils.set_random_seed(0)
    model = models.get(name, vocab_size=vocab_size, num_classes=num_classes, **overrides)
    model.compile(optimizer=recipes.make_optimizer(models.get_preset(name), learning_rate=1e-3),
                  loss=heads.loss_and_accuracy(model)[0])
    for x, y in zip(xs, ys):  # warm-up: one trace per distinct batch shape
        model.train_on_batch(x, y)
    passes = []
    for r in range(repeats):
        start = time.perf_counter()
        for x, y in zip(xs, ys):
            loss = model.train_on_batch(x, y)
        passes.append(time.perf_counter() - start)
        log(f"  {name} pass {r + 1}/{repeats}: {passes[-1]:.2f}s (loss {float(np.mean(loss)):.3f})")
    config = {**models.get_preset(name).model_config, **overrides}
    flops = sum(training_flops(name, config, x) for x in xs)
    return statistics.median(passes), int(model.count_params()), flops


def training_flops(name, config, x):
    """Analytic FLOPs of one training step on batch ``x`` (batch, sentences, words).

    Multiply-adds of the matrix products over every cell, padding included
    (both models compute padded positions and mask them), forward × 3 for
    forward plus backward, × 2 FLOPs per multiply-add. Element-wise work
    (activations, softmax, layer norm) is left out.
    """
    b, s, w = x.shape
    words, sentences = b * s * w, b * s
    if name == "han":
        e, u, a = config["embedding_dim"], config["units"], config["attention_units"]
        gru = lambda n_in: 2 * 3 * (n_in * u + u * u)  # noqa: E731  (both directions)
        macs = words * (gru(e) + 2 * u * a + a) + sentences * (gru(2 * u) + 2 * u * a + a)
    else:
        d, n_sa = config["d"], config["num_self_attentions"]
        target = config["pooling"] == "target"

        def level(cells, length, n_in):
            per_cell = n_sa * (3 * 3 * n_in * d + 2 * length * d)  # Q, K, V convs; QKᵀ, AV
            per_cell += (2 * 3 * d * d + 2 * d) if target else 0   # target K, V convs; TK, AV
            return cells * per_cell

        macs = level(words, w, config["embedding_dim"]) + level(sentences, s, d)
    return 3 * 2 * macs


def machine():
    import keras

    cpus = os.cpu_count()
    return (f"{platform.machine()} {platform.system()}, {cpus} CPUs, Keras {keras.__version__} "
            f"on {keras.backend.backend()}")


def main(argv=None):
    p = ArgumentParser(prog="python -m benchmarks.hcan_speed",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("--dataset", default="imdb")
    p.add_argument("--batches", type=int, default=20, help="training batches of 32 documents")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--hcan-config", action="append", default=[], metavar="'KEY=JSON ...'",
                   help="also time hcan-2sa-target with these options, e.g. 'd=128 "
                        "embedding_dim=128' (repeatable)")
    p.add_argument("--no-preset", action="store_true",
                   help="time only the --hcan-config sizes, not the d=512 preset")
    p.add_argument("--output", default=os.path.join(RESULTS, "hcan_speed"),
                   help="results path without extension (.md and .json are written)")
    args = p.parse_args(argv)
    import numpy as np

    from kerasattn import provenance

    start = provenance.started(provenance.command_of("benchmarks.hcan_speed", argv), 0)

    def log(msg):
        print(msg, flush=True)

    configs = [] if args.no_preset else [{}]
    for item in args.hcan_config:
        options = {}
        for pair in item.split():
            key, sep, value = pair.partition("=")
            if not sep:
                p.error(f"--hcan-config expects KEY=VALUE pairs, got {pair!r}")
            options[key] = json.loads(value)
        configs.append(options)
    if not configs:
        p.error("nothing to compare with han: --no-preset needs --hcan-config")
    xs, ys, vocab_size, num_classes = make_batches(args.dataset, args.batches)
    docs = sum(len(x) for x in xs)
    real = sum(int((x > 0).sum()) for x in xs)
    cells = sum(x.size for x in xs)
    log(f"{len(xs)} batches, {docs} documents, {real:,} real tokens, padding "
        f"{1 - real / cells:.0%} of the cells; {machine()}")
    rows = []
    for name, overrides in [("han", {})] + [("hcan-2sa-target", c) for c in configs]:
        seconds, params, flops = time_training(name, xs, ys, vocab_size, num_classes,
                                               args.repeats, overrides, log)
        rows.append({"model": name, "options": overrides, "parameters": params,
                     "ms_per_document": 1000 * seconds / docs,
                     "gflop_per_document": flops / docs / 1e9,
                     "achieved_gflop_per_second": flops / seconds / 1e9})
        log(f"{name} {overrides or ''}: {rows[-1]['ms_per_document']:.2f} ms per training "
            f"document, {rows[-1]['gflop_per_document']:.2f} GFLOP each, "
            f"{rows[-1]['achieved_gflop_per_second']:.0f} GFLOP/s ({params:,} parameters)")
    han_ms = rows[0]["ms_per_document"]
    for row in rows[1:]:
        row["han_over_hcan"] = han_ms / row["ms_per_document"]
        log(f"han / hcan-2sa-target {row['options'] or '(preset)'}: {row['han_over_hcan']:.2f}x "
            "(> 1 means HCAN trains faster)")

    command = "python -m benchmarks.hcan_speed " + shlex.join(
        sys.argv[1:] if argv is None else argv)
    result = {"date": datetime.date.today().isoformat(), "command": command.strip(),
              "machine": machine(), "dataset": args.dataset, "batches": len(xs),
              "documents": docs, "padding": 1 - real / cells, "models": rows,
              "provenance": provenance.entry(start)}
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output + ".json", "w") as fh:
        json.dump(result, fh, indent=2)
    lines = [f"# HCAN vs HAN training speed ({args.dataset})", "",
             f"Measured {result['date']} with `{result['command']}` on {result['machine']}.",
             f"{len(xs)} batches of real training documents ({docs} documents, padding "
             f"{result['padding']:.0%} of the cells), one warm-up pass, median of "
             f"{args.repeats} passes.", "", provenance.describe(result["provenance"]), "",
             "| model | options | parameters | ms per training document | HAN ms / this ms "
             "| GFLOP per document | achieved GFLOP/s |",
             "|---|---|---|---|---|---|---|"]
    for row in rows:
        opts = ", ".join(f"{k}={v}" for k, v in row["options"].items()) or "preset"
        ratio = f"{row['han_over_hcan']:.2f}" if "han_over_hcan" in row else "-"
        lines.append(f"| {row['model']} | {opts} | {row['parameters']:,} | "
                     f"{row['ms_per_document']:.2f} | {ratio} | {row['gflop_per_document']:.3f} "
                     f"| {row['achieved_gflop_per_second']:.0f} |")
    lines += ["", "HAN ms / HCAN ms above 1 means HCAN trains faster per document; the paper "
                  "reports more than 2 (Table 2, on a GPU). GFLOP are analytic: the matrix "
                  "products of one training step (forward + backward = 3 × forward) over every "
                  "cell of the padded batches, element-wise work left out "
                  "(`training_flops` in `benchmarks/hcan_speed.py`)."]
    with open(args.output + ".md", "w") as fh:
        fh.write("\n".join(lines) + "\n")
    log(f"wrote {args.output}.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
