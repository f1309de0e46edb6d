"""Before and after the initialiser fix, in one table.

    python -m benchmarks.initfix --before benchmarks/results/defaults_before_initfix.json \\
        --after benchmarks/results/initfix_after.json \\
        --candidates benchmarks/results/initfix_levers.json

Until commit 76bcf6e the attention layers handed one Keras initializer instance to several
weights, so weights of equal shape started equal (query and key projections, the heads,
the feed-forward kernels). ``--before`` holds the rows as recorded then (the defaults
suite's records at commit cfc41ba, kept in ``defaults_before_initfix.json``), ``--after``
the same commands trained again on the fixed code
(``python -m benchmarks.accuracy --suite defaults --only NAME --seeds 3 --results
benchmarks/results/initfix_after.md``). Writes the Markdown table (``--output``,
default ``benchmarks/results/initfix.md``) with both, mean ± sample standard deviation
over the seeds, and the change of the means, and one line naming the commits of the runs
after (their records' ``"provenance"``; "commit unknown" where a record has none).
"""

import argparse
import os

from kerasattn import runs
from kerasattn.cli.parsing import ArgumentParser
from kerasattn.metrics import format_spread, mean_std

RESULTS_DIR = os.path.join(os.path.dirname(__file__), "results")


def _seeds(record):
    return record["seeds"] if "seeds" in record else [record]


def _figures(record):
    seeds = _seeds(record)
    val = [r["val_accuracy"] for r in seeds]
    test = [r["test"]["accuracy"] for r in seeds]
    return val, test, len(seeds), max(r["measured"] for r in seeds)


def _delta(after, before):
    change = round(mean_std(after)[0] - mean_std(before)[0], 3) + 0.0  # no "-0.000"
    return f"{change:+.3f}"


def _where(record):
    """Where a row's seeds ran, short ("GPU", "2 CPU cores"), and where a time limit cut
    them ("cut in epoch 4, 5, 5")."""
    seeds = _seeds(record)
    machine = "GPU" if any(r["machine"].startswith("gpu") for r in seeds) else "2 CPU cores"
    cut = [str(r["cut"]["epoch"]) for r in seeds if r.get("cut")]
    return machine + (f", cut by the time limit in epoch {', '.join(cut)}" if cut else "")


