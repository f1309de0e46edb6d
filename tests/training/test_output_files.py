"""Commands that write files refuse to overwrite one unasked and report bad paths, ports
and input as one ``error:`` line (explain; predict and export: tests/test_export.py)."""

import pytest

from kerasattn.cli import explain, train
from tests.conftest import write

ROWS = "".join(f"{'good fine' if i % 2 else 'bad poor'} film {i},{i % 2}\n" for i in range(60))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("explain-files")
    data = write(tmp / "d.csv", "text,label\n" + ROWS)
    return train.train(["--model", "cnn", "--dataset", f"csv:{data}", "--epochs", "1",
                        "--model-option", "embedding_dim=8", "--model-option", "filters=4",
                        "--output-dir", str(tmp), "--run-name", "cnn", "--verbose", "0"])[0]


def _one_error(capsys):
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


def test_an_existing_file_is_kept_unless_overwrite_is_given(run_dir, tmp_path, capsys):
    victim = write(tmp_path / "victim.csv", "text,label\nmine,1\n")
    args = ["--run", run_dir, "--text", "a good film", "--attribution", "none"]
    assert explain.main([*args, "--output", str(victim)]) == 2
    assert "exists; pass --overwrite" in _one_error(capsys)
    assert open(victim).read() == "text,label\nmine,1\n"
    assert explain.main([*args, "--output", str(victim), "--overwrite"]) == 0
    assert "<html" in open(victim).read().lower()


@pytest.mark.parametrize("where,message", [
    ("dir", "is a directory"),
    ("afile/x.html", "is a file, not a directory"),
])
def test_an_output_path_that_cannot_be_a_file_is_one_error(run_dir, tmp_path, capsys,
                                                          where, message):
    (tmp_path / "dir").mkdir()
    write(tmp_path / "afile", "mine")
    assert explain.main(["--run", run_dir, "--text", "good", "--output",
                         str(tmp_path / where)]) == 2
    assert message in _one_error(capsys)
    assert open(tmp_path / "afile").read() == "mine"


@pytest.mark.parametrize("port", ["99999", "-1"])
def test_a_port_out_of_range_is_one_error(run_dir, capsys, port):
    with pytest.raises(SystemExit) as exit_:
        explain.main(["--run", run_dir, "--serve", "--port", port])
    assert exit_.value.code == 2
    assert "argument --port: must be in 0..65535" in _one_error(capsys)


def test_invalid_utf8_input_names_file_and_line(run_dir, tmp_path, capsys):
    bad = write(tmp_path / "in.txt", b"good film\n\xff bad\n", mode="wb")
    assert explain.main(["--run", run_dir, "--input", str(bad), "--output",
                         str(tmp_path / "p.html")]) == 2
    assert "in.txt:2: not valid UTF-8" in _one_error(capsys)
    assert not (tmp_path / "p.html").exists()


def test_max_tokens_below_one_is_one_error(run_dir, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        explain.main(["--run", run_dir, "--text", "good", "--max-tokens", "-1",
                      "--output", str(tmp_path / "p.html")])
    assert exit_.value.code == 2
    assert "argument --max-tokens: must be >= 1, got -1" in _one_error(capsys)
