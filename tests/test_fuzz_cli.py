"""Fuzzing the command-line parsers: random values (numbers of every kind, ``inf``,
``nan``, ``-0``, huge and negative ones, random text, lone surrogates as a command
line's bytes that are not UTF-8 arrive) for every command's flags. Parse only: each
command's parser (``build_parser()``), then the command's own checks of what it parsed
where it has them (``train``: the whole command up to the training, which is replaced
by a stub). The only outcomes allowed: the arguments are taken, or exit status 2 with
exactly one stderr line ``error: ...`` (no traceback, no usage block).

A small fixed budget runs in the default suite; ``-m slow`` runs a larger one.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kerasattn.cli import (evaluate, explain, export, portable, predict, presets, reproduce,
                           serving_client, train, word_vectors)
from kerasattn.experiments import attention_faithfulness

SPECIAL = ["inf", "-inf", "+inf", "Infinity", "nan", "NaN", "-nan", "-0", "+0", "-0.0",
           "0", "1", "-1", "1e999", "-1e999", "1e-400", "0x10", "1_000", "\u0663", " 7 ",
           "", " ", "1.5", "1e3", "9" * 5000, "-" + "9" * 400, "\u22121", "2147483648",
           "4294967296", "18446744073709551616", "caf\udce9", "a\nb", "\u2028", "%s",
           "%(prog)s", "{}", "-", "--", "-x", "--nosuch", "=", "null", "true", "[1, 2]",
           "NaN", "1e309"]
SURROGATE = st.integers(0xDC80, 0xDCFF).map(chr)
TEXT = st.lists(st.one_of(st.characters(), SURROGATE), max_size=12).map("".join)
NUMBER = st.one_of(st.integers(-(2 ** 70), 2 ** 70).map(str), st.integers(-3, 3).map(str),
                   st.floats().map(repr), st.floats(-2, 2).map(str))


def _asks_for_help(value):
    """``-h``/``--help`` (or an abbreviation): argparse prints the help, as asked."""
    head = value.split("=", 1)[0]
    return value.startswith("-h") or (len(head) > 2 and "--help".startswith(head))


VALUE = st.one_of(st.sampled_from(SPECIAL), NUMBER, TEXT).filter(
    lambda v: not _asks_for_help(v))


def _argv(flags, positional=False):
    """Random ``--flag value`` / ``--flag=value`` pairs of ``flags``, then random words: the
    command's texts (``positional``), or arguments it does not take (which argparse
    quotes as typed in its error line)."""
    pair = st.tuples(st.sampled_from(flags), VALUE, st.booleans()).map(
        lambda t: [f"{t[0]}={t[1]}"] if t[2] else [t[0], t[1]])
    tail = st.lists(VALUE, max_size=3 if positional else 1)
    return st.tuples(st.lists(pair, max_size=4), tail).map(
        lambda t: [a for p in t[0] for a in p] + t[1])


class Refused(Exception):
    """A command's own check refused the arguments with this one line."""


def _parse(parser_of, check=None):
    def run(argv):
        parser = parser_of()
        args = parser.parse_args(argv)
        if check is not None:
            check(parser, args, argv)
    return run


def _serving_check(parser, args, argv):
    try:
        serving_client.check_options(args.port, args.timeout)
    except ValueError as e:
        raise Refused(str(e)) from None


def _faithfulness_check(flag):
    return lambda parser, args, argv: attention_faithfulness.check_flags(parser, args, flag)


def _prepare(argv):
    from kerasattn.training import prepared
    from kerasattn.training.errors import ConfigError

    try:
        prepared._parse_prepare(prepared.parse_train_args(argv), argv)
    except ConfigError as e:  # portable prints it as "error: {e}"
        raise Refused(str(e)) from None


TRAIN_FLAGS = ["--seed", "--epochs", "--batch-size", "--learning-rate", "--warmup",
               "--clipnorm", "--max-length", "--max-sentences", "--max-words",
               "--val-fraction", "--vocab-size", "--min-freq", "--layers", "--heads",
               "--early-stopping", "--time-limit", "--shuffle-buffer", "--model-option",
               "--run-name", "--dataset", "--recipe", "--verbose", "--optimizer",
               "--lr-schedule", "--truncation", "--text-mode"]

