"""``python -m training.evaluate``: the same command as ``kerasattn evaluate`` (:mod:`kerasattn.cli.evaluate`)."""

import sys

from kerasattn.cli.evaluate import main

if __name__ == "__main__":
    sys.exit(main())
