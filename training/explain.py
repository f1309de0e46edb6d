"""``python -m training.explain``: the same command as ``kerasattn explain`` (:mod:`kerasattn.cli.explain`)."""

import sys

from kerasattn.cli.explain import main

if __name__ == "__main__":
    sys.exit(main())
