"""The command line's argument parser: argparse's, with bad input as one line."""

import argparse
import re

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
        self.exit(2, f"error: {message} (see '{self.prog} --help')\n")

    def format_help(self):
        """argparse's help, its text (the commands' docstrings) without their markup."""
        return plain(super().format_help())


def output_file_error(path, overwrite=False, flag="--output"):
    """Why ``path`` cannot be written as a new file, as one line (None when it can): an
    existing directory; an existing file, unless ``overwrite``; a parent folder that is
    missing, a file, or not writable. Checked before any work, so a refused command
    leaves everything as it was."""
    import os

    if os.path.isdir(path):
        return f"{flag} {path} is a directory; give a file name"
    if os.path.lexists(path) and not overwrite:
        return f"{flag} {path} exists; pass --overwrite to replace it"
    return writable_dir_error(os.path.dirname(os.path.abspath(path)), flag, path)


def writable_dir_error(folder, flag, path):
    """Why files cannot be made in ``folder`` (made if missing) for ``flag path``, as
    one line; None when they can."""
    import os

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
    import io

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
    import sys

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


def positive_int(text):
    """An argparse ``type``: an integer >= 1 (argparse words a refusal as one line)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def port_number(text):
    """An argparse ``type``: a TCP port, 0..65535 (0: any free port)."""
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be in 0..65535 (0: any free port), got {value}")
    return value
