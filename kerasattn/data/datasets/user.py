"""Users' own data: ``csv:PATH``, ``tsv:PATH``, ``jsonl:PATH``."""

import csv
import dataclasses
import io
import json
import os
import re

from kerasattn.data.datasets.definitions import (DEFINITION_SEED, DatasetFormatError,
                                          DatasetNotFoundError, SPLITS, Split)
from kerasattn.data.datasets.splits import _splittable, grouped_split, rows_needed, stratified_split


_BOM = "\ufeff"


class _Refused(Exception):
    """A row refused while :mod:`json` parses it; the reader adds file and line."""


def _normal(value):
    """One normal form for the names the reader compares (column names, JSON keys, the
    ``split`` values): byte-order marks removed, surrounding spaces and quotes stripped,
    case folded. ``TEXT``, ``"text"``, ``' text '`` and ``\\ufefftext`` are one name."""
    return value.replace(_BOM, "").strip().strip("\"'").strip().casefold()


def _blank(line, delimiter=None):
    """Whether a line (a CSV/TSV record as written, or a JSON line) holds nothing but
    spaces: skipped in every format. A delimiter is not a space: a TSV line of tabs is a
    row of empty cells (refused for its empty label), not a blank line."""
    return not line.strip() and (delimiter is None or delimiter not in line)


def _decode_text(raw, path):
    """The text of a user's file: UTF-8, its first byte-order mark dropped.

    Refused, naming file and line: bytes that are not UTF-8 (a UTF-16 file, or one saved
    as Latin-1, would otherwise be read as other characters) and a NUL character (a
    UTF-16 file without a byte-order mark decodes as UTF-8 with a NUL after every
    character; text never holds one)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line, column = _position(raw[:e.start].decode("utf-8"))
        why = (" (a UTF-16 byte-order mark: save the file as UTF-8)"
               if raw.startswith((b"\xff\xfe", b"\xfe\xff")) else "")
        raise DatasetFormatError(f"{path}:{line}: not valid UTF-8 (byte 0x{raw[e.start]:02x} "
                                 f"at column {column}){why}") from None
    text = text.removeprefix(_BOM)
    if "\0" in text:
        line, column = _position(text[:text.index("\0")])
        raise DatasetFormatError(f"{path}:{line}: a NUL character at column {column} (a "
                                 "UTF-16 file? save it as UTF-8)")
    return text


def _position(before):
    """(line, column) of the character after the text ``before``, both from 1."""
    lines = list(_lines(before))
    if not lines or lines[-1].endswith(("\n", "\r")):
        return len(lines) + 1, 1
    return len(lines), len(lines[-1]) + 1


def _lines(text):
    """The lines of ``text`` as every format counts them: ends are ``\\n``, ``\\r\\n`` or
    ``\\r`` (kept), nothing else (a U+2028 inside a JSON string is not a line end)."""
    return io.StringIO(text, newline="")


def _refuse_bom(line, where):
    """Refuse a byte-order mark at the start of a line: only a file's first character
    may be one, so here a second file was joined on (its header or first row would be
    read as data, the mark as part of a text or label)."""
    if line.startswith(_BOM):
        raise DatasetFormatError(
            f"{where}: a byte-order mark starts this line (two files joined?); only the "
            "first character of a file may be one")


def _columns(names, where, what="the header"):
    """The normal names (:func:`_normal`) of a header's columns or a JSON object's keys.

    Refused: two names that are one normal name (``text,Text``, ``text,"text "``): the
    columns' values would be read as one, and one of them lost."""
    normal = [_normal(n) for n in names]
    twice = sorted(_repeated(normal))
    if twice:
        spelled = ", ".join(repr(n) for n in names if _normal(n) in twice)
        raise DatasetFormatError(
            f"{where}: {what} names {', '.join(repr(n) for n in twice)} more than once "
            f"({spelled}; names are compared without case, spaces, quotes or byte-order "
            "marks)")
    return normal


def _repeated(items):
    """The items that occur more than once (a set; linear time)."""
    seen, twice = set(), set()
    for item in items:
        (twice if item in seen else seen).add(item)
    return twice


