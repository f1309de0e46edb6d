"""A user's CSV is read as written or refused with file and line: never read as other
rows (issue: a repeated column, an open quote, a repeated header, a class only in the
held-out rows, a byte-order mark)."""

import pytest

from kerasattn.cli.predict import decode_lines
from kerasattn.data import datasets as d
from tests.conftest import write

ROWS = "".join(f"text {i},{'pos' if i % 2 else 'neg'}\n" for i in range(40))


def test_a_column_named_twice_is_refused(tmp_path):
    path = write(tmp_path / "data.csv", "text,label,text\n" + "".join(
        f"a {i},{i % 2},b {i}\n" for i in range(40)))
    with pytest.raises(d.DatasetFormatError, match=r"data\.csv:1: .*'text' more than once"):
        d.load(f"csv:{path}")


def test_a_quote_left_open_is_refused_not_joined_with_the_next_rows(tmp_path):
    # 41 rows; the open quote on line 12 would swallow rows up to the next quote
    lines = ROWS.splitlines(keepends=True)
    text = "text,label\n" + "".join(lines[:10]) + '"oops,pos\n' + "".join(lines[10:20]) \
        + '"great, fun",pos\n' + "".join(lines[20:])
    path = write(tmp_path / "data.csv", text)
    with pytest.raises(d.DatasetFormatError, match=r"data\.csv:12: a quoted field"):
        d.load(f"csv:{path}")


def test_a_quote_left_open_to_the_end_of_the_file_is_refused(tmp_path):
    path = write(tmp_path / "data.csv", "text,label\n" + ROWS + '"oops,pos\nmore,neg\n')
    with pytest.raises(d.DatasetFormatError, match=r"data\.csv:42: a quoted field"):
        d.load(f"csv:{path}")


def test_quoted_texts_with_commas_quotes_and_line_breaks_still_read(tmp_path):
    path = write(tmp_path / "data.csv", 'text,label\n"a, b ""c""\nd",pos\n' + ROWS)
    splits, names, _ = d.load_user_file(str(path), "csv")
    texts = [t for s in splits.values() for t in s.texts]
    assert 'a, b "c"\nd' in texts and len(texts) == 41


def test_the_header_repeated_mid_file_is_refused(tmp_path):
    path = write(tmp_path / "data.csv", "text,label\n" + ROWS + "text,label\n" + ROWS)
    with pytest.raises(d.DatasetFormatError, match=r"data\.csv:42: the header again"):
        d.load(f"csv:{path}")


def test_a_label_only_in_test_rows_is_refused(tmp_path):
    path = write(tmp_path / "data.csv", "text,label,split\n"
                 + "".join(f"t {i},{'pos' if i % 2 else 'neg'},train\n" for i in range(30))
                 + "t,pos,test\nu,neutral,test\n")
    with pytest.raises(d.DatasetFormatError,
                       match=r"data\.csv:33: label 'neutral' is in the test rows but in no "
                             r"training row"):
        d.load(f"csv:{path}")


def test_a_label_only_in_dev_rows_of_a_directory_is_refused(tmp_path):
    write(tmp_path / "train.csv", "text,label\n" + ROWS)
    write(tmp_path / "test.csv", "text,label\na,pos\nb,neg\n")
    write(tmp_path / "dev.csv", "text,label\na,pos\nb,other\n")
    with pytest.raises(d.DatasetFormatError, match=r"dev\.csv:3: label 'other' is in the "
                                                   r"validation rows"):
        d.load(f"csv:{tmp_path}")


@pytest.mark.parametrize("fmt,body", [
    ("csv", "text,label\n" + ROWS),
    ("jsonl", "".join(f'{{"text": "t {i}", "label": {i % 2}}}\n' for i in range(40))),
])
def test_a_byte_order_mark_is_dropped(tmp_path, fmt, body):
    path = write(tmp_path / f"data.{fmt}", "\ufeff".encode() + body.encode(), mode="wb")
    splits, names, _ = d.load_user_file(str(path), fmt)
    assert sum(len(s.texts) for s in splits.values()) == 40
    assert not any(t.startswith("\ufeff") for s in splits.values() for t in s.texts)


def test_predict_drops_a_byte_order_mark():
    assert decode_lines("\ufeffgreat film\nawful\n".encode(), "in.txt") == ["great film",
                                                                            "awful"]
