"""Every measurement-like figure of README.md and docs/ against the records it cites.

A page's figures are found in its prose and tables (not in code blocks, inline code or
HTML comments): a mean and spread ``0.852 ± 0.003``, a decimal ``0.852`` (signed, or
followed by ``%``), seconds ``755 s``, a ratio ``21×``. Each must equal a value of a record
the text cites, rounded once from the raw value to the decimals printed:

- the records of a figure are the results files (``benchmarks/results/<stem>.json`` and the
  command-written ``<stem>.md``) that its block names (a paragraph, a list item, a table row:
  ``defaults.md``, ``benchmarks/results/levers.md``, ``initfix_after.json``); when the block
  names none, those its section names (the text under one heading); when the section names
  none, those the page names, or declares in a ``<!-- records: STEM ... -->`` comment;
- a record's values are every number in its JSON (or Markdown table) and, for every list of
  entries (a record's seeds, a grid's cells), the mean and sample standard deviation of
  each number they share, and their differences of means;
- a ``x ± y`` matches a mean and its spread together; a decimal matches any value, a mean,
  or a value times 100 (a percentage, "points");
- figures that are not measurements are declared where they stand, in a comment before
  their block: ``<!-- figures: paper 0.88 90.1 -->`` (a paper's number: the test finds it in
  ``../shared/papers/`` when that folder is there), ``<!-- figures: setting 0.5 0.02 -->``
  (a hyper-parameter, a threshold, a goal), ``<!-- figures: illustration 0.3 -->`` (a worked
  example, made-up numbers). A declared figure that is not in its block is a problem too, so
  declarations cannot go stale. A comment between a table's rows would end the table: one
  right above a table declares figures of any of its rows.

Nothing here imports TensorFlow.
"""

import functools
import itertools
import json
import math
import pathlib
import re
import statistics

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
PAPERS = ROOT.parent / "shared" / "papers"
KINDS = ("paper", "setting", "illustration")

SPREAD = re.compile(r"(?<![\w.])([-+−]?\d+(?:\.(\d+))?) ± (\d+(?:\.(\d+))?)(?![\d])")
DECIMAL = re.compile(r"(?<![\w.,/])([-+−]?\d*\.(\d+))(?![\w]|\.\d)(%?)")
SECONDS = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})*|\d+)(?:\.(\d+))? s\b")
RATIO = re.compile(r"(?<![\w.,])(\d+(?:\.(\d+))?)×")
# "3 points", "2.7–3.9 points", "2 to 5 points": differences of accuracies times 100
POINTS = re.compile(r"(?<![\w.,])([-+−]?\d+(?:\.(\d+))?)(?=(?:(?:–| to )\d+(?:\.\d+)?)? points?\b)")
DECLARE = re.compile(r"<!--\s*figures:\s*(\w+)\s+(.*?)-->", re.S)
RECORDS_DECL = re.compile(r"<!--\s*records:\s*(.*?)-->", re.S)
CITE = re.compile(r"(?<![\w-])([a-z0-9][\w-]*)\.(?:md|json)\b")


def stems():
    return {p.stem for p in RESULTS.glob("*.json")} | {
        p.stem for p in RESULTS.glob("*.md") if _is_written(p)}


# Markdown in benchmarks/results/ that people wrote (lab notes): not records
LAB_NOTES = {"recipes_notes", "transformer_imdb_variants"}


@functools.lru_cache(maxsize=None)
def _is_written(path):
    """A Markdown results file written by a command (its opening names it), not lab notes."""
    head = path.read_text(encoding="utf-8")[:600]
    return path.stem not in LAB_NOTES and bool(
        re.search(r"`python -m (benchmarks|training|kerasattn)\b", head))


def _numbers(node, path=()):
    """(key path, value) of every number in a JSON tree."""
    if isinstance(node, bool):
        return
    if isinstance(node, (int, float)):
        if math.isfinite(node):
            yield path, float(node)
        return
    items = node.items() if isinstance(node, dict) else enumerate(node) \
        if isinstance(node, list) else ()
    for key, value in items:
        yield from _numbers(value, path + ((key if isinstance(node, dict) else "#"),))


def _groups(node):
    """Every list of two or more entries (a record's seeds, a list of runs)."""
    if isinstance(node, list):
        if len(node) >= 2:
            yield node
        for item in node:
            yield from _groups(item)
    elif isinstance(node, dict):
        for value in node.values():
            yield from _groups(value)


