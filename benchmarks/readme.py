"""The README's results tables and docs/benchmarks.md's commands for them, from the records.

``python -m benchmarks.readme`` rewrites the part of README.md between
``<!-- results:start -->`` and ``<!-- results:end -->`` and the part of docs/benchmarks.md
between ``<!-- commands:start -->`` and ``<!-- commands:end -->`` from
``benchmarks/results/*.json`` (``--check`` only says whether they are up to date);
``tests/test_readme_figures.py`` fails when either differs. Which record stands behind each
cell is :data:`DEFAULTS` and :data:`LEVERS` below; the rendering and the marks are
:mod:`kerasattn.records`'.
"""

import argparse
import functools
import json
import os
import sys

from kerasattn import ownership
from kerasattn.records import Change, Row, render_table, seeds_of

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "benchmarks", "results")
README = os.path.join(ROOT, "README.md")
BENCHMARKS_PAGE = os.path.join(ROOT, "docs", "benchmarks.md")
COLUMNS = ("SST-2", "IMDB")
ATTENTION = ("sanet", "can-", "hcan-", "han", "iram", "transformer")

def _fused(name):
    """Whether a record's model reaches attention through the fused path of fb8f8f5
    (benchmarks.speed's CHANGES names the same models): SANet with self-attention, the
    Transformer, HCAN and its one-level CAN."""
    return (name.startswith(("sanet-base", "sanet-big", "transformer", "hcan-", "can-"))
            and not name.startswith("sanet-baseline"))


CHANGES = (
    Change("76bcf6e", "i", "measured before the initialiser fix (76bcf6e: until then the "
           "attention layers gave one initializer instance to several weights, which "
           "started equal)", applies=lambda name, seeds: name.startswith(ATTENTION)),
    Change("fb8f8f5", "f", "measured before the fused attention path (fb8f8f5: since then "
           "SANet's one-head block, the Transformer's and HCAN's attention take "
           "keras.ops.dot_product_attention, equal outputs to float tolerance, so the same "
           "seed trains another trajectory)", applies=lambda name, seeds: _fused(name)),
    Change("c74cd43", "s", "measured before the shuffle change (c74cd43: until then "
           "`training.train` fed the batches in bucketing's order)",
           applies=lambda name, seeds: all(s.get("best_epoch", 0) is not None
                                           and not s.get("fitted_by") for s in seeds)),
)


def _row(label, suite=None, sst2=None, imdb=None):
    cells = {}
    for column, name in (("SST-2", sst2), ("IMDB", imdb)):
        if name:
            cells[column] = name if isinstance(name, tuple) else (suite, name)
    return Row(label, cells)


# Each preset with its default recipe and no other flag than --model and --dataset.
DEFAULTS = (
    _row("`cnn`", "defaults", "cnn-sst2", "cnn-imdb"),
    _row("`mlp`", "defaults", "mlp-sst2", "mlp-imdb"),
    _row("`gru`", "defaults", "gru-sst2", "gru-imdb"),
    _row("`rnn`", "defaults", "rnn-sst2", "rnn-imdb"),
    _row("`lstm`", "defaults", "lstm-sst2", "lstm-imdb"),
    _row("`bilstm`", "defaults", "bilstm-sst2", "bilstm-imdb"),
    _row("`sanet-base`", "defaults", "sanet-base-sst2", "sanet-base-imdb"),
    _row("`sanet-baseline-base` (no self-attention)", "defaults",
         "sanet-baseline-base-sst2", "sanet-baseline-base-imdb"),
    _row("`sanet-big`", "defaults", "sanet-big-sst2"),
    _row("`transformer`", "defaults", "transformer-sst2", "transformer-imdb"),
    _row("`han`", "defaults", "han-sst2", "han-imdb"),
    _row("`hcan-1sa-maxpool`", "defaults", "hcan-1sa-maxpool-sst2", "hcan-1sa-maxpool-imdb"),
    _row("`hcan-2sa-target`", "defaults", "hcan-2sa-target-sst2", "hcan-2sa-target-imdb"),
    _row("`iram-vanilla`", "defaults", "iram-vanilla-sst2", "iram-vanilla-imdb"),
    _row("`iram-full`", "defaults", "iram-full-sst2", "iram-full-imdb"),
)

# A preset with one lever, which the row names (its exact command: docs/benchmarks.md).
LEVERS = (
    _row("`cnn` + in-domain word vectors", "wordvectors", "cnn-sst2-vectors",
         "cnn-imdb-vectors-whole"),
    _row("`cnn` through `TextClassifier` (the Python quickstart)", "quickstart", "runs"),
    _row("`lr`, L2 at C = 10", "levers", "lr-sst2-l2c10", "lr-imdb-l2c10"),
    _row("`gru`, 400 tokens, 4 epochs", "baselines", imdb="gru"),
    _row("`gru` + in-domain word vectors, `--recipe paper`", "wordvectors",
         "gru-sst2-vectors"),
    _row("`iram-vanilla` + in-domain word vectors", "wordvectors",
         "iram-vanilla-sst2-vectors"),
    _row("`sanet-base` + in-domain word vectors", "wordvectors", "sanet-base-sst2-vectors",
         "sanet-base-imdb-vectors"),
    _row("`sanet-baseline-base` + in-domain word vectors", "wordvectors",
         imdb="sanet-baseline-base-imdb-vectors"),
    _row("`transformer` + in-domain word vectors", "wordvectors", "transformer-sst2-vectors",
         "transformer-imdb-vectors"),
)

