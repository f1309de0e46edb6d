"""The foundation baselines: ``python -m benchmarks.accuracy --suite baselines``.

    python -m benchmarks.baselines [--only [lr nb gru bilstm cnn]]
"""

import sys

from benchmarks.accuracy import main

if __name__ == "__main__":
    main(["--suite", "baselines", *sys.argv[1:]])
