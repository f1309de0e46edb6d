"""``python -m training.serving_client``: the same command as ``kerasattn serving-client`` (:mod:`kerasattn.cli.serving_client`),
loaded without the ``kerasattn`` package (see :func:`training.standalone`)."""

import sys

from training import standalone

main = standalone("serving_client").main

if __name__ == "__main__":
    sys.exit(main())