def table(before, after, commands):
    """The Markdown rows of every configuration in both record sets (``commands``: name ->
    the training command)."""
    rows = ["| command | before: validation | before: test | after: validation | after: test "
            "| Δ validation | Δ test | n before / after | measured before / after "
            "| where before / after |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for name in after:
        if name not in before:
            continue
        bv, bt, bn, bd = _figures(before[name])
        av, at, an, ad = _figures(after[name])
        rows.append(f"| `{commands.get(name, name)}` | {format_spread(bv, 3)} "
                    f"| {format_spread(bt, 3)} | {format_spread(av, 3)} "
                    f"| {format_spread(at, 3)} | {_delta(av, bv)} | {_delta(at, bt)} "
                    f"| {bn} / {an} | {bd} / {ad} "
                    f"| {_where(before[name])} / {_where(after[name])} |")
    return rows


def candidate_rows(after, candidates, commands):
    """Default recipes chosen again: each candidate recorded before the fix that did better
    on validation than the default measured after it, trained again on the fixed code
    (``candidates``: its records, levers rows ``DEFAULT-ROW-SUFFIX``) against that
    default's row; validation decides (test shown, never used)."""
    rows = ["| candidate | default after the fix: validation / test "
            "| candidate on the fixed code: validation / test | Δ validation | chosen |",
            "|---|---|---|---|---|"]
    for name, record in candidates.items():
        default = max((d for d in after if name.startswith(d + "-")), key=len, default=None)
        if default is None:
            continue
        dv, dt, _, _ = _figures(after[default])
        cv, ct, _, _ = _figures(record)
        better = mean_std(cv)[0] - mean_std(dv)[0] > max(mean_std(cv)[1], mean_std(dv)[1])
        rows.append(f"| `{commands.get(name, name)}` | {format_spread(dv, 3)} / "
                    f"{format_spread(dt, 3)} | {format_spread(cv, 3)} / {format_spread(ct, 3)} "
                    f"| {_delta(cv, dv)} | {'the candidate' if better else 'the default'} |")
    return rows


def table2_rows(before, after):
    """SANet's Table 2 before and after (``sanet_table2*.json``): Gini and diagonality
    (b = 3) against chance per dataset, percent."""
    rows = ["| dataset | Gini before / after | diagonality b = 3 before / after "
            "| ÷ chance before / after | test acc. before / after |",
            "|---|---|---|---|---|"]
    for name in after:
        if name not in before:
            continue
        b, a = before[name], after[name]

        def ratio(r):
            return r["diagonality"]["3"] / r["uniform_diagonality"]["3"]

        rows.append(f"| {name} | {100 * b['gini']:.2f} / {100 * a['gini']:.2f} "
                    f"| {100 * b['diagonality']['3']:.2f} / {100 * a['diagonality']['3']:.2f} "
                    f"| {ratio(b):.2f} / {ratio(a):.2f} "
                    f"| {b.get('test_accuracy', float('nan')):.3f} / "
                    f"{a.get('test_accuracy', float('nan')):.3f} |")
    return rows


def faithfulness_rows(before, after):
    """Comprehensiveness AOPC of attention, random and integrated gradients per family
    before and after (``faithfulness_sst2*.json``)."""
    rows = ["| family | attention before / after | random before / after "
            "| integrated gradients before / after | test acc. before / after |",
            "|---|---|---|---|---|"]
    for family, record in after["records"].items():
        old = before["records"].get(family)
        if old is None:
            continue

        def aopc(r, method):
            values = {row["method"]: row["comprehensiveness_aopc"] for row in r["rows"]
                      if row["kind"] == "erasure"}
            return f"{values[method]:.3f}" if method in values else "–"

        rows.append(f"| {family} | {aopc(old, 'attention')} / {aopc(record, 'attention')} "
                    f"| {aopc(old, 'random')} / {aopc(record, 'random')} "
                    f"| {aopc(old, 'integrated_gradients')} / "
                    f"{aopc(record, 'integrated_gradients')} "
                    f"| {old['test_accuracy']:.3f} / {record['test_accuracy']:.3f} |")
    return rows


def _optional(name):
    path = os.path.join(RESULTS_DIR, name)
    return runs.read_json(path) if os.path.exists(path) else None


def main(argv=None):
    p = ArgumentParser(prog="python -m benchmarks.initfix", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--before", required=True, help="records measured before the fix")
    p.add_argument("--after", required=True, help="the same rows measured after it")
    p.add_argument("--candidates", help="levers records of candidate recipes trained again "
                                        "on the fixed code (a section comparing each with "
                                        "its default on validation)")
    p.add_argument("--output", default=os.path.join(RESULTS_DIR, "initfix.md"))
    args = p.parse_args(argv)
    from benchmarks.accuracy import DEFAULTS, LEVERS, _commits

    before, after = runs.read_json(args.before), runs.read_json(args.after)
    commands = {name: " ".join(["python -m training.train", *cli])
                for name, (cli, _) in {**DEFAULTS, **LEVERS}.items()}
    text = ["# Before and after the initialiser fix (76bcf6e): the defaults' rows again",
            "",
            "Written by `python -m benchmarks.initfix --before "
            "benchmarks/results/defaults_before_initfix.json --after "
            "benchmarks/results/initfix_after.json --candidates "
            "benchmarks/results/initfix_levers.json` (`defaults_before_initfix.json`: the "
            "rows of `defaults.json` at commit cfc41ba). Before: the rows of "
            "`defaults.md` as recorded, on weights started from one initializer instance "
            "per layer (weights of equal shape equal); after: the same command on the fixed "
            "code (every weight its own draw), seeds 0–2; the IMDB rows before ran their "
            "whole recipe on a GPU, after on 2 CPU cores with `--time-limit 600` per seed "
            "(where each stopped: the last column; compare the rows after with each other). "
            "Accuracy, mean ± sample standard deviation over the seeds; Δ: the change of the "
            "means.",
            "",
            *table(before, after, commands),
            "",
            _commits(after, "Provenance of the runs after the fix"),
            ""]
    if args.candidates:
        text += ["## Default recipes chosen again", "",
                 "Each candidate recorded in `levers.md` before the fix whose validation mean "
                 "there exceeded the default's after the fix by more than either spread, "
                 f"trained again on the fixed code (`{args.candidates}`; `python -m "
                 "benchmarks.accuracy --suite levers --only NAME --seeds 3`). Chosen on "
                 "validation only: the candidate replaces the default when its mean is above "
                 "by more than either standard deviation. Candidates recorded above a default "
                 "by less than that (e.g. `sanet-base`'s warm-up and cosine decay, dropout "
                 "and batches of 32 on SST-2) were not trained again.", "",
                 *candidate_rows(after, runs.read_json(args.candidates), commands), ""]
    pairs = [("sanet_table2", table2_rows,
              "SANet's Table 2 (`python -m training.reproduce --experiment sanet-table2`; "
              "one run per dataset, percent; the runs before, 2026-11-21, were also trained "
              "before the batch-shuffle change c74cd43)"),
             ("faithfulness_sst2", faithfulness_rows,
              "Faithfulness on SST-2 (`python -m training.reproduce --experiment "
              "faithfulness --dataset sst2`; one run per family, seed 0; comprehensiveness "
              "AOPC, higher is more faithful; the runs before were also trained before the "
              "batch-shuffle change c74cd43, so CNN and GRU, which the fix does not touch, "
              "moved too)")]
    for stem, rows, title in pairs:
        old, new = _optional(f"{stem}_before_initfix.json"), _optional(f"{stem}.json")
        if old and new:
            text += [f"## {title}", "",
                     f"Before: `{stem}_before_initfix.md`; after: `{stem}.md`.", "",
                     *rows(old, new), ""]
    with open(args.output, "w") as fh:
        fh.write("\n".join(text))
    print("\n".join(text))


if __name__ == "__main__":
    main()
