"""Property-based fuzzing of the reader of users' files (csv:, tsv:, jsonl:).

Random bytes, random encodings (UTF-8, UTF-8 with a byte-order mark, UTF-16, Latin-1)
of random text, random headers in any spelling, quotes left open, repeated headers,
byte-order marks starting lines, duplicate and misspelled JSON keys, NaN, random
labels, splits and groups, files cut short. The only outcomes allowed: a dataset that
keeps the invariants below, or a :class:`DatasetFormatError` /
:class:`DatasetNotFoundError` whose message is one line naming the file. A file
written correctly (the csv module, json.dumps, UTF-8) that loads has every one of its
rows in a split: nothing lost.

The default suite runs a fixed, derandomised budget; ``-m slow`` runs a larger one.
"""

import csv
import io
import json
import os
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kerasattn.data import datasets as d

FORMATS = ("csv", "tsv", "jsonl")
DELIMITERS = {"csv": ",", "tsv": "\t"}
LINE_ENDS = ("\n", "\r\n", "\r")
COLUMNS = ("text", "label", "split", "group")
# the characters that matter to the readers, and any others
SPECIAL = [",", "\t", '"', "'", "\n", "\r", "\r\n", "\ufeff", "\u2028", "\x85", " ", "\0",
           "{", "}", "\\"]
HOSTILE = st.lists(st.characters(codec="utf-8") | st.sampled_from(SPECIAL),
                   max_size=12).map("".join)
FRIENDLY = st.lists(st.sampled_from(list("ab xyz,;'\t\"\n") + ["caf\u00e9", "\u00fc"]),
                    max_size=12).map("".join)
POOL = ["pos", "neg", "odd", "1", "2", " 1 ", "10", "POS"]


def chance(draw, percent):
    """True ``percent`` times in 100."""
    return draw(st.integers(0, 99)) < percent


@st.composite
def spelled(draw, name):
    """A column name as someone may have written it."""
    return draw(st.sampled_from([
        name, name.upper(), name.title(), f" {name} ", f'"{name}"', f"'{name}'",
        "\ufeff" + name, name + "\ufeff"]))


@st.composite
def values(draw, column, fmt, wild):
    """A cell of ``column``: plausible, or (``wild``: a file of odd cells) sometimes
    anything."""
    if wild and fmt == "jsonl" and chance(draw, 8):
        return draw(st.integers(-3, 12) | st.none() | st.booleans() | st.floats()
                    | st.lists(st.integers(), max_size=2))
    if column == "text":
        return draw(HOSTILE if wild and chance(draw, 25) else FRIENDLY)
    if column == "label":
        if wild and chance(draw, 8):
            return draw(HOSTILE)
        if fmt == "jsonl" and chance(draw, 20):
            return draw(st.integers(0, 3))
        return draw(st.sampled_from(POOL))
    if column == "split":
        if wild and chance(draw, 5):
            return draw(st.sampled_from(["bogus", "trian", "-"]))
        return draw(st.sampled_from(["train"] * 6 + ["test", "dev", "", " TEST ",
                                                     "validation", "Val"]))
    return draw(st.sampled_from(["", "a", "b", "c", "d", "e", "f", "g", "h"]))


