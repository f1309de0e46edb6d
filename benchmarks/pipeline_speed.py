"""Throughput of the tf.data text pipeline, so it is never the bottleneck.

    python -m benchmarks.pipeline_speed [--dataset imdb] [--max-length 400] [--batch-size 32]

Measures, on the training split: the first pass (normalise, tokenise, look up,
bucket, pad: what epoch 1 pays), cached passes (every later epoch), the
hierarchical variant, and the padding wasted with and without bucketing.
Prints the figures and writes ``benchmarks/results/pipeline_speed.md``, with one line
naming the commit, the device and when it ran (``kerasattn.provenance``).
"""

import datetime
import os
import statistics
import time

from kerasattn.cli.parsing import ArgumentParser

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def run_pass(ds):
    start, tokens, cells, texts = time.perf_counter(), 0, 0, 0
    for x, _ in ds:
        x = x.numpy()
        tokens += int((x > 0).sum())
        cells += x.size
        texts += x.shape[0]
    return time.perf_counter() - start, tokens, cells, texts


def main(argv=None):
    p = ArgumentParser(prog="python -m benchmarks.pipeline_speed")
    p.add_argument("--dataset", default="imdb")
    p.add_argument("--max-length", type=int, default=400)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--results", default=os.path.join(os.path.dirname(__file__), "results",
                                                     "pipeline_speed.md"))
    args = p.parse_args(argv)

    from kerasattn import provenance, runs
    from kerasattn.data import datasets
    from kerasattn.data.pipeline import make_dataset
    from kerasattn.data.preprocessing import TextPreprocessor

    start = provenance.started(provenance.command_of("benchmarks.pipeline_speed", argv), 0)
    ds = datasets.load(args.dataset)
    texts, labels = ds.train.texts, ds.train.labels
    t0 = time.perf_counter()
    pre = TextPreprocessor(max_length=args.max_length).adapt(texts, min_freq=2, max_size=50000)
    vocab_s = time.perf_counter() - t0

    rows = []

    def record(name, seconds, tokens, cells, n):
        rows.append((name, n / seconds, tokens / seconds, 1 - tokens / cells,
                     (cells - tokens) / tokens))
        print(f"{name:<48} {n / seconds:>10,.0f} texts/s {tokens / seconds:>12,.0f} tokens/s "
              f"padding {1 - tokens / cells:.1%} of the cells, padded / real tokens "
              f"{(cells - tokens) / tokens:.1%}", flush=True)

    bucketed = make_dataset(texts, labels, pre, args.batch_size, shuffle=True, seed=0)
    record("flat, first pass (tokenise + bucket)", *run_pass(bucketed))
    cached = [run_pass(bucketed) for _ in range(args.repeats)]
    med = statistics.median(c[0] for c in cached)
    record(f"flat, cached pass (median of {args.repeats})", med, *cached[0][1:])
    plain = make_dataset(texts, labels, pre, args.batch_size, shuffle=True, seed=0, bucket=False)
    run_pass(plain)
    record("flat, cached pass, no bucketing", *run_pass(plain))
    hier = TextPreprocessor(mode="hcan", hierarchical=True, max_sentences=32,
                            max_words=64).adapt(texts, min_freq=2, max_size=50000)
    hds = make_dataset(texts, labels, hier, args.batch_size, shuffle=True, seed=0)
    record("hierarchical (32 sent. x 64 words), first pass", *run_pass(hds))
    record("hierarchical, cached pass", *run_pass(hds))

    env = runs.environment()
    lines = [
        "# tf.data pipeline throughput",
        "",
        f"Measured {datetime.date.today()} with `python -m benchmarks.pipeline_speed "
        f"--dataset {args.dataset} --max-length {args.max_length} --batch-size "
        f"{args.batch_size}` on {env['machine']}, TensorFlow {env['tensorflow']}.",
        f"{len(texts):,} training texts; vocabulary built in {vocab_s:.1f}s. Tokens are real "
        "(non-padding) ids delivered per second; padding is the share of padded cells, "
        "waste the padded tokens over the real ones (goal for the bucketed flat pipeline: "
        "<= 10%). Buckets are 2^(1/4) apart (`kerasattn.data.pipeline.bucket_boundaries`).",
        "",
        provenance.describe(provenance.entry(start)),
        "",
        "| pass | texts/s | tokens/s | padding (of cells) | waste (padded / real) |",
        "|---|---|---|---|---|",
        *[f"| {n} | {a:,.0f} | {b:,.0f} | {c:.1%} | {w:.1%} |" for n, a, b, c, w in rows],
        "",
    ]
    os.makedirs(os.path.dirname(args.results), exist_ok=True)
    with open(args.results, "w") as fh:
        fh.write("\n".join(lines))


if __name__ == "__main__":
    main()
