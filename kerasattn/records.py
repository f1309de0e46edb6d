"""Reading benchmark records: what code made them, and what two of them say against each other.

A benchmark record is a list of per-seed entries (``benchmarks/results/<suite>.json``:
``{"NAME": {"seeds": [{"test": {"accuracy": ...}, "measured": "2026-12-01",
"provenance": {...}}, ...]}}``). Two questions are asked of records before a page quotes
them, and this module answers both by one rule each:

**Was it measured before or after a change?** (:func:`relation`, :func:`row_relation`)
Decided by the code's history, not by dates: a seed is ``"after"`` commit X when the commit
its provenance names descends from X (``git merge-base --is-ancestor``), ``"before"`` when it
does not. A seed without a commit (recorded before provenance existed) is ``"before"`` only
when it finished on a day before X was committed (the code it ran could not contain X), and
``"unknown"`` otherwise ("commit unknown": a record dated the day of X or later proves
nothing). A row is ``"after"`` only when every seed is; ``"before"`` when any seed is;
``"unknown"`` otherwise.

**Is A ahead of, level with or behind B?** (:func:`compare`) The difference of the mean
test accuracies over seeds, against Welch's t interval for it (95%, the seeds of each row
as independent samples with their own variances): ``"ahead"`` when the whole interval is
above zero, ``"behind"`` when below, ``"level"`` when it holds zero. With three seeds a
side the interval is wide (about ± 3.2 standard errors): "level" means "these seeds do not
tell them apart", not "equal". One run's claims over documents (attention against a
random ranking, say) are decided on the paired differences the run recorded
(:func:`compare_paired`): ahead or behind when their 95% interval excludes zero. Records
keep no test predictions, so two runs' accuracies are compared over seeds only.
"""

import dataclasses
import datetime
import functools
import math
import os
import statistics
import subprocess

AFTER, BEFORE, UNKNOWN = "after", "before", "unknown"
AHEAD, LEVEL, BEHIND = "ahead", "level", "behind"
CONFIDENCE = 0.95


