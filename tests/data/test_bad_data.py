"""Bad input: a clear error naming file and line; nothing dropped silently; empty texts kept."""

import json

import numpy as np
import pytest

from kerasattn.data import datasets as d
from tests.conftest import write


def test_malformed_zhang_csv_row_names_file_and_line(tmp_path):
    path = write(tmp_path / "test.csv",
                 '"1","title","text"\n"2","title","multi\nline text"\n"3","only two"\n')
    with pytest.raises(d.DatasetFormatError, match=r"test\.csv:4: expected 3 columns"):
        d.read_zhang_csv(path, 4)


def test_unknown_zhang_label(tmp_path):
    path = write(tmp_path / "test.csv", '"1","a","b"\n"9","a","b"\n')
    with pytest.raises(d.DatasetFormatError, match=r"test\.csv:2: class '9' is not an integer in 1\.\.4"):
        d.read_zhang_csv(path, 4)


def test_zhang_csv_reads_escapes_and_quotes(tmp_path):
    path = write(tmp_path / "test.csv", '"2","A ""quoted"" title","line\\nbreak"\n"1","t",""\n')
    rows = d.read_zhang_csv(path, 4)
    assert rows.texts == ['A "quoted" title line\nbreak', "t"]
    assert rows.labels.tolist() == [1, 0]


def test_malformed_user_csv_row(tmp_path):
    path = write(tmp_path / "data.csv", "text,label\ngood film,pos\nbad,neg,extra\n")
    with pytest.raises(d.DatasetFormatError, match=r"data\.csv:3: expected 2 columns"):
        d.load(f"csv:{path}")


def test_user_csv_missing_label(tmp_path):
    path = write(tmp_path / "data.csv", "text,label\ngood film,\n")
    with pytest.raises(d.DatasetFormatError, match=r"data\.csv:2: 'label' must be"):
        d.load(f"csv:{path}")


def test_undecodable_file_names_the_file(tmp_path):
    path = write(tmp_path / "data.csv", b"text,label\n\xff\xfe bad,1\n", mode="wb")
    with pytest.raises(d.DatasetFormatError,
                       match=r"data\.csv:2: not valid UTF-8 \(byte 0xff at column 1\)"):
        d.load(f"csv:{path}")


def test_invalid_jsonl_line(tmp_path):
    path = write(tmp_path / "data.jsonl", '{"text": "a", "label": 1}\n{"text": "b", label: 2}\n')
    with pytest.raises(d.DatasetFormatError, match=r"data\.jsonl:2: invalid JSON"):
        d.load(f"jsonl:{path}")


def test_malformed_label_first_line(tmp_path, monkeypatch):
    monkeypatch.setenv(d.VERIFY_ENV, "0")  # a stand-in, not the published file
    for split in ("train", "dev", "test"):
        write(tmp_path / f"stsa.binary.{split}", "1 good\nx bad line\n")
    with pytest.raises(d.DatasetFormatError, match=r"stsa\.binary\.train:2"):
        d.load("sst2", data_dir=tmp_path)


def test_malformed_tree(tmp_path, monkeypatch):
    monkeypatch.setenv(d.VERIFY_ENV, "0")  # a stand-in, not the published file
    trees = tmp_path / "trees"
    trees.mkdir()
    write(trees / "train.txt", "(3 (2 a) (4 b))\n(3 (2 a) (4 b)\n")
    for s in ("dev", "test"):
        write(trees / f"{s}.txt", "(3 (2 a) (4 b))\n")
    with pytest.raises(d.DatasetFormatError, match=r"train\.txt:2: malformed tree"):
        d.load("sst5-phrases", data_dir=tmp_path)


def test_ptb_tree_phrases():
    nodes = d.parse_ptb_tree("(3 (2 It) (4 (4 (2 's) (4 great)) (2 .)))")
    assert nodes[0] == (3, "It 's great .")
    assert (4, "'s great") in nodes and (2, "It") in nodes and len(nodes) == 7


def test_empty_texts_are_kept_and_counted(tmp_path):
    path = write(tmp_path / "data.csv",
                 "text,label,split\ngood,pos,train\n,neg,train\nbad,neg,train\nok,pos,train\n"
                 "fine,pos,dev\n,neg,test\nnice,pos,test\n")
    ds = d.load(f"csv:{path}")
    assert ds.train.texts == ["good", "", "bad", "ok"]
    assert ds.test.texts == ["", "nice"]
    assert "2 empty texts (train 1, test 1)" in ds.summary()


def test_user_labels_strings_sorted_and_integers_numeric(tmp_path):
    path = write(tmp_path / "data.jsonl", "\n".join(
        '{"text": "t%d", "label": %d, "split": "%s"}' % (i, lab, s)
        for i, (lab, s) in enumerate([(10, "train"), (2, "train"), (9, "train"), (9, "test"),
                                      (2, "dev")])))
    ds = d.load(f"jsonl:{path}")
    assert ds.class_names == ["2", "9", "10"]
    assert ds.train.labels.tolist() == [2, 0, 1] and ds.test.labels.tolist() == [1]


def test_user_directory_of_splits(tmp_path):
    write(tmp_path / "train.csv", "label,text\nb,x\na,y\nb,z\na,v\n")
    write(tmp_path / "test.csv", "text,label\nw,a\n")
    ds = d.load(f"csv:{tmp_path}", val_fraction=0.34)
    assert ds.class_names == ["a", "b"]
    assert len(ds.train) + len(ds.val) == 4 and ds.test.texts == ["w"]
    with pytest.raises(d.DatasetNotFoundError, match="test.jsonl"):
        d.load(f"jsonl:{tmp_path}")