def _json_object(pairs):
    # JSON keeps the last of two equal keys: refuse them instead (in any object)
    obj = dict(pairs)
    if len(obj) < len(pairs):
        twice = sorted(_repeated(k for k, _ in pairs))
        raise _Refused(f"the key {twice[0]!r} appears more than once in one object (JSON "
                       "would keep only the last value)")
    return obj


def _json_constant(name):
    raise _Refused(f"{name} is not JSON (a number must be finite)")


_JSON = json.JSONDecoder(object_pairs_hook=_json_object, parse_constant=_json_constant)


def _jsonl_rows(text, path):
    """``(lineno, row)`` of a JSON-lines text (see :func:`_read_user_rows`)."""
    columns = {}  # the keys of a row -> their normal names (most rows share their keys)
    for lineno, line in enumerate(_lines(text), 1):
        where = f"{path}:{lineno}"
        _refuse_bom(line, where)
        if _blank(line):
            continue
        try:
            row = _JSON.decode(line)
        except _Refused as e:
            raise DatasetFormatError(f"{where}: {e}") from None
        except json.JSONDecodeError as e:
            raise DatasetFormatError(f"{where}: invalid JSON ({e.msg})") from None
        except ValueError:  # an integer of more digits than Python's int() reads (4,300)
            raise DatasetFormatError(
                f"{where}: a number of more digits than can be read (4,300)") from None
        except RecursionError:
            raise DatasetFormatError(f"{where}: invalid JSON (nested too deeply)") from None
        if not isinstance(row, dict):
            raise DatasetFormatError(f"{where}: expected a JSON object")
        keys = tuple(row)
        if keys not in columns:
            columns[keys] = _columns(keys, where, "the object")
        yield lineno, dict(zip(columns[keys], row.values()))


def _delimited_rows(text, path, delimiter):
    """``(lineno, row)`` of a CSV or TSV text with a header (see :func:`_read_user_rows`)."""
    record = []  # the lines of the record being read, as written

    def lines():
        for line in _lines(text):
            record.append(line)
            yield line

    # strict: a quote must close a field (a '"' inside a quoted text is written '""'), so
    # a quote left open fails where the next quote is met, not silently joining rows
    reader = csv.reader(lines(), delimiter=delimiter, strict=True)
    header, lineno = None, 1
    while True:
        record.clear()
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as e:
            if header is None:
                raise DatasetFormatError(
                    f"{path}:{lineno}: the header is not valid CSV ({e})") from None
            raise DatasetFormatError(
                f"{path}:{lineno}: a quoted field that starts on this line or after it does "
                f"not close where it should ({e}); a quote left open joins the rows after "
                "it into one text (write a quote inside a quoted text as \"\")") from None
        start, lineno = lineno, reader.line_num + 1
        where, raw = f"{path}:{start}", "".join(record)
        if _blank(raw, delimiter):
            continue
        if header is None:
            _refuse_bom(raw, where)
            header = _columns(row, where)
            names = set(header)
            continue
        # the header again: the same names in any spelling or order (a row's first cell
        # tells most rows apart at once)
        if (len(row) == len(header) and _normal(row[0]) in names
                and sorted(map(_normal, row)) == sorted(header)):
            order = "" if list(map(_normal, row)) == header else " in another order"
            raise DatasetFormatError(
                f"{where}: the header again{order} (two files joined?); a row cannot be "
                "its own column names")
        _refuse_bom(raw, where)
        if len(row) != len(header):
            raise DatasetFormatError(f"{where}: expected {len(header)} columns "
                                     f"({', '.join(map(repr, header))}), got {len(row)}")
        yield start, dict(zip(header, row))
    if header is None:
        raise DatasetFormatError(f"{path}: empty file")


