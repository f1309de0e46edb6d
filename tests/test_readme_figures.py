"""The README's published figures, from the per-seed records.

Both results tables are written by ``python -m benchmarks.readme`` from
``benchmarks/results/*.json`` (the cells, their marks and the results files they cite), and
docs/benchmarks.md's list of each cell's command too: the test fails when a page differs
from what the records make. The figures the README quotes outside the tables (the main
command's accuracy and training time, the quickstart's, the faithfulness AOPCs) are
recomputed here, and every comparison of the README (ahead, level, behind, beats, helps...,
the vocabulary of tests/test_doc_claims.py) is checked against
:func:`kerasattn.records.compare`. ``tests/test_doc_figures.py`` checks every other figure
of README.md and docs/. Nothing here trains or imports TensorFlow.
"""

import functools
import json
import pathlib
import re
import statistics

import pytest

from benchmarks import readme
from tests import test_doc_claims as doc_claims
from kerasattn import records
from kerasattn import records as kerasattn_records

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RESULTS = ROOT / "benchmarks" / "results"
BENCHMARKS_PAGE = ROOT / "docs" / "benchmarks.md"
INITIALISER_FIX = "2026-12-01"
FIGURE = re.compile(r"(?P<mean>\d+\.(?P<md>\d+)) ± (?P<std>\d+\.(?P<sd>\d+))")


@functools.lru_cache(maxsize=None)
def load(stem):
    return json.loads((RESULTS / f"{stem}.json").read_text(encoding="utf-8"))


def seeds_of(stem, name):
    return [{**s, "seed": s.get("seed", i)}
            for i, s in enumerate(records.seeds_of(readme.load(stem), name))]


def spread(values, mean_decimals, std_decimals):
    return records.spread(values, mean_decimals, std_decimals)


def test_the_readme_tables_and_their_commands_are_what_the_records_make():
    for path, text in readme.expected().items():
        assert pathlib.Path(path).read_text(encoding="utf-8") == text, (
            f"{path} differs from benchmarks/results/: run python -m benchmarks.readme")


def test_every_cell_is_its_records_spread_and_an_edit_is_caught():
    text = README.read_text(encoding="utf-8")
    start, end = text.index("<!-- results:start -->"), text.index("<!-- results:end -->")
    cells = list(FIGURE.finditer(text, start, end))
    assert len(cells) >= 40
    expected = readme.expected()[str(README)]
    for cell in cells:
        old = cell["mean"]
        digits = old.replace(".", "")
        new = str(int(digits) + 1).zfill(len(digits))
        new = new[:old.index(".")] + "." + new[old.index("."):]
        edited = text[:cell.start("mean")] + new + text[cell.end("mean"):]
        assert edited != expected


def test_the_table_marks_what_the_records_say():
    gpu = {"machine": "gpu: NVIDIA H100 80GB HBM3 (float32)", "fitted_by": "training.portable",
           "measured": "2026-11-30", "test": {"accuracy": 0.8}}
    cut = {**gpu, "cut": {"epoch": 3, "steps": 10, "steps_per_epoch": 20}}
    marks = records.cell_marks("sanet-base-imdb", [gpu, cut, gpu], readme.CHANGES,
                               readme.ROOT)
    # portable: the shuffle change does not apply; before the initialiser fix and the
    # fused attention path
    assert marks == ["g", "t", "i", "f"]
    # the fused path changed no model without self-attention: not SANet's baseline, nor HAN
    for name in ("sanet-baseline-base-imdb", "han-imdb"):
        assert records.cell_marks(name, [gpu] * 3, readme.CHANGES, readme.ROOT) == ["g", "i"]
    cpu = {"machine": "x86_64 Linux, 2 CPUs, GPUs: 0", "measured": "2026-12-02",
           "best_epoch": 2, "test": {"accuracy": 0.8}}
    assert records.cell_marks("cnn-sst2", [cpu] * 3, readme.CHANGES, readme.ROOT) == ["?"]
    head = records.relation({"provenance": {"commit": _head()}}, "76bcf6e", readme.ROOT)
    if head != "unknown":  # a checkout with its history
        assert records.cell_marks("cnn-sst2", [{**cpu, "provenance": {"commit": _head()}}] * 2,
                                  readme.CHANGES, readme.ROOT) == ["n=2"]
    legend = README.read_text(encoding="utf-8")
    for mark, _ in readme.LEGEND:
        assert f"<sup>{mark}</sup>" in legend


def _head():
    import subprocess

    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True)
    return done.stdout.strip() or None


def test_the_gpus_of_the_tables_are_named_in_full_in_the_legend():
    names = {s["machine"][5:].removesuffix(" (float32)")
             for row in (*readme.DEFAULTS, *readme.LEVERS)
             for stem, name in row.cells.values()
             for s in seeds_of(stem, name) if s["machine"].startswith("gpu:")}
    assert names == {"NVIDIA H100 80GB HBM3"}
    text = README.read_text(encoding="utf-8")
    for name in names:
        assert name in text


