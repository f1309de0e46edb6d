"""``python -m kerasattn <command> [args...]``: the ``kerasattn`` console command."""

import sys

from kerasattn.cli import main

sys.exit(main())