def _read_user_rows(path, fmt):
    """Yield (lineno, dict) rows of a CSV/TSV (with header) or JSON-lines file.

    One reader, one set of rules for every format. The text is UTF-8; a byte-order mark
    as its first character (as spreadsheet programs save) is dropped. Lines end at
    ``\\n``, ``\\r\\n`` or ``\\r``, and a line of nothing but spaces is skipped. Column
    names (a CSV/TSV header, a JSON object's keys) are compared in one normal form,
    without case, surrounding spaces, quotes or byte-order marks (:func:`_normal`), and
    a row's keys are those normal names (``Text`` is the ``text`` column).

    Refused with a :class:`DatasetFormatError` naming file and line, rather than read as
    other rows: bytes that are not UTF-8 and a NUL character; a byte-order mark at the
    start of any later line (two files joined); a header, or a JSON object, naming one
    column twice in any spelling (one value would be lost); in a CSV/TSV, a quote left
    open (it would swallow the rows after it into one text) and the header repeated
    below the first line in any spelling or column order (two files joined); in JSON
    lines, a line that is not one JSON object, an object with a key twice (JSON keeps
    the last value) and ``NaN`` / ``Infinity`` (not JSON).
    """
    with open(path, "rb") as fh:
        raw = fh.read()
    text = _decode_text(raw, path)
    if fmt == "jsonl":
        yield from _jsonl_rows(text, path)
    else:
        yield from _delimited_rows(text, path,
                                   "\t" if fmt == "tsv" or path.endswith(".tsv") else ",")