@st.composite
def user_files(draw):
    """(format, file bytes, rows written or None): None where the file is not a correct
    writing of its rows (random bytes, broken quoting, injected lines, other encodings,
    cut short), so only the refusal rules hold."""
    fmt = draw(st.sampled_from(FORMATS))
    if chance(draw, 5):
        return fmt, draw(st.binary(max_size=300)), None
    columns = ["text", "label"] + draw(st.lists(st.sampled_from(COLUMNS[2:]), max_size=2,
                                                unique=True))
    if chance(draw, 8):
        columns.append(draw(HOSTILE))  # a column the reader does not use (or a bad name)
    if chance(draw, 5):
        columns.remove(draw(st.sampled_from(["text", "label"])))
    columns = draw(st.permutations(columns))
    names = [draw(spelled(c)) if chance(draw, 30) else c for c in columns]
    clean = len({normal_name(k) for k in names}) == len(names)
    wild = chance(draw, 35)
    rows = [[draw(values(c, fmt, wild)) for c in columns]
            for _ in range(draw(st.integers(0, 60)))]
    if fmt == "jsonl":
        if not chance(draw, 20):
            lines = [json.dumps(dict(zip(names, r)), ensure_ascii=draw(st.booleans()))
                     for r in rows]
        else:  # written by hand: keys twice, NaN, anything
            lines, clean = [], False
            for r in rows:
                pairs = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in zip(names, r)]
                if chance(draw, 20):
                    pairs.append(f'"{draw(st.sampled_from(names))}": '
                                 f'{draw(st.sampled_from(["NaN", "1", "Infinity", "[1,2"]))}')
                lines.append("{" + ", ".join(draw(st.permutations(pairs))) + "}")
    else:
        sep = DELIMITERS[fmt]
        if not chance(draw, 20):  # by the csv module: one record a row, quoted as needed
            lines = [_record(cells, sep) for cells in [names] + rows]
        else:  # written by hand: quotes left open, delimiters inside texts
            lines, clean = [sep.join(names)], False
            for r in rows:
                lines.append(sep.join(f'"{v}' if chance(draw, 10) else str(v) for v in r))
    if chance(draw, 20):  # a header again, a byte-order mark, blank lines
        at = draw(st.integers(0, len(lines)))
        extra = draw(st.sampled_from([
            DELIMITERS.get(fmt, ",").join(draw(spelled(c)) for c in columns),
            "\ufeff" + (lines[at - 1] if at and lines else ""), "", "  "]))
        lines.insert(at, extra)
        clean = clean and not extra.strip()
    end = draw(st.sampled_from(LINE_ENDS))
    text = end.join(lines) + (end if draw(st.booleans()) else "")
    encoding = "utf-8" if chance(draw, 80) else draw(st.sampled_from(
        ["utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "latin-1"]))
    data = text.encode(encoding, errors="replace")
    clean = clean and encoding in ("utf-8", "utf-8-sig")
    if chance(draw, 5):
        data, clean = data[:draw(st.integers(0, len(data)))], False
    return fmt, data, rows if clean else None


def _record(cells, sep):
    out = io.StringIO()
    csv.writer(out, delimiter=sep).writerow([str(c) for c in cells])
    return out.getvalue().removesuffix("\r\n")


def normal_name(name):
    """The reader's normal form of a column name (a second spelling of one: refused)."""
    return name.replace("\ufeff", "").strip().strip("\"'").strip().casefold()


def _check(fmt, data, rows):
    with tempfile.TemporaryDirectory() as tmp:  # not tmp_path: hypothesis reuses fixtures
        path = os.path.join(tmp, f"data.{fmt}")
        with open(path, "wb") as fh:
            fh.write(data)
        try:
            splits, names, notes = d.load_user_file(path, fmt)
        except (d.DatasetFormatError, d.DatasetNotFoundError) as e:
            message = str(e)
            assert len(message.splitlines()) == 1, message
            assert message.startswith(path), message
            return
        _invariants(splits, names)
        assert all(isinstance(n, str) for n in notes)
        if rows is not None:  # written correctly, and loaded: every row is in a split
            assert sum(len(s) for s in splits.values()) == len(rows)
        try:
            ds = d.load(f"{fmt}:{path}")
        except d.DatasetFormatError as e:  # a class lost to the validation split
            assert len(str(e).splitlines()) == 1 and str(e).startswith(path), str(e)
            assert "no training row after the split" in str(e), str(e)
            return
        _invariants({s: ds.split(s) for s in d.SPLITS}, ds.class_names)
        assert sum(len(ds.split(s)) for s in d.SPLITS) == sum(len(s) for s in splits.values())


def _invariants(splits, names):
    assert "train" in splits and "test" in splits and set(splits) <= set(d.SPLITS)
    assert len(names) >= 2 and len(set(names)) == len(names)
    assert all(isinstance(n, str) and n and n == n.strip() and len(n.splitlines()) == 1
               for n in names)
    seen = set()
    for name, split in splits.items():
        assert len(split.texts) == len(split.labels)
        assert all(isinstance(t, str) for t in split.texts)
        labels = split.labels.tolist()
        assert all(isinstance(y, int) and 0 <= y < len(names) for y in labels)
        seen |= set(labels)
    trained = set(splits["train"].labels.tolist())
    for name in ("val", "test"):
        if name in splits:
            assert set(splits[name].labels.tolist()) <= trained, name
    assert seen == set(range(len(names)))  # every class has a row


SETTINGS = dict(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])


@settings(max_examples=60, **SETTINGS)
@given(user_files())
def test_the_user_file_reader_loads_or_refuses_in_one_line(case):
    _check(*case)


@pytest.mark.slow
@settings(max_examples=2000, **SETTINGS)
@given(user_files())
def test_the_user_file_reader_loads_or_refuses_in_one_line_at_length(case):
    _check(*case)
