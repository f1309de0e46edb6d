"""``kerasattn train``: train any preset on any dataset.

    kerasattn train --model gru --dataset imdb --max-length 400 --epochs 4

Argument parsing only: the flags (:mod:`kerasattn.training.arguments`) become a
:class:`kerasattn.training.RunConfig` and :func:`kerasattn.training.train` does the rest
(see there, and :mod:`kerasattn.runs` for the run directory it writes).
"""

import os
import sys

# Quieter TensorFlow start-up; users can still override this.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from kerasattn import training  # noqa: E402
from kerasattn.cli.parsing import (  # noqa: E402
    ArgumentParser, end_after_fault, fault_line, quiet_after_disk_full)
from kerasattn.data import streaming  # noqa: E402
from kerasattn.data.datasets import DatasetError  # noqa: E402
from kerasattn.training import arguments  # noqa: E402
# the flags and their resolution live in the library (re-exported: config_of, ...)
from kerasattn.training.arguments import (  # noqa: E402,F401
    config_of, resolve_config, validate_args)
from kerasattn.training.config import ConfigError  # noqa: E402,F401  (raised, re-exported)
from kerasattn.training.diagnostics import (  # noqa: E402
    disk_full, out_of_memory, out_of_memory_message)
from kerasattn.training.errors import DivergedError  # noqa: E402


def build_parser():
    """The train command's parser (:func:`kerasattn.training.arguments.build_parser`), its
    errors one line."""
    return arguments.build_parser(ArgumentParser)


def train(argv=None):
    """Run the command; returns (run directory, metrics dict). Raises
    :class:`ConfigError` or a ``DatasetError`` for bad input, before writing anything."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.verbose not in ("auto", "0", "1", "2"):
        parser.error("--verbose must be auto, 0, 1 or 2")
    validate_args(args)
    config = resolve_config(args, argv)
    return training.train(config, output_dir=args.output_dir, run_name=args.run_name,
                          data_dir=args.data_dir, download=not args.no_download,
                          restart=args.restart, overwrite=args.overwrite,
                          verbose=args.verbose if args.verbose == "auto" else int(args.verbose))


def main(argv=None):
    quiet_after_disk_full()
    try:
        train(argv)
    except KeyboardInterrupt:
        print("\ninterrupted; the same command resumes after the last finished epoch",
              file=sys.stderr)
        return 130
    except (ConfigError, DatasetError) as e:
        print(f"error: {arguments.one_line(e)}", file=sys.stderr)  # quoted input: one line
        return 2
    except DivergedError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except Exception as e:
        full = disk_full(e)
        if full is not None:
            print(f"error: the disk is full ({full}); free some space and run the same "
                  "command: it resumes after the last finished epoch", file=sys.stderr)
            end_after_fault(1)
            return 1
        refused = fault_line(e)  # a read-only file system, no permission
        if refused is not None:
            print(f"error: {refused}; the same command resumes after the last finished "
                  "epoch", file=sys.stderr)
            end_after_fault(1)
            return 1
        if out_of_memory(e):
            print("error: " + out_of_memory_message(
                e, "train with a smaller --batch-size or --max-length"),
                file=sys.stderr)
            return 1
        # a malformed row found by a streamed pipeline surfaces as a tf.data error
        if not streaming.is_format_error(e):
            raise
        print(f"error: {streaming.format_error(e)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
