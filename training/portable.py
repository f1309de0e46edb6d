"""``python -m training.portable``: the same command as ``kerasattn portable`` (:mod:`kerasattn.cli.portable`)."""

import sys

from kerasattn.cli.portable import main

if __name__ == "__main__":
    sys.exit(main())
