"""Validation split by whole groups (``val_split="grouped"``, ``--val-split grouped``): no
group on both sides, classes in about their proportions, IMDB's films from its url lists,
a ``group`` column in users' files, and clear errors where a split cannot be grouped."""

import collections
import json

import numpy as np
import pytest

from kerasattn.data import datasets as d
from kerasattn.training import RunConfig
from kerasattn.training.config import ConfigError
from tests.conftest import write, write_aclimdb


@pytest.fixture(autouse=True)
def _no_mirror(monkeypatch):
    monkeypatch.delenv(d.ENV_VAR, raising=False)
    monkeypatch.setenv(d.VERIFY_ENV, "0")  # small stand-ins under the published names


def test_grouped_split_holds_out_whole_groups_stratified_by_class():
    rng = np.random.default_rng(0)
    # 60 groups of 1 to 9 texts; each group leans to one class, as a film's reviews do
    groups, labels = [], []
    for g in range(60):
        n = int(rng.integers(1, 10))
        lean = g % 2
        groups += [f"g{g}"] * n
        labels += [lean if rng.random() < 0.8 else 1 - lean for _ in range(n)]
    labels, groups = np.array(labels), np.array(groups, dtype=object)
    rest, held = d.grouped_split(labels, groups, 0.2, seed=3)
    assert sorted([*rest, *held]) == list(range(len(labels)))  # a partition
    assert not set(groups[rest]) & set(groups[held])  # no group on both sides
    assert list(rest) == sorted(rest) and list(held) == sorted(held)
    assert 0.1 < len(held) / len(labels) < 0.3  # one fold of five
    # the classes in about their proportions
    assert abs(labels[held].mean() - labels.mean()) < 0.1
    # the seed decides the split, and only the seed
    again = d.grouped_split(labels, groups, 0.2, seed=3)[1]
    assert list(again) == list(held)
    assert list(d.grouped_split(labels, groups, 0.2, seed=4)[1]) != list(held)


def test_grouped_split_counts_folds_from_the_fraction():
    labels = np.array([0, 1] * 50)
    groups = np.arange(100).astype(str)  # every text its own group
    for fraction, held in ((0.1, 10), (0.2, 20), (0.5, 50), (0.3, 33)):
        assert len(d.grouped_split(labels, groups, fraction, 0)[1]) in (held, held + 1)


def test_grouped_split_needs_a_group_per_fold():
    with pytest.raises(ValueError, match="holding out 0.1 by groups needs at least 10 groups; there are 3"):
        d.grouped_split(np.array([0, 1, 0, 1]), np.array(["a", "b", "c", "c"]), 0.1, 0)


def _imdb(tmp_path, films=None, drop=()):
    """Six reviews a split and polarity, of three films."""
    return write_aclimdb(tmp_path, 6, films, drop)


def test_imdb_reviews_are_grouped_by_the_film_of_their_url(tmp_path):
    ds = d.load("imdb", data_dir=_imdb(tmp_path), download=False)
    assert set(ds.test.groups.tolist()) == {"tt0000000", "tt0000001", "tt0000002"}
    # review ID of each polarity is line ID (from 0) of its urls file
    for split in (ds.train, ds.val, ds.test):
        for text, film in zip(split.texts, split.groups):
            assert film == f"tt000000{int(text.split()[2]) // 2}"
    grouped = d.load("imdb", data_dir=tmp_path, download=False, val_split="grouped",
                     val_fraction=1 / 3)
    assert not set(grouped.train.groups) & set(grouped.val.groups)
    assert len(grouped.val) == 4 and sorted(grouped.val.labels.tolist()) == [0, 0, 1, 1]
    assert "no group is on both sides" in grouped.notes[-1]


def test_imdb_without_url_lists_has_no_groups_and_says_so(tmp_path):
    _imdb(tmp_path, drop={(s, p) for s in ("train", "test") for p in ("pos", "neg")})
    assert d.load("imdb", data_dir=tmp_path, download=False).train.groups is None
    with pytest.raises(ValueError, match="imdb: a grouped validation split needs the group"):
        d.load("imdb", data_dir=tmp_path, download=False, val_split="grouped")


