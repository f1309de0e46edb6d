"""``python -m training.word_vectors``: the same command as ``kerasattn word-vectors`` (:mod:`kerasattn.cli.word_vectors`)."""

import sys

from kerasattn.cli.word_vectors import main

if __name__ == "__main__":
    sys.exit(main())
