"""Every comparison the pages of docs/ make between two records, decided by the rule.

A page of ``docs/`` that says one configuration is ahead of, level with or behind another
(or beats, loses to, ties with, matches, helps or hurts it) says what
:func:`kerasattn.records.compare` (over seeds) or :func:`kerasattn.records.compare_paired`
(one run's paired differences over documents) decides from the records; where one run a
side leaves the rule nothing to decide, the sentence says so. Every such word of every page
is either inside a registered claim below or a registered use that compares no records
("leaves nothing behind"): a new comparison fails until it is registered and checked.
The README's own claims are checked by ``tests/test_readme_figures.py``.
"""

import dataclasses
import functools
import json
import pathlib
import re

import pytest

from benchmarks import readme
from kerasattn import records

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RESULTS = ROOT / "benchmarks" / "results"
WORDS = re.compile(
    r"\b(ahead|behind|level (?:with|by|on)|(?:is|are|stays?|comes? out) level|ties|tied|"
    r"beats?|beating|outperform\w*|better than|worse than|do(?:es)? better|do(?:es)? worse|"
    r"loses?|lost|helps|helped|hurts?|matches|matched)\b", re.IGNORECASE)


@dataclasses.dataclass(frozen=True)
class Seeds:
    """A against B over seeds: ``(results stem, row)`` each, on ``split``."""

    a: tuple
    b: tuple
    verdict: str
    split: str = "test"

    def check(self):
        key = "accuracy" if self.split == "test" else "val_accuracy"
        scores = [[s[key] for s in records.seeds_of(readme.load(stem), name)]
                  for stem, name in (self.a, self.b)]
        return records.compare(*scores).verdict


@dataclasses.dataclass(frozen=True)
class ValTest:
    """A row's validation accuracy against its own test accuracy over seeds."""

    row: tuple
    verdict: str

    def check(self):
        seeds = records.seeds_of(readme.load(self.row[0]), self.row[1])
        return records.compare([s["val_accuracy"] for s in seeds],
                               [s["accuracy"] for s in seeds]).verdict


@dataclasses.dataclass(frozen=True)
class Paired:
    """One faithfulness run: ``pair`` (``"attention-random"``) on ``measure`` for
    ``family``, from the paired differences over documents the run recorded."""

    stem: str
    family: str
    pair: str
    measure: str
    verdict: str

    def check(self):
        data = json.loads((RESULTS / f"{self.stem}.json").read_text(encoding="utf-8"))
        difference, half = data["records"][self.family]["paired"][self.pair][self.measure]
        return records.compare_paired(difference, half,
                                      higher_is_better=self.measure == "comprehensiveness")


@dataclasses.dataclass(frozen=True)
class OneRun:
    """A and B are one run each: the rule decides nothing, and the sentence must say so."""

    a: tuple
    b: tuple
    verdict: str = "undecided"

    def check(self):
        for stem, name in (self.a, self.b):
            assert len(records.seeds_of(readme.load(stem), name)) == 1, (stem, name)
        return "undecided"


FAITH, BEFORE, IMDB = ("faithfulness_sst2", "faithfulness_sst2_before_initfix",
                       "faithfulness_imdb")
COMP, SUFF = "comprehensiveness", "sufficiency"
VS_RANDOM, VS_IG, VS_LOO = ("attention-random", "attention-integrated_gradients",
                            "attention-leave_one_out")
FAMILIES = ("SANet", "HCAN", "IRAM", "Transformer")

