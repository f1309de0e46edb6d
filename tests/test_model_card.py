"""The model card of a preset (kerasattn.preset_dirs.model_card): one card, complete from
Python (TextClassifier.training_summary) and from a run (its config.json and
metrics.json), with the front matter the Hugging Face Hub reads; and metadata.json's
record of what was trained next to the recipe's own settings."""

import json
import os
import re

import keras
import pytest
import yaml

from kerasattn import TextClassifier, preset_dirs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEXTS = ["a good film", "great fun", "a bad film", "dull plot", "a fine cast",
         "awful acting"] * 3
LABELS = ["pos", "pos", "neg", "neg", "pos", "neg"] * 3
VALIDATION = (["good fun", "bad plot", "a great cast", "dull acting"],
              ["pos", "neg", "pos", "neg"])
SECTIONS = ["## Use", "## Model", "## Data", "## Training", "## Accuracy",
            "## Intended use", "## Limitations", "## Licence", "## Citation"]


def front_matter(card):
    """The card's YAML front matter, parsed (and the card must start with it)."""
    assert card.startswith("---\n")
    head, _, _ = card[4:].partition("\n---\n")
    return yaml.safe_load(head)


def headings(card):
    return [line for line in card.splitlines() if line.startswith("## ")]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A tiny mlp fitted for 2 epochs (its recipe says more), saved as a preset."""
    keras.utils.set_random_seed(0)
    clf = TextClassifier.from_preset("mlp")
    assert clf.default_epochs > 2  # the recipe's epochs: not what is trained below
    clf.fit(TEXTS, LABELS, epochs=2, batch_size=4, validation_data=VALIDATION, seed=3,
            verbose=0)
    target = str(tmp_path_factory.mktemp("presets") / "tiny-sentiment")
    clf.save_to_preset(target)
    with open(os.path.join(target, "README.md"), encoding="utf-8") as fh:
        card = fh.read()
    with open(os.path.join(target, "metadata.json"), encoding="utf-8") as fh:
        metadata = json.load(fh)
    return clf, card, metadata


def test_the_card_from_python_has_every_section_and_the_hub_front_matter(saved):
    _, card, _ = saved
    assert front_matter(card) == {
        "library_name": "kerasattn", "pipeline_tag": "text-classification",
        "license": "apache-2.0", "tags": ["kerasattn", "keras", "text-classification",
                                          "baselines", "mlp"],
        "metrics": ["accuracy"]}  # no "datasets": the texts were no named dataset
    assert headings(card) == SECTIONS
    assert "pypi.org" not in card  # the package index page that does not exist
    assert 'TextClassifier.from_preset("' in card and "Classes: neg, pos." in card


def test_metadata_records_what_was_trained_beside_the_recipes_settings(saved):
    clf, card, metadata = saved
    trained, recipe = metadata["trained"], metadata["recipe"]
    assert (trained["epochs"], trained["epochs_requested"], trained["batch_size"],
            trained["seed"], trained["recipe"]) == (2, 2, 4, 3, "default")
    assert (trained["train_texts"], trained["validation_texts"]) == (18, 4)
    assert trained["class_names"] == ["neg", "pos"] and trained["early_stopping"] is None
    # the recipe's settings, clearly the recipe's: its epochs are not the 2 trained
    assert "train" not in recipe and recipe["name"] == "default"
    assert recipe["defaults"]["epochs"] == clf.default_epochs != 2
    assert metadata["attention"] is False and metadata["vocabulary_size"] == len(
        clf.preprocessor.vocabulary)
    assert "- epochs: 2 run of 2 asked for" in card and "- batch size: 4" in card
    assert "- early stopping: none" in card and "- seed: 3" in card


def test_the_card_from_python_gives_the_validation_accuracy_labelled_so(saved):
    _, card, metadata = saved
    validation = metadata["trained"]["validation"]
    assert validation["examples"] == 4
    low, high = preset_dirs._interval(validation["accuracy"], 4)
    assert (f"- validation: {validation['accuracy']:.4f} (95 % interval over its 4 texts: "
            f"{low:.4f}–{high:.4f})") in card
    assert "Validation only" in card and "- test:" not in card
    assert "Trained in Python with `fit` on 18 texts (validation: 4 texts)" in card
    # mlp has no attention layer: no faithfulness pointer, attributions instead
    assert "It has no attention layer" in card and "faithfulness" not in card
    assert "- It learned from texts given to `fit` in Python: their domain and language " \
           "are not recorded" in card


METADATA = {"format": preset_dirs.FORMAT, "name": "sst-sanet", "location": "hf://me/sst-sanet",
            "preset": "sanet-base", "family": "sanet", "attention": True,
            "paper": "Letarte et al. 2018, Importance of Self-Attention for Sentiment "
                     "Analysis (SANet)",
            "description": "SANet base: N=1, embedding 100, d=128",
            "recipe": {"name": "default", "description": "Adam 1e-3"},
            "class_names": ["negative", "positive"],
            "versions": {"kerasattn": "0.1.0", "keras": "3.15.0"}}
# a training.portable run: config.json by `prepare`, metrics.json by `fit`
PORTABLE_CONFIG = {
    "model": "sanet-base", "dataset": "sst2", "recipe": "default", "seed": 1,
    "train": {"epochs": 10, "batch_size": 32}, "early_stopping": 2,
    "command": "python -m training.portable prepare --model sanet-base --dataset sst2 "
               "--seed 1 --early-stopping 2",
    "provenance": {"command": "python -m training.portable prepare --model sanet-base "
                              "--dataset sst2 --seed 1 --early-stopping 2"},
    "dataset_sizes": {"train": 6920, "val": 872, "test": 1821},
    "dataset_notes": ["source: /data/sst2"], "class_names": ["negative", "positive"],
    "arrays": "../arrays/abc"}
PORTABLE_METRICS = {
    "val": {"accuracy": 0.8, "examples": 872}, "test": {"accuracy": 0.9, "examples": 100,
                                                         "f1_macro": 0.5},
    "epochs_run": 4, "best_epoch": 2,
    "trained_with": {"command": "python -m training.portable fit"},
    "provenance": {"command": "python -m training.portable fit runs/sst-sanet",
                   "cut": ["early stopping after epoch 4 of 10"]},
    "learning": {"learned": True}}


def test_a_portable_runs_card_shows_every_steps_command_and_its_data():
    card = preset_dirs.model_card(METADATA, PORTABLE_METRICS, PORTABLE_CONFIG)
    assert headings(card) == SECTIONS
    block = card.split("Trained with (every step, in order):\n\n```bash\n")[1]
    assert block.split("\n```")[0].splitlines() == [
        PORTABLE_CONFIG["command"], "python -m training.portable fit runs/sst-sanet"]
    assert ("Dataset `sst2` (SST-2 sentences (Kim 2014 files), official train/dev/test): "
            "train 6,920, val 872, test 1,821 texts.") in card
    assert "source:" not in card  # a local path says nothing to a reader of the card
    # the Wilson interval of 0.9 over 100 texts, worked out by hand: 0.8256–0.9448
    assert "- test: 0.9000 (95 % interval over its 100 texts: 0.8256–0.9448), macro F1 " \
           "0.5000" in card
    assert "- validation: 0.8000 (95 % interval over its 872 texts:" in card
    assert "- epochs: 4 run of 10 asked for; best epoch 2 kept" in card
    assert ("- early stopping on `val_accuracy`, patience 2: it stopped training after "
            "epoch 4") in card
    assert front_matter(card)["datasets"] == ["sst2"]


def test_a_real_portable_runs_preset_shows_its_prepare_and_fit_commands(tmp_path):
    from kerasattn.training import portable_fit, prepared

    data = tmp_path / "d.csv"
    data.write_text("text,label\n" + "".join(f"{t} {i},{y}\n" for i, (t, y) in
                                             enumerate(zip(TEXTS * 2, LABELS * 2))))
    run = prepared.prepare(["--model", "mlp", "--dataset", f"csv:{data}", "--epochs", "1",
                            "--output-dir", str(tmp_path / "runs"), "--run-name", "p"])
    portable_fit.fit(run, verbose=0)
    target = TextClassifier.from_run(run, compile=False).save_to_preset(
        str(tmp_path / "preset"))
    with open(os.path.join(target, "README.md"), encoding="utf-8") as fh:
        card = fh.read()
    block = card.split("Trained with (every step, in order):\n\n```bash\n")[1]
    prepare, fit = block.split("\n```")[0].splitlines()
    assert prepare.startswith("python -m training.portable prepare --model mlp --dataset csv:")
    assert fit == f"python -m training.portable fit {run}"
    assert "## Data\n\nDataset `csv:" in card and "- test: " in card
    with open(os.path.join(target, "metadata.json"), encoding="utf-8") as fh:
        trained = json.load(fh)["trained"]
    assert (trained["epochs"], trained["epochs_requested"]) == (1, 1)
    assert trained["commands"] == [prepare, fit]


def test_trained_of_run_has_the_training_summarys_keys_and_every_command():
    trained = preset_dirs.trained_of_run(PORTABLE_CONFIG, PORTABLE_METRICS)
    assert {k: trained[k] for k in ("epochs", "epochs_requested", "batch_size", "recipe",
                                    "seed", "train_texts", "validation_texts")} == {
        "epochs": 4, "epochs_requested": 10, "batch_size": 32, "recipe": "default",
        "seed": 1, "train_texts": 6920, "validation_texts": 872}
    assert trained["early_stopping"] == {"monitor": "val_accuracy", "patience": 2,
                                         "stopped_epoch": 3}
    assert trained["dataset"] == {"name": "sst2", "sizes": PORTABLE_CONFIG["dataset_sizes"]}
    assert trained["validation"] == {"accuracy": 0.8, "examples": 872}
    assert trained["commands"] == [PORTABLE_CONFIG["command"],
                                   "python -m training.portable fit runs/sst-sanet"]
    # a training.train run: the same command in config.json and its provenance, once
    train_run = {"command": "python -m training.train --model cnn",
                 "provenance": {"command": "python -m training.train --model cnn"}}
    assert preset_dirs.run_commands(train_run, {"provenance": train_run["provenance"]}) == [
        "python -m training.train --model cnn"]


def test_limitations_state_the_datas_domain_and_language_and_point_to_faithfulness(
        monkeypatch):
    monkeypatch.setattr(preset_dirs, "_project_url", lambda: "https://github.com/o/kerasattn")
    card = preset_dirs.model_card(METADATA, PORTABLE_METRICS, PORTABLE_CONFIG)
    limitations = card.split("## Limitations")[1].split("## Licence")[0]
    assert ("It learned from `sst2`: English sentences of movie reviews (the Stanford "
            "Sentiment Treebank).") in limitations
    link = ("[Is attention an explanation? Attributions and faithfulness](https://github.com/"
            "o/kerasattn/blob/main/docs/interpretability.md#is-attention-an-explanation-"
            "attributions-and-faithfulness)")
    assert link in limitations
    assert not re.search(r"\d\.\d", limitations)  # a pointer, no figures of its own
    assert "made with [kerasattn](https://github.com/o/kerasattn)" in card
    assert "  url = {https://github.com/o/kerasattn}," in card
    # the section linked to is a heading of that page
    with open(os.path.join(ROOT, preset_dirs.FAITHFULNESS_PAGE), encoding="utf-8") as fh:
        assert f"## {preset_dirs.FAITHFULNESS_SECTION[0]}\n" in fh.read()


def test_licence_and_citation_name_the_code_the_datas_terms_the_paper_and_kerasattn():
    card = preset_dirs.model_card(METADATA, PORTABLE_METRICS, PORTABLE_CONFIG)
    licence = card.split("## Licence")[1].split("## Citation")[0]
    assert "Apache License 2.0" in licence and "learned from `sst2` and inherit" in licence
    citation = card.split("## Citation")[1]
    assert f"The model's paper: {METADATA['paper']}." in citation
    with open(os.path.join(ROOT, "CITATION.cff"), encoding="utf-8") as fh:
        cff = yaml.safe_load(fh)
    assert f"  title = {{{cff['title']}}}," in citation
    assert f"  author = {{{{{cff['authors'][0]['name']}}}}}," in citation
    assert f"  year = {{{cff['date-released'][:4]}}}," in citation
    assert cff["license"].lower() == preset_dirs.LICENSE


def test_a_fit_on_a_built_in_dataset_names_it_in_the_card_and_the_front_matter():
    summary = {"epochs": 3, "epochs_requested": 5, "batch_size": 32, "recipe": "default",
               "early_stopping": {"monitor": "val_loss", "patience": 1, "stopped_epoch": 2},
               "seed": 0, "train_texts": 22500, "validation_texts": 2500,
               "dataset": {"name": "imdb", "sizes": {"train": 22500, "val": 2500,
                                                     "test": 25000}},
               "validation": {"accuracy": 0.5, "examples": 2500},
               "class_names": ["neg", "pos"]}
    card = preset_dirs.model_card({**METADATA, "trained": summary})
    assert front_matter(card)["datasets"] == ["imdb"]
    assert ("Dataset `imdb` (IMDB movie reviews, binary, official 25k/25k split): train "
            "22,500, val 2,500, test 25,000 texts.") in card
    assert "- epochs: 3 run of 5 asked for" in card
    assert ("- early stopping on `val_loss`, patience 1: it stopped training after epoch 3"
            in card)
    assert "- validation: 0.5000 (95 % interval over its 2,500 texts: 0.4804–0.5196)" in card
    assert "Validation only" in card and "English movie reviews (IMDB)" in card


def test_a_users_data_and_no_record_at_all_are_said_plainly():
    user = {**PORTABLE_CONFIG, "dataset": "csv:reviews.csv"}
    card = preset_dirs.model_card(METADATA, PORTABLE_METRICS, user)
    assert "datasets" not in front_matter(card)  # not a dataset the Hub knows
    assert "It learned from `csv:reviews.csv`, data of its user's" in card
    bare = preset_dirs.model_card({**METADATA, "attention": None, "trained": None})
    assert headings(bare) == SECTIONS
    assert "## Data\n\nNot recorded" in bare and "## Training\n\nNot recorded" in bare
    assert "No held-out accuracy was recorded" in bare
    assert "Its training data is not recorded" in bare
    assert "faithfulness" in bare  # family sanet: an attention model (old metadata)


def test_the_limitations_name_the_language_a_dataset_registers(monkeypatch):
    from kerasattn.data import datasets
    from kerasattn.data.datasets import catalogue

    monkeypatch.setattr(catalogue, "_LOADERS", dict(catalogue._LOADERS))
    datasets.register("allocine", "Allociné film reviews, binary",
                      domain="film reviews (Allociné)", language="French")(lambda **_: None)
    config = dict(PORTABLE_CONFIG, dataset="allocine")
    card = preset_dirs.model_card(METADATA, PORTABLE_METRICS, config)
    limitations = card.split("## Limitations")[1].split("## Licence")[0]
    assert "It learned from `allocine`: French film reviews (Allociné)." in limitations
    assert "language than French lie outside what it saw" in limitations

