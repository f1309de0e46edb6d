"""``python -m training.reproduce``: the same command as ``kerasattn reproduce`` (:mod:`kerasattn.cli.reproduce`)."""

import sys

from kerasattn.cli.reproduce import main

if __name__ == "__main__":
    sys.exit(main())
