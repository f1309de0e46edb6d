"""``python -m training.predict``: the same command as ``kerasattn predict`` (:mod:`kerasattn.cli.predict`)."""

import sys

from kerasattn.cli.predict import main

if __name__ == "__main__":
    sys.exit(main())
