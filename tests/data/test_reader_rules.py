"""One reader of users' files (csv:, tsv:, jsonl:), one set of rules: what it refuses,
each case a small exact file, each refusal a DatasetFormatError naming file and line
(issue "lose nothing, by construction", item 5)."""

import json
import os
import subprocess
import sys

import pytest

from kerasattn.data import datasets as d
from tests.conftest import write

DELIMITERS = {"csv": ",", "tsv": "\t"}


def _table(fmt, header, rows):
    """A CSV/TSV text: the header line (None: none), then the rows (lists of cells), as
    written."""
    sep = DELIMITERS[fmt]
    return "".join(sep.join(cells) + "\n" for cells in ([header] if header else []) + rows)


def _rows(n, start=0):
    return [[f"text {i}", "pos" if i % 2 else "neg"] for i in range(start, start + n)]


def _jsonl(rows):
    return "".join(json.dumps({"text": t, "label": lab}) + "\n" for t, lab in rows)


def _refused(spec, where, message):
    """``spec`` (``fmt:PATH``) is refused with ``where: message...``, one line, by both
    the reader and :func:`load`."""
    fmt, path = spec.split(":", 1)
    for load in (lambda: d.load_user_file(path, fmt), lambda: d.load(spec)):
        with pytest.raises(d.DatasetFormatError) as e:
            load()
        text = str(e.value)
        assert text.startswith(f"{where}: {message}"), text
        assert len(text.splitlines()) == 1, text


# 1. the header again, in any spelling; a column named twice in any spelling

@pytest.mark.parametrize("fmt", ["csv", "tsv"])
@pytest.mark.parametrize("again", [
    ["text", "label"], ["TEXT", "LABEL"], [" text ", " label "], ['"text"', '"label"'],
    ["\ufefftext", "label"], ["text", "\ufefflabel"], ['" Text "', "Label"],
    [' "text" ', " 'LABEL' "], ["\ufeff\ufeffTeXt", "label\ufeff"],
])
def test_the_header_repeated_mid_file_in_any_spelling_is_refused(tmp_path, fmt, again):
    path = write(tmp_path / f"data.{fmt}",
                 _table(fmt, ["text", "label"], _rows(20) + [again] + _rows(20, 20)))
    _refused(f"{fmt}:{path}", f"{path}:22", "the header again (two files joined?)")


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_the_header_repeated_in_another_column_order_is_refused(tmp_path, fmt):
    path = write(tmp_path / f"data.{fmt}",
                 _table(fmt, ["Text", "Label"], _rows(20) + [["LABEL", "text"]] + _rows(20)))
    _refused(f"{fmt}:{path}", f"{path}:22", "the header again in another order")


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_a_header_spelled_otherwise_still_names_the_columns(tmp_path, fmt):
    path = write(tmp_path / f"data.{fmt}", _table(fmt, ['"TEXT"', " Label "], _rows(40)))
    splits, names, _ = d.load_user_file(path, fmt)
    assert names == ["neg", "pos"] and sum(len(s) for s in splits.values()) == 40


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
@pytest.mark.parametrize("header", [
    ["text", "Text", "label"], ["text", "label", "\ufefftext"], ["text", "label", '" TEXT "'],
])
def test_a_header_naming_a_column_twice_in_any_spelling_is_refused(tmp_path, fmt, header):
    path = write(tmp_path / f"data.{fmt}",
                 _table(fmt, header, [[f"a {i}", "pos", f"b {i}"] for i in range(40)]))
    _refused(f"{fmt}:{path}", f"{path}:1", "the header names 'text' more than once")


def test_a_json_object_naming_a_key_twice_in_two_spellings_is_refused(tmp_path):
    path = write(tmp_path / "data.jsonl", _jsonl(_rows(20))
                 + '{"text": "a", "Text": "b", "label": "pos"}\n' + _jsonl(_rows(20)))
    _refused(f"jsonl:{path}", f"{path}:21", "the object names 'text' more than once")


