"""``python -m training.predict``: the same command as ``kerasattn predict`` (:mod:`kerasattn.cli.predict`),
loaded without the ``kerasattn`` package (see :func:`training.standalone`)."""

import sys

from training import standalone

main = standalone("predict").main

if __name__ == "__main__":
    sys.exit(main())
