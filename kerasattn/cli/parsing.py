"""The command line's argument parser: argparse's, with bad input as one line."""

import argparse
import atexit
import errno
import io
import os
import re
import sys

# the rule for a number, a command-line flag's or a library argument's (standard library
# only, as this module: kerasattn predict imports it)
from kerasattn.training.arguments import (  # noqa: F401  (re-exported: the types below)
    INT32_MAX, LENGTH_MAX, SEED_MAX, Bounds, integer, number, one_line, shown as _shown)

_LITERAL = re.compile(r"``([^`]+)``")
_ROLE = re.compile(r":(?:py:)?[a-z]+:`(~?)([^`]+)`")


def plain(text):
    """Docstring markup as a terminal shows text: double backticks dropped, a Sphinx role
    reduced to the name it names (as Sphinx shows it: ``~`` keeps the last part)."""
    return _LITERAL.sub(r"\1", _ROLE.sub(
        lambda m: m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2), text))


class ArgumentParser(argparse.ArgumentParser):
    """An ``argparse.ArgumentParser`` whose complaints (an unknown flag, a missing one,
    a choice not offered, a value of the wrong type, ``parser.error(...)``) are one line
    on stderr, ``error: MESSAGE (see 'PROG --help')``, and exit status 2; argparse
    itself prints the whole usage block first, which buries the line that matters.
    ``--help`` still prints the usage."""

    def error(self, message):
        self.exit(2, f"error: {one_line(message)} (see '{self.prog} --help')\n")

    def format_help(self):
        """argparse's help, its text (the commands' docstrings) without their markup."""
        return plain(super().format_help())


def output_file_error(path, overwrite=False, flag="--output"):
    """Why ``path`` cannot be written as a new file, as one line (None when it can): an
    existing directory; an existing file, unless ``overwrite``; a parent folder that is
    missing, a file, or not writable. Checked before any work, so a refused command
    leaves everything as it was."""
    if os.path.isdir(path):
        return f"{flag} {path} is a directory; give a file name"
    if os.path.lexists(path) and not overwrite:
        return f"{flag} {path} exists; pass --overwrite to replace it"
    return writable_dir_error(os.path.dirname(os.path.abspath(path)), flag, path)


def writable_dir_error(folder, flag, path):
    """Why files cannot be made in ``folder`` (made if missing) for ``flag path``, as
    one line; None when they can."""
    probe = folder
    while not os.path.exists(probe):  # the nearest folder that exists
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    if not os.path.isdir(probe):
        return f"{flag} {path}: {probe} is a file, not a directory"
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"{flag} {path}: {probe} is not writable"
    return None