# Every "ahead", "level" or "behind" the README says of two records: a fragment of its
# sentence, A's record, B's record and the verdict of A against B by the rule.
CLAIMS = [
    ("`sanet-base` is level with\n  `sanet-baseline-base`, its twin without self-attention, "
     "on SST-2", ("defaults", "sanet-base-sst2"), ("defaults", "sanet-baseline-base-sst2"),
     "level"),
    ("the baseline\n  ahead by 0.005 but inside the interval", ("defaults", "sanet-base-imdb"),
     ("defaults", "sanet-baseline-base-imdb"), "level"),
    ("and behind it with in-domain vectors on IMDB", ("wordvectors", "sanet-base-imdb-vectors"),
     ("wordvectors", "sanet-baseline-base-imdb-vectors"), "behind"),
    *[("(each ahead of its default", ("wordvectors", f"{p}-sst2-vectors"),
       ("defaults", f"{p}-sst2"), "ahead")
      for p in ("cnn", "gru", "han", "hcan-1sa-target", "iram-vanilla")],
    ("level with a TF-IDF logistic\n  regression", ("wordvectors", "cnn-imdb-vectors-whole"),
     ("levers", "lr-imdb-l2c10"), "level"),
    *[("**Reading the end of long reviews helps:**", a, b, "ahead") for a, b in (
        (("levers", "iram-vanilla-imdb-headtail"), ("defaults", "iram-vanilla-imdb")),
        (("levers", "iram-full-imdb-headtail"), ("defaults", "iram-full-imdb")),
        (("levers", "gru-imdb-grouped-headtail"), ("validation", "gru-imdb-grouped")))],
]

# The faithfulness sentence: one run per family, decided on its paired differences.
ATTENTION_CLAIM = ("attention beats random except HCAN's (worse), and loses to the "
                   "gradients everywhere")
ATTENTION_CHECKS = (
    [doc_claims.Paired(doc_claims.FAITH, f, doc_claims.VS_RANDOM, doc_claims.COMP, "ahead")
     for f in ("SANet", "IRAM", "Transformer")]
    + [doc_claims.Paired(doc_claims.FAITH, "HCAN", doc_claims.VS_RANDOM, m, "behind")
       for m in (doc_claims.COMP, doc_claims.SUFF)]
    + [doc_claims.Paired(doc_claims.FAITH, f, doc_claims.VS_IG, m, "behind")
       for f in doc_claims.FAMILIES for m in (doc_claims.COMP, doc_claims.SUFF)])


@pytest.mark.parametrize("fragment, a, b, verdict", CLAIMS)
def test_every_claim_of_the_readme_is_the_rules(fragment, a, b, verdict):
    assert fragment in README.read_text(encoding="utf-8")
    scores = [[s["accuracy"] for s in seeds_of(*side)] for side in (a, b)]
    assert records.compare(*scores).verdict == verdict


def test_the_attention_claim_of_the_readme_is_the_rules():
    assert ATTENTION_CLAIM in _flat(README.read_text(encoding="utf-8"))
    for check in ATTENTION_CHECKS:
        assert check.check() == check.verdict, check


def test_the_readme_makes_no_other_claim():
    text = README.read_text(encoding="utf-8")
    text = text[:text.index("<!-- results:end -->")] + text[
        text.index("interval for the difference of means"):text.index("## Documentation")]
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets
    covered = [m for fragment, *_ in CLAIMS for m in re.finditer(re.escape(fragment), text)]
    covered += list(re.finditer(re.escape(ATTENTION_CLAIM).replace(r"\ ", r"\s+"), text))
    covered += list(re.finditer(r"attention\s+behind it", text))  # compares nothing
    for word in doc_claims.WORDS.finditer(text):
        assert any(c.start() <= word.start() < c.end() + 60 for c in covered), (
            f"an unchecked claim: ...{text[max(0, word.start() - 80):word.end() + 40]}...")


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
    quick = re.search(r"# (\d\.\d+) \(seed 0\); (\d\.\d+ ± \d\.\d+) over (\d+) seeds, "
                      r"before c74cd43", text)
    assert kerasattn_records.row_relation(seeds_of("quickstart", "runs"), "c74cd43",
                                          readme.ROOT) \
        in ("before", "unknown")
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
    assert ("one run each (seed 0), dated after the initialiser fix (76bcf6e) but with no "
            "commit in the record, so not proved to run on it") in looking
    assert min(r["measured"] for r in records.values()) >= INITIALISER_FIX
    assert {kerasattn_records.relation(r, "76bcf6e", readme.ROOT)
            for r in records.values()} == {"unknown"}
    assert checked >= 17