# (page, a fragment of its sentence, whitespace-flattened and without link targets, the
# checks that decide it). Each check's verdict is the one the sentence states.
CLAIMS = [
    ("interpretability.md", "**Attention beats a random ranking** for SANet, IRAM and the "
     "Transformer on both measures",
     [Paired(FAITH, f, VS_RANDOM, m, "ahead") for f in ("SANet", "IRAM", "Transformer")
      for m in (COMP, SUFF)]),
    ("interpretability.md", "HCAN's target attention is **worse than random** on both",
     [Paired(FAITH, "HCAN", VS_RANDOM, m, "behind") for m in (COMP, SUFF)]),
    ("interpretability.md", "before the fix it tied with random on comprehensiveness",
     [Paired(BEFORE, "HCAN", VS_RANDOM, COMP, "level")]),
    ("interpretability.md", "**Attention loses to the gradient and removal methods for "
     "every family**",
     [Paired(FAITH, f, p, m, "behind") for f in FAMILIES for p in (VS_IG, VS_LOO)
      for m in (COMP, SUFF)]),
    ("interpretability.md", "a partial explanation at best: better than chance where it "
     "sits on the path to the output (not HCAN's target attention)",
     [Paired(FAITH, f, VS_RANDOM, COMP, "ahead") for f in ("SANet", "IRAM", "Transformer")]
     + [Paired(FAITH, "HCAN", VS_RANDOM, COMP, "behind")]),
    ("interpretability.md", "it beats random on both measures only for IRAM, SANet's ties "
     "with random, HCAN's beats it on sufficiency only and the Transformer's on "
     "comprehensiveness only",
     [Paired(IMDB, "IRAM", VS_RANDOM, COMP, "ahead"),
      Paired(IMDB, "IRAM", VS_RANDOM, SUFF, "ahead"),
      Paired(IMDB, "SANet", VS_RANDOM, COMP, "level"),
      Paired(IMDB, "SANet", VS_RANDOM, SUFF, "level"),
      Paired(IMDB, "HCAN", VS_RANDOM, COMP, "level"),
      Paired(IMDB, "HCAN", VS_RANDOM, SUFF, "ahead"),
      Paired(IMDB, "Transformer", VS_RANDOM, COMP, "ahead"),
      Paired(IMDB, "Transformer", VS_RANDOM, SUFF, "level")]
     + [Paired(IMDB, f, p, m, "behind") for f in FAMILIES for p in (VS_IG, VS_LOO)
        for m in (COMP, SUFF)]),
    ("models/baselines.md", "validation / test) is ahead of the paper's L1 at C = 1 by "
     "[the rule] on IMDB",
     [Seeds(("levers", f"lr-{d}-l2c10"), ("levers", f"lr-{d}"), "ahead", split)
      for d in ("imdb", "ag_news-test-split", "sst2") for split in ("val", "test")]),
    ("models/baselines.md", "`cnn` with in-domain word vectors on whole reviews is level "
     "with it there",
     [Seeds(("wordvectors", "cnn-imdb-vectors-whole"), ("levers", "lr-imdb-l2c10"),
            "level")]),
    ("models/baselines.md", "on BBC it is ahead on test but level on validation",
     [Seeds(("levers", "lr-bbc-l2c10"), ("levers", "lr-bbc"), "ahead"),
      Seeds(("levers", "lr-bbc-l2c10"), ("levers", "lr-bbc"), "level", "val")]),
    ("models/baselines.md", "and on SST-5 behind on validation",
     [Seeds(("levers", "lr-sst5-l2c10"), ("levers", "lr-sst5"), "behind", "val")]),
    ("models/hcan.md", "With one run a side [the rule] decides neither: whether the "
     "hierarchy helps at that size is not measured",
     [OneRun(("hcan", "hcan-1sa-maxpool-imdb-small"), ("hcan", "can-2sa-maxpool-imdb-small")),
      OneRun(("hcan", "hcan-2sa-target-imdb-small"), ("hcan", "han-imdb-small"))]),
    ("models/iram.md", "with attention the encoder is ahead of itself without it on test by "
     "0.020, level on validation",
     [Seeds(("defaults", "iram-vanilla-imdb"), ("defaults", "iram-baseline-imdb"), "ahead"),
      Seeds(("defaults", "iram-vanilla-imdb"), ("defaults", "iram-baseline-imdb"), "level",
            "val")]),
    ("models/iram.md", "but with one run a side [the rule] decides none of these orderings",
     [OneRun(("iram", f"iram-vanilla-{d}-paper"), ("iram", f"iram-baseline-{d}-paper"))
      for d in ("sst2", "sst5")]),
    ("models/sanet.md", "its twin's validation fell at 5e-4 (behind on AG News by the rule, "
     "level on SST-2 and SST-5)",
     [Seeds(("levers", "sanet-baseline-big-ag_news-test-split-lr5e-4"),
            ("defaults", "sanet-baseline-big-ag_news-test-split"), "behind", "val")]
     + [Seeds(("levers", f"sanet-baseline-big-{d}-lr5e-4"),
              ("defaults", f"sanet-baseline-big-{d}"), "level", "val")
        for d in ("sst2", "sst5")]),
    ("models/sanet.md", "on its validation it neither helps nor hurts",
     [Seeds(("levers", "sanet-baseline-big-sst2-cosine"),
            ("levers", "sanet-baseline-big-sst2-constant"), "level", "val")]),
    ("models/sanet.md", "half the rate is level with 1e-3 for `sanet-big` on all four; for "
     "`sanet-baseline-big` it is behind on AG News, level on SST-2 and SST-5 and undecided "
     "on BBC (one seed)",
     [Seeds(("levers", f"sanet-big-{d}-lr5e-4"), ("levers", f"sanet-big-{d}-lr1e-3"),
            "level", "val") for d in ("sst2", "sst5", "ag_news-test-split", "bbc")]
     + [Seeds(("levers", "sanet-baseline-big-ag_news-test-split-lr5e-4"),
              ("defaults", "sanet-baseline-big-ag_news-test-split"), "behind", "val")]
     + [Seeds(("levers", f"sanet-baseline-big-{d}-lr5e-4"),
              ("defaults", f"sanet-baseline-big-{d}"), "level", "val")
        for d in ("sst2", "sst5")]
     + [OneRun(("levers", "sanet-baseline-big-bbc-lr5e-4"),
               ("levers", "sanet-baseline-big-bbc-lr5e-4"))]),
    ("models/sanet.md", "the self-attention block is not ahead of the feed-forward baseline "
     "(§5.2 reports that it is on its larger corpora): level with it on SST-2 by [the rule], "
     "and on IMDB one run a side, which the rule does not decide",
     [Seeds(("sanet", "sanet-base-sst2-adjusted"), ("sanet", "sanet-baseline-base-sst2-adjusted"),
            "level"),
      OneRun(("sanet", "sanet-base-imdb-adjusted"),
             ("sanet", "sanet-baseline-base-imdb-adjusted"))]),
    ("models/sanet.md", "three seeds do not separate them: level by [the rule]",
     [Seeds(("defaults", "sanet-base-imdb"), ("defaults", "sanet-baseline-base-imdb"),
            "level")]),
    ("models/transformer.md", "No lever tried was ahead of it on SST-2's validation split "
     "by [the rule]",
     [Seeds(("initfix_levers", f"transformer-sst2-{lever}"), ("defaults", "transformer-sst2"),
            "level", "val") for lever in ("cosine", "adamw")]),
    ("models/transformer.md", "The zoo's other presets are ahead of it on the same official "
     "split",
     [Seeds(("defaults", f"{p}-imdb"), ("defaults", "transformer-imdb"), "ahead")
      for p in ("mlp", "han", "hcan-2sa-target")]),
    ("notes.md", "and then validation is level with test",
     [ValTest(("validation", "gru-imdb-grouped"), "level"),
      ValTest(("baselines", "gru"), "ahead")]),
    ("benchmarks.md", "Drawn by whole films (`--val-split grouped`) it is level with test",
     [ValTest(("validation", "gru-imdb-grouped-early1"), "level"),
      ValTest(("baselines", "gru"), "ahead")]),
    ("benchmarks.md", "`sanet-baseline-base` on IMDB (0.852 ± 0.003 against 0.857 ± 0.001, "
     "`defaults.md`) are level by it",
     [Seeds(("defaults", "sanet-base-imdb"), ("defaults", "sanet-baseline-base-imdb"),
            "level")]),
]