class Values:
    """The numbers a record gives: raw values, and means with their spreads."""

    def __init__(self):
        self.raw = set()
        self.spreads = set()  # (mean, std)

    def add_json(self, data):
        for _, value in _numbers(data):
            self.raw.add(value)
        for group in _groups(data):
            series = {}
            for entry in group:
                for path, value in _numbers(entry):
                    series.setdefault(path, []).append(value)
            for path, values in series.items():
                if len(values) == len(group):
                    mean, std = statistics.mean(values), statistics.stdev(values)
                    self.spreads.add((mean, std))
                    self.raw.add(mean)
            # validation above test, seed by seed
            val, test = series.get(("val_accuracy",)), series.get(("test", "accuracy"))
            if val and test and len(val) == len(test) == len(group):
                gaps = [v - t for v, t in zip(val, test)]
                self.raw.update(gaps)
                self.raw.add(statistics.mean(gaps))
                self.spreads.add((statistics.mean(gaps), statistics.stdev(gaps)))

    def add_differences(self, entries):
        """Differences of the entries' means, metric by metric (a lever's gain: one
        configuration's mean accuracy less another's), and their paired spreads."""
        per_entry = []
        for entry in entries:
            seeds = entry.get("seeds") if isinstance(entry, dict) else None
            seeds = seeds if isinstance(seeds, list) else [entry]
            series = {}
            for seed in seeds:
                for path, value in _numbers(seed):
                    series.setdefault(path, []).append(value)
            per_entry.append(series)
        for a, b in itertools.permutations(per_entry, 2):
            for path in set(a) & set(b):
                if len(a[path]) != len(b[path]):
                    continue
                self.raw.add(statistics.mean(a[path]) - statistics.mean(b[path]))
                if len(a[path]) >= 2:
                    gains = [x - y for x, y in zip(a[path], b[path])]
                    self.spreads.add((statistics.mean(gains), statistics.stdev(gains)))

    def add_markdown(self, text):
        for line in text.splitlines():
            for match in SPREAD.finditer(line):
                self.spreads.add(("text", match[1].replace("−", "-"), match[3]))
            for match in re.finditer(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?", line):
                try:
                    self.raw.add(float(match[0].replace(",", "")))
                except ValueError:
                    pass


@functools.lru_cache(maxsize=None)
def _load(stem):
    json_path, md_path = RESULTS / f"{stem}.json", RESULTS / f"{stem}.md"
    if json_path.exists():
        return json.loads(json_path.read_text(encoding="utf-8"))
    return md_path.read_text(encoding="utf-8")


@functools.lru_cache(maxsize=None)
def values_of(stem, names=frozenset()):
    """The values of one results file: of the entries whose name starts with one of
    ``names`` (a preset the block names: ``cnn`` -> ``cnn-sst2``, ``cnn-imdb``) when
    there are such, else of all of it. The Markdown a command wrote beside its JSON
    counts too (it may quote what its JSON does not, e.g. a paper's columns)."""
    found = Values()
    data = _load(stem)
    md_path = RESULTS / f"{stem}.md"
    if md_path.exists() and _is_written(md_path):  # what the command wrote beside its JSON
        found.add_markdown(md_path.read_text(encoding="utf-8"))
    if isinstance(data, str):
        return found
    if isinstance(data, dict) and names:
        named = {k: v for k, v in data.items()
                 if any(k == n or k.startswith(n + "-") for n in names)}
        if named and len(named) <= 40:
            found.add_differences(list(named.values()))
        data = named or data
    found.add_json(data)
    return found


def _rounds_to(value, text, decimals):
    return f"{value:.{decimals}f}" == text


def _number(text):
    return float(text.replace("−", "-").replace(",", "").lstrip("+"))


def matches(kind, match, scope):
    """Whether a figure found by ``kind``'s pattern equals a value of the records of
    ``scope`` (results file stems, and the names the block gives in backticks)."""
    stems_, names = scope
    for stem in stems_:
        values = values_of(stem, names)
        if kind == "spread":
            mean, md, std, sd = match[1].replace("−", "-").lstrip("+"), match[2] or "", \
                match[3], match[4] or ""
            for pair in values.spreads:
                if pair[0] == "text":
                    if pair[1].lstrip("+") == mean and pair[2] == std:
                        return True
                    continue
                if _rounds_to(pair[0], mean, len(md)) and _rounds_to(pair[1], std, len(sd)):
                    return True
                if _rounds_to(100 * pair[0], mean, len(md)) and \
                        _rounds_to(100 * pair[1], std, len(sd)):
                    return True
        else:
            text, decimals = match[1], len(match[2] or "")
            target = _number(text)
            shown = f"{abs(target):.{decimals}f}"
            for value in values.raw:
                for scaled in (value, 100 * value):
                    if f"{abs(scaled):.{decimals}f}" == shown and \
                            (target == 0 or (scaled < 0) == (target < 0) or kind != "decimal"
                             or not text[:1] in "+-−"):
                        return True
    return False


def _strip(text):
    """Code blocks, inline code and comments blanked (same length, so offsets hold)."""
    blank = lambda m: re.sub(r"[^\n]", " ", m[0])  # noqa: E731
    text = re.sub(r"```.*?```", blank, text, flags=re.S)
    text = re.sub(r"<!--.*?-->", blank, text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", blank, text)
    text = re.sub(r"\]\([^)]*\)", blank, text)  # link targets
    text = re.sub(r"\b10\.\d{4,9}/\S+", blank, text)  # DOIs
    text = re.sub(r"(?i)\b(arXiv:?\s*)?\d{4}\.\d{4,5}(v\d+)?\b", blank, text)  # arXiv ids
    text = re.sub(r"https?://\S+", blank, text)
    return text


def blocks(text):
    """(start, end) of every block: a table row, a list item, a paragraph, a heading."""
    spans, start, pos = [], None, 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith("<!--") and stripped.endswith("-->"):  # a comment: no block's
            if start is not None:
                spans.append((start, pos))
                start = None
            pos += len(line)
            continue
        new_block = (not stripped or stripped.startswith(("|", "#"))
                     or re.match(r"([-*]|\d+\.) ", stripped))
        if new_block and start is not None:
            spans.append((start, pos))
            start = None
        if stripped and start is None:
            start = pos
        if stripped.startswith(("|", "#")) and start is not None:
            spans.append((start, pos + len(line)))
            start = None
        pos += len(line)
    if start is not None:
        spans.append((start, pos))
    return spans


def _cited(text, known):
    """The results files a text names (a link to a docs page of the same name is not one)."""
    text = re.sub(r"\]\((?![^)]*benchmarks/results/)[^)]*\)", "]", text)
    return {m[1] for m in CITE.finditer(text) if m[1] in known}


# a version, a section of a paper, a count in words: not a measurement
NOT_A_FIGURE = re.compile(
    r"(?:Python|TensorFlow|Keras|scikit-learn|JAX|NumPy|PyTorch|setuptools|MkDocs|version|"
    r"[Vv]|§|Section|Table|Figure|Eq\.|Equation|Appendix|release|pip|CUDA|Ubuntu|License|Format)"
    r"\s?[-+−]?\d*\.?\d+(?:\.\d+)*\s*$"
    r"|(?:§|Sections?|Tables?)\s?\d+(?:\.\d+)*(?:–|-| and | to |, )\d+(?:\.\d+)*\s*$")


def figures(text):
    """(kind, match) of every measurement-like figure in stripped text."""
    taken = []
    for kind, pattern in (("spread", SPREAD), ("seconds", SECONDS), ("ratio", RATIO),
                          ("points", POINTS), ("decimal", DECIMAL)):
        for match in pattern.finditer(text):
            if any(a <= match.start() < b for a, b in taken):
                continue
            if NOT_A_FIGURE.search(text[max(0, match.start() - 20):match.end()]) or \
                    re.match(r"\s*(million|billion|thousand)\b", text[match.end():]):
                taken.append(match.span())
                continue
            taken.append(match.span())
            yield kind, match


def page_figures(path, text=None):
    """(line, kind, match, scope, declared kind or None) of every figure of one page,
    and the problems of its declarations."""
    text = path.read_text(encoding="utf-8") if text is None else text
    known = stems()
    plain = _strip(text)
    page_scope = _cited(text, known) | {
        s for m in RECORDS_DECL.finditer(text) for s in m[1].split() if s in known}
    sections = [m.start() for m in re.finditer(r"^#+ ", text, flags=re.M)] + [len(text)]
    found_all, problems = [], []
    for start, end in blocks(text):
        block, body = text[start:end], plain[start:end]
        line = text.count("\n", 0, start) + 1
        where = f"{path.relative_to(ROOT)}:{line}"
        declared = {}
        # the comments right above the block (above its table, for a table's row: a comment
        # between rows would end the table)
        top = start
        if block.lstrip().startswith("|"):
            while top > 0:
                previous = text.rfind("\n", 0, top - 1) + 1
                if not text[previous:top].lstrip().startswith("|"):
                    break
                top = previous
        before = text[:top].rstrip()
        while before.endswith("-->"):
            comment_start = before.rfind("<!--")
            for m in DECLARE.finditer(before[comment_start:]):
                if m[1] not in KINDS:
                    problems.append(f"{where}: unknown figure kind {m[1]!r} "
                                    f"(one of {', '.join(KINDS)})")
                for figure in m[2].split():
                    declared[figure] = m[1]
            before = before[:comment_start].rstrip()
        found = list(figures(body))
        shown = {m[0] for _, m in found} | {m[1] for _, m in found}
        if block.lstrip().startswith("|"):  # a table's declarations: any row's figures
            table_end = start
            while table_end < len(text) and text[table_end:].lstrip(" ").startswith("|"):
                table_end = text.find("\n", table_end) + 1 or len(text)
            table = list(figures(plain[top:table_end]))
            shown = {m[0] for _, m in table} | {m[1] for _, m in table}
        for figure, kind in declared.items():
            if figure not in shown:
                problems.append(f"{where}: declared {kind} figure {figure} is not a figure "
                                "of the block below its comment")
            elif kind == "paper" and paper_texts() and \
                    not any(figure.lstrip("+") in t for t in paper_texts()):
                problems.append(f"{where}: declared paper figure {figure} is in none of the "
                                f"papers in {PAPERS}")
        if not found:
            continue
        scope = _cited(block, known)
        if not scope:
            section_start = max([s for s in sections if s <= start], default=0)
            section_end = min(s for s in sections if s > start)
            scope = _cited(text[section_start:section_end], known)
        scope = (tuple(sorted(scope or page_scope)),
                 frozenset(re.findall(r"`([\w.-]+)`", block)))
        for kind, match in found:
            decl = declared.get(match[0], declared.get(match[1]))
            found_all.append((where, kind, match, scope, decl))
    return found_all, problems


def page_problems(path, text=None):
    """Every figure of one page that no record it cites gives, and every stale
    declaration, as lines naming the page and line; and the number checked."""
    found, problems = page_figures(path, text)
    checked = 0
    for where, kind, match, scope, declared in found:
        if declared:
            continue
        checked += 1
        if not scope[0]:
            problems.append(f"{where}: {match[0]} cites no record (name its results "
                            "file, or declare it a paper's figure, a setting or an "
                            "illustration)")
        elif not matches(kind, match, scope):
            problems.append(f"{where}: {match[0]} is in none of its records "
                            f"({', '.join(scope[0])})")
    return problems, checked


def edited(kind, match):
    """The figure with its last digit one higher (``0.852`` -> ``0.853``, ``0.852 ±
    0.003`` -> ``0.853 ± 0.003`` and ``0.852 ± 0.004``), matched again by its pattern."""
    pattern = {"spread": SPREAD, "seconds": SECONDS, "ratio": RATIO, "points": POINTS,
               "decimal": DECIMAL}[kind]
    text = match[0]
    groups = [1, 3] if kind == "spread" else [1]
    out = []
    for g in groups:
        a, b = match.start(g) - match.start(), match.end(g) - match.start()
        value = text[a:b]
        digits = [i for i, c in enumerate(value) if c.isdigit()]
        i = digits[-1]
        number = list(value)
        while i is not None:
            if number[i] == "9":
                number[i] = "0"
                prior = [j for j in digits if j < i]
                i = prior[-1] if prior else None
                if i is None:
                    number.insert(0, "1")
            else:
                number[i] = str(int(number[i]) + 1)
                i = None
        new = text[:a] + "".join(number) + text[b:]
        out.append(pattern.search(new))
    return [m for m in out if m]


@functools.lru_cache(maxsize=None)
def paper_texts():
    """The papers' texts (empty when ../shared/papers is not beside the checkout)."""
    if not PAPERS.is_dir():
        return ()
    return tuple(p.read_text(encoding="utf-8", errors="replace") for p in PAPERS.glob("*.txt"))


def pages():
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


if __name__ == "__main__":  # python tests/figure_check.py [PAGE ...]: the problems
    import sys

    chosen = [pathlib.Path(a).resolve() for a in sys.argv[1:]] or pages()
    total = 0
    for page in chosen:
        found, checked = page_problems(page)
        total += len(found)
        print("\n".join(found)) if found else None
    print(f"{total} problems")
    sys.exit(1 if total else 0)
