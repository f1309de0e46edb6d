"""Which part of a long text is kept (--truncation head / tail / head+tail): exact small
cases, the run configuration, and a run that can only learn from the end of its texts.
The served graph truncates as training did: tests/test_export.py."""

import json
import os

import pytest

from kerasattn import runs
from kerasattn.cli import train
from kerasattn.data.preprocessing import TextPreprocessor
from kerasattn.training import ConfigError, RunConfig
from tests.conftest import write


def tokens(texts, **options):
    return [[[w.decode() for w in s] if isinstance(s, list) else s.decode() for s in row]
            for row in TextPreprocessor(**options).tokenize(texts).to_list()]


@pytest.mark.parametrize("limit,truncation,kept,short", [
    (4, "head", "a b c d", "x y"),
    (4, "tail", "e f g h", "x y"),
    (4, "head+tail", "a f g h", "x y"),  # a quarter of 4 from the start, three from the end
    (5, "head+tail", "a e f g h", "x y"),
    (8, "head+tail", "a b c d e f g h", "x y"),  # not over the limit: untouched
    (1, "head", "a", "x"),
    (1, "tail", "h", "y"),
    (1, "head+tail", "h", "y"),  # a quarter of 1 is nothing
])
def test_a_long_text_keeps_the_chosen_part_and_short_ones_stay_whole(limit, truncation, kept,
                                                                       short):
    got = tokens(["a b c d e f g h", "x y", ""], max_length=limit, truncation=truncation)
    assert got == [kept.split(), short.split(), []]


def test_a_hierarchical_text_keeps_its_chosen_sentences_and_each_sentences_first_words():
    text = ["One two three. Four five! Six seven eight nine? Ten."]
    options = dict(mode="hcan", hierarchical=True, max_sentences=2, max_words=2)
    assert tokens(text, truncation="tail", **options) == [[["six", "seven"], ["ten", "."]]]
    assert tokens(text, truncation="head", **options) == [[["one", "two"], ["four", "five"]]]
    assert tokens(text, mode="hcan", hierarchical=True, max_sentences=3,
                  truncation="head+tail") == [[["four", "five", "!"],
                                               ["six", "seven", "eight", "nine", "?"],
                                               ["ten", "."]]]


def test_the_choice_is_checked_and_saved_with_the_preprocessor(tmp_path):
    with pytest.raises(ValueError, match="truncation must be one of head, tail, head\\+tail, "
                                         "got 'end'"):
        TextPreprocessor(max_length=3, truncation="end")
    p = TextPreprocessor(max_length=2, truncation="tail").adapt(["a b c d"])
    assert p.vocabulary == ["", "[UNK]", "c", "d"]  # adapted on what is kept
    p.save(tmp_path)
    q = TextPreprocessor.load(tmp_path)
    assert q.get_config()["truncation"] == "tail" and q(["d a c"]).to_list() == [[1, 2]]
    # a preprocessor saved before the option existed keeps the head
    config = json.loads((tmp_path / "preprocessor.json").read_text())
    del config["truncation"]
    (tmp_path / "preprocessor.json").write_text(json.dumps(config))
    assert TextPreprocessor.load(tmp_path).truncation == "head"


def test_the_run_configuration_carries_it_and_old_runs_read_as_head():
    config = RunConfig.create("cnn", "imdb", max_length=400, truncation="head+tail")
    assert config.preprocessor_options()["truncation"] == "head+tail"
    back = RunConfig.from_json(json.loads(json.dumps(config.to_json())))
    assert back.train.truncation == "head+tail" and back.same_run(config.to_json())
    old = RunConfig.create("cnn", "imdb", max_length=400).to_json()
    del old["train"]["truncation"]  # a run made before the setting existed
    assert RunConfig.create("cnn", "imdb", max_length=400).same_run(old)
    assert config.differences(old) == ["train.truncation"]
    with pytest.raises(ConfigError, match="truncation must be one of head, tail, head\\+tail"):
        RunConfig.create("cnn", "imdb", truncation="middle")


def _label_at_the_end(tmp_path):
    """200 texts whose label is their last word; their first two words say nothing of it
    (four openings, each as often with either label)."""
    openings = ["the film", "a film", "this movie", "that movie"]
    rows = "".join(f"{openings[(i // 2) % 4]} was {'good' if i % 2 else 'bad'},{i % 2}\n"
                   for i in range(200))
    return write(tmp_path / "end.csv", "text,label\n" + rows)


@pytest.mark.parametrize("truncation,learns", [("head", False), ("tail", True),
                                               ("head+tail", True)])
def test_a_run_learns_a_label_at_the_end_only_if_it_keeps_the_end(tmp_path, truncation,
                                                                   learns):
    run_dir, m = train.train(["--model", "mlp", "--dataset", f"csv:{_label_at_the_end(tmp_path)}",
                              "--max-length", "2", "--truncation", truncation, "--epochs", "3",
                              "--learning-rate", "0.01", "--output-dir", str(tmp_path / "runs"),
                              "--verbose", "0"])
    assert m["learning"]["learned"] is learns
    if learns:
        assert m["test"]["accuracy"] == 1.0
    assert runs.read_json(os.path.join(run_dir, runs.CONFIG))["train"]["truncation"] == truncation
    assert runs.read_json(os.path.join(run_dir, "preprocessor.json"))["truncation"] == truncation


def test_a_bad_choice_on_the_command_line_is_refused_before_anything_is_written(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        train.main(["--model", "mlp", "--dataset", "sst2", "--truncation", "middle",
                    "--output-dir", str(tmp_path)])
    assert exit_.value.code == 2 and not os.listdir(tmp_path)
    err = capsys.readouterr().err
    assert err.splitlines() == [  # one line, not argparse's usage block first
        "error: argument --truncation: invalid choice: 'middle' (choose from 'head', "
        "'tail', 'head+tail') (see 'kerasattn train --help')"]
