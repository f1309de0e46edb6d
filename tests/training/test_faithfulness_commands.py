"""Explanations through the commands: explain shows attention and attributions for every
family (models without attention too), evaluate --faithfulness stores the report,
reproduce --experiment faithfulness builds the table from trained runs."""

import os
import random
import re
import shutil

import numpy as np
import pytest

from kerasattn import runs
from kerasattn.cli import evaluate, explain, reproduce, train
from kerasattn.experiments import attention_faithfulness, common
from tests.conftest import write

# tiny models: the commands are under test, not what the models learn
TINY = {
    "mlp": ["--model-option", "embedding_dim=8"],
    "cnn": ["--model-option", "embedding_dim=8", "--model-option", "filters=4"],
    "gru": ["--model-option", "embedding_dim=8", "--model-option", "units=8"],
    "transformer": ["--model-option", "embedding_dim=8", "--model-option", "ff_dim=8"],
    "hcan-2sa-target": ["--model-option", "embedding_dim=8", "--model-option", "d=8",
                        "--model-option", "num_heads=2"],
}
SMALL = ["--sample", "12", "--ig-steps", "4", "--random-draws", "2", "--permutations", "3"]


@pytest.fixture(scope="module")
def tiny_runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("faithfulness")
    rng = random.Random(0)
    filler = "the a movie film plot it was and so very".split()
    rows = []
    for i in range(120):
        words = [rng.choice(filler) for _ in range(rng.randint(3, 10))]
        words.insert(rng.randint(0, len(words)), "great" if i % 2 else "awful")
        # some texts of two sentences, for the hierarchical model
        text = " ".join(words) + (" . it was so" if i % 3 == 0 else "")
        rows.append(f"{text},{'pos' if i % 2 else 'neg'}\n")
    data = write(out / "data.csv", "text,label\n" + "".join(rows))

    class Runs(dict):
        """Each tiny run trained (in seconds) the first time a test asks for it."""

        def __missing__(self, name):
            self[name], _ = train.train(["--model", name, "--dataset", f"csv:{data}",
                                         "--epochs", "2", "--learning-rate", "0.01",
                                         *TINY[name], "--output-dir", str(out / "runs"),
                                         "--run-name", name, "--verbose", "0"])
            return self[name]

    return Runs()


def _spans(page, css_class):
    return re.findall(rf"<span class='{css_class}(?: strong)?' style='background:([^']+)' "
                      rf"title='([^']+)'>([^<]+)</span>", page)


@pytest.mark.parametrize("name", ["mlp", "cnn", "gru"])
def test_explain_works_for_models_without_attention(tiny_runs, tmp_path, capsys, name):
    out = str(tmp_path / "page.html")
    assert explain.main(["--run", tiny_runs[name], "--text", "a great film",
                         "--text", "so awful", "--output", out]) == 0
    assert "wrote" in capsys.readouterr().out
    page = open(out, encoding="utf-8").read()
    assert page.count("class='doc'") == 2
    assert page.count("(this model has no attention layer)") == 2
    assert "integrated gradients for class" in page and "integrated gradients</h1>" in page
    words = [w for _, _, w in _spans(page, "a")]
    assert words == ["a", "great", "film", "so", "awful"]
    scores = [float(v) for _, v, _ in _spans(page, "a")]
    assert all(np.isfinite(scores)) and any(s != 0 for s in scores)
    # another method, and one that does not apply
    assert explain.main(["--run", tiny_runs[name], "--text", "a great film", "--output", out,
                         "--attribution", "leave_one_out", "--overwrite"]) == 0
    assert "leave-one-out for class" in open(out, encoding="utf-8").read()
    assert explain.main(["--run", tiny_runs[name], "--text", "x", "--output", out,
                         "--attribution", "attention", "--overwrite"]) == 2
    assert "does not apply" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["transformer", "hcan-2sa-target"])
def test_explain_shows_attention_and_attribution_over_the_same_words(tiny_runs, tmp_path,
                                                                     name):
    out = str(tmp_path / "page.html")
    text = "a great film . so awful"
    assert explain.main(["--run", tiny_runs[name], "--text", text, "--output", out,
                         "--attribution", "gradient_x_input", "--no-heatmaps"]) == 0
    page = open(out, encoding="utf-8").read()
    assert "attention-panel" in page and "attribution-panel" in page
    assert "gradient × input for class" in page and "purple" in page  # the legend
    attention = [w for _, _, w in _spans(page, "w")]
    attributed = [w for _, _, w in _spans(page, "a")]
    assert attributed and attributed == attention[:len(attributed)]
    if name.startswith("hcan"):  # one line per sentence on both sides
        assert page.count("class='attr-sentence'") == 2 and attributed == attention[-6:]
    assert explain.main(["--run", tiny_runs[name], "--text", text, "--output", out,
                         "--attribution", "none", "--no-heatmaps", "--overwrite"]) == 0
    page = open(out, encoding="utf-8").read()
    assert "attribution-panel" not in page and "attention</h1>" in page


def test_text_classifier_attribute(tiny_runs):
    import kerasattn

    clf = kerasattn.TextClassifier.from_run(tiny_runs["cnn"])
    out = clf.attribute(["a great film", "awful"], method="leave_one_out")
    assert [a.tokens for a in out] == [["a", "great", "film"], ["awful"]]
    assert all(a.method == "leave_one_out" and len(a.scores) == len(a.tokens) for a in out)
    ig = clf.attribute(["a great film"], steps=4)[0]
    assert ig.method == "integrated_gradients" and ig.extras["steps"] == 4


