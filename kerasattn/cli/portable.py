"""``kerasattn portable``: train on any Keras backend.

    kerasattn portable prepare --model transformer --dataset imdb --layers 2 \\
        --heads 4 --epochs 3 --output-dir runs/portable --run-name transformer-imdb-l2-h4
    KERAS_BACKEND=jax kerasattn portable fit --run runs/portable/transformer-imdb-l2-h4
    kerasattn portable prepare --jobs benchmarks/portable_imdb.txt --output-dir DIR
    KERAS_BACKEND=jax kerasattn portable fit --parallel 4 --run DIR/a --run DIR/b ...

``prepare`` (where TensorFlow is) takes exactly ``kerasattn train``'s arguments and
writes a run directory with every split's token ids; ``fit`` (any backend: JAX or
PyTorch on an accelerator machine without TensorFlow) trains it and completes the run
directory as ``kerasattn train`` does. ``prepare --jobs FILE`` prepares one run a line
(its name, then ``kerasattn train``'s arguments). Argument parsing only: the work is
:mod:`kerasattn.training.prepared`'s (prepare), :mod:`kerasattn.training.portable_fit`'s
(fit) and :mod:`kerasattn.training.parallel`'s (fit --parallel).
"""

import os
import sys

from kerasattn import runs
from kerasattn.cli.parsing import (ArgumentParser, integer, length, plain, positive_float,
                                   positive_int)
from kerasattn.data.datasets import DatasetError
from kerasattn.data.widths import STEP as BUCKET_STEP  # NumPy only, no Keras
from kerasattn.training import parallel, prepared
from kerasattn.training.diagnostics import out_of_memory, out_of_memory_message
from kerasattn.training.errors import ConfigError, DivergedError


def build_fit_parser():
    """The parser of ``portable fit``'s arguments (``prepare`` takes ``kerasattn train``'s)."""
    p = ArgumentParser(prog="kerasattn portable fit")
    p.add_argument("--run", action="append", required=True,
                   help="a prepared run directory (repeatable)")
    p.add_argument("--mixed-precision", default="off", choices=["off", "float16", "bfloat16"])
    p.add_argument("--verbose", type=integer, default=2, choices=(0, 1, 2),
                   help="Keras verbosity: 0, 1 or 2")
    p.add_argument("--time-limit", type=positive_float, default=None, metavar="SECONDS",
                   help="stop training after the batch in progress once this long has passed "
                        "(the partial epoch is validated; metrics.json records it)")
    p.add_argument("--bucket-step", type=length, default=BUCKET_STEP, metavar="TOKENS",
                   help=f"round batch widths up to multiples of this (default {BUCKET_STEP}; "
                        "smaller pads short texts less but compiles more programs; a "
                        "hierarchical model's sentences and words are rounded up to powers "
                        "of two)")
    p.add_argument("--parallel", type=positive_int, default=1, metavar="N",
                   help="fit N runs at once, each in a process of its own with its output in "
                        "the run's fit.log and, under JAX, 0.9/N of the GPU's memory (default "
                        "1: one after another in this process)")
    return p


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv in (["--help"], ["-h"]):
        print(plain(__doc__))
        return 0
    if not argv or argv[0] not in ("prepare", "fit"):
        print(plain(__doc__))
        return 2
    if argv[0] == "prepare":
        try:
            if argv[1:2] == ["--jobs"]:
                if len(argv) < 3:
                    raise ConfigError("--jobs needs a file: one run a line, its name then "
                                      "kerasattn train's arguments")
                prepared.prepare_jobs(argv[2], argv[3:])
            else:
                prepared.prepare(argv[1:])
        except (ConfigError, DatasetError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        return 0
    p = build_fit_parser()
    args = p.parse_args(argv[1:])
    for k, run_dir in enumerate(args.run):  # every run is there before any is fitted
        if os.path.abspath(run_dir) in map(os.path.abspath, args.run[:k]):
            p.error(f"--run {run_dir} is given twice")
        if not os.path.exists(os.path.join(run_dir, runs.CONFIG)):
            p.error(f"{run_dir} is not a prepared run (no config.json); make it with "
                    "kerasattn portable prepare")
    if args.parallel > 1 and len(args.run) > 1:
        flags = ["--mixed-precision", args.mixed_precision, "--verbose", str(args.verbose),
                 "--bucket-step", str(args.bucket_step),
                 *(["--time-limit", repr(args.time_limit)] if args.time_limit else [])]
        return 1 if parallel.fit_parallel(args.run, min(args.parallel, len(args.run)), flags) else 0
    from kerasattn.training import portable_fit  # late: Keras; --help and prepare need none

    failed = 0
    for run_dir in args.run:  # one run that diverges or runs out of memory: the others fit
        try:
            portable_fit.fit(run_dir, args.mixed_precision, args.verbose, args.time_limit,
                             args.bucket_step)
        except ConfigError as e:
            raise SystemExit(f"error: {e}") from None
        except DivergedError as e:
            print(f"error: {e}", file=sys.stderr, flush=True)
            failed += 1
        except Exception as e:
            if not out_of_memory(e):
                raise
            print("error: " + out_of_memory_message(
                e, "prepare it again with a smaller --batch-size or --max-length, fit "
                "fewer runs on the device at once, or under JAX give each process a fixed "
                "share (XLA_PYTHON_CLIENT_MEM_FRACTION)", run_dir), file=sys.stderr,
                flush=True)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
