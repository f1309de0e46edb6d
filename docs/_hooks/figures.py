"""MkDocs hook: the figures a benchmark writes to ``benchmarks/results/*.png`` are served
at ``images/NAME.png``, so a page shows the measured file itself (MkDocs reads only
``docs/``; a copy there would go stale when the benchmark runs again)."""

import glob
import os

from mkdocs.structure.files import File

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "benchmarks", "results")


def on_files(files, config):
    for path in sorted(glob.glob(os.path.join(RESULTS, "*.png"))):
        uri = f"images/{os.path.basename(path)}"
        if files.get_file_from_path(uri) is not None:
            raise ValueError(f"docs/{uri} is also benchmarks/results/{os.path.basename(path)}: "
                             "keep the one in benchmarks/results only")
        files.append(File.generated(config, uri, abs_src_path=path))
    return files