LEGEND = (
    ("g", "fitted on a GPU (one NVIDIA H100 80GB HBM3) by `training.portable` under JAX"),
    ("p", "fitted by `training.portable` under JAX on the same 2 CPU cores"),
    ("t", "a time limit cut the runs (the record says where; the best epoch is kept)"),
    ("n=N", "over seeds 0 to N-1 rather than 0–2"),
    *((c.mark, c.meaning) for c in CHANGES),
    ("?", "no commit in the record (it predates provenance, 2026-12-02), and dated on or "
          "after the day of a change that applies to it: whether it ran on that change "
          "cannot be proved"),
)


@functools.lru_cache(maxsize=None)
def load(stem):
    """A results file's JSON; the quickstart's runs as one record named ``runs``."""
    with open(os.path.join(RESULTS, f"{stem}.json"), encoding="utf-8") as fh:
        data = json.load(fh)
    if stem == "quickstart":
        return {"runs": {"seeds": [
            {"test": {"accuracy": r["test_accuracy"]}, "seed": r["seed"],
             "machine": data["machine"], "measured": data["measured"],
             **({"provenance": r["provenance"]} if "provenance" in r else {})}
            for r in data["runs"]]}}
    return data


def tables():
    """The README's results part: both tables and the legend."""
    legend = "; ".join(f"<sup>{mark}</sup> {meaning}" for mark, meaning in LEGEND)
    return "\n".join([
        "**Each preset's default recipe**, no flag but `--model` and `--dataset`:",
        "",
        *render_table(DEFAULTS, COLUMNS, load, CHANGES, ROOT),
        "",
        "**One lever each**, named in the row (the exact commands: "
        "[the README tables' commands](docs/benchmarks.md#the-readme-table)):",
        "",
        *render_table(LEVERS, COLUMNS, load, CHANGES, ROOT),
        "",
        f"Marks: {legend}.",
    ])


def command_of(stem, name):
    """The command that measures one record, and what its record says of where it ran."""
    if stem == "quickstart":
        return "python -m benchmarks.quickstart --seeds 10", ""
    from benchmarks import accuracy

    cli, _ = accuracy.SUITES[stem][0][name]
    seeds = seeds_of(load(stem), name)
    notes = []
    machines = sorted({s["machine"] for s in seeds})
    if any(s.get("fitted_by") for s in seeds):
        notes.append(f"prepared here, fitted by `training.portable fit` on {', '.join(machines)}"
                     " and recorded with `--reuse`")
    if any(s.get("cut") for s in seeds):
        where = "; ".join(f"seed {i}: epoch {s['cut']['epoch']}"
                          for i, s in enumerate(seeds) if s.get("cut"))
        notes.append(f"cut by a time limit ({where}; the record keeps where, not the limit)")
    commits = {(s.get("provenance") or {}).get("commit") for s in seeds}
    notes.append("commit unknown" if commits == {None} else
                 "commit " + ", ".join(sorted(c[:7] for c in commits if c)))
    return (f"python -m benchmarks.accuracy --suite {stem} --only {name} "
            f"--seeds {len(seeds)}  # python -m training.train {' '.join(cli)}",
            "; ".join(notes))


def commands():
    """docs/benchmarks.md's list of every README cell's command."""
    lines = []
    for row in (*DEFAULTS, *LEVERS):
        for column, (stem, name) in row.cells.items():
            command, notes = command_of(stem, name)
            lines.append(f"- {row.label}, {column}: `{command}`" + (f" ({notes})" if notes
                                                                   else ""))
    return "\n".join(lines)


def between(text, start, end, new):
    a, b = text.index(start) + len(start), text.index(end)
    return text[:a] + "\n" + new + "\n" + text[b:]


def expected():
    """``{path: text}`` of the two pages as the records make them."""
    out = {}
    with open(README, encoding="utf-8") as fh:
        out[README] = between(fh.read(), "<!-- results:start -->", "<!-- results:end -->",
                              tables())
    with open(BENCHMARKS_PAGE, encoding="utf-8") as fh:
        out[BENCHMARKS_PAGE] = between(fh.read(), "<!-- commands:start -->",
                                       "<!-- commands:end -->", commands())
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.readme", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 when a page differs from its records")
    args = p.parse_args(argv)
    stale = []
    for path, text in expected().items():
        with open(path, encoding="utf-8") as fh:
            if fh.read() == text:
                continue
        stale.append(os.path.relpath(path, ROOT))
        if not args.check:
            ownership.write_text(path, text)
    if args.check and stale:
        print(f"error: {', '.join(stale)} differ from benchmarks/results/: run "
              "python -m benchmarks.readme", file=sys.stderr)
        return 1
    print(("rewrote " + ", ".join(stale)) if stale else "up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
