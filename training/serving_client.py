"""``python -m training.serving_client``: the same command as ``kerasattn serving-client`` (:mod:`kerasattn.cli.serving_client`)."""

import sys

from kerasattn.cli.serving_client import main

if __name__ == "__main__":
    sys.exit(main())