def test_json_keys_are_read_in_the_same_normal_form(tmp_path):
    path = write(tmp_path / "data.jsonl", "".join(
        json.dumps({" TEXT ": t, "Label": lab}) + "\n" for t, lab in _rows(40)))
    splits, names, _ = d.load_user_file(path, "jsonl")
    assert names == ["neg", "pos"] and sum(len(s) for s in splits.values()) == 40


# 2. JSON lines: a key twice, NaN / Infinity; a byte-order mark starting a later line

@pytest.mark.parametrize("line, message", [
    ('{"text": "a", "label": "x", "label": "y"}', "the key 'label' appears more than once"),
    ('{"text": "a", "text": "a", "label": "x"}', "the key 'text' appears more than once"),
    ('{"text": "a", "label": "x", "meta": {"k": 1, "k": 2}}',
     "the key 'k' appears more than once"),
    ('{"text": "a", "label": NaN}', "NaN is not JSON"),
    ('{"text": "a", "label": "x", "score": Infinity}', "Infinity is not JSON"),
    ('{"text": "a", "label": "x", "score": [-Infinity]}', "-Infinity is not JSON"),
    ('{"text": "a", "label": %s}' % ("1" * 5000), "a number of more digits than can be read"),
    ('{"text": "a", "label": "x", "deep": %s}' % ("[" * 10**5 + "]" * 10**5),
     "invalid JSON (nested too deeply)"),
])
def test_jsonl_duplicate_keys_and_non_finite_numbers_are_refused(tmp_path, line, message):
    path = write(tmp_path / "data.jsonl", _jsonl(_rows(20)) + line + "\n" + _jsonl(_rows(20)))
    _refused(f"jsonl:{path}", f"{path}:21", message)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
def test_a_byte_order_mark_starting_a_later_line_is_refused(tmp_path, fmt):
    # two files joined: the second's byte-order mark starts line 22 (21 in JSON lines)
    if fmt == "jsonl":
        text, line = "\ufeff" + _jsonl(_rows(20)) + "\ufeff" + _jsonl(_rows(20)), 21
    else:
        text = ("\ufeff" + _table(fmt, ["text", "label"], _rows(20))
                + "\ufeff" + _table(fmt, None, _rows(20)))
        line = 22
    path = write(tmp_path / f"data.{fmt}", text)
    _refused(f"{fmt}:{path}", f"{path}:{line}", "a byte-order mark starts this line")


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
def test_a_second_byte_order_mark_at_the_start_of_the_file_is_refused(tmp_path, fmt):
    body = _jsonl(_rows(40)) if fmt == "jsonl" else _table(fmt, ["text", "label"], _rows(40))
    path = write(tmp_path / f"data.{fmt}", "\ufeff\ufeff" + body)
    _refused(f"{fmt}:{path}", f"{path}:1", "a byte-order mark starts this line")


# 4. the same rules in every format: encoding, NUL, line ends, blank lines

def _body(fmt, rows):
    return _jsonl(rows) if fmt == "jsonl" else _table(fmt, ["text", "label"], rows)


@pytest.mark.parametrize("fmt,line", [("csv", 4), ("tsv", 4), ("jsonl", 3)])
def test_bytes_that_are_not_utf8_are_refused_naming_line_and_column(tmp_path, fmt, line):
    data = _body(fmt, _rows(2)).encode() + "caf\u00e9 au lait".encode("latin-1") + b"\n"
    data += (_jsonl(_rows(40)) if fmt == "jsonl" else _table(fmt, None, _rows(40))).encode()
    path = write(tmp_path / f"data.{fmt}", data, mode="wb")
    _refused(f"{fmt}:{path}", f"{path}:{line}", "not valid UTF-8 (byte 0xe9 at column 4)")


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
@pytest.mark.parametrize("encoding,line,message", [
    ("utf-16", 1, "not valid UTF-8 (byte 0xff at column 1) (a UTF-16 byte-order mark"),
    ("utf-16-le", 1, "a NUL character at column 2"),
])
def test_a_utf16_file_is_refused(tmp_path, fmt, encoding, line, message):
    path = write(tmp_path / f"data.{fmt}", _body(fmt, _rows(40)).encode(encoding), mode="wb")
    _refused(f"{fmt}:{path}", f"{path}:{line}", message)