def load_user_file(path, fmt, val_fraction=0.1):
    """Read ``csv:PATH`` / ``jsonl:PATH``: a file or a directory of split files.

    A file has ``text`` and ``label`` columns and optionally ``split``
    (train/dev/val/test). A directory holds ``train``, ``test`` and optionally
    ``dev`` files with the format's extension.

    Labels: a label is a string or (in JSON lines) an integer, and is taken in
    its string form with surrounding spaces removed, so ``1``, ``"1"`` and
    ``" 1 "`` are one class named ``"1"`` (but ``"01"`` and ``"1.0"`` are other
    classes). Booleans, floats, null, arrays, objects, empty labels and labels
    containing a line break (the class names are written one per line to
    ``labels.txt``) are refused with a :class:`DatasetFormatError` naming file
    and line. The classes get ids in sorted order: numerically when every
    label is an integer, else alphabetically.

    Every class of the validation and test rows must have training rows, given or
    derived: a class whose rows all fall in the test split held out here is refused
    naming a line of it (:func:`refuse_untrained_classes`; :func:`~kerasattn.data.
    datasets.load` checks again once it has held out the validation split). Every
    format is read by one reader with one set of rules (see :func:`_read_user_rows`):
    a quote left open, a header naming a column twice or repeated mid-file, a JSON key
    given twice, a byte-order mark starting a later line is an error, not other rows.
    A directory with both a ``dev`` and a ``val`` file is refused (one would be lost).

    A dataset needs at least two classes, and enough training rows to split off
    what is not given (a stratified 20% test split without test rows, a
    ``val_fraction`` validation split without dev rows): otherwise a
    :class:`DatasetFormatError` says how many rows are needed.
    """
    path = os.path.expanduser(path)
    ext = {"csv": ".csv", "tsv": ".tsv", "jsonl": ".jsonl"}[fmt]
    rows = {}  # split -> [(text, raw label, where, group)]
    if os.path.isdir(path):
        both = [os.path.join(path, s + ext) for s in ("dev", "val")]
        if all(os.path.exists(f) for f in both):
            raise DatasetFormatError(
                f"{path}: both dev{ext} and val{ext}; a directory holds one validation file "
                "(reading one would leave the other's rows out)")
        for split in ("train", "dev", "val", "test"):
            f = os.path.join(path, split + ext)
            if os.path.exists(f):
                rows["val" if split == "dev" else split] = [
                    _user_row(r, f, n, fmt) for n, r in _read_user_rows(f, fmt)
                ]
        missing = [s for s in ("train", "test") if s not in rows]
        if missing:
            raise DatasetNotFoundError(
                f"{path}: a dataset directory needs train{ext} and test{ext} "
                f"(and optionally dev{ext}); missing {', '.join(missing)}"
            )
    elif os.path.isfile(path):
        for n, r in _read_user_rows(path, fmt):
            # no split, or an empty one, is train; a split is a string (in JSON, 0 or
            # false is no split name)
            split = r.get("split")
            split = (_normal(split) or "train" if isinstance(split, str)
                     else "train" if split is None else None)
            split = {"dev": "val", "validation": "val"}.get(split, split)
            if split not in SPLITS:
                raise DatasetFormatError(
                    f"{path}:{n}: split {r.get('split')!r} is not train, dev or test"
                )
            rows.setdefault(split, []).append(_user_row(r, path, n, fmt))
    else:
        raise DatasetNotFoundError(f"{fmt}:{path}: no such file or directory")
    raw_labels = {lab for part in rows.values() for _, lab, *_ in part}
    # (digits past Python's int() limit of 4,300 sort as text, not as an error)
    if all(re.fullmatch(r"-?\d{1,4000}", x) for x in raw_labels):
        ordered = sorted(raw_labels, key=lambda x: (int(x), x))
    else:
        ordered = sorted(raw_labels)
    index = {lab: i for i, lab in enumerate(ordered)}
    class_names = list(ordered)
    grouped = any(g is not None for part in rows.values() for *_, g in part)
    splits = {s: _UserSplit([t for t, *_ in part], [index[lab] for _, lab, *_ in part],
                            # a row without a group is a group of its own
                            [g if g is not None else f"\0{where}" for _, _, where, g in part]
                            if grouped else None, [where for _, _, where, _ in part])
              for s, part in rows.items()}
    notes = [f"source: {path}"]
    if not len(splits.get("train", ())):
        raise DatasetFormatError(f"{path}: no training rows")
    if len(class_names) < 2:
        raise DatasetFormatError(
            f"{path}: a single class {class_names[0]!r}; a classifier needs at least two")
    held_out = {"test": 0.2, "val": val_fraction}
    missing = [s for s in ("test", "val") if s not in splits]
    n = len(splits["train"])
    if missing and not _splittable(n, [held_out[s] for s in missing]):
        what = "rows" if set(splits) == {"train"} else "training rows"
        what = what if n != 1 else what[:-1]
        parts = " and ".join(f"{'validation' if s == 'val' else s} ({held_out[s] * 100:g}%)"
                             for s in missing)
        raise DatasetFormatError(
            f"{path}: {n} {what}; need at least "
            f"{rows_needed([held_out[s] for s in missing])} rows to split off {parts} rows"
        )
    trained = {lab for _, lab, *_ in rows.get("train", ())}
    for split in ("val", "test"):
        for _, lab, where, _ in rows.get(split, ()):
            if lab not in trained:
                name = "validation" if split == "val" else split
                raise DatasetFormatError(
                    f"{where}: label {lab!r} is in the {name} rows but in no training row; "
                    "a class the model never trains on cannot be learned")
    if "test" not in splits:
        train = splits["train"]
        if grouped:
            try:
                rest, held = grouped_split(train.labels, train.groups, 0.2, DEFINITION_SEED)
            except ValueError as e:
                raise DatasetFormatError(f"{path}: the test split: {e}") from None
            how = "20% of the rows as whole groups, stratified by class"
        else:
            rest, held = stratified_split(train.labels, 0.2, DEFINITION_SEED)
            how = "a stratified 20% of the rows"
        splits["test"] = train.take(held)
        splits["train"] = train.take(rest)
        notes.append(f"no test rows given: test is {how} (seed 0)")
        left = len(splits["train"])
        if "val" not in splits and not _splittable(left, [val_fraction]):
            # whole groups can hold out more than 20%: say so here, not in scikit-learn's words
            raise DatasetFormatError(
                f"{path}: {left} training row{'s' if left != 1 else ''} left after the test "
                f"split; need at least {rows_needed([val_fraction])} to split off validation "
                f"({val_fraction * 100:g}%) rows")
        refuse_untrained_classes(splits, class_names)
    return splits, class_names, notes


