"""The README's published figures, recomputed from the per-seed records.

Every cell of the README's results table is the mean and the sample standard deviation
(n - 1) of the test accuracies of one record in ``benchmarks/results/<file>.json``, each
rounded once from the raw values to the decimals the README prints. ``TABLE`` below names,
for each row of the table, the record behind each of its cells; the test recomputes every
cell and also checks what the row says about where it was measured:

- the GPU it names (``H100``, ``H200``) is the one in the records' ``machine`` field, and a
  row names no GPU its records did not run on;
- a cell fitted by ``training.portable`` on the CPU says ``training.portable``;
- a cell whose runs a time limit cut says ``cut`` (naming the seeds when not all were);
- a cell whose record is not seeds 0-2 names its seeds;
- a cell measured before the shuffle change (commit c74cd43) says so, and a cell of an
  attention preset measured before the initialiser fix (commit 76bcf6e) too;
- the ``from`` column names the results files of exactly those records.

The figures the README quotes outside the table (the main command's accuracy and training
time, the quickstart's, the faithfulness AOPCs) are recomputed the same way. Nothing here
trains or imports TensorFlow.
"""

import functools
import json
import pathlib
import re
import statistics

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RESULTS = ROOT / "benchmarks" / "results"
BENCHMARKS_PAGE = ROOT / "docs" / "benchmarks.md"

# The README row (the start of its first cell, matching exactly one row) -> for each
# column with a figure, (results file stem, record name in that JSON). The quickstart's
# record is the whole of quickstart.json (its "runs").
TABLE = {
    "`cnn` (": {"SST-2": ("defaults", "cnn-sst2"), "IMDB": ("defaults", "cnn-imdb")},
    "`cnn` with in-domain word vectors": {"SST-2": ("wordvectors", "cnn-sst2-vectors"),
                                          "IMDB": ("wordvectors", "cnn-imdb-vectors-whole")},
    "`cnn` through `TextClassifier`": {"SST-2": ("quickstart", "runs")},
    "`mlp` (": {"SST-2": ("defaults", "mlp-sst2"), "IMDB": ("defaults", "mlp-imdb")},
    "`lr` with L2 at C = 10": {"SST-2": ("levers", "lr-sst2-l2c10"),
                               "IMDB": ("levers", "lr-imdb-l2c10")},
    "`gru` (": {"SST-2": ("defaults", "gru-sst2"), "IMDB": ("baselines", "gru")},
    "`gru` with in-domain word vectors": {"SST-2": ("wordvectors", "gru-sst2-vectors")},
    "`iram-vanilla` with in-domain word vectors": {
        "SST-2": ("wordvectors", "iram-vanilla-sst2-vectors")},
    "`sanet-base` with in-domain word vectors": {
        "SST-2": ("wordvectors", "sanet-base-sst2-vectors"),
        "IMDB": ("wordvectors", "sanet-base-imdb-vectors")},
    "`sanet-baseline-base` (no self-attention) with": {
        "IMDB": ("wordvectors", "sanet-baseline-base-imdb-vectors")},
    "`rnn` (": {"SST-2": ("defaults", "rnn-sst2"), "IMDB": ("defaults", "rnn-imdb")},
    "`lstm` (": {"SST-2": ("defaults", "lstm-sst2"), "IMDB": ("defaults", "lstm-imdb")},
    "`bilstm` (": {"SST-2": ("defaults", "bilstm-sst2"), "IMDB": ("defaults", "bilstm-imdb")},
    "`sanet-base` (": {"SST-2": ("defaults", "sanet-base-sst2"),
                       "IMDB": ("defaults", "sanet-base-imdb")},
    "`sanet-baseline-base` (no self-attention;": {
        "SST-2": ("defaults", "sanet-baseline-base-sst2"),
        "IMDB": ("defaults", "sanet-baseline-base-imdb")},
    "`sanet-big` (": {"SST-2": ("defaults", "sanet-big-sst2")},
    "`transformer` (": {"SST-2": ("defaults", "transformer-sst2"),
                        "IMDB": ("defaults", "transformer-imdb")},
    "`transformer` with in-domain word vectors": {
        "SST-2": ("wordvectors", "transformer-sst2-vectors"),
        "IMDB": ("wordvectors", "transformer-imdb-vectors")},
    "`han` (": {"SST-2": ("defaults", "han-sst2"), "IMDB": ("defaults", "han-imdb")},
    "`hcan-1sa-maxpool` (": {"SST-2": ("defaults", "hcan-1sa-maxpool-sst2"),
                             "IMDB": ("defaults", "hcan-1sa-maxpool-imdb")},
    "`hcan-2sa-target` (": {"SST-2": ("defaults", "hcan-2sa-target-sst2"),
                            "IMDB": ("defaults", "hcan-2sa-target-imdb")},
    "`iram-vanilla` (": {"SST-2": ("defaults", "iram-vanilla-sst2"),
                         "IMDB": ("defaults", "iram-vanilla-imdb")},
    "`iram-full` (": {"SST-2": ("defaults", "iram-full-sst2"),
                      "IMDB": ("defaults", "iram-full-imdb")},
}
# Every figure of the table as it stands; the check fails below this many.
FIGURES = 41

