"""The flags of ``kerasattn train`` / ``python -m training.train`` and their resolution
into a :class:`~kerasattn.training.RunConfig`.

:func:`config_of` gives the RunConfig a list of those arguments gives, without running
anything: the experiments (:mod:`kerasattn.experiments`) and the benchmarks find a
finished run of the same command by it. The command itself (:mod:`kerasattn.cli.train`)
parses with :func:`build_parser` (given its one-line-error parser), checks with
:func:`validate_args` and trains the :func:`resolve_config` of the flags.
"""

import argparse
import json
import math
import os
import shlex
import sys

from kerasattn.training.bounds import (  # noqa: F401  (the limits, re-exported)
    INT32_MAX, LENGTH_MAX, SEED_MAX, Bounds, shown)
from kerasattn.training.errors import ConfigError  # (the module stays light: see Bounds)


# characters str.splitlines() breaks a line at
_LINE_BREAKS = {c: repr(c)[1:-1] for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"}


def one_line(text):
    """``text`` as one printable line: its line breaks written as escapes (``\\n``,
    ``\\u2028``, ...) and a lone surrogate (a byte of the command line that is not UTF-8,
    e.g. ``\\udce9``) as its escape, so that an error line that quotes what was typed
    stays one line and can be printed."""
    text = "".join(_LINE_BREAKS.get(c, c) for c in str(text))
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


# argparse types of a number's form only (the train command's: the ranges are checked by
# config.SETTINGS, in validate_args as in RunConfig.create)
integer = Bounds(True, name="integer")  # any integer (no -0)
number = Bounds(False, name="number")  # any finite number (no inf, nan or -0)


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter,
                     argparse.RawDescriptionHelpFormatter):
    """Defaults shown, and the epilog's lists kept as written."""


