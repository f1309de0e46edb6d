"""The ``kerasattn`` console command: ``kerasattn <command> [args...]``.

Each command lives in its own module, ``kerasattn.cli.<command>`` (``-`` in a
command's name is ``_`` in its module's), with a ``main(argv)`` that parses
the rest of the command line. A module is imported only when its command
runs, so ``kerasattn --help`` loads none of them.
"""

import difflib
import importlib
import sys

from kerasattn import __version__

# command -> (module under kerasattn.cli, one line of help)
COMMANDS = {
    "train": ("train", "train a model on a dataset into a run directory"),
    "evaluate": ("evaluate", "recompute a run's metrics from its directory"),
    "export": ("export", "export a run as a SavedModel for TensorFlow Serving"),
    "predict": ("predict", "classify texts with an exported SavedModel (JSON lines)"),
    "explain": ("explain", "show what a trained model attends to (HTML, PNG)"),
    "reproduce": ("reproduce", "reproduce a paper's experiment"),
    "portable": ("portable", "prepare token ids, then train on any Keras backend"),
    "serving-client": ("serving_client", "query a model behind TensorFlow Serving (gRPC)"),
    "presets": ("presets", "list the presets: family, kind, recipes, paper"),
    "word-vectors": ("word_vectors", "train in-domain word vectors (GloVe format) for "
                                     "--embeddings"),
}

USAGE = "usage: kerasattn <command> [args...]\n       kerasattn --help | --version"


def _help():
    width = max(map(len, COMMANDS))
    lines = [USAGE, "", "commands:"]
    lines += [f"  {name:<{width}}  {text}" for name, (_, text) in COMMANDS.items()]
    lines += ["", "Run 'kerasattn <command> --help' for a command's options."]
    return "\n".join(lines)


def main(argv=None):
    """Run ``kerasattn <command> [args...]``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        print(_help(), file=sys.stderr)
        return 2
    command, rest = argv[0], argv[1:]
    if command in ("-h", "--help", "help"):
        print(_help())
        return 0
    if command == "--version":
        print(f"kerasattn {__version__}")
        return 0
    if command not in COMMANDS:
        close = difflib.get_close_matches(command, COMMANDS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        print(f"error: unknown command {command!r}{hint}; choose one of "
              f"{', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    module = importlib.import_module(f"kerasattn.cli.{COMMANDS[command][0]}")
    return module.main(rest)

