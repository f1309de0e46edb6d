"""``python -m training.presets``: the same command as ``kerasattn presets`` (:mod:`kerasattn.cli.presets`)."""

import sys

from kerasattn.cli.presets import main

if __name__ == "__main__":
    sys.exit(main())
