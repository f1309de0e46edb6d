"""Every numeric flag is checked before any work: a value that is no number of its kind
(text, ``inf``, ``nan``, ``-0``, a fraction for an integer) or out of its range (a seed
outside 0..2**32-1, a count below 1 or absurdly large, a learning rate that is not > 0,
a fraction outside (0, 1)) is one ``error:`` line on stderr and exit status 2, and
nothing is made. RunConfig refuses the same values from Python (ConfigError): the train
command's ranges and the library's are one set of rules (config.SETTINGS).
"""

import os
import subprocess
import sys

import pytest

from kerasattn.cli import (evaluate, explain, export, portable, predict, reproduce,
                           serving_client, train, word_vectors)
from kerasattn.training import RunConfig
from kerasattn.training.config import SETTINGS, ConfigError
from tests.conftest import write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

NOT_INTEGERS = ["1.5", "1e3", "inf", "nan", "x", "", "0x10", "-0"]
NOT_NUMBERS = ["inf", "-inf", "nan", "NaN", "1e999", "-1e999", "x", "", "-0", "-0.0"]
# flag: values refused besides NOT_INTEGERS / NOT_NUMBERS (its range)
TRAIN_INTEGERS = {
    "--seed": ["-1", str(2 ** 32), str(10 ** 30)],
    "--epochs": ["0", "-1", str(2 ** 31)],
    "--batch-size": ["0", "-3", str(2 ** 20 + 1)],
    "--max-length": ["0", "-1", str(2 ** 20 + 1)],
    "--max-sentences": ["0", str(2 ** 20 + 1)],
    "--max-words": ["0", str(2 ** 20 + 1)],
    "--vocab-size": ["2", "0", str(2 ** 31)],
    "--min-freq": ["0", "-1"],
    "--early-stopping": ["0", "-2"],
    "--layers": ["0", "1025"],
    "--heads": ["0", "-1", "1025"],
    "--shuffle-buffer": ["0", str(2 ** 31)],
}
TRAIN_FLOATS = {
    "--learning-rate": ["0", "-0.1", "-1e-300"],
    "--clipnorm": ["0", "-1"],
    "--time-limit": ["0", "-5"],
    "--val-fraction": ["0", "1", "-0.5", "1.5"],
    "--warmup": ["1", "-0.1", "2"],
}
TRAIN_CASES = ([(flag, v) for flag, bad in TRAIN_INTEGERS.items() for v in bad + NOT_INTEGERS]
               + [(flag, v) for flag, bad in TRAIN_FLOATS.items() for v in bad + NOT_NUMBERS])


def rc_of(main, argv):
    """A command's exit status, whether it returns it or argparse exits."""
    try:
        return main(argv)
    except SystemExit as e:
        return e.code


def one_error(capsys):
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("error: "), err
    return err[0]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    path = tmp_path_factory.mktemp("data") / "d.csv"
    return write(path, "text,label\n" + "".join(f"text {i},{i % 2}\n" for i in range(20)))


@pytest.mark.parametrize("flag,value", TRAIN_CASES, ids=[f"{f}={v!r}" for f, v in TRAIN_CASES])
def test_train_refuses_the_value_as_one_line_before_any_work(tmp_path, capsys, data, flag,
                                                             value):
    out = tmp_path / "out"
    argv = ["--model", "mlp", "--dataset", f"csv:{data}", "--output-dir", str(out),
            "--verbose", "0", f"{flag}={value}"]
    assert rc_of(train.main, argv) == 2
    line = one_error(capsys)
    assert flag in line, line
    assert not out.exists()
    # the same through the console command
    assert rc_of(__import__("kerasattn.cli", fromlist=["main"]).main, ["train", *argv]) == 2
    assert flag in one_error(capsys)


@pytest.mark.parametrize("line,argv", [
    ("error: --seed must be in 0..4294967295, got -1", ["--seed", "-1"]),
    ("error: argument --learning-rate: must be a finite number, got 'nan' (see 'kerasattn "
     "train --help')", ["--learning-rate", "nan"]),
    ("error: argument --epochs: must be an integer, got 'inf' (see 'kerasattn train --help')",
     ["--epochs", "inf"]),
    ("error: argument --seed: must not be a negative zero, got '-0' (see 'kerasattn train "
     "--help')", ["--seed", "-0"]),
    ("error: --batch-size must be <= 1048576 (texts per batch), got 1048577",
     ["--batch-size", "1048577"]),
    ("error: --model-option 'units': NaN is no finite number", ["--model-option", "units=NaN"]),
    ("error: --model-option 'units': inf is no finite number",
     ["--model-option", "units=1e999"]),
])
def test_train_words_the_refusals_so(tmp_path, capsys, data, line, argv):
    full = ["--model", "mlp", "--dataset", f"csv:{data}", "--output-dir",
            str(tmp_path / "out"), *argv]
    assert rc_of(train.main, full) == 2
    assert one_error(capsys) == line
    assert not (tmp_path / "out").exists()


