"""Training and inference speed of every model family, a keras-hub peer, FLOP utilisation
and peak memory.

    python -m benchmarks.speed                        # all of it (~30 min on 2 CPU cores)
    python -m benchmarks.speed --models transformer peer-transformer --lengths 256 --jit off
    python -m benchmarks.speed --part memory          # SANet's peak memory up to 4096 tokens
    python -m benchmarks.speed --part speed --models transformer peer-transformer \
        sanet-base peer-sanet-base --lengths 256 1024 --jit off \
        --dtypes float32 bfloat16 --processes 3       # the peer comparison (~25 min)

Every figure comes from fixed batches of random token ids (vocabulary 20,000,
two classes, no padding) of ``TOKENS_PER_BATCH`` tokens: 128 texts of 64
tokens, 32 of 256, 16 of 512, 8 of 1,024 (hierarchical models get the same
tokens as 8 x 8, 16 x 16, 23 x 22 and 32 x 32 sentences x words). Each
measurement runs in a fresh process (so its peak memory is its own): the
preset is built with its own optimizer recipe, warmed up, then timed as the
median of ``--repeats`` rounds of ``--steps`` calls of ``train_on_batch`` /
``predict_on_batch``, with and without ``jit_compile`` (XLA), under each of ``--dtypes``
(``bfloat16``: Keras's ``mixed_bfloat16`` policy, float32 weights). ``--processes N``
measures each cell N times, each in its own process, the models taking turns (ours,
the peer, ours, ...), so the page gives a mean and spread and the peer ratio is
taken within each turn.

The page is a record of several runs: a run adds its rows to the page's, each row
naming its run (date, commit, command), so a cell measured again shows both runs;
``--fresh`` starts the page anew. Rows measured before a change to
the code they time are marked (:data:`CHANGES`).

Parts:
  speed   every family's preset (and the keras-hub peers) at 64, 256 and 1,024
          tokens: documents/s and ms per document, training and inference.
  peer    ``transformer`` and ``sanet-base`` against a classifier of the same
          size built from keras-hub's ``TransformerEncoder`` (same embedding,
          positional encoding, d, heads, feed-forward width and pooling):
          ratios ours / peer on the same batches (from the speed part), with their spread
          over the processes, peak memory ours / peer, and whether the goal (ours at
          least ``GOAL`` x the peer's rate, memory no higher) is met.
  flops   analytic FLOPs per document of the transformer-style models, the
          matmul rate this process attains (a 2,048-square float32 product),
          and the ratio achieved / attainable while training, at 512 tokens.
  memory  peak resident memory above the idle process while training SANet
          (base) on 8 texts of 64 ... 4,096 tokens: quadratic attention.

keras-hub is a benchmark-only dependency: ``pip install -r requirements-benchmarks.txt``.
Results: ``benchmarks/results/speed.md`` / ``.json`` and ``speed_memory.png``; the JSON's
``"provenance"`` (:func:`kerasattn.provenance.entry`) gives the commit, command, seed,
device, versions, UTC start and end and what cut the run.
"""

import argparse
import datetime
import io
import json
import os
import platform
import resource
import shlex
import statistics
import subprocess
import sys
import time

from kerasattn.cli.parsing import ArgumentParser

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
TOKENS_PER_BATCH = 8192
VOCAB = 20_000
# one preset per family, then the keras-hub peers
FAMILIES = ("sanet-base", "sanet-big", "hcan-2sa-target", "han", "iram-vanilla",
            "transformer", "gru")