@pytest.mark.parametrize("fmt,line", [("csv", 3), ("tsv", 3), ("jsonl", 2)])
def test_a_nul_character_is_refused(tmp_path, fmt, line):
    rows = _rows(40)
    rows[1][0] = "te\0xt"  # written as is (JSON would escape it: a text may hold \u0000)
    path = write(tmp_path / f"data.{fmt}", _body(fmt, rows).replace("\\u0000", "\0"))
    _refused(f"{fmt}:{path}", f"{path}:{line}", "a NUL character")


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_line_ends_and_blank_lines_count_alike_in_every_format(tmp_path, fmt, end):
    # blank lines are skipped but counted: the bad row is on line 7 whatever the ends
    if fmt == "jsonl":
        row, bad = _jsonl(_rows(2)).splitlines(), '{"text": "x"}'
        lines, message = ["", row[0], "  ", " \t ", row[1], "", bad], "missing the 'label'"
    else:
        header, row = _table(fmt, ["text", "label"], _rows(2)).splitlines()[:1], \
            _table(fmt, None, _rows(2)).splitlines()
        bad = DELIMITERS[fmt].join(["x", "pos", "extra"])
        lines, message = header + ["", "  ", row[0], "", row[1], bad], "expected 2 columns"
    path = tmp_path / f"data.{fmt}"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(end.join(lines) + end)
    _refused(f"{fmt}:{path}", f"{path}:7", message)


