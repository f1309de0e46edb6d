"""Streaming a CSV dataset of Amazon-polarity size in bounded memory.

    python -m benchmarks.streaming [--rows 3600000] [--dir /tmp/kerasattn-streaming]

Writes (once) a synthetic ``amazon_polarity``-shaped dataset: a headerless
Zhang et al. CSV of ``--rows`` training rows (``"class","title","text"``,
words drawn from a Zipf-like vocabulary of 50,000 words, ~80 words a row) and a
small test file. Then, each in a fresh process so its peak resident memory is
its own, for the first tenth of the rows and for all of them: the streamed
vocabulary (:meth:`TextPreprocessor.adapt` on the ``tf.data`` rows), then one
pass of the streamed training pipeline (shuffle buffer of 100,000 rows,
tokenise, look up, bucket, pad). Prints rows/s per phase and peak RSS, and
writes ``benchmarks/results/streaming.{md,json}`` (the JSON's ``"provenance"``,
:func:`kerasattn.provenance.entry`: commit, command, seed, device, versions, UTC start
and end, what cut the run). The goal: peak RSS under 2 GiB at 3.6 million rows, and not
growing with the rows.
"""

import argparse
import datetime
import json
import os
import resource
import subprocess
import sys
import time

from kerasattn.cli.parsing import ArgumentParser

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
RESULTS = os.path.join(os.path.dirname(__file__), "results")
VOCAB, CHUNK = 50_000, 100_000


def generate(path, rows, seed=0):
    """A Zhang et al. CSV of ``rows`` rows; the class shifts the word distribution."""
    import numpy as np

    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(VOCAB)])
    weights = 1.0 / np.arange(1, VOCAB + 1)
    weights /= weights.sum()
    tmp = path + ".part"
    with open(tmp, "w", encoding="utf-8") as fh:
        for start in range(0, rows, CHUNK):
            n = min(CHUNK, rows - start)
            labels = rng.integers(1, 3, n)
            lengths = rng.integers(20, 140, n)
            ids = rng.choice(VOCAB, size=int(lengths.sum()), p=weights)
            ids = (ids + np.repeat(labels, lengths) * 7) % VOCAB  # class-dependent words
            text = np.split(words[ids], np.cumsum(lengths)[:-1])
            fh.write("".join(f'"{y}","{" ".join(t[:5])}","{" ".join(t[5:])}"\n'
                             for y, t in zip(labels, text)))
            print(f"\rwriting {path}: {start + n:,} / {rows:,} rows", end="", flush=True)
    print()
    os.replace(tmp, path)


def measure(data_dir, limit, batch_size=64, shuffle_buffer=100_000):
    """Vocabulary + one pipeline pass over the first ``limit`` train rows, in this process."""
    from kerasattn.data import streaming
    from kerasattn.data.pipeline import make_stream_dataset
    from kerasattn.data.preprocessing import TextPreprocessor

    path = os.path.join(data_dir, "amazon_polarity", "train.csv")
    train = streaming.csv_rows([path], 2).take(limit).map(lambda t, y, p, n: (t, y))
    start = time.perf_counter()
    pre = TextPreprocessor(max_length=400).adapt(train.map(lambda t, y: t),
                                                 max_size=50_000, progress=True)
    vocab_s = time.perf_counter() - start
    rows = pre.adapted_texts
    batches = make_stream_dataset(train, pre, batch_size, shuffle_buffer=shuffle_buffer, seed=0)
    start, seen, tokens, cells = time.perf_counter(), 0, 0, 0
    for x, _ in batches:
        x = x.numpy()
        seen += x.shape[0]
        tokens += int((x > 0).sum())
        cells += x.size
        if seen % (batch_size * 2000) < batch_size:
            print(f"\rpipeline: {seen:,} rows", end="", flush=True)
    pass_s = time.perf_counter() - start
    print()
    assert seen == rows, (seen, rows)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    return {"rows": rows, "vocabulary_seconds": round(vocab_s, 1),
            "vocabulary_rows_per_second": round(rows / vocab_s),
            "pipeline_seconds": round(pass_s, 1),
            "pipeline_rows_per_second": round(rows / pass_s),
            "padding_waste": round(cells / max(tokens, 1) - 1, 4),
            "peak_rss_bytes": peak, "peak_rss_gib": round(peak / 2**30, 3)}


def main(argv=None):
    p = ArgumentParser(prog="python -m benchmarks.streaming", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=3_600_000)
    p.add_argument("--dir", default=os.path.join("/tmp", "kerasattn-streaming"))
    p.add_argument("--measure", type=int, metavar="ROWS", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.measure:  # the child process
        print("RESULT " + json.dumps(measure(args.dir, args.measure)), flush=True)
        return 0

    from kerasattn import provenance

    # the synthetic data's seed (0; its test file 1)
    start = provenance.started(provenance.command_of("benchmarks.streaming", argv), 0)
    folder = os.path.join(args.dir, "amazon_polarity")
    os.makedirs(folder, exist_ok=True)
    train = os.path.join(folder, "train.csv")
    if not os.path.exists(train) or sum(1 for _ in open(train, "rb")) != args.rows:
        generate(train, args.rows)
        generate(os.path.join(folder, "test.csv"), 1000, seed=1)
    results = []
    for rows in (args.rows // 10, args.rows):
        print(f"measuring {rows:,} rows in a fresh process ...", flush=True)
        out = subprocess.run([sys.executable, "-m", "benchmarks.streaming", "--dir", args.dir,
                              "--measure", str(rows)], stdout=subprocess.PIPE, text=True,
                             check=True).stdout
        r = json.loads(next(line for line in out.splitlines() if line.startswith("RESULT "))[7:])
        print(json.dumps(r))
        results.append(r)

    from kerasattn import runs

    record = {"measured": datetime.date.today().isoformat(),
              "command": "python -m benchmarks.streaming " + " ".join(argv or sys.argv[1:]),
              "environment": runs.environment(), "file_bytes": os.path.getsize(train),
              "results": results, "provenance": provenance.entry(start)}
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, "streaming.json"), "w") as fh:
        json.dump(record, fh, indent=2)
    lines = [
        "# Streaming a 3.6-million-row CSV: vocabulary + one pipeline pass",
        "",
        f"`{record['command']}` on {record['environment']['machine']}, "
        f"{record['measured']}; synthetic amazon_polarity-shaped CSV, "
        f"{record['file_bytes'] / 2**30:.2f} GiB. Each row count in a fresh process; "
        "peak RSS is the process's maximum resident set (TensorFlow itself included).",
        "",
        provenance.describe(record["provenance"]),
        "",
        "| rows | vocabulary rows/s | pipeline rows/s | padding waste | peak RSS (GiB) |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| {r['rows']:,} | {r['vocabulary_rows_per_second']:,} "
              f"| {r['pipeline_rows_per_second']:,} | {r['padding_waste']:.1%} "
              f"| {r['peak_rss_gib']:.2f} |" for r in results]
    goal = results[-1]["peak_rss_gib"] < 2.0
    lines += ["", f"Goal (peak RSS < 2 GiB at {results[-1]['rows']:,} rows): "
              f"{'met' if goal else '**not met**'}."]
    with open(os.path.join(RESULTS, "streaming.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