def test_single_file_without_split_gets_a_stratified_test_split(tmp_path):
    rows = "".join(f"text {i},{'ab'[i % 2]}\n" for i in range(50))
    path = write(tmp_path / "all.csv", "text,label\n" + rows)
    ds = d.load(f"csv:{path}")
    assert len(ds.test) == 10 and sorted(np.bincount(ds.test.labels)) == [5, 5]
    assert any("stratified 20%" in n for n in ds.notes)


# Labels of users' files: one normal form, no line breaks; enough rows and classes


def test_jsonl_integer_and_string_labels_are_one_class(tmp_path):
    rows = [(1, "train"), ("1", "train"), (" 1 ", "train"), (2, "train"), ("10", "train"),
            ("2", "test"), (10, "test"), ("1", "dev"), (2, "dev")]
    path = write(tmp_path / "data.jsonl", "\n".join(
        '{"text": "t%d", "label": %s, "split": "%s"}' % (i, json.dumps(lab), s)
        for i, (lab, s) in enumerate(rows)))
    ds = d.load(f"jsonl:{path}")
    assert ds.class_names == ["1", "2", "10"]
    assert ds.train.labels.tolist() == [0, 0, 0, 1, 2] and ds.test.labels.tolist() == [1, 2]


@pytest.mark.parametrize("label", ["true", "1.0", "null", '{"a": 1}', "[1]", '"  "'])
def test_jsonl_labels_that_are_not_strings_or_integers_are_refused(tmp_path, label):
    path = write(tmp_path / "data.jsonl",
                 '{"text": "a", "label": "x"}\n{"text": "b", "label": %s}\n' % label)
    with pytest.raises(d.DatasetFormatError, match=r"data\.jsonl:2: 'label' must be"):
        d.load(f"jsonl:{path}")


@pytest.mark.parametrize("fmt, content, line", [
    ("csv", 'text,label\na,x\nb,"one\ntwo"\n', 3),
    ("csv", 'text,label\na,x\nb,"one\rtwo"\n', 3),
    ("jsonl", '{"text": "a", "label": "x"}\n{"text": "b", "label": "one\\ntwo"}\n', 2),
    ("jsonl", '{"text": "a", "label": "x"}\n{"text": "b", "label": "one\\rtwo"}\n', 2),
])
def test_label_with_a_line_break_is_refused(tmp_path, fmt, content, line):
    path = write(tmp_path / f"data.{fmt}", content)
    with pytest.raises(d.DatasetFormatError,
                       match=rf"data\.{fmt}:{line}: label '.*' contains a line break"):
        d.load(f"{fmt}:{path}")


def test_too_few_rows_to_split_is_a_format_error(tmp_path):
    path = write(tmp_path / "data.csv", "text,label\na,x\nb,y\n")
    with pytest.raises(d.DatasetFormatError,
                       match=r"data\.csv: 2 rows; need at least 3 rows to split off "
                             r"test \(20%\) and validation \(10%\) rows"):
        d.load(f"csv:{path}")
    with pytest.raises(d.DatasetFormatError, match=r"need at least 13 rows .* \(90%\) rows"):
        d.load(f"csv:{path}", val_fraction=0.9)


def test_too_few_training_rows_for_a_validation_split(tmp_path):
    path = write(tmp_path / "data.csv", "text,label,split\na,x,train\nb,y,test\nc,x,test\n")
    with pytest.raises(d.DatasetFormatError,
                       match=r"data\.csv: 1 training row; need at least 2 rows to split off "
                             r"validation \(10%\) rows"):
        d.load(f"csv:{path}")


@pytest.mark.parametrize("n", [1, 20])
def test_a_single_class_is_a_format_error(tmp_path, n):
    path = write(tmp_path / "data.csv", "text,label\n" + "t,x\n" * n)
    with pytest.raises(d.DatasetFormatError,
                       match=r"data\.csv: a single class 'x'; a classifier needs at least two"):
        d.load(f"csv:{path}")


def test_tiny_files_split_when_stratifying_is_impossible(tmp_path):
    # 4 rows, 2 classes: a stratified 20% test split (1 row) cannot hold both classes
    path = write(tmp_path / "data.csv", "text,label\na,x\nb,y\nc,x\nd,y\n")
    ds = d.load(f"csv:{path}")
    assert (len(ds.train), len(ds.val), len(ds.test)) == (2, 1, 1)
    assert sorted(ds.train.texts + ds.val.texts + ds.test.texts) == ["a", "b", "c", "d"]


@pytest.mark.parametrize("fraction", [0, 1, -0.5, 1.5, float("nan")])
def test_val_fraction_outside_0_1_is_refused(tmp_path, fraction):
    path = write(tmp_path / "data.csv", "text,label\n" + "t,x\nu,y\n" * 10)
    with pytest.raises(ValueError, match=r"val_fraction must be in \(0, 1\), got"):
        d.load(f"csv:{path}", val_fraction=fraction)


@pytest.mark.parametrize("rows, message", [
    ("a,x\nb,y\n", "2 rows; need at least 3 rows to split off"),
    ("a,x\nb,x\nc,x\nd,x\n", "a single class 'x'; a classifier needs at least two"),
])
def test_training_command_reports_unusable_files_in_one_line(tmp_path, capsys, rows, message):
    from kerasattn.cli import train

    path = write(tmp_path / "data.csv", "text,label\n" + rows)
    code = train.main(["--model", "mlp", "--dataset", f"csv:{path}", "--epochs", "1",
                       "--output-dir", str(tmp_path / "runs"), "--verbose", "0"])
    err = capsys.readouterr().err
    assert code == 2 and f"error: {path}: {message}" in err and "Traceback" not in err