def _repo():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _git(*args, repo=None):
    try:
        done = subprocess.run(["git", "-C", repo or _repo(), *args], capture_output=True,
                              text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done


@functools.lru_cache(maxsize=None)
def commit_day(commit, repo=None):
    """The UTC day ``commit`` was committed (``None`` without git or the commit)."""
    done = _git("show", "-s", "--format=%cI", commit, repo=repo)
    if done is None or done.returncode != 0 or not done.stdout.strip():
        return None
    when = datetime.datetime.fromisoformat(done.stdout.strip())
    return when.astimezone(datetime.timezone.utc).date().isoformat()


@functools.lru_cache(maxsize=None)
def descends(commit, ancestor, repo=None):
    """Whether ``commit`` descends from ``ancestor`` (or is it): True, False, or None when
    git, the checkout or either commit is missing."""
    if not commit:
        return None
    done = _git("merge-base", "--is-ancestor", ancestor, commit, repo=repo)
    if done is None or done.returncode not in (0, 1):
        return None
    return done.returncode == 0


def commit_of(seed):
    """The commit of the code that measured a seed: its trained run's (``provenance.run``,
    or the one commit of all ``provenance.runs``), else the entry's own; None: "commit
    unknown" (a run recorded before provenance never borrows the benchmark's commit)."""
    provenance = seed.get("provenance") or {}
    if isinstance(provenance.get("run"), dict):  # measured from a trained run: its code
        return provenance["run"].get("commit")
    if isinstance(provenance.get("runs"), list):  # from several: one commit, or unknown
        commits = {r.get("commit") if isinstance(r, dict) else None
                   for r in provenance["runs"]}
        return commits.pop() if len(commits) == 1 else None
    return provenance.get("commit")


def relation(seed, change, repo=None):
    """``"after"``, ``"before"`` or ``"unknown"``: whether one seed's record was measured
    on code that holds commit ``change`` (see the module's docstring for the rule)."""
    commit = commit_of(seed)
    if commit:
        found = descends(commit, change, repo)
        return UNKNOWN if found is None else AFTER if found else BEFORE
    day, measured = commit_day(change, repo), seed.get("measured")
    if day and measured and str(measured)[:10] < day:
        return BEFORE
    return UNKNOWN


def row_relation(seeds, change, repo=None):
    """A row's relation to ``change``: after only when every seed is, before when any seed
    is, unknown otherwise."""
    found = {relation(s, change, repo) for s in seeds}
    if found == {AFTER}:
        return AFTER
    return BEFORE if BEFORE in found else UNKNOWN


@dataclasses.dataclass(frozen=True)
class Comparison:
    """What :func:`compare` decided: ``verdict`` of A against B, the difference of means
    (A - B), its Welch interval and the p-value of Welch's t test."""

    verdict: str
    difference: float
    low: float
    high: float
    p_value: float
    n_a: int
    n_b: int

    def sentence(self, a="A", b="B", decimals=3):
        """``"A is ahead of B (+0.005, 95% interval +0.001 to +0.010, 3 and 3 seeds)"``."""
        verb = {AHEAD: "is ahead of", LEVEL: "is level with", BEHIND: "is behind"}
        return (f"{a} {verb[self.verdict]} {b} ({self.difference:+.{decimals}f}, "
                f"{CONFIDENCE:.0%} interval {self.low:+.{decimals}f} to "
                f"{self.high:+.{decimals}f}, {self.n_a} and {self.n_b} seeds)")


def compare(a, b, confidence=CONFIDENCE):
    """Decide whether the per-seed scores ``a`` are ahead of, level with or behind ``b``
    (the module's rule). Each needs two scores at least; two sides with no spread at all
    are ahead or behind by their difference, level when equal."""
    a, b = [float(x) for x in a], [float(x) for x in b]
    if len(a) < 2 or len(b) < 2:
        raise ValueError(f"a claim needs two seeds a side at least; got {len(a)} and "
                         f"{len(b)}")
    difference = statistics.mean(a) - statistics.mean(b)
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    se = math.sqrt(va + vb)
    if se == 0:
        verdict = AHEAD if difference > 0 else BEHIND if difference < 0 else LEVEL
        return Comparison(verdict, difference, difference, difference,
                          0.0 if difference else 1.0, len(a), len(b))
    from scipy import stats  # late: slow to import; the rest needs the standard library only

    df = (va + vb) ** 2 / ((va ** 2 / (len(a) - 1) if va else 0.0)
                           + (vb ** 2 / (len(b) - 1) if vb else 0.0))
    half = stats.t.ppf(0.5 + confidence / 2, df) * se
    low, high = difference - half, difference + half
    p_value = float(2 * stats.t.sf(abs(difference) / se, df))
    verdict = AHEAD if low > 0 else BEHIND if high < 0 else LEVEL
    return Comparison(verdict, difference, low, high, p_value, len(a), len(b))


def compare_paired(difference, half_width, higher_is_better=True):
    """The rule for one run's paired scores: ``difference`` is the mean of A − B over the
    same documents (or examples) and ``half_width`` its 95% half-width, as
    ``attention_faithfulness`` records them under ``"paired"``. Ahead when the interval
    lies wholly on the better side of zero (above it, or below it when lower is better,
    as for sufficiency), behind when wholly on the worse side, level when it holds zero.
    A half-width that is not a finite number (fewer than two documents) decides nothing:
    ValueError."""
    difference, half_width = float(difference), float(half_width)
    if not math.isfinite(half_width) or not math.isfinite(difference) or half_width < 0:
        raise ValueError(f"a paired claim needs a finite difference and half-width; got "
                         f"{difference} ± {half_width}")
    low, high = difference - half_width, difference + half_width
    if not higher_is_better:
        low, high = -high, -low
    return AHEAD if low > 0 else BEHIND if high < 0 else LEVEL


def seed_scores(record, metric="accuracy", split="test"):
    """The per-seed ``split`` ``metric`` of one record (``{"seeds": [...]}``, or an older
    one-run record)."""
    seeds = record["seeds"] if "seeds" in record else [record]
    return [s[split][metric] for s in seeds]


def spread(values, decimals=3, std_decimals=None):
    """``"0.852 ± 0.003"``: the mean and the sample standard deviation (n - 1), each
    rounded once from the raw values."""
    std_decimals = decimals if std_decimals is None else std_decimals
    return (f"{statistics.mean(values):.{decimals}f} ± "
            f"{statistics.stdev(values):.{std_decimals}f}")


# --- tables of records, with their marks -------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Change:
    """A change of the code that records are marked against: cells of the records it
    ``applies`` to (a function of the record's name and its seeds) measured before commit
    ``commit`` get ``mark``."""

    commit: str
    mark: str
    meaning: str
    applies: object = None  # callable(name, seeds) -> bool; None: every record


@dataclasses.dataclass(frozen=True)
class Row:
    """One row of a table: its label (the preset and its recipe) and, per column, the
    record behind the cell: ``(results file stem, record name)``."""

    label: str
    cells: dict


GPU_MARK, PORTABLE_MARK, CUT_MARK, UNKNOWN_MARK = "g", "p", "t", "?"


def seeds_of(data, name):
    """A record's per-seed entries, each with ``accuracy`` (its test accuracy) added."""
    entry = data[name]
    seeds = entry["seeds"] if "seeds" in entry else [entry]
    return [{**s, "accuracy": s["test"]["accuracy"]} for s in seeds]


def cell_marks(name, seeds, changes, repo=None):
    """The marks of one cell: ``g`` fitted on a GPU, ``p`` by ``training.portable`` on the
    CPU, ``t`` cut by a time limit, ``n=N`` over N seeds rather than three, and each change's mark where the cell was measured
    before it (``?`` after it when its record cannot prove it: "commit unknown")."""
    marks = []
    machines = {str(s.get("machine", "")) for s in seeds}
    if any(m.startswith("gpu:") for m in machines):
        marks.append(GPU_MARK)
    elif any(s.get("fitted_by") == "training.portable" for s in seeds):
        marks.append(PORTABLE_MARK)
    if any(s.get("cut") for s in seeds):
        marks.append(CUT_MARK)
    if len(seeds) != 3:
        marks.append(f"n={len(seeds)}")
    unknown = False
    for change in changes:
        if change.applies is not None and not change.applies(name, seeds):
            continue
        found = row_relation(seeds, change.commit, repo)
        if found == BEFORE:
            marks.append(change.mark)
        elif found == UNKNOWN:
            unknown = True
    if unknown:
        marks.append(UNKNOWN_MARK)
    return marks


def render_cell(seeds, marks, decimals=3):
    figure = spread([s["accuracy"] for s in seeds], decimals)
    return figure + (f" <sup>{', '.join(marks)}</sup>" if marks else "")


def render_table(rows, columns, load, changes=(), repo=None):
    """A Markdown table (a list of lines): ``model`` and one column per name of
    ``columns``, each cell the mean ± sample std of its record's test accuracies with its
    marks, and the results files it comes from. ``load(stem)`` gives a results file's
    JSON."""
    lines = ["| model | " + " | ".join(columns) + " | from (`benchmarks/results/`) |",
             "|---" * (len(columns) + 2) + "|"]
    for row in rows:
        cells = []
        for column in columns:
            if column not in row.cells:
                cells.append("–")
                continue
            stem, name = row.cells[column]
            seeds = seeds_of(load(stem), name)
            cells.append(render_cell(seeds, cell_marks(name, seeds, changes, repo)))
        stems = sorted({stem for stem, _ in row.cells.values()})
        lines.append(f"| {row.label} | " + " | ".join(cells) + " | "
                     + ", ".join(f"`{s}.md`" for s in stems) + " |")
    return lines
