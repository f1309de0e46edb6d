"""``python -m training.train``: the same command as ``kerasattn train`` (:mod:`kerasattn.cli.train`)."""

import sys

from kerasattn.cli.train import main

if __name__ == "__main__":
    sys.exit(main())