@pytest.mark.parametrize("films,drop,message", [
    (["http://www.imdb.com/title/tt1/usercomments"] * 5, (), r"train/urls_neg.txt has 5 lines; "
                                                            r"review neg/5_\*.txt needs line 6"),
    (None, {("train", "neg")}, r"train/urls_neg.txt is missing"),
])
def test_damaged_imdb_url_lists_are_format_errors(tmp_path, films, drop, message):
    _imdb(tmp_path, films, drop)
    with pytest.raises(d.DatasetFormatError, match=message):
        d.load("imdb", data_dir=tmp_path, download=False)


def _rows(n_groups, per_group=3):
    return [{"text": f"text {g} {i}", "label": ["a", "b"][(g + i) % 2], "group": f"u{g}"}
            for g in range(n_groups) for i in range(per_group)]


def test_a_group_column_groups_the_test_and_validation_splits(tmp_path):
    rows = _rows(40)
    rows[0]["group"] = ""  # a row without a group is a group of its own
    path = tmp_path / "reviews.jsonl"
    write(path, "".join(json.dumps(r) + "\n" for r in rows))
    ds = d.load(f"jsonl:{path}", val_split="grouped", val_fraction=0.2)
    sides = [set(ds.split(s).groups.tolist()) for s in d.SPLITS]
    assert not (sides[0] & sides[1] or sides[0] & sides[2] or sides[1] & sides[2])
    assert sum(len(ds.split(s)) for s in d.SPLITS) == 120
    assert "whole groups" in ds.notes[1] and "grouped" in ds.notes[2]
    # without val_split="grouped" the validation share is drawn at random (the test
    # split, part of the dataset's definition, stays grouped)
    plain = d.load(f"jsonl:{path}", val_fraction=0.2)
    assert plain.test.texts == ds.test.texts
    assert set(plain.train.groups) & set(plain.val.groups)


def test_a_csv_group_column_and_integer_groups(tmp_path):
    path = tmp_path / "rows.csv"
    write(path, "text,label,group\n" + "".join(f"t{i},{i % 2},{i // 4}\n" for i in range(80)))
    ds = d.load(f"csv:{path}", val_split="grouped")
    assert not set(ds.train.groups) & set(ds.val.groups)
    counts = collections.Counter(ds.train.groups.tolist())
    assert set(counts.values()) == {4}  # whole groups of four


@pytest.mark.parametrize("group", [1.5, True, ["a"], {"a": 1}])
def test_a_group_that_is_not_a_string_or_integer_is_refused(tmp_path, group):
    path = tmp_path / "rows.jsonl"
    write(path, json.dumps({"text": "x", "label": "a"}) + "\n"
          + json.dumps({"text": "y", "label": "b", "group": group}) + "\n")
    with pytest.raises(d.DatasetFormatError, match=r"rows.jsonl:2: 'group' must be a string"):
        d.load(f"jsonl:{path}")


def test_too_few_groups_for_the_test_split_is_a_format_error(tmp_path):
    path = tmp_path / "rows.csv"
    write(path, "text,label,group\n" + "".join(f"t{i},{i % 2},{i // 10}\n" for i in range(40)))
    with pytest.raises(d.DatasetFormatError, match=r"rows.csv: the test split: holding out "
                                                   r"0.2 by groups needs at least 5 groups"):
        d.load(f"csv:{path}")


@pytest.mark.parametrize("groups,shared", [
    (["one film"] * 20, "4 of its 4 texts share their group with a training text"),
    ([f"film {i}" for i in range(20)], "0 of its 4 texts share their group"),
    ([f"film {i // 2}" for i in range(20)], None),  # pairs: counted below
    (None, None),
])
def test_a_stratified_split_of_grouped_texts_says_how_many_share_a_group(groups, shared):
    train = d.Split([f"t{i}" for i in range(20)], [i % 2 for i in range(20)], groups)
    rest, val, note = d.hold_out_validation(train, 0.2, seed=0)
    assert note.startswith("validation split: stratified 0.2 of train (seed 0)")
    if groups is None:
        assert "share" not in note
        return
    assert note.endswith("(--val-split grouped holds out whole groups)")
    if shared is None:  # by hand: a held-out text shares its pair's film unless both are held out
        held = [int(t[1:]) for t in val.texts]
        count = sum((i ^ 1) not in held for i in held)
        shared = f"{count} of its 4 texts share their group"
    assert shared in note