LIBRARY_CASES = [("seed", -1), ("seed", 2 ** 32), ("seed", 1.5), ("seed", True),
                 ("epochs", 0), ("epochs", 2.5), ("epochs", float("inf")), ("epochs", "3"),
                 ("batch_size", 0), ("batch_size", 2 ** 20 + 1), ("max_length", -1),
                 ("vocab_size", 2), ("min_freq", 0), ("early_stopping", 0),
                 ("learning_rate", 0.0), ("learning_rate", float("nan")),
                 ("learning_rate", float("inf")), ("learning_rate", -0.0),
                 ("clipnorm", -1.0), ("warmup", 1.0), ("warmup", -0.0),
                 ("val_fraction", 0.0), ("val_fraction", 1.0), ("val_fraction", float("nan")),
                 ("time_limit", 0), ("time_limit", float("inf")), ("time_limit", -0.0)]


@pytest.mark.parametrize("key,value", LIBRARY_CASES,
                         ids=[f"{k}={v!r}" for k, v in LIBRARY_CASES])
def test_run_config_refuses_the_same_values(key, value):
    with pytest.raises(ConfigError, match=f"^{key} "):
        RunConfig.create("mlp", "sst2", **{key: value})


def test_every_numeric_flag_of_train_has_a_rule_and_the_flags_and_library_agree():
    # a rule for each numeric setting the command line has, one place
    parser = train.build_parser()
    numeric = {a.dest for a in parser._actions if getattr(a.type, "__name__", "") in
               ("integer", "number")}
    assert numeric == set(SETTINGS)
    for key, value in LIBRARY_CASES:
        if key in ("seed", "time_limit") or isinstance(value, (bool, str)):
            continue
        with pytest.raises(ConfigError) as library:
            RunConfig.create("mlp", "sst2", **{key: value})
        assert SETTINGS[key].problem(value) in str(library.value)


def test_good_values_at_the_bounds_still_parse(tmp_path, data):
    argv = ["--model", "mlp", "--dataset", f"csv:{data}", "--output-dir", str(tmp_path),
            "--seed", str(2 ** 32 - 1), "--batch-size", str(2 ** 20), "--vocab-size", "3",
            "--val-fraction", "1e-9", "--warmup", "0", "--learning-rate", "1e-300",
            "--time-limit", "0.5", "--epochs", "1", "--max-length", "1_000"]
    args = train.build_parser().parse_args(argv)
    train.validate_args(args)
    config = train.resolve_config(args, argv)
    assert (config.seed, config.train.batch_size, config.train.max_length) == \
        (2 ** 32 - 1, 2 ** 20, 1000)


OTHER_CASES = [
    (predict.main, ["--model-dir", "m", "x", "--batch-size", "0"], "--batch-size"),
    (predict.main, ["--model-dir", "m", "x", "--batch-size", "-0"], "--batch-size"),
    (predict.main, ["--model-dir", "m", "x", "--batch-size", "inf"], "--batch-size"),
    (predict.main, ["--model-dir", "m", "x", "--batch-size", str(2 ** 21)], "--batch-size"),
    (explain.main, ["--run", "r", "--text", "x", "--max-tokens", "0"], "--max-tokens"),
    (explain.main, ["--run", "r", "--text", "x", "--steps", "nan"], "--steps"),
    (explain.main, ["--run", "r", "--serve", "--port", "70000"], "--port"),
    (explain.main, ["--run", "r", "--serve", "--port", "-0"], "--port"),
    (export.main, ["--run", "r", "--max-length", "0"], "--max-length"),
    (export.main, ["--run", "r", "--max-length", "1e9"], "--max-length"),
    (evaluate.main, ["--run", "r", "--faithfulness", "--seed", "-1"], "--seed"),
    (evaluate.main, ["--run", "r", "--faithfulness", "--seed", str(2 ** 32)], "--seed"),
    (evaluate.main, ["--run", "r", "--faithfulness", "--ig-steps", "1e3"], "--ig-steps"),
    (evaluate.main, ["--run", "r", "--faithfulness", "--ig-steps", "0"], "--ig-steps"),
    (evaluate.main, ["--run", "r", "--faithfulness", "--faithfulness-sample", "nan"],
     "--faithfulness-sample"),
    (reproduce.main, ["--experiment", "faithfulness", "--seed", "-1"], "--seed"),
    (reproduce.main, ["--experiment", "faithfulness", "--limit", "0"], "--limit"),
    (reproduce.main, ["--experiment", "faithfulness", "--random-draws", "-0"],
     "--random-draws"),
    (reproduce.main, ["--experiment", "faithfulness", "--permutations", "inf"],
     "--permutations"),
    (reproduce.main, ["--experiment", "faithfulness", "--seeds", str(2 ** 31)], "--seeds"),
    (word_vectors.main, ["--texts", "t", "--output", "o", "--dim", "0"], "--dim"),
    (word_vectors.main, ["--texts", "t", "--output", "o", "--seed", str(2 ** 32)], "--seed"),
    (word_vectors.main, ["--texts", "t", "--output", "o", "--workers", "5000"], "--workers"),
    (word_vectors.main, ["--texts", "t", "--output", "o", "--epochs", "nan"], "--epochs"),
    (serving_client.main, ["--model", "m", "x", "--version", "-1"], "--version"),
    (serving_client.main, ["--model", "m", "x", "--version", str(2 ** 63)], "--version"),
    (serving_client.main, ["--model", "m", "x", "--port", "nan"], "--port"),
    (serving_client.main, ["--model", "m", "x", "--port", "0"], "--port"),
    (serving_client.main, ["--model", "m", "x", "--timeout", "inf"], "--timeout"),
    (serving_client.main, ["--model", "m", "x", "--timeout", "-0"], "--timeout"),
    (portable.main, ["fit", "--run", "r", "--time-limit", "nan"], "--time-limit"),
    (portable.main, ["fit", "--run", "r", "--time-limit", "-0"], "--time-limit"),
    (portable.main, ["fit", "--run", "r", "--bucket-step", "0"], "--bucket-step"),
    (portable.main, ["fit", "--run", "r", "--parallel", "inf"], "--parallel"),
    (portable.main, ["fit", "--run", "r", "--verbose", "3"], "--verbose"),
]