def decode_lines(data, name):
    """The lines of UTF-8 ``data`` (bytes; universal newlines, as a text-mode file reads
    them; a leading byte-order mark dropped); ``ValueError`` ``NAME:LINE: not valid UTF-8
    (byte 0x.. at column C)`` otherwise, a line a command prints after ``error:``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        before = data[:e.start].decode("utf-8", "replace")
        lines = before.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        raise ValueError(f"{name}:{len(lines)}: not valid UTF-8 (byte 0x{data[e.start]:02x} "
                         f"at column {len(lines[-1]) + 1})") from None
    text = text.removeprefix("\ufeff")
    return [line.rstrip("\n") for line in io.StringIO(text, newline=None)]


def read_text_lines(path, stdin=None):
    """The non-empty lines of the UTF-8 file ``path`` (``-``: ``stdin``'s bytes); raises
    ``ValueError`` ``PATH:LINE: not valid UTF-8 ...`` or ``PATH: <why it cannot be
    read>``, a line the command prints after ``error:``. A byte-order mark is dropped."""
    if path == "-":
        stream = stdin if stdin is not None else sys.stdin
        data, name = getattr(stream, "buffer", stream).read(), "<stdin>"
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
    else:
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as e:
            raise ValueError(f"{path}: {e.strerror or e}") from None
        name = path
    return [line for line in decode_lines(data, name) if line.strip()]


def fault_line(error, where=None):
    """One line for a write that the machine refused (``error`` or an error it was
    raised from: a full disk, a read-only file system, no permission; TensorFlow and
    h5py re-raise an ``OSError`` as their own errors), or None for any other error."""
    seen, words = set(), {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk is full",
                          errno.EROFS: "the file system is read-only",
                          errno.EACCES: "permission denied", errno.EPERM: "permission denied"}
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OSError) and error.errno in words:
            return (f"cannot write {error.filename or where or 'the output'}: "
                    f"{words[error.errno]}; nothing was left half-written")
        text = str(error)
        for needle, word in (("No space left on device", "the disk is full"),
                             ("Read-only file system", "the file system is read-only")):
            if needle in text:
                return (f"cannot write {where or 'the output'}: {word}; nothing was left "
                        "half-written")
        error = error.__cause__ or error.__context__
    return None


# argparse types (and the library's checks: ``rule.check(value, name)``); the rule
# itself, Bounds, is the library's (kerasattn.training.arguments), which RunConfig checks
# its settings by
finite_float = number
seed = Bounds(True, 0, SEED_MAX, span=True, name="seed")
positive_int = Bounds(True, 1, INT32_MAX, name="positive_int")
non_negative_int = Bounds(True, 0, INT32_MAX, name="non_negative_int")
length = Bounds(True, 1, LENGTH_MAX, name="length")  # tokens of a text, texts in a batch
positive_float = Bounds(False, 0, low_open=True, name="positive_float")
fraction = Bounds(False, 0, 1, low_open=True, high_open=True, name="fraction",
                  wording="must be between 0 and 1 (exclusive), got {value}")
port_number = Bounds(True, 0, 65535, span=True, unit="0: any free port", name="port_number")
bounded_int = Bounds(True, high=INT32_MAX, name="integer")  # the lower bound: the command's


def end_after_fault(rc):
    """After a write the machine refused (a full disk), end the command's process with
    ``rc`` as soon as it exits, before the interpreter's clean-up: a file that h5py
    failed to write stays half-closed in HDF5, whose clean-up at exit then crashes
    (a segfault, exit status 139) after the right error line. Only in a process that
    runs a kerasattn command (``python -m training.*``, ``python -m kerasattn``, the
    ``kerasattn`` console script), never in a program that called ``main`` itself."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    name = spec.name if spec is not None else ""
    if name.startswith(("training.", "kerasattn")) or \
            os.path.basename(sys.argv[0] or "") == "kerasattn":
        atexit.register(_hard_exit, rc)


def quiet_after_disk_full():
    """Drop the messages Python prints for errors raised while h5py objects are freed
    ("Exception ignored in ... __dealloc__") when they only repeat that the disk is full:
    the command reports that once, as its one error line."""
    previous, previous_excepthook = sys.unraisablehook, sys.excepthook

    def hook(unraisable):
        if "No space left on device" in str(unraisable.exc_value):
            return
        previous(unraisable)

    def excepthook(kind, value, tb):
        # h5py's __dealloc__ prints its error through sys.excepthook first (Cython's
        # full traceback of an unraisable error), from inside h5py only
        frames, step = [], tb
        while step is not None:
            frames.append(step.tb_frame.f_code.co_filename)
            step = step.tb_next
        if "No space left on device" in str(value) and frames \
                and all("h5py" in f for f in frames):
            return
        previous_excepthook(kind, value, tb)

    sys.unraisablehook, sys.excepthook = hook, excepthook


def _hard_exit(rc):
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)


class with_types:
    """``parser`` as a function that adds flags to it sees it (``add_argument``), but
    giving the flags named in ``types`` (``{"--seed": seed}``) those argparse types: for
    flags another module adds (:func:`kerasattn.experiments.attention_faithfulness.
    add_flags`), so that they too are checked as argparse parses them."""

    def __init__(self, parser, types):
        self._parser, self._types = parser, dict(types)

    def add_argument(self, *flags, **kwargs):
        for flag in flags:
            if flag in self._types:
                kwargs["type"] = self._types[flag]
        return self._parser.add_argument(*flags, **kwargs)

    def __getattr__(self, name):
        return getattr(self._parser, name)


def utf8_text(text):
    """An argparse ``type``: a text that is valid UTF-8. A command line's bytes that are
    not arrive as lone surrogates (``'caf\\udce9'``), which no model input, JSON line or
    terminal takes; refused as one line that names the byte."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        code = ord(text[e.start])
        what = (f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF
                else f"a lone surrogate U+{code:04X}")
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not valid UTF-8 ({what} at "
                                         f"column {e.start + 1})") from None
    return text
