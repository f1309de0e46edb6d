"""``python -m training.export``: the same command as ``kerasattn export`` (:mod:`kerasattn.cli.export`)."""

import sys

from kerasattn.cli.export import main

if __name__ == "__main__":
    sys.exit(main())