def test_evaluate_faithfulness_stores_the_report(tiny_runs, tmp_path, capsys):
    run_dir = str(tmp_path / "run")
    shutil.copytree(tiny_runs["transformer"], run_dir)
    before = runs.read_json(os.path.join(run_dir, runs.METRICS))
    assert evaluate.main(["--run", run_dir, "--faithfulness", "--faithfulness-sample", "12",
                          "--seed", "3", "--ig-steps", "4"]) == 0
    printed = capsys.readouterr().out
    assert "| method | documents | comprehensiveness_aopc |" in printed
    assert "| random |" in printed and "| attention~integrated_gradients |" in printed
    saved = runs.read_json(os.path.join(run_dir, runs.METRICS))
    assert saved["test"] == before["test"]  # the other metrics are kept
    f = saved["faithfulness"]
    assert (f["documents"], f["seed"], f["ig_steps"], f["split"]) == (12, 3, 4, "test")
    kinds = {(r["kind"], r["method"]) for r in f["rows"]}
    for method in ("gradient_x_input", "integrated_gradients", "leave_one_out", "attention",
                   "rollout", "random"):
        assert ("erasure", method) in kinds
    assert ("agreement", "attention~leave_one_out") in kinds
    assert any(kind == "permutation" for kind, _ in kinds)
    for r in f["rows"]:
        if r["kind"] == "erasure":
            assert r["documents"] == 12 and 0 <= r["accuracy"] <= 1
            assert np.isfinite(r["comprehensiveness_aopc"]) and np.isfinite(r["sufficiency_aopc"])
    # the sample is seeded: the same texts again, other ones with another seed
    config = runs.read_json(os.path.join(run_dir, runs.CONFIG))
    texts, labels = attention_faithfulness.faithfulness_sample(config, 12, 3)
    assert attention_faithfulness.faithfulness_sample(config, 12, 3) == (texts, labels)
    assert attention_faithfulness.faithfulness_sample(config, 12, 4)[0] != texts
    assert len(set(texts)) == len(texts) == 12
    assert evaluate.main(["--run", str(tmp_path), "--faithfulness"]) == 2  # not a run


def test_reproduce_faithfulness_on_trained_runs(tiny_runs, tmp_path, monkeypatch, capsys):
    def no_training(*args, **kwargs):
        raise AssertionError("given --run, the experiment trains nothing")

    monkeypatch.setattr(common, "_run_training", no_training)
    chosen = [tiny_runs[n] for n in ("cnn", "transformer", "hcan-2sa-target")]
    results = tmp_path / "results"
    argv = ["--experiment", "faithfulness", *[a for d in chosen for a in ("--run", d)],
            "--results-dir", str(results), *SMALL]
    assert reproduce.main(argv) == 0
    text = capsys.readouterr().out
    stem = [f for f in os.listdir(results) if f.endswith(".md")]
    assert len(stem) == 1 and stem[0].startswith("faithfulness_csv_data")
    assert text.endswith(open(results / stem[0], encoding="utf-8").read() + "\n")
    assert "faithfulness of " + chosen[0] in text  # progress
    data = runs.read_json(str(results / stem[0].replace(".md", ".json")))
    records = data["records"]
    assert set(records) == {"CNN", "Transformer", "HCAN"}
    assert "--run " + chosen[0] in data["command"] and "--sample 12" in data["command"]

    # the key-numbers table: one row per family, 16 columns
    key = text.split("## Key numbers")[1].split("## Every method")[0]
    table = [line for line in key.splitlines() if line.startswith("|")]
    assert len(table) == 2 + 3 and all(line.count("|") == 17 for line in table)
    assert table[2].startswith("| HCAN |") and table[3].startswith("| Transformer |")
    cnn = table[4].split("|")
    assert cnn[1].strip() == "CNN" and cnn[3].strip() == "–"  # no attention
    # every method: a random row per family, the methods that apply, permutation where
    # the pooling attention can be permuted
    every = text.split("## Every method")[1].split("## Runs")[0]
    methods = {}
    for line in every.splitlines()[4:]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.split("|")[1:-1]]
            assert len(cells) == 11
            methods.setdefault(cells[0], {})[cells[1]] = cells
    assert set(methods["CNN"]) == {"grad×input", "IG", "LOO", "random"}
    assert set(methods["Transformer"]) == {"grad×input", "IG", "LOO", "attention", "rollout",
                                           "random"}
    for family in ("CNN", "Transformer", "HCAN"):
        assert re.fullmatch(r"-?[0-9.]+ ± [0-9.]+", methods[family]["random"][2])
    assert re.fullmatch(r"[0-9.]+ ± [0-9.]+", methods["Transformer"]["attention"][7])  # TVD
    assert methods["CNN"]["IG"][5] == "–" and methods["CNN"]["IG"][6] != "–"  # τ with LOO

    # the same figures as training.evaluate --faithfulness on the same sample
    record = records["Transformer"]
    assert record["documents"] == 12 and record["ig_steps"] == 4
    report = attention_faithfulness.measure_faithfulness(chosen[1], 12, 0, 4, random_draws=2,
                                           num_permutations=3)["rows"]
    for row in report:
        mine = next(r for r in record["rows"] if (r["kind"], r["method"]) ==
                    (row["kind"], row["method"]))
        for k, v in row.items():
            if isinstance(v, float):
                assert mine[k] == pytest.approx(v, rel=1e-6, abs=1e-9, nan_ok=True), (row, k)

    # --limit is another experiments' flag; a run on another dataset is refused
    assert reproduce.main(argv + ["--limit", "5"]) == 2
    assert reproduce.main(argv + ["--dataset", "sst2"]) == 2
    assert "one dataset per table" in capsys.readouterr().err
