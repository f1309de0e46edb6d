"""Every command recorded in benchmarks/results/ still runs: each ``python -m
training.train ...`` parses into a valid configuration, and every other module named
there exists and accepts ``--help``."""

import glob
import importlib.util
import os
import re
import shlex

import pytest

from kerasattn.cli import train

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = sorted(glob.glob(os.path.join(ROOT, "benchmarks", "results", "*.md")))
COMMAND = re.compile(r"`(python -m ([a-z_.]+)(?: [^`]*)?)`")


def _commands():
    found = []
    for path in RESULTS:
        with open(path, encoding="utf-8") as fh:
            for match in COMMAND.finditer(fh.read()):
                found.append((os.path.basename(path), match.group(1), match.group(2)))
    return found


COMMANDS = _commands()
# a template, not a command: "--layers L", "..." or a placeholder in capitals
_TEMPLATE = re.compile(r"\.\.\.|…|(?:^|\s)[A-Z]{1,4}(?:\s|$)")
TRAIN = sorted({c for _, c, module in COMMANDS
                if module == "training.train" and not _TEMPLATE.search(c)})


def test_the_results_record_their_commands():
    assert len(TRAIN) > 30


@pytest.mark.parametrize("command", TRAIN)
def test_every_recorded_training_command_is_a_valid_configuration(command):
    args = shlex.split(command)[3:]
    if "--output-dir" in args:  # a placeholder or a machine's path: not part of the run
        i = args.index("--output-dir")
        del args[i:i + 2]
    config = train.config_of(args)
    assert config.model and config.dataset


@pytest.mark.parametrize("module", sorted({m for _, _, m in COMMANDS}))
def test_every_recorded_module_exists(module):
    assert importlib.util.find_spec(module) is not None, module
