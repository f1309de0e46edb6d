"""``python -m kerasattn.cli <command> ...``: the ``kerasattn`` console command."""

import sys

from kerasattn.cli import main

sys.exit(main())