PEERS = {"peer-transformer": "transformer", "peer-sanet-base": "sanet-base"}
FLOP_MODELS = ("sanet-base", "sanet-big", "transformer", "peer-transformer", "peer-sanet-base")
LENGTHS = (64, 256, 1024)
FLOP_LENGTH = 512
MEMORY_LENGTHS = (64, 256, 512, 1024, 2048, 4096)
MEMORY_BATCH = 8
DTYPES = ("float32", "bfloat16")
GOAL = 1.5  # ours / peer documents/s, training and inference (issue 78)
# (commit, mark, what it changed, the models whose timed code it changed)
CHANGES = (
    ("fb8f8f5", "f", "measured before the fused attention path (fb8f8f5): SANet's one-head "
     "block, the Transformer's and HCAN's attention take keras.ops.dot_product_attention "
     "when no weights are asked for; these rows time the code before it",
     ("sanet-base", "sanet-big", "transformer", "hcan-2sa-target")),
)


def hierarchical_shape(length):
    """(sentences, words) with about ``length`` tokens: 64 -> 8 x 8, 1024 -> 32 x 32."""
    s = max(1, round(length ** 0.5))
    return s, max(1, round(length / s))


def batch_size_for(length):
    return max(1, TOKENS_PER_BATCH // length)


# -- the peer ----------------------------------------------------------------------
def build_peer(name, vocab_size, num_classes=2):
    """A classifier of the same size as ``PEERS[name]`` built on keras-hub's
    ``TransformerEncoder`` (pre-built Q/K/V/output projections, its own masked
    softmax and layer norms): same embedding, sinusoidal encoding, d, heads,
    feed-forward width and pooling as our preset."""
    import keras

    try:
        import keras_hub
    except ImportError as e:
        raise SystemExit("the peer needs keras-hub: pip install -r requirements-benchmarks.txt"
                         ) from e
    from kerasattn import models
    from kerasattn.layers import InterAttention, MaskedGlobalMaxPooling1D

    ours = models.get_preset(PEERS[name]).model_config
    ids = keras.Input((None,), dtype="int32")
    mask = keras.ops.not_equal(ids, 0)  # given to every layer, as our models' masks are
    if PEERS[name] == "transformer":
        d, heads, ff, layers = (ours["embedding_dim"], ours["num_heads"], ours["ff_dim"],
                                ours["num_layers"])
        x = keras.layers.Embedding(vocab_size, d)(ids)
        x = x * d ** 0.5 + keras_hub.layers.SinePositionEncoding()(x)
        x = keras.layers.Dropout(ours["dropout"])(x)
        for _ in range(layers):
            x = keras_hub.layers.TransformerEncoder(ff, heads, dropout=ours["dropout"])(
                x, padding_mask=mask)
        x = InterAttention()(x, mask=mask)
        out = keras.layers.Dense(1, activation="sigmoid", dtype="float32")(x)
    else:  # SANet: embedding -> encoding -> linear to d -> block(s) -> masked max
        d = ours["d"]
        x = keras.layers.Embedding(vocab_size, ours["embedding_dim"])(ids)
        x = x + keras_hub.layers.SinePositionEncoding()(x)
        x = keras.layers.Dense(d)(x)
        for _ in range(ours["num_blocks"]):
            x = keras_hub.layers.TransformerEncoder(d, ours["num_heads"],
                                                    dropout=ours["dropout"])(x, padding_mask=mask)
        x = MaskedGlobalMaxPooling1D()(x, mask=mask)
        out = keras.layers.Dense(num_classes, activation="softmax", dtype="float32")(x)
    return keras.Model(ids, out, name=name)


def build(name):
    """(model, optimizer, loss) of a preset or a peer, ready to compile."""
    from kerasattn import heads, models, recipes

    preset = models.get_preset(PEERS.get(name, name))
    model = (build_peer(name, VOCAB) if name in PEERS
             else models.get(name, vocab_size=VOCAB, num_classes=2))
    optimizer = recipes.make_optimizer(preset)
    loss = heads.loss_and_accuracy(model)[0]
    return model, optimizer, loss


# -- analytic FLOPs ----------------------------------------------------------------
def forward_macs_per_document(name, length):
    """Multiply-adds of one document's forward pass, embedding lookup excluded.

    Transformer block (ours and keras-hub's): Q, K, V and output projections
    4·d² per token, scores and weighted sum 2·L·d, feed-forward 2·d·ff.
    SANet block: X W_QK and X W_V 2·d² (no output projection), scores and sum
    2·L·d, feed-forward 2·d² (d -> d -> d); the linear layer embedding -> d.
    The keras-hub SANet peer has four projections instead of two. Pooling:
    inter-attention d·d + d per token, max pooling nothing. Element-wise work
    is left out.
    """
    from kerasattn import models

    base = PEERS.get(name, name)
    c = models.get_preset(base).model_config
    L = length
    if base == "transformer":
        d, ff, n = c["embedding_dim"], c["ff_dim"], c["num_layers"]
        block = 4 * d * d + 2 * L * d + 2 * d * ff
        return L * (n * block + d * d + d)
    if base.startswith("sanet"):
        e, d, n = c["embedding_dim"], c["d"], c["num_blocks"]
        block = 2 * L * d + 2 * d * d + (4 * d * d if name in PEERS else 2 * d * d)
        return L * (e * d + n * block)
    raise ValueError(f"no FLOP count for {name}")


def training_flops_per_document(name, length):
    """Forward + backward (3 x forward), 2 FLOPs per multiply-add."""
    return 3 * 2 * forward_macs_per_document(name, length)


def attainable_gflops(size=2048, repeats=5):
    """GFLOP/s of a float32 size x size matmul in this process (median of repeats)."""
    import keras
    import numpy as np

    rng = np.random.default_rng(0)
    a = keras.ops.convert_to_tensor(rng.standard_normal((size, size), dtype=np.float32))
    b = keras.ops.convert_to_tensor(rng.standard_normal((size, size), dtype=np.float32))
    np.asarray(keras.ops.matmul(a, b))  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        np.asarray(keras.ops.matmul(a, b))
        times.append(time.perf_counter() - start)
    return 2 * size ** 3 / statistics.median(times) / 1e9


# -- one measurement (in its own process) ------------------------------------------
def rss_mib():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _timed(fn, steps, repeats):
    rounds = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            fn()
        rounds.append((time.perf_counter() - start) / steps)
    return statistics.median(rounds)


def measure(name, length, jit, batch=None, steps=3, repeats=5, infer=True, attainable=False,
            dtype="float32"):
    """One row: training and inference seconds per step and documents/s."""
    import keras
    import numpy as np

    from kerasattn import models, recipes

    if dtype not in DTYPES:
        raise ValueError(f"dtype {dtype!r}: one of {', '.join(DTYPES)}")
    recipes.set_precision("off" if dtype == "float32" else dtype)
    idle = rss_mib()
    batch = batch or batch_size_for(length)
    model, optimizer, loss = build(name)
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    hierarchical = name not in PEERS and models.get_preset(name).hierarchical
    shape = (batch, *hierarchical_shape(length)) if hierarchical else (batch, length)
    x = rng.integers(2, VOCAB, size=shape).astype("int32")
    y = rng.integers(0, 2, size=batch).astype("int32")
    model.compile(optimizer=optimizer, loss=loss, jit_compile=jit)
    for _ in range(2):
        model.train_on_batch(x, y)
    train_s = _timed(lambda: model.train_on_batch(x, y), steps, repeats)
    row = {"model": name, "length": int(np.prod(shape[1:])), "shape": list(shape),
           "jit": jit, "dtype": dtype, "batch": batch, "parameters": int(model.count_params()),
           "train_s_per_step": train_s, "train_docs_per_s": batch / train_s}
    if infer:
        for _ in range(2):
            model.predict_on_batch(x)
        infer_s = _timed(lambda: model.predict_on_batch(x), steps, repeats)
        row.update(infer_s_per_step=infer_s, infer_docs_per_s=batch / infer_s)
    row["peak_rss_mib_above_idle"] = (
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - idle)
    if attainable:
        flops = training_flops_per_document(name, length) * batch
        row["achieved_train_gflops"] = flops / train_s / 1e9
        row["attainable_gflops"] = attainable_gflops()
        row["utilisation"] = row["achieved_train_gflops"] / row["attainable_gflops"]
    return row


def _worker(spec):
    row = measure(**spec)
    print("ROW " + json.dumps(row), flush=True)


def run_in_process(spec, log):
    """``measure(**spec)`` in a fresh Python process; returns its row."""
    cmd = [sys.executable, "-m", "benchmarks.speed", "--worker", json.dumps(spec)]
    out = subprocess.run(cmd, capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    rows = [json.loads(line[4:]) for line in out.stdout.splitlines() if line.startswith("ROW ")]
    if out.returncode != 0 or not rows:
        raise RuntimeError(f"measurement {spec} failed:\n{out.stderr[-3000:]}")
    r = rows[0]
    log(f"  {r['model']:<16} {r['length']:>5} tokens x {r['batch']:>3}  jit={str(r['jit']):<5} "
        f"{r.get('dtype', 'float32'):<8} "
        f"train {r['train_docs_per_s']:8.1f} docs/s"
        + (f"  infer {r['infer_docs_per_s']:9.1f} docs/s" if "infer_docs_per_s" in r else "")
        + f"  peak +{r['peak_rss_mib_above_idle']:.0f} MiB"
        + (f"  {r['achieved_train_gflops']:.0f}/{r['attainable_gflops']:.0f} GFLOP/s "
           f"({r['utilisation']:.0%})" if "utilisation" in r else ""))
    return r


def machine():
    import keras

    model = ""
    try:
        with open("/proc/cpuinfo") as fh:
            model = next(line.split(":", 1)[1].strip() for line in fh
                         if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"{platform.machine()} {platform.system()}, {os.cpu_count()} CPUs ({model}), "
            f"Keras {keras.__version__} on {keras.backend.backend()}")


# -- the report ----------------------------------------------------------------------
def _key(r):
    return (r["model"], r["length"], r["jit"], r.get("dtype", "float32"))


def _mean_sd(values):
    """(mean, sample standard deviation or None for one value)."""
    return (statistics.fmean(values),
            statistics.stdev(values) if len(values) > 1 else None)


def _figure(values, decimals):
    mean, sd = _mean_sd(values)
    return f"{mean:.{decimals}f}" + ("" if sd is None else f" ± {sd:.{decimals}f}")


def cells(rows):
    """{(model, length, jit, dtype, run): [rows, one per process, in repeat order]}."""
    out = {}
    for r in rows:
        out.setdefault((*_key(r), r.get("run", 0)), []).append(r)
    for group in out.values():
        group.sort(key=lambda r: r.get("repeat", 0))
    return out


def peer_ratios(rows):
    """{(ours, length, jit, dtype, run): {"train": [...], "infer": [...], "memory": [...]}}:
    ours / peer per process turn (repeat k of ours against repeat k of the peer, in the
    same run, on the same batches)."""
    by = cells(rows)
    out = {}
    for peer, ours in PEERS.items():
        for (m, length, jit, dtype, run), mine in by.items():
            theirs = by.get((peer, length, jit, dtype, run))
            if m != ours or theirs is None:
                continue
            pairs = list(zip(mine, theirs))
            out[(ours, length, jit, dtype, run)] = {
                "train": [a["train_docs_per_s"] / b["train_docs_per_s"] for a, b in pairs],
                "infer": [a["infer_docs_per_s"] / b["infer_docs_per_s"] for a, b in pairs],
                "memory": [a["peak_rss_mib_above_idle"] / b["peak_rss_mib_above_idle"]
                           for a, b in pairs]}
    return out


def work_ratio(model, length):
    """The peer's multiply-adds per document over ours: the documents/s ratio both reach
    at the same FLOP rate (1 for the transformer, whose peer does the same products)."""
    peer = next(p for p, ours in PEERS.items() if ours == model)
    return forward_macs_per_document(peer, length) / forward_macs_per_document(model, length)


def shortfall(ratio):
    """What of the goal a peer ratio misses: ``"met"``, or the parts below it."""
    short = [part for part, low in (("training", ratio["train"]), ("inference", ratio["infer"]))
             if statistics.fmean(low) < GOAL]
    if statistics.fmean(ratio["memory"]) > 1:
        short.append("memory")
    return "met" if not short else "short: " + ", ".join(short)


def marks(row, runs):
    """The marks of :data:`CHANGES` a row carries: measured before a change to its code."""
    from kerasattn import records

    run = runs.get(row.get("run", 0), {})
    seed = {"provenance": run.get("provenance") or {}, "measured": run.get("date")}
    return "".join(mark for change, mark, _, models_ in CHANGES
                   if PEERS.get(row["model"], row["model"]) in models_
                   and row["model"] not in PEERS
                   and records.relation(seed, change) != records.AFTER)


def merge(old, new):
    """The page's record after a run: ``old``'s rows and ``new``'s, each naming its run
    (``old`` from before runs were numbered is one run: its date, command and
    provenance); a cell measured again keeps its earlier run's row beside the new one."""
    runs = list(old.get("runs") or [])
    if old and not runs:  # a page from before runs were numbered
        runs = [{k: old.get(k) for k in ("date", "command", "machine", "steps", "repeats",
                                         "provenance")}]
    number = max((r["run"] for r in runs if "run" in r), default=len(runs) - 1) + 1
    for i, r in enumerate(runs):
        r.setdefault("run", i)
    kept = [{**r, "run": r.get("run", 0)} for r in old.get("speed") or []]
    for r in new["speed"]:
        r["run"] = number
    runs.append({"run": number, **{k: new.get(k) for k in (
        "date", "command", "machine", "steps", "repeats", "provenance")}})
    return {**new, "runs": runs, "speed": kept + new["speed"],
            "flops": new["flops"] or old.get("flops") or [],
            "memory": new["memory"] or old.get("memory") or []}


def write_report(result, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kerasattn import ownership, provenance

    rows, flops, memory = result["speed"], result["flops"], result["memory"]
    runs = {r.get("run", 0): r for r in result.get("runs") or [
        {"run": 0, **{k: result.get(k) for k in ("date", "command", "machine", "steps",
                                                  "repeats", "provenance")}}]}
    lines = ["# Speed: training and inference throughput, keras-hub peer, FLOP utilisation, "
             "memory", "",
             f"Fixed batches of random ids ({TOKENS_PER_BATCH} tokens a batch, no padding), "
             "each measurement in a fresh process: two warm-up calls, then the median of the "
             "run's rounds of calls. With several processes a cell gives the mean ± standard "
             "deviation over them. Peak memory is the process's maximum resident set above its "
             "size before the model was built. `bfloat16` is Keras's `mixed_bfloat16` policy.",
             "", "## Runs", ""]
    for number, run in sorted(runs.items()):
        lines.append(f"- run {number}: {run.get('date')}, `{run.get('command')}` on "
                     f"{run.get('machine')}; the median of {run.get('repeats')} rounds of "
                     f"{run.get('steps')} calls. "
                     + (provenance.describe(run["provenance"]) if run.get("provenance")
                        else "Provenance: commit unknown (recorded before provenance)."))
    used = {m for r in rows for m in marks(r, runs)}
    if used:
        lines += ["", "Marks: " + "; ".join(f"`{mark}` {meaning}" for _, mark, meaning, _ in
                                           CHANGES if mark in used) + "."]
    if rows:
        lines += ["", "## Throughput per family", "",
                  "| model | tokens (shape) | jit | dtype | params | train docs/s | train ms/doc "
                  "| infer docs/s | infer ms/doc | peak MiB | run |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for (m, length, jit, dtype, run), group in sorted(cells(rows).items()):
            r = group[0]
            train = [g["train_docs_per_s"] for g in group]
            infer = [g["infer_docs_per_s"] for g in group]
            lines.append(
                f"| {m} | {length} ({' x '.join(map(str, r['shape'][1:]))}) | "
                f"{'on' if jit else 'off'} | {dtype} | {r['parameters']:,} | "
                f"{_figure(train, 1)} | {1000 / statistics.fmean(train):.2f} | "
                f"{_figure(infer, 1)} | {1000 / statistics.fmean(infer):.2f} | "
                f"{_figure([g['peak_rss_mib_above_idle'] for g in group], 0)} | "
                f"{run}{(' ' + marks(r, runs)) if marks(r, runs) else ''} |")
        ratios = peer_ratios(rows)
        if ratios:
            lines += ["", "## Ours / keras-hub peer of the same size", "",
                      f"Documents/s ours / the peer's (> 1: ours is faster) and peak memory "
                      f"ours / the peer's (< 1: ours uses less), each the mean ± standard "
                      f"deviation of the ratios within each process turn. Goal: at least "
                      f"{GOAL}x the peer's rate, training and inference, memory no higher. "
                      "Work: the peer's multiply-adds per document over ours "
                      "(`forward_macs_per_document`), the ratio both would reach at the same "
                      "FLOP rate.",
                      "", "| model | tokens | jit | dtype | n | training | inference | memory "
                      "| work | goal | run |", "|---|---|---|---|---|---|---|---|---|---|---|"]
            for (m, length, jit, dtype, run), ratio in sorted(ratios.items()):
                mark = marks({"model": m, "run": run}, runs)
                lines.append(f"| {m} | {length} | {'on' if jit else 'off'} | {dtype} | "
                             f"{len(ratio['train'])} | {_figure(ratio['train'], 2)} | "
                             f"{_figure(ratio['infer'], 2)} | {_figure(ratio['memory'], 2)} | "
                             f"{work_ratio(m, length):.2f} | {shortfall(ratio)} | {run}{(' ' + mark) if mark else ''} |")
    if flops:
        lines += ["", f"## FLOP utilisation while training ({FLOP_LENGTH} tokens)", "",
                  "Analytic FLOPs (`forward_macs_per_document` in `benchmarks/speed.py`: matrix "
                  "products only, embedding excluded, training = 3 x forward); attainable = a "
                  "2,048-square float32 matmul in the same process.", "",
                  "| model | jit | GFLOP per training document | achieved GFLOP/s "
                  "| attainable GFLOP/s | utilisation |", "|---|---|---|---|---|---|"]
        for r in flops:
            lines.append(f"| {r['model']} | {'on' if r['jit'] else 'off'} | "
                         f"{training_flops_per_document(r['model'], r['length']) / 1e9:.3f} | "
                         f"{r['achieved_train_gflops']:.0f} | {r['attainable_gflops']:.0f} | "
                         f"{r['utilisation']:.0%} |")
    if memory:
        lines += ["", f"## Peak memory of SANet training ({MEMORY_BATCH} texts a batch)", "",
                  "| tokens | train s/step | peak MiB above idle |", "|---|---|---|"]
        for r in memory:
            lines.append(f"| {r['length']} | {r['train_s_per_step']:.3f} | "
                         f"{r['peak_rss_mib_above_idle']:.0f} |")
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot([r["length"] for r in memory], [r["peak_rss_mib_above_idle"] for r in memory],
                "o-", label="sanet-base, training")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("tokens per text")
        ax.set_ylabel(f"peak MiB above idle ({MEMORY_BATCH} texts)")
        ax.set_title("SANet's attention is quadratic in length")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        png = os.path.splitext(path)[0] + "_memory.png"
        image = io.BytesIO()
        fig.savefig(image, format="png", dpi=120)
        ownership.write_bytes(png, image.getvalue())
        plt.close(fig)
        lines += ["", f"The curve: `{os.path.basename(png)}`."]
    ownership.write_text(path, "\n".join(lines) + "\n")
    return "\n".join(lines)


def main(argv=None):
    p = ArgumentParser(prog="python -m benchmarks.speed",
                       description=__doc__.split("\n\n")[0],
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--part", nargs="+", default=["speed", "flops", "memory"],
                   choices=["speed", "flops", "memory"])
    p.add_argument("--models", nargs="+", default=[*FAMILIES, *PEERS],
                   help="speed part: presets and peers to time")
    p.add_argument("--lengths", nargs="+", type=int, default=list(LENGTHS))
    p.add_argument("--memory-lengths", nargs="+", type=int, default=list(MEMORY_LENGTHS))
    p.add_argument("--jit", choices=["both", "on", "off"], default="both")
    p.add_argument("--dtypes", nargs="+", choices=DTYPES, default=["float32"],
                   help="speed part: float32 and/or bfloat16 (mixed_bfloat16)")
    p.add_argument("--processes", type=int, default=1,
                   help="speed part: measure each cell this many times, each in its own "
                        "process, the models taking turns (mean and spread on the page)")
    p.add_argument("--fresh", action="store_true",
                   help="start the page anew instead of keeping the rows this run does "
                        "not measure")
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--output", default=os.path.join(RESULTS, "speed.md"))
    args = p.parse_args(argv)
    if args.worker:
        _worker(json.loads(args.worker))
        return 0
    from kerasattn import models, ownership, provenance

    start = provenance.started(provenance.command_of("benchmarks.speed", argv), 0)
    for m in args.models:
        if m not in PEERS and m not in models.names("keras"):
            p.error(f"unknown model {m!r}")

    def log(msg):
        print(msg, flush=True)

    jits = {"both": [False, True], "on": [True], "off": [False]}[args.jit]
    timing = {"steps": args.steps, "repeats": args.repeats}
    result = {"date": datetime.date.today().isoformat(),
              "command": ("python -m benchmarks.speed " + shlex.join(
                  sys.argv[1:] if argv is None else argv)).strip(),
              "machine": machine(), **timing, "speed": [], "flops": [], "memory": []}
    log(result["machine"])
    if args.processes < 1:
        p.error(f"--processes {args.processes}: at least 1")
    if "speed" in args.part:
        log("speed (and the peer comparison):")
        for length in args.lengths:
            for dtype in args.dtypes:
                for jit in jits:
                    for repeat in range(args.processes):  # the models take turns
                        for m in args.models:
                            row = run_in_process({"name": m, "length": length, "jit": jit,
                                                  "dtype": dtype, **timing}, log)
                            result["speed"].append({**row, "repeat": repeat})
    if "flops" in args.part:
        log(f"FLOP utilisation at {FLOP_LENGTH} tokens:")
        for m in FLOP_MODELS:
            for jit in jits:
                result["flops"].append(run_in_process(
                    {"name": m, "length": FLOP_LENGTH, "jit": jit, "infer": False,
                     "attainable": True, **timing}, log))
    if "memory" in args.part:
        log("peak memory of sanet-base training:")
        for length in args.memory_lengths:
            result["memory"].append(run_in_process(
                {"name": "sanet-base", "length": length, "jit": False, "batch": MEMORY_BATCH,
                 "infer": False, "steps": 1, "repeats": 3}, log))
    result["provenance"] = provenance.entry(start)
    record = os.path.splitext(args.output)[0] + ".json"
    if not args.fresh and os.path.exists(record):
        with open(record, encoding="utf-8") as fh:
            result = merge(json.load(fh), result)
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    ownership.write_json(record, result)
    log(write_report(result, args.output))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