def test_data_without_groups_cannot_be_split_by_group(tmp_path):
    path = tmp_path / "rows.csv"
    write(path, "text,label\n" + "".join(f"t{i},{i % 2}\n" for i in range(40)))
    with pytest.raises(ValueError, match="and this dataset has none"):
        d.load(f"csv:{path}", val_split="grouped")
    with pytest.raises(ValueError, match="val_split must be one of stratified, grouped"):
        d.load(f"csv:{path}", val_split="films")


def test_the_run_configuration_carries_the_split_and_old_runs_read_as_stratified():
    config = RunConfig.create("cnn", "imdb", val_split="grouped")
    assert config.train.val_split == "grouped"
    back = RunConfig.from_json(json.loads(json.dumps(config.to_json())))
    assert back.train.val_split == "grouped" and back.same_run(config.to_json())
    old = RunConfig.create("cnn", "imdb").to_json()
    del old["train"]["val_split"]  # a run made before the setting existed
    assert RunConfig.create("cnn", "imdb").same_run(old)
    assert not config.same_run(old)
    with pytest.raises(ConfigError, match="val_split must be one of stratified, grouped"):
        RunConfig.create("cnn", "imdb", val_split="random")
    with pytest.raises(ConfigError, match="grouped needs the whole training split"):
        RunConfig.create("cnn", "imdb", val_split="grouped", stream=True)


@pytest.mark.parametrize("command", ["train", "portable prepare"])
def test_the_commands_refuse_a_grouped_split_of_ungrouped_data(tmp_path, capsys, command):
    from kerasattn.cli import portable, train

    path = tmp_path / "rows.csv"
    write(path, "text,label\n" + "".join(f"t{i},{i % 2}\n" for i in range(40)))
    out = tmp_path / "runs"
    argv = ["--model", "mlp", "--dataset", f"csv:{path}", "--val-split", "grouped",
            "--output-dir", str(out)]
    code = train.main(argv) if command == "train" else portable.main(["prepare", *argv])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert f"error: csv:{path}: a grouped validation split needs the group" in err
    assert not out.exists()  # nothing written


def test_a_dataset_with_its_own_validation_split_keeps_it_and_says_so(tmp_path):
    path = tmp_path / "rows.csv"
    write(path, "text,label,split\n" + "".join(
        f"t{i},{i % 2},{['train', 'dev', 'test'][i % 3]}\n" for i in range(30)))
    ds = d.load(f"csv:{path}", val_split="grouped")  # no groups needed: nothing to draw
    assert len(ds.val) == 10 and ds.val.groups is None
    assert "the dataset's own (grouped applies only where" in ds.notes[-1]


def test_a_grouped_run_is_evaluated_on_the_split_it_was_trained_with(tmp_path):
    """training.evaluate rebuilds the run's split from config.json: the same validation
    texts, so the same validation metrics, as the run recorded."""
    from kerasattn import evaluation, run_data, runs
    from kerasattn.cli import train

    rng = np.random.default_rng(0)
    words = ["good", "bad", "fine", "dull", "witty", "flat"]
    rows = [(" ".join(rng.choice(words, 6)), g % 2, g) for g in range(60) for _ in range(4)]
    path = tmp_path / "rows.csv"
    write(path, "text,label,group\n" + "".join(f"{t},{y},{g}\n" for t, y, g in rows))
    out = tmp_path / "runs"
    assert train.main(["--model", "nb", "--dataset", f"csv:{path}", "--val-split", "grouped",
                       "--seed", "2", "--output-dir", str(out), "--run-name", "r"]) == 0
    run = out / "r"
    config = runs.read_json(run / runs.CONFIG)
    assert config["train"]["val_split"] == "grouped"
    assert any("no group is on both sides" in n for n in config["dataset_notes"])
    ds = run_data.load_dataset(config)
    assert not set(ds.train.groups) & set(ds.val.groups)
    assert evaluation.evaluate_run(str(run), None, ("val",))["val"] == \
        runs.read_json(run / runs.METRICS)["val"]