# command: (run(argv), the arguments it needs, the flags fuzzed, takes texts)
COMMANDS = {
    "predict": (_parse(predict.build_parser), ["--model-dir", "m"],
                ["--batch-size", "--input", "--explain"], True),
    "explain": (_parse(explain.build_parser), ["--run", "r"],
                ["--text", "--port", "--max-tokens", "--steps", "--attribution", "--host",
                 "--output"], False),
    "export": (_parse(export.build_parser), ["--run", "r"],
               ["--max-length", "--output", "--preset"], False),
    "evaluate": (_parse(evaluate.build_parser, _faithfulness_check("--faithfulness-sample")),
                 ["--run", "r", "--faithfulness"],
                 ["--faithfulness-sample", "--seed", "--ig-steps", "--split"], False),
    "reproduce": (_parse(reproduce.build_parser, _faithfulness_check("--sample")),
                  ["--experiment", "faithfulness"],
                  ["--limit", "--seeds", "--sample", "--seed", "--ig-steps", "--random-draws",
                   "--permutations", "--dataset"], False),
    "word-vectors": (_parse(word_vectors.build_parser), ["--texts", "t", "--output", "o"],
                     ["--dim", "--epochs", "--window", "--min-count", "--seed", "--workers",
                      "--method", "--model"], False),
    "serving-client": (_parse(serving_client.build_parser, _serving_check), ["--model", "m"],
                       ["--port", "--timeout", "--version", "--host", "--signature"], True),
    "portable-fit": (_parse(portable.build_fit_parser), ["--run", "r"],
                     ["--verbose", "--time-limit", "--bucket-step", "--parallel",
                      "--mixed-precision"], False),
    "portable-prepare": (_prepare, ["--model", "mlp", "--dataset", "sst2"], TRAIN_FLAGS,
                         False),
    "presets": (_parse(presets.build_parser), [], ["--family", "--kind"], False),
}


def _one_error_line(err):
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    lines[0].encode("utf-8")  # printable as it is


def _outcome(run, argv, capsys):
    capsys.readouterr()
    try:
        run(argv)
    except SystemExit as e:
        err = capsys.readouterr().err
        assert e.code == 2, (argv, e.code, err)
        _one_error_line(err)
        return "refused"
    except Refused as e:
        assert capsys.readouterr().err == ""
        _one_error_line(f"error: {e}\n")
        return "refused"
    assert capsys.readouterr().err == "", argv
    return "taken"


def _fuzz_command(name, examples):
    run, base, flags, positional = COMMANDS[name]

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture,
                                     HealthCheck.too_slow])
    @given(extra=_argv(flags, positional))
    def fuzz(capsys, extra):
        _outcome(run, base + extra, capsys)

    return fuzz


def _fuzz_train(examples):
    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture,
                                     HealthCheck.too_slow])
    @given(extra=_argv(TRAIN_FLAGS))
    def fuzz(tmp_path, capsys, extra):
        import kerasattn.training

        out = tmp_path / "out"
        argv = ["--model", "mlp", "--dataset", "sst2", "--output-dir", str(out), *extra]
        trained = []
        with pytest.MonkeyPatch.context() as mp:  # the whole command but the training
            mp.setattr(kerasattn.training, "train",
                       lambda config, **kw: trained.append(config) or (None, {}))
            capsys.readouterr()
            try:
                rc = train.main(argv)
            except SystemExit as e:
                rc = e.code
        err = capsys.readouterr().err
        assert rc in (0, 2), (argv, rc, err)
        if rc == 2:
            _one_error_line(err)
            assert not trained
        else:
            assert err == "" and len(trained) == 1
        assert not out.exists()  # nothing made before the training starts

    return fuzz


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_fuzzed_flags_are_taken_or_one_error_line(name, capsys):
    _fuzz_command(name, 50)(capsys)


def test_fuzzed_train_flags_are_taken_or_one_error_line(tmp_path, capsys):
    _fuzz_train(50)(tmp_path, capsys)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_more_fuzzed_flags_are_taken_or_one_error_line(name, capsys):
    _fuzz_command(name, 1000)(capsys)


@pytest.mark.slow
def test_more_fuzzed_train_flags_are_taken_or_one_error_line(tmp_path, capsys):
    _fuzz_train(1000)(tmp_path, capsys)


def test_the_fuzzing_reaches_both_outcomes(capsys):
    # the strategies make arguments that are taken as well as refused ones
    run, base, _, _ = COMMANDS["word-vectors"]
    assert _outcome(run, base + ["--dim", "7", "--seed", "3"], capsys) == "taken"
    for bad in ("-0", "nan", "1e999", "caf\udce9", "4294967296"):
        assert _outcome(run, base + ["--seed", bad], capsys) == "refused"
