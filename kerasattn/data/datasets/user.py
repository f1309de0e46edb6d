"""Users' own data: ``csv:PATH``, ``tsv:PATH``, ``jsonl:PATH``."""

import csv
import io
import json
import os
import re

from kerasattn.data.datasets.definitions import (DEFINITION_SEED, DatasetFormatError,
                                          DatasetNotFoundError, SPLITS, Split)
from kerasattn.data.datasets.locate import _decode
from kerasattn.data.datasets.splits import _splittable, grouped_split, rows_needed, stratified_split


def _read_user_rows(path, fmt):
    """Yield (lineno, dict) rows of a CSV/TSV (with header) or JSON-lines file.

    A UTF-8 byte-order mark (as spreadsheet programs save) is dropped. Refused with a
    :class:`DatasetFormatError` naming file and line, rather than read as other rows: a
    header naming one column twice, a quote left open (it would swallow the rows after
    it into one text), and the header repeated below the first line (two files joined).
    """
    with open(path, "rb") as fh:
        raw = fh.read()
    text = _decode(raw, path).removeprefix("\ufeff")
    if fmt == "jsonl":
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise DatasetFormatError(f"{path}:{lineno}: invalid JSON ({e.msg})") from None
            if not isinstance(row, dict):
                raise DatasetFormatError(f"{path}:{lineno}: expected a JSON object")
            yield lineno, row
        return
    delimiter = "\t" if fmt == "tsv" or path.endswith(".tsv") else ","
    # strict: a quote must close a field (a '"' inside a quoted text is written '""'), so
    # a quote left open fails where the next quote is met, not silently joining rows
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(reader, None)
    except csv.Error as e:
        raise DatasetFormatError(f"{path}:1: the header is not valid CSV ({e})") from None
    if header is None:
        raise DatasetFormatError(f"{path}: empty file")
    header = [h.strip() for h in header]
    twice = sorted({h for h in header if header.count(h) > 1})
    if twice:
        raise DatasetFormatError(
            f"{path}:1: the header names {', '.join(repr(h) for h in twice)} more than once")
    prev = reader.line_num
    while True:
        lineno = prev + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            raise DatasetFormatError(
                f"{path}:{lineno}: a quoted field that starts on this line or after it does "
                f"not close where it should ({e}); a quote left open joins the rows after "
                "it into one text (write a quote inside a quoted text as \"\")") from None
        prev = reader.line_num
        if len(row) != len(header):
            raise DatasetFormatError(
                f"{path}:{lineno}: expected {len(header)} columns "
                f"({', '.join(header)}), got {len(row)}"
            )
        if [c.strip() for c in row] == header:
            raise DatasetFormatError(
                f"{path}:{lineno}: the header again (two files joined?); a row cannot be "
                "its own column names")
        yield lineno, dict(zip(header, row))


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

    Every class of the validation and test rows must have training rows, and a CSV
    is read strictly (see :func:`_read_user_rows`): a quote left open, a header
    naming a column twice or repeated mid-file is an error, not other rows.

    A dataset needs at least two classes, and enough training rows to split off
    what is not given (a stratified 20% test split without test rows, a
    ``val_fraction`` validation split without dev rows): otherwise a
    :class:`DatasetFormatError` says how many rows are needed.
    """
    path = os.path.expanduser(path)
    ext = {"csv": ".csv", "tsv": ".tsv", "jsonl": ".jsonl"}[fmt]
    rows = {}  # split -> [(text, raw label, where)]
    if os.path.isdir(path):
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
            split = str(r.get("split", "train") or "train").strip().lower()
            split = {"dev": "val", "validation": "val"}.get(split, split)
            if split not in SPLITS:
                raise DatasetFormatError(
                    f"{path}:{n}: split {r.get('split')!r} is not train, dev or test"
                )
            rows.setdefault(split, []).append(_user_row(r, path, n, fmt))
    else:
        raise DatasetNotFoundError(f"{fmt}:{path}: no such file or directory")
    raw_labels = {lab for part in rows.values() for _, lab, *_ in part}
    if all(re.fullmatch(r"-?\d+", x) for x in raw_labels):
        ordered = sorted(raw_labels, key=lambda x: (int(x), x))
    else:
        ordered = sorted(raw_labels)
    index = {lab: i for i, lab in enumerate(ordered)}
    class_names = list(ordered)
    grouped = any(g is not None for part in rows.values() for *_, g in part)
    splits = {s: Split([t for t, *_ in part], [index[lab] for _, lab, *_ in part],
                       # a row without a group is a group of its own
                       [g if g is not None else f"\0{where}" for _, _, where, g in part]
                       if grouped else None)
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
    return splits, class_names, notes

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
