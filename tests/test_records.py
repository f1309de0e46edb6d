"""kerasattn.records: marks from the code's history, and the rule for claims."""

import statistics
import subprocess

import pytest
from scipy import stats

from kerasattn import records


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                                          "GIT_COMMITTER_NAME": "t",
                                          "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin",
                                          "GIT_COMMITTER_DATE": "2026-12-01T21:55:35+00:00",
                                          "GIT_AUTHOR_DATE": "2026-12-01T21:55:35+00:00"}
                          ).stdout.strip()


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """A -- X -- C on main, and D branched from A (never merged): X is the change."""
    repo = tmp_path_factory.mktemp("repo")
    git(repo, "init", "-q", "-b", "main")
    commits = {}
    for name in ("A", "X", "C"):
        git(repo, "commit", "-q", "--allow-empty", "-m", name)
        commits[name] = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "side", commits["A"])
    git(repo, "commit", "-q", "--allow-empty", "-m", "D")
    commits["D"] = git(repo, "rev-parse", "HEAD")
    return str(repo), commits


def seed(commit=None, measured="2026-12-02"):
    return {"measured": measured, "test": {"accuracy": 0.8},
            **({"provenance": {"commit": commit}} if commit else {})}


def test_a_record_is_after_a_change_only_when_its_commit_descends_from_it(history):
    repo, c = history
    assert records.relation(seed(c["C"]), c["X"], repo) == "after"
    assert records.relation(seed(c["X"]), c["X"], repo) == "after"
    # a later date proves nothing: D was made after X but does not hold it
    assert records.relation(seed(c["D"], measured="2026-12-05"), c["X"], repo) == "before"
    assert records.relation(seed(c["A"]), c["X"], repo) == "before"


def test_the_commit_is_read_from_the_runs_or_the_benchmarks_provenance(history):
    repo, c = history
    nested = {"measured": "2026-12-02",
              "provenance": {"commit": c["A"], "run": {"commit": c["C"]}}}
    assert records.relation(nested, c["X"], repo) == "after"
    # an old run recorded by a new benchmark: the benchmark's commit proves nothing of it
    old_run = {"measured": "2026-12-02",
               "provenance": {"commit": c["C"], "run": {"commit": None}}}
    assert records.relation(old_run, c["X"], repo) == "unknown"
    several = {"provenance": {"commit": c["A"], "runs": [{"commit": c["C"]}] * 2}}
    assert records.relation(several, c["X"], repo) == "after"
    mixed = {"provenance": {"commit": c["C"], "runs": [{"commit": c["C"]}, {"commit": None}]}}
    assert records.relation(mixed, c["X"], repo) == "unknown"


def test_a_record_without_a_commit_is_before_only_when_dated_before_the_change(history):
    repo, c = history  # X committed 2026-12-01T21:55Z
    assert records.relation(seed(measured="2026-11-30"), c["X"], repo) == "before"
    assert records.relation(seed(measured="2026-12-01"), c["X"], repo) == "unknown"
    assert records.relation(seed(measured="2026-12-02"), c["X"], repo) == "unknown"
    assert records.relation({}, c["X"], repo) == "unknown"


def test_a_row_is_after_only_when_every_seed_is(history):
    repo, c = history
    after, before, unknown = seed(c["C"]), seed(c["D"]), seed()
    assert records.row_relation([after, after], c["X"], repo) == "after"
    assert records.row_relation([after, unknown], c["X"], repo) == "unknown"
    assert records.row_relation([after, before, unknown], c["X"], repo) == "before"


def test_without_git_or_the_commit_nothing_is_proved(tmp_path, history):
    _, c = history
    assert records.descends(c["C"], c["X"], str(tmp_path)) is None
    assert records.relation(seed(c["C"]), c["X"], str(tmp_path)) == "unknown"
    assert records.relation(seed(measured="2026-11-01"), c["X"], str(tmp_path)) == "unknown"


def test_compare_is_welchs_interval_by_hand():
    a, b = [0.85732, 0.85732, 0.85492], [0.85376, 0.84868, 0.853]
    found = records.compare(a, b)
    va, vb = statistics.variance(a) / 3, statistics.variance(b) / 3
    se = (va + vb) ** 0.5
    df = (va + vb) ** 2 / (va ** 2 / 2 + vb ** 2 / 2)
    half = stats.t.ppf(0.975, df) * se
    diff = statistics.mean(a) - statistics.mean(b)
    assert found.difference == pytest.approx(diff)
    assert (found.low, found.high) == pytest.approx((diff - half, diff + half))
    assert found.p_value == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue)
    # 0.857 ± 0.001 against 0.852 ± 0.003: three seeds a side do not tell them apart
    assert found.verdict == "level" and found.low < 0 < found.high
    assert found.sentence("the baseline", "sanet-base").startswith(
        "the baseline is level with sanet-base (+0.005, 95% interval -0.001 to +0.010")


@pytest.mark.parametrize("a, b, verdict", [
    ([0.90, 0.91, 0.92], [0.80, 0.81, 0.82], "ahead"),
    ([0.80, 0.81, 0.82], [0.90, 0.91, 0.92], "behind"),
    ([0.80, 0.82, 0.81], [0.81, 0.80, 0.82], "level"),
    ([0.8, 0.8], [0.7, 0.7], "ahead"),  # no spread at all: the difference decides
    ([0.8, 0.8], [0.8, 0.8], "level"),
    ([0.8, 0.8, 0.8], [0.7, 0.72, 0.71], "ahead"),  # one side without spread
])
def test_compare_decides(a, b, verdict):
    assert records.compare(a, b).verdict == verdict
    opposite = {"ahead": "behind", "behind": "ahead", "level": "level"}[verdict]
    assert records.compare(b, a).verdict == opposite


def test_compare_needs_two_seeds_a_side():
    with pytest.raises(ValueError, match="two seeds"):
        records.compare([0.8], [0.7, 0.71])


@pytest.mark.parametrize("difference, half, higher_is_better, verdict", [
    (0.145, 0.025, True, "ahead"),     # attention above random on comprehensiveness
    (-0.021, 0.012, True, "behind"),   # HCAN's: below it
    (0.009, 0.014, True, "level"),     # the interval holds zero
    (-0.192, 0.034, False, "ahead"),   # sufficiency: lower is better
    (0.054, 0.023, False, "behind"),
    (0.010, 0.010, True, "level"),     # touching zero is not excluding it
])
def test_compare_paired_decides_on_the_interval(difference, half, higher_is_better, verdict):
    assert records.compare_paired(difference, half, higher_is_better) == verdict


def test_compare_paired_needs_a_finite_interval():
    with pytest.raises(ValueError, match="finite"):
        records.compare_paired(0.1, float("nan"))


def test_spread_rounds_once_from_the_raw_values():
    # rounded twice (0.8545 -> 0.855 from 0.85449) would differ: 0.85449 rounds to 0.854
    assert records.spread([0.85449, 0.85449]) == "0.854 ± 0.000"
    assert records.spread([0.8, 0.9], 2, 3) == "0.85 ± 0.071"
    assert records.seed_scores({"seeds": [{"test": {"accuracy": 0.5}}]}) == [0.5]
    assert records.seed_scores({"test": {"accuracy": 0.5}}) == [0.5]
