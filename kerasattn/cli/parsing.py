"""The command line's argument parser: argparse's, with bad input as one line."""

import argparse


class ArgumentParser(argparse.ArgumentParser):
    """An ``argparse.ArgumentParser`` whose complaints (an unknown flag, a missing one,
    a choice not offered, a value of the wrong type, ``parser.error(...)``) are one line
    on stderr, ``error: MESSAGE (see 'PROG --help')``, and exit status 2; argparse
    itself prints the whole usage block first, which buries the line that matters.
    ``--help`` still prints the usage."""

    def error(self, message):
        self.exit(2, f"error: {message} (see '{self.prog} --help')\n")