def build_parser(parser_class=argparse.ArgumentParser):
    """The parser of the train command's flags, a ``parser_class`` (the command gives
    :class:`kerasattn.cli.parsing.ArgumentParser`, whose errors are one line)."""
    # late, all three: kerasattn.cli.parsing imports this module, and it stays standard
    # library only (kerasattn predict loads no model code, no Keras, no TensorFlow)
    from kerasattn import models, recipes  # late: Keras (recipes); model code
    from kerasattn.data import datasets  # late: NumPy and the dataset code
    from kerasattn.data.preprocessing import TRUNCATIONS  # late: TensorFlow

    # A number's form is argparse's to check (an integer; a finite number: no inf, nan
    # or -0), one "error: argument --FLAG: ..." line; its range validate_args's, by the
    # rules RunConfig.create checks a library caller's values by (config.SETTINGS).
    epilog = ["models:"] + [f"  {n:<14} {models.get_preset(n).description}"
                            for n in models.names()]
    epilog += ["", "datasets:"] + [f"  {n:<20} {d}" for n, d in datasets.describe().items()]
    epilog += [f"  {'csv:PATH, jsonl:PATH':<20} your own data (text, label[, split] columns)"]
    p = parser_class(
        prog="kerasattn train",
        description="Train a kerasattn model and write a run directory.",
        epilog="\n".join(epilog), formatter_class=_HelpFormatter)
    p.add_argument("--model", required=True, choices=models.names(), metavar="NAME",
                   help="model preset: " + ", ".join(models.names()))
    # which defaults are the paper's, read from the registry (it drifts from any list)
    same = [n for n in models.names() if not recipes.departs_from_paper(n)]
    smaller = [n for n in models.names() if recipes.CPU in recipes.recipe_names(n)]
    p.add_argument("--recipe", default=None, metavar="NAME",
                   help="the preset's named recipe (kerasattn.recipes): default = what "
                        f"learns here, the paper's for {', '.join(same)} and chosen on "
                        "validation for the others; cpu = the default sized for a machine "
                        f"without a GPU ({', '.join(smaller)}), taken there when no recipe "
                        "is named; paper = the paper's exact recipe and sizes; flags "
                        "override it")
    p.add_argument("--dataset", required=True, metavar="NAME",
                   help="dataset: " + ", ".join(datasets.names()) + ", csv:PATH or jsonl:PATH")
    p.add_argument("--data-dir", help="directory to look for datasets in first "
                   f"(then ${datasets.ENV_VAR}, then ~/.keras/datasets, then download)")
    p.add_argument("--no-download", action="store_true", help="never download datasets")
    p.add_argument("--output-dir", default="runs", help="parent directory of run directories")
    p.add_argument("--run-name", help="run directory name (default MODEL-DATASET-TIMESTAMP)")
    p.add_argument("--epochs", type=integer, help="epochs (preset default otherwise)")
    p.add_argument("--batch-size", type=integer)
    p.add_argument("--learning-rate", type=number)
    p.add_argument("--optimizer", help="Keras optimizer name, e.g. adam, sgd, rmsprop")
    p.add_argument("--lr-schedule", choices=["constant", "cosine"],
                   help="the learning rate over training: constant (default) or cosine decay "
                        "to 0")
    p.add_argument("--warmup", type=number, metavar="SHARE",
                   help="raise the learning rate linearly from 0 over this share of the "
                        "training steps first (e.g. 0.1)")
    p.add_argument("--clipnorm", type=number, metavar="NORM",
                   help="clip the global norm of each step's gradients to NORM (default: "
                        "the recipe's; IRAM's clips at 1.0, the others do not)")
    p.add_argument("--max-length", type=integer,
                   help="keep at most this many tokens of a text (which ones: --truncation)")
    p.add_argument("--max-sentences", type=integer, help="hierarchical models: sentences per text")
    p.add_argument("--max-words", type=integer, help="hierarchical models: words per sentence")
    p.add_argument("--truncation", choices=TRUNCATIONS,
                   help="which part of a text longer than --max-length (--max-sentences) is "
                        "kept: head (its start; the default), tail (its end) or head+tail "
                        "(a quarter from the start, the rest from the end)")
    p.add_argument("--val-fraction", type=number,
                   help="fraction of train held out for validation when the dataset has no "
                        "validation split (drawn as --val-split says, seeded by --seed)")
    p.add_argument("--val-split", choices=datasets.VAL_SPLITS,
                   help="how that share is drawn: stratified (at random within each class; "
                        "the default) or grouped (whole groups, so that no group is on both "
                        "sides: IMDB's films, the 'group' column of your own data)")
    p.add_argument("--vocab-size", type=integer, help="maximum vocabulary size (incl. pad, OOV)")
    p.add_argument("--min-freq", type=integer, help="minimum training frequency of a word")
    p.add_argument("--embeddings", metavar="FILE",
                   help="initialise the word embeddings from a GloVe text file (fine-tuned; "
                        "words it lacks get random vectors of the same scale)")
    p.add_argument("--text-mode", choices=["default", "hcan"])
    p.add_argument("--remove-punctuation", action="store_true", default=None)
    p.add_argument("--remove-stopwords", action="store_true", default=None)
    p.add_argument("--layers", type=integer, metavar="N",
                   help="encoder layers (the model option num_layers, e.g. transformer)")
    p.add_argument("--heads", type=integer, metavar="H",
                   help="attention heads (the model option num_heads)")
    p.add_argument("--model-option", action="append", default=[], metavar="KEY=JSON",
                   help="override a model option, e.g. --model-option units=64 (repeatable)")
    p.add_argument("--seed", type=integer, default=0,
                   help="seeds the validation split, initialisation, shuffling and dropout")
    p.add_argument("--early-stopping", type=integer, metavar="PATIENCE",
                   help="stop after this many epochs without better validation accuracy")
    p.add_argument("--time-limit", type=number, metavar="SECONDS",
                   help="stop training after the batch in progress once this long has passed "
                        "(the partial epoch is validated; metrics.json records where it "
                        "stopped)")
    p.add_argument("--mixed-precision", default="auto",
                   choices=["auto", "off", "float16", "bfloat16"],
                   help="auto = mixed_float16 on a GPU, off on CPU")
    p.add_argument("--jit-compile", action="store_true", help="compile train steps with XLA")
    p.add_argument("--distribution", default="none", choices=["none", "mirrored", "multiworker"],
                   help="mirrored: tf.distribute.MirroredStrategy over this machine's GPUs "
                        "(model.fit); multiworker: MultiWorkerMirroredStrategy configured by "
                        "TF_CONFIG (a custom loop; needs --run-name)")
    p.add_argument("--stream", action="store_true",
                   help="read a large CSV dataset (yelp_*, amazon_*, yahoo_answers, ...) with "
                        "tf.data as it trains instead of into memory")
    p.add_argument("--shuffle-buffer", type=integer, default=100_000, metavar="ROWS",
                   help="with --stream: rows in the shuffle buffer")
    p.add_argument("--deterministic", action="store_true",
                   help="TensorFlow op determinism: with the same --seed, bit-identical runs")
    p.add_argument("--restart", action="store_true",
                   help="ignore the backup of an interrupted run with the same command and "
                        "start from epoch 1 (by default it is resumed)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace the finished run in --output-dir/--run-name (by default "
                        "a finished run is never overwritten)")
    p.add_argument("--verbose", default="auto", help="Keras verbosity: auto, 0, 1 or 2")
    return p