# Uses of the words that compare no records.
NOT_CLAIMS = [
    ("benchmarks.md", "which record stands behind each cell"),
    ("cli.md", "(did it beat the majority class?)"),
    ("cli.md", "Queries a model behind TensorFlow Serving"),
    ("getting-started.md", "that already matches an uninterrupted run to the last digit"),
    ("interpretability.md", "removing its top k % should hurt the prediction"),
    ("models/transformer.md", "3 × 2 lost its footing"),
    ("notes.md", "does not read the labels ahead"),
    ("python/preprocessing.md", "(ties alphabetical"),
    ("python/textclassifier.md", "Labels of a dataset are not read ahead"),
    ("reference/training.md", "The one training path behind"),
    ("reliability.md", "an error that leaves nothing behind"),
    ("reliability.md", "Only a directory whose marker matches"),
    ("scale.md", "`windows` matches"),
    ("serving.md", "the attention behind it"),
]


@functools.lru_cache(maxsize=None)
def flat(page):
    text = (DOCS / page).read_text(encoding="utf-8")
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("page, fragment, checks", CLAIMS,
                         ids=[f"{p}:{f[:40]}" for p, f, _ in CLAIMS])
def test_every_claim_of_the_docs_is_the_rules(page, fragment, checks):
    assert fragment in flat(page), f"{page} no longer says: {fragment}"
    assert checks
    for check in checks:
        assert check.check() == check.verdict, (page, check)
    if any(isinstance(c, OneRun) for c in checks):
        assert "one run" in fragment or "one seed" in fragment


def test_the_docs_make_no_other_claim():
    pages = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    assert "interpretability.md" in pages and "models/sanet.md" in pages
    registered = CLAIMS + [(page, fragment, None) for page, fragment in NOT_CLAIMS]
    unchecked = []
    for page in pages:
        text = flat(page)
        if page == "benchmarks.md":  # the section that states the rule and its words
            start = text.index("## Ahead, level or behind")
            text = text[:start] + " " * (text.index("## No hand-typed figure") - start) \
                + text[text.index("## No hand-typed figure"):]
        spans = [(m.start(), m.end()) for p, fragment, _ in registered if p == page
                 for m in re.finditer(re.escape(fragment), text)]
        for word in WORDS.finditer(text):
            if not any(start <= word.start() < end for start, end in spans):
                unchecked.append(f"{page}: ...{text[max(0, word.start() - 80):word.end() + 40]}...")
    assert not unchecked, "unchecked comparisons (register them here, with their records):\n" \
        + "\n".join(unchecked)


def test_the_scan_finds_a_new_claim():
    planted = flat("models/hcan.md") + " `hcan-2sa-target` beats `han` on IMDB."
    assert [m[0] for m in WORDS.finditer(planted)][-1] == "beats"
    assert "beats `han`" not in " ".join(f for p, f, _ in CLAIMS)


def test_a_wrong_verdict_fails():
    check = Seeds(("defaults", "sanet-base-imdb"), ("defaults", "sanet-baseline-base-imdb"),
                  "behind")
    assert check.check() != check.verdict