@dataclasses.dataclass
class _UserSplit(Split):
    """A :class:`Split` of a user's rows that keeps where each row was read
    (``PATH:LINE``) through :meth:`take`, so that a refusal after a split is derived
    can name a line."""

    where: list | None = None

    def take(self, indices):
        part = super().take(indices)
        return _UserSplit(part.texts, part.labels, part.groups,
                          None if self.where is None else [self.where[i] for i in indices])


def _file_order(where):
    path, _, line = where.rpartition(":")
    return path, int(line)


def refuse_untrained_classes(splits, class_names):
    """Refuse a class of a user's data left with no training row once the held-out splits
    are derived from the training rows.

    Without test (or dev) rows, the test split is drawn from the training rows here and
    the validation split by :func:`~kerasattn.data.datasets.load`; a class with few rows
    (a label on one row of 200) can lose all of them to those splits, and a model would
    then train without it, scoring every held-out row of it wrong. Every split of a
    user's dataset passes through here after both derivations, and a class with rows in
    ``val`` or ``test`` but none in ``train`` raises a :class:`DatasetFormatError`
    naming the first of its held-out lines (``splits``: as :func:`load_user_file` returns
    them, or parts of them, which keep the lines their rows were read from).
    """
    trained = set(splits["train"].labels.tolist())
    held = {}  # class -> [((path, line), split)] of its held-out rows
    for name in ("test", "val"):
        part = splits.get(name)
        if part is not None:
            for label, where in zip(part.labels.tolist(), part.where):
                if label not in trained:
                    held.setdefault(label, []).append((_file_order(where), name))
    if not held:
        return
    label = min(held, key=lambda c: min(held[c]))
    rows = sorted(held[label])
    (path, line), _ = rows[0]
    into = " and ".join(dict.fromkeys("validation" if s == "val" else s for _, s in rows))
    count = "its only row" if len(rows) == 1 else f"all {len(rows)} of its rows"
    raise DatasetFormatError(
        f"{path}:{line}: label {class_names[label]!r} has no training row after the split: "
        f"{count} went to the held-out {into} rows, and a class the model never trains on "
        "cannot be learned; give it more rows, or say which rows train (a 'split' column)")


def is_user_dataset(name):
    """Whether ``name`` is a user's file (``csv:PATH``, ``tsv:PATH``, ``jsonl:PATH``)."""
    return name.startswith(("csv:", "jsonl:", "tsv:"))


def user_files(name):
    """The files a user's dataset ``csv:PATH`` / ``tsv:PATH`` / ``jsonl:PATH`` reads
    (the file, or a directory's split files); ``[]`` for a built-in dataset."""
    if not is_user_dataset(name):
        return []
    fmt, path = name.split(":", 1)
    path = os.path.expanduser(path)
    if not os.path.isdir(path):
        return [path]
    ext = {"csv": ".csv", "tsv": ".tsv", "jsonl": ".jsonl"}[fmt]
    return [f for f in (os.path.join(path, s + ext) for s in ("train", "dev", "val", "test"))
            if os.path.exists(f)]


def _user_row(row, path, lineno, fmt):
    for key in ("text", "label"):
        if key not in row:
            raise DatasetFormatError(f"{path}:{lineno}: missing the {key!r} column")
    text, raw = row["text"], row["label"]
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise DatasetFormatError(f"{path}:{lineno}: 'text' must be a string")
    # one normal form: the string form, stripped (1, "1" and " 1 " are one class)
    label = str(raw).strip() if isinstance(raw, (str, int)) and not isinstance(raw, bool) else ""
    if not label:
        raise DatasetFormatError(
            f"{path}:{lineno}: 'label' must be a non-empty string or an integer, got {raw!r}"
        )
    if label.splitlines() != [label]:
        raise DatasetFormatError(
            f"{path}:{lineno}: label {label!r} contains a line break; class names are "
            "written one per line (labels.txt)"
        )
    group = row.get("group")
    if isinstance(group, str):
        group = group.strip() or None
    elif isinstance(group, int) and not isinstance(group, bool):
        group = str(group)
    elif group is not None:
        raise DatasetFormatError(
            f"{path}:{lineno}: 'group' must be a string or an integer, got {group!r}")
    return text, label, f"{path}:{lineno}", group