# Commit c74cd43 (2026-11-26) began shuffling the training batches after grouping them by
# length. Records carry a date only: those of the table measured on 2026-11-26 through
# training.train were all measured after the commit (git log of defaults.json and
# wordvectors.json), so "before" is a date before 2026-11-26. training.portable shuffled
# its batches already, and a scikit-learn fit (best_epoch None) has none.
SHUFFLE_CHANGE = "2026-11-26"
SHUFFLE_MARK = "measured before the shuffle change (c74cd43)"
# Commit 76bcf6e (2026-12-01): every weight of the attention layers its own initializer
# instance. Cells of the presets built on them measured before it say so.
INITIALISER_FIX = "2026-12-01"
INITIALISER_MARK = "before the initialiser fix (76bcf6e)"
FIXED_FAMILIES = ("sanet", "can-", "hcan-", "han", "iram", "transformer")
CPU_TRAIN = "x86_64 Linux, 2 CPUs, GPUs: 0"  # training.train on the 2 CPU cores
CPU_PORTABLE = "cpu: cpu (float32)"  # training.portable under JAX on the same cores
GPU = re.compile(r"gpu: (?P<name>NVIDIA (?P<short>H\d+)\b[^(]*?) \(float32\)")
FIGURE = re.compile(r"(?P<mean>\d+\.(?P<md>\d+)) ± (?P<std>\d+\.(?P<sd>\d+))")


@functools.lru_cache(maxsize=None)
def load(stem):
    return json.loads((RESULTS / f"{stem}.json").read_text(encoding="utf-8"))


def seeds_of(stem, name):
    """Per seed: seed number, test accuracy, machine, date, cut, fitted_by, sklearn."""
    data = load(stem)
    if stem == "quickstart":
        assert name == "runs"
        return [dict(seed=r["seed"], accuracy=r["test_accuracy"], machine=data["machine"],
                     measured=data["measured"], cut=None, fitted_by=None, sklearn=False)
                for r in data["runs"]]
    return [dict(seed=i, accuracy=s["test"]["accuracy"], machine=s["machine"],
                 measured=s["measured"], cut=s.get("cut"), fitted_by=s.get("fitted_by"),
                 sklearn=s.get("best_epoch", 0) is None)
            for i, s in enumerate(data[name]["seeds"])]


def spread(values, mean_decimals, std_decimals):
    """Mean and sample standard deviation, each rounded once from the raw values."""
    return (f"{statistics.mean(values):.{mean_decimals}f} ± "
            f"{statistics.stdev(values):.{std_decimals}f}")


def seed_list(seeds):
    names = [str(s) for s in seeds]
    return (f"seed {names[0]}" if len(names) == 1
            else "seeds " + ", ".join(names[:-1]) + " and " + names[-1])