def _flag(key):
    return "--" + key.replace("_", "-")


def validate_args(args):
    """Raise :class:`ConfigError` for flag values no run can use (named as flags): an
    unknown dataset, a missing ``--embeddings`` file, out-of-range settings."""
    # late: this module stays standard library only (as build_parser says)
    from kerasattn.data.datasets import names as dataset_names  # late: NumPy
    from kerasattn.training.config import (  # late: TensorFlow (through preprocessing)
        SETTINGS, check_run_name, check_settings)

    if args.dataset not in dataset_names() and not args.dataset.startswith(
            ("csv:", "jsonl:", "tsv:")):
        raise ConfigError(f"unknown dataset {args.dataset!r}; choose one of "
                          f"{', '.join(dataset_names())}, or csv:PATH / tsv:PATH / jsonl:PATH")
    if args.embeddings and not os.path.isfile(args.embeddings):
        raise ConfigError(f"--embeddings: no such file {args.embeddings!r}")

    # every numeric flag, by the rules RunConfig.create checks (config.SETTINGS)
    check_settings({k: getattr(args, k, None) for k in SETTINGS}, _flag)
    _parse_model_options(args.model_option)  # its values: JSON, finite numbers
    check_run_name(args.run_name)
    if os.path.exists(args.output_dir) and not os.path.isdir(args.output_dir):
        raise ConfigError(f"--output-dir {args.output_dir!r} is a file, not a directory")


class _NotFinite(ValueError):
    """A JSON value that is no finite number (NaN, Infinity, 1e999)."""


def _constant(name):
    raise _NotFinite(name)


def _finite(value):
    """``value``; :class:`_NotFinite` for an infinite float anywhere in it."""
    if isinstance(value, float) and not math.isfinite(value):
        raise _NotFinite(value)
    for item in value.values() if isinstance(value, dict) else (
            value if isinstance(value, list) else ()):
        _finite(item)
    return value


def _parse_model_options(items):
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--model-option expects KEY=VALUE, got {item!r}")
        try:
            out[key] = _finite(json.loads(value, parse_constant=_constant))
        except _NotFinite as e:
            raise ConfigError(f"--model-option {key!r}: {e} is no finite number") from None
        except json.JSONDecodeError:
            out[key] = value
        except (ValueError, RecursionError) as e:  # over 4300 digits, nested too deep
            raise ConfigError(f"--model-option {key!r}: {shown(str(e), 80)}") from None
    return out


def resolve_config(args, argv, device="auto"):
    """The run's :class:`~kerasattn.training.RunConfig`: the preset, its recipe
    (``--recipe``; when none is named, the one :func:`kerasattn.recipes.for_device` picks
    for ``device``: see :meth:`RunConfig.create`), then the flags."""
    # late: this module stays standard library only (as build_parser says)
    from kerasattn import models  # late: model code
    from kerasattn.training import RunConfig, TrainSettings  # late: TensorFlow (config)

    preset = models.get_preset(args.model)
    model_options = _parse_model_options(args.model_option)
    for flag, key in (("layers", "num_layers"), ("heads", "num_heads")):
        value = getattr(args, flag, None)
        if value is None:
            continue
        if key not in preset.model_config:
            raise ConfigError(f"--{flag}: model {args.model} has no option {key}")
        model_options[key] = value
    train = {f: getattr(args, f, None) for f in TrainSettings.__dataclass_fields__}
    return RunConfig.create(
        args.model, args.dataset, recipe=args.recipe, model_options=model_options,
        seed=args.seed, mixed_precision=args.mixed_precision, jit_compile=args.jit_compile,
        distribution=args.distribution, deterministic=args.deterministic, stream=args.stream,
        shuffle_buffer=args.shuffle_buffer, early_stopping=args.early_stopping,
        embeddings=args.embeddings, time_limit=getattr(args, "time_limit", None),
        device=device,
        flag=lambda k: "--model-option" if k == "model_option" else _flag(k),
        command="python -m training.train " + " ".join(
            shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv)
            if a not in ("--restart", "--overwrite")),
        **train)


def config_of(argv):
    """The :class:`~kerasattn.training.RunConfig` these ``training.train`` arguments give
    (``--model`` and ``--dataset`` included)."""
    return resolve_config(build_parser().parse_args(list(argv)), list(argv))