def test_a_u2028_inside_a_json_text_is_not_a_line_end(tmp_path):
    rows = [{"text": f"one\u2028two\x85three {i}", "label": i % 2} for i in range(40)]
    path = write(tmp_path / "data.jsonl",
                 "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows) + "{\n")
    _refused(f"jsonl:{path}", f"{path}:41", "invalid JSON")


def test_a_tsv_line_of_tabs_is_a_row_of_empty_cells_not_a_blank_line(tmp_path):
    path = write(tmp_path / "data.tsv", _table("tsv", ["text", "label"], _rows(20)) + "\t\n"
                 + _table("tsv", None, _rows(20)))
    _refused(f"tsv:{path}", f"{path}:22", "'label' must be a non-empty string")


@pytest.mark.parametrize("split", ["0", "false", "1", "[]"])
def test_a_json_split_that_is_not_a_string_is_refused(tmp_path, split):
    path = write(tmp_path / "data.jsonl", _jsonl(_rows(20))
                 + '{"text": "a", "label": "pos", "split": %s}\n' % split)
    _refused(f"jsonl:{path}", f"{path}:21", "split")


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_a_directory_with_both_dev_and_val_files_is_refused(tmp_path, fmt):
    for split in ("train", "dev", "val", "test"):
        write(tmp_path / f"{split}.{fmt}", _body(fmt, _rows(20)))
    for load in (lambda: d.load_user_file(str(tmp_path), fmt),
                 lambda: d.load(f"{fmt}:{tmp_path}")):
        with pytest.raises(d.DatasetFormatError, match=rf"both dev\.{fmt} and val\.{fmt}"):
            load()


# 3. a class with no training row once the test and validation splits are derived

def _one_row_class(fmt, index=4, n=200, extra=()):
    """``n`` rows, pos/neg, but row ``index`` (0-based) is the only one of class 'odd';
    with index 4 of 200, the derived test split (seed 0) takes it."""
    rows = [["text number %d %s words" % (i, lab), lab]
            for i, lab in enumerate("odd" if i == index else "pos" if i % 2 else "neg"
                                    for i in range(n))]
    return _body(fmt, rows + list(extra))


@pytest.mark.parametrize("fmt,line", [("csv", 6), ("tsv", 6), ("jsonl", 5)])
def test_a_class_whose_only_row_goes_to_the_derived_test_split_is_refused(tmp_path, fmt,
                                                                           line):
    path = write(tmp_path / f"data.{fmt}", _one_row_class(fmt))
    _refused(f"{fmt}:{path}", f"{path}:{line}",
             "label 'odd' has no training row after the split: its only row went to the "
             "held-out test rows")


def test_a_class_whose_rows_go_to_the_derived_test_and_given_dev_rows_is_refused(tmp_path):
    # 'odd' has a training row, so the given dev row passes; the test split takes the
    # training row, and the class has held-out rows only
    rows = [[f"t {i}", "odd" if i == 4 else "pos" if i % 2 else "neg", "train"]
            for i in range(200)]
    rows += [["d 1", "pos", "dev"], ["d 2", "odd", "dev"], ["d 3", "neg", "dev"]]
    path = write(tmp_path / "data.csv", _table("csv", ["text", "label", "split"], rows))
    _refused(f"csv:{path}", f"{path}:6",
             "label 'odd' has no training row after the split: all 2 of its rows went to "
             "the held-out test and validation rows")


def test_a_class_whose_only_row_goes_to_the_derived_validation_split_is_refused(tmp_path):
    # test rows given; the validation split (10% of 60, seed 0) takes training row 2
    rows = [[f"t {i}", "odd" if i == 2 else "pos" if i % 2 else "neg", "train"]
            for i in range(60)]
    rows += [[f"u {i}", "pos" if i % 2 else "neg", "test"] for i in range(10)]
    path = write(tmp_path / "data.csv", _table("csv", ["text", "label", "split"], rows))
    splits, _, _ = d.load_user_file(path, "csv")  # the reader has nothing to refuse yet
    assert "val" not in splits
    with pytest.raises(d.DatasetFormatError) as e:
        d.load(f"csv:{path}")
    assert str(e.value).startswith(
        f"{path}:4: label 'odd' has no training row after the split: its only row went to "
        "the held-out validation rows")


def test_a_class_whose_only_group_goes_to_the_derived_test_split_is_refused(tmp_path):
    # 30 groups of two rows; group g0, class 'odd', is in the first of five folds
    rows = [[f"t {i}", "odd" if i < 2 else "ab"[(i // 2) % 2], f"g{i // 2}"]
            for i in range(60)]
    path = write(tmp_path / "data.csv", _table("csv", ["text", "label", "group"], rows))
    _refused(f"csv:{path}", f"{path}:2",
             "label 'odd' has no training row after the split: all 2 of its rows went to "
             "the held-out test rows")


def test_a_class_whose_only_row_stays_in_training_loads(tmp_path):
    # row 199 is not held out: nothing is lost, the class trains
    path = write(tmp_path / "data.csv", _one_row_class("csv", index=199))
    ds = d.load(f"csv:{path}")
    assert ds.class_names == ["neg", "odd", "pos"]
    assert ds.train.labels.tolist().count(1) == 1
    assert len(ds.train) + len(ds.val) + len(ds.test) == 200


def test_training_on_a_class_lost_to_the_split_is_one_error_line_and_no_run(tmp_path):
    path = write(tmp_path / "data.csv", _one_row_class("csv"))
    out = tmp_path / "out"
    env = dict(os.environ, KERASATTN_DATA_DIR=os.environ.get(d.ENV_VAR, str(tmp_path)))
    result = subprocess.run(
        [sys.executable, "-m", "training.train", "--model", "nb", "--dataset", f"csv:{path}",
         "--output-dir", str(out), "--run-name", "r"],
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        env=env, capture_output=True, text=True, timeout=300)
    err = result.stderr.strip().splitlines()
    assert result.returncode == 2, result.stderr
    assert len(err) == 1 and err[0].startswith(f"error: {path}:6: label 'odd' has no "
                                               "training row after the split"), err
    assert "Traceback" not in result.stderr
    assert not (out / "r").exists()