@pytest.mark.parametrize("main,argv,flag", OTHER_CASES,
                         ids=[f"{m.__module__.rsplit('.', 1)[1]} {' '.join(a[-2:])}"
                              for m, a, _ in OTHER_CASES])
def test_the_other_commands_refuse_as_one_line(tmp_path, capsys, monkeypatch, main, argv,
                                               flag):
    monkeypatch.chdir(tmp_path)  # the paths above name nothing: nothing is made
    assert rc_of(main, argv) == 2
    assert flag in one_error(capsys)
    assert os.listdir(tmp_path) == []


def test_portable_prepare_refuses_as_one_line(tmp_path, capsys, data):
    base = ["prepare", "--model", "mlp", "--dataset", f"csv:{data}", "--output-dir",
            str(tmp_path / "out")]
    for bad in (["--seed", "-1"], ["--seed", "nan"], ["--epochs", "0"],
                ["--learning-rate", "inf"], ["--val-fraction", "-0"]):
        assert portable.main(base + bad) == 2
        assert bad[0] in one_error(capsys)
    assert not (tmp_path / "out").exists()


def test_serving_clients_library_call_checks_by_the_same_rules():
    for port, timeout in ((0, 1.0), (True, 1.0), (8500, float("nan")), (8500, -0.0),
                          (8500.0, 1.0)):
        with pytest.raises(ValueError, match="^--(port|timeout) must be"):
            serving_client.check_options(port, timeout)


def test_predict_refuses_a_text_that_is_not_utf8_as_one_line(tmp_path):
    # argv's bytes as a shell gives them: b"caf\xe9" arrives as 'caf\udce9'
    result = subprocess.run(
        [sys.executable, "-m", "training.predict", "--model-dir", str(tmp_path / "m"),
         b"caf\xe9"], cwd=ROOT, capture_output=True, timeout=300,
        env={**os.environ, "PYTHONPATH": ROOT})
    err = result.stderr.decode("utf-8", "replace").splitlines()
    assert result.returncode == 2 and result.stdout == b""
    assert len(err) == 1 and err[0].startswith("error: argument texts: "), err
    assert "not valid UTF-8 (byte 0xe9 at column 4)" in err[0]


def test_a_text_that_is_not_utf8_is_refused_by_explain_and_the_serving_client(capsys):
    for main, argv in ((explain.main, ["--run", "r", "--output", "p.html", "--text"]),
                       (serving_client.main, ["--model", "m"])):
        assert rc_of(main, argv + ["caf\udce9"]) == 2
        assert "not valid UTF-8 (byte 0xe9 at column 4)" in one_error(capsys)


def test_an_error_line_quoting_what_was_typed_stays_one_line(capsys):
    # argparse quotes a value it does not know as typed; line breaks and lone
    # surrogates are escaped, so it is one line that can be printed
    assert rc_of(predict.main, ["--model-dir", "m", "--nosuch\nflag\u2028\udcff"]) == 2
    line = one_error(capsys)
    assert "--nosuch\\nflag\\u2028\\udcff" in line