def results_table(text):
    """(column names, [(first cell, {column: cell}, cited results files)]) of the table."""
    table = text[text.index("<!-- results:start -->"):text.index("<!-- results:end -->")]
    lines = [line for line in table.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    assert header[0] == "model (recipe)" and header[-1].startswith("from"), header
    rows = []
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert len(cells) == len(header), line
        rows.append((cells[0], dict(zip(header[1:-1], cells[1:-1])),
                     set(re.findall(r"`([\w.-]+)\.md`", cells[-1]))))
    return header[1:-1], rows


def table_problems(text):
    """Every mismatch between the README's results table and the records, and the number
    of figures checked."""
    problems, checked = [], 0
    _, rows = results_table(text)
    used = set()
    for first, cells, cited in rows:
        keys = [k for k in TABLE if first.startswith(k)]
        if len(keys) != 1:
            problems.append(f"row {first!r} matches {len(keys)} entries of TABLE, not one")
            continue
        used.add(keys[0])
        mapping = TABLE[keys[0]]
        stated = {c for c, v in cells.items() if v not in ("–", "-", "")}
        if stated != set(mapping):
            problems.append(f"row {first!r}: figures in {sorted(stated)}, "
                            f"records named for {sorted(mapping)}")
        if cited != {stem for stem, _ in mapping.values()}:
            problems.append(f"row {first!r} cites {sorted(cited)}, its records are in "
                            f"{sorted({stem for stem, _ in mapping.values()})}")
        gpus, early, unfixed = set(), [], []
        for column, (stem, name) in mapping.items():
            seeds = seeds_of(stem, name)
            where = f"row {first!r}, {column} ({stem}.json {name!r})"
            found = FIGURE.fullmatch(cells.get(column, ""))
            if not found:
                problems.append(f"{where}: {cells.get(column)!r} is not a mean ± std")
                continue
            expected = spread([s["accuracy"] for s in seeds], len(found["md"]),
                              len(found["sd"]))
            checked += 1
            if found[0] != expected:
                problems.append(f"{where}: README {found[0]}, records {expected}")
            machines = {s["machine"] for s in seeds}
            if len(machines) != 1:
                problems.append(f"{where}: seeds on several machines {sorted(machines)}")
            machine = machines.pop()
            gpu = GPU.fullmatch(machine)
            if gpu:
                gpus.add(gpu["short"])
            elif machine == CPU_PORTABLE:
                if "`training.portable`" not in first or "CPU" not in first:
                    problems.append(f"{where}: fitted by training.portable on the CPU, "
                                    "and the row does not say so")
            elif machine != CPU_TRAIN:
                problems.append(f"{where}: an unknown machine {machine!r}")
            if {s["fitted_by"] for s in seeds} - {None, "training.portable"}:
                problems.append(f"{where}: fitted by something else")
            numbers = sorted(s["seed"] for s in seeds)
            if numbers != [0, 1, 2] and f"seeds 0–{numbers[-1]}" not in first:
                problems.append(f"{where}: {len(numbers)} seeds {numbers}, and the row "
                                "does not name them")
            cut = [s["seed"] for s in seeds if s["cut"]]
            if cut and "cut" not in first:
                problems.append(f"{where}: seeds {cut} were cut by a time limit, and the "
                                "row does not say so")
            if cut and len(cut) < len(seeds) and seed_list(cut) not in first:
                problems.append(f"{where}: only {seed_list(cut)} cut; the row must name them")
            if name.startswith(FIXED_FAMILIES) and \
                    max(s["measured"] for s in seeds) < INITIALISER_FIX:
                unfixed.append(column)
            batched = not seeds[0]["sklearn"] and seeds[0]["fitted_by"] is None
            if batched and min(s["measured"] for s in seeds) < SHUFFLE_CHANGE:
                early.append(column)
        named = set(re.findall(r"\bH\d{3}\b", first))
        if named != gpus:
            problems.append(f"row {first!r} names GPUs {sorted(named)}, its records ran "
                            f"on {sorted(gpus)}")
        if re.search(r"\bon (a|an|one) GPU\b", first) and not gpus:
            problems.append(f"row {first!r} says it ran on a GPU; its records did not")
        if "cut" in first and not any(s["cut"] for stem, name in mapping.values()
                                      for s in seeds_of(stem, name)):
            problems.append(f"row {first!r} says cut; no record of it was")
        if early and len(early) < len(mapping):
            mark = f"{early[0]} {SHUFFLE_MARK}" if len(early) == 1 else SHUFFLE_MARK
        else:
            mark = SHUFFLE_MARK
        if bool(early) != (mark in first):
            problems.append(f"row {first!r}: cells measured before {SHUFFLE_CHANGE}: "
                            f"{early or 'none'}; the row must say {mark!r} exactly then")
        fix_mark = (f"{unfixed[0]} {INITIALISER_MARK}"
                    if unfixed and len(unfixed) < len(mapping) else INITIALISER_MARK)
        if bool(unfixed) != (fix_mark in first):
            problems.append(f"row {first!r}: cells measured before the initialiser fix: "
                            f"{unfixed or 'none'}; the row must say {fix_mark!r} exactly then")
    for key in set(TABLE) - used:
        problems.append(f"TABLE entry {key!r} matches no row of the README")
    return problems, checked


def test_every_figure_of_the_readme_table_is_its_records_spread():
    problems, checked = table_problems(README.read_text(encoding="utf-8"))
    assert not problems, "\n".join(problems)
    assert checked >= FIGURES


def test_the_check_fails_when_any_figure_is_edited():
    """Not vacuous: every figure of the table, edited by one unit in its last digit (the
    mean, then the spread), makes the check fail."""
    text = README.read_text(encoding="utf-8")
    start = text.index("<!-- results:start -->")
    end = text.index("<!-- results:end -->")
    spans = [(m.start(g) + start, m.end(g) + start)
             for m in FIGURE.finditer(text[start:end]) for g in ("mean", "std")]
    assert len(spans) >= 2 * FIGURES
    for a, b in spans:
        old = text[a:b]
        digits = old.replace(".", "")
        new_digits = str(int(digits) + 1).zfill(len(digits))
        new = new_digits[:old.index(".")] + "." + new_digits[old.index("."):]
        problems, _ = table_problems(text[:a] + new + text[b:])
        assert problems, f"{old} -> {new} at {a} went unnoticed"


@pytest.mark.parametrize("edit", [
    ("`cnn` (IMDB on an H100)", "`cnn` (IMDB on an H200)"),
    ("`sanet-base` (batches of 32; IMDB: each seed cut by `--time-limit 600` in its 4th–5th "
     "epoch, after its best)", "`sanet-base` (batches of 32)"),
    ("seeds 0 and 2 cut by the time limit", "cut by the time limit"),
    ("; seeds 0–9;", ";"),
    ("SST-2 measured before the shuffle change (c74cd43); ", ""),
    ("cut in the 5th epoch of 10; IMDB before the initialiser fix (76bcf6e))",
     "cut in the 5th epoch of 10)"),
    ("the 2nd epoch; IMDB before the initialiser fix (76bcf6e))", "the 2nd epoch)"),
    ("`lstm` (max pooling, dropout 0.5; IMDB on an H100, cut in the 3rd epoch of 10)",
     "`lstm` (max pooling, dropout 0.5; IMDB on an H100)"),
])
def test_the_check_fails_when_a_row_misstates_where_it_was_measured(edit):
    text = README.read_text(encoding="utf-8")
    assert text.count(edit[0]) == 1, edit[0]
    problems, _ = table_problems(text.replace(*edit))
    assert problems


def test_the_gpus_of_the_table_are_named_in_full_where_it_is_explained():
    names = {m["name"] for stem, name in {v for m in TABLE.values() for v in m.values()}
             for s in seeds_of(stem, name) if (m := GPU.fullmatch(s["machine"]))}
    assert names == {"NVIDIA H100 80GB HBM3"}
    page = BENCHMARKS_PAGE.read_text(encoding="utf-8")
    section = page[page.index("## The README table"):]
    section = section[:section.index("\n## ")]
    for name in names:
        assert name in section


def _flat(text):
    return re.sub(r"\s+", " ", text)


def test_the_readme_figures_outside_the_table_are_their_records():
    text = _flat(README.read_text(encoding="utf-8"))
    checked = 0
    # the main command: validation.json, row gru-imdb-grouped-early1 (seeds 0-2)
    seeds = seeds_of("validation", "gru-imdb-grouped-early1")
    main = re.search(r"training took (\d+)–(\d+) s a seed .*? test accuracy "
                     r"(\d\.\d+ ± \d\.\d+) over seeds 0–2, both in "
                     r"`benchmarks/results/validation\.md`", text)
    assert main, "the main command's figures"
    record = load("validation")["gru-imdb-grouped-early1"]["seeds"]
    times = sorted(s["train_seconds"] for s in record)
    assert (main[1], main[2]) == (f"{times[0]:.0f}", f"{times[-1]:.0f}")
    assert main[3] == spread([s["accuracy"] for s in seeds], 3, 3)
    checked += 3
    # the Python quickstart's comment: seed 0, and the spread over quickstart.json's seeds
    quick = re.search(r"# (\d\.\d+) \(seed 0\); (\d\.\d+ ± \d\.\d+) over (\d+) seeds", text)
    runs = seeds_of("quickstart", "runs")
    assert quick[1] == f"{runs[0]['accuracy']:.3f}" and runs[0]["seed"] == 0
    assert (quick[2], int(quick[3])) == (spread([r["accuracy"] for r in runs], 3, 3),
                                        len(runs))
    checked += 2
    # the faithfulness AOPCs: attention / random / integrated gradients, comprehensiveness
    records = load("faithfulness_sst2")["records"]
    quoted = re.findall(r"(\d\.\d\d) / (\d\.\d\d) / (\d\.\d\d) for (?:the )?(\w+)", text)
    assert {family for *_, family in quoted} == {"SANet", "HCAN", "IRAM", "Transformer"}
    for *figures, family in quoted:
        aopc = {row["method"]: row["comprehensiveness_aopc"]
                for row in records[family]["rows"] if row["kind"] == "erasure"}
        expected = [f"{aopc[m]:.2f}" for m in ("attention", "random", "integrated_gradients")]
        assert figures == expected, family
        checked += 3
    # one run each (seed 0), measured after the initialiser fix, as the README says
    assert all(r["train_seed"] == 0 for r in records.values())
    looking = text[text.index("## Looking at"):text.index("## The zoo")]
    assert "one run each (seed 0), after the initialiser fix (76bcf6e)" in looking
    assert min(r["measured"] for r in records.values()) >= INITIALISER_FIX
    assert checked >= 17
