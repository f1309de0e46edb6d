"""Named recipes: one registry, used by the command line, TextClassifier and the benchmarks."""

import pytest

from kerasattn import recipes
from kerasattn.cli import train
from kerasattn.training import ConfigError, RunConfig


def test_every_preset_has_default_and_paper():
    from kerasattn import models

    for name in models.names():
        assert recipes.recipe_names(name)[:2] == ["default", "paper"]
        assert recipes.get_recipe(name, "paper").train == {}


def test_the_paper_recipe_is_the_preset_and_the_default_what_learns():
    paper = RunConfig.create("sanet-base", "sst2", recipe="paper")
    default = RunConfig.create("sanet-base", "sst2")
    assert paper.train.optimizer == "grouped_sgd" and paper.model_config["scaled"] is False
    assert default.train.optimizer == "adam" and default.train.learning_rate == 0.001
    assert default.model_config["scaled"] is True and default.model_config["embedding_scale"] == 10
    assert RunConfig.create("cnn", "sst2").same_run(RunConfig.create("cnn", "sst2",
                                                                     recipe="paper").to_json())


def test_flags_override_the_recipe_and_a_named_recipe_equals_its_flags():
    by_name = train.config_of(["--model", "sanet-base", "--dataset", "sst2", "--recipe",
                               "adjusted", "--epochs", "2"])
    by_flags = train.config_of(["--model", "sanet-base", "--dataset", "sst2", "--recipe",
                                "paper", "--epochs", "2", *recipes.get_recipe(
                                    "sanet-base", "adjusted").arguments()])
    assert by_name.same_run(by_flags.to_json())
    lr = train.config_of(["--model", "sanet-base", "--dataset", "sst2",
                          "--learning-rate", "0.01"])
    assert lr.train.learning_rate == 0.01 and lr.train.optimizer == "adam"


def test_unknown_recipes_and_bad_registrations_are_clear_errors():
    with pytest.raises(ConfigError, match="cnn has no recipe 'fast'; its recipes are default"):
        RunConfig.create("cnn", "sst2", recipe="fast")
    with pytest.raises(ValueError, match="unknown model options"):
        recipes.register_recipe(recipes.Recipe("cnn", "x", model_options={"units": 3}))
    with pytest.raises(ValueError, match="unknown training settings"):
        recipes.register_recipe(recipes.Recipe("cnn", "x", train={"lr": 3}))
    with pytest.raises(ValueError, match="cannot be registered"):
        recipes.register_recipe(recipes.Recipe("cnn", "paper"))


def test_a_registered_recipe_is_used_by_name(monkeypatch):
    monkeypatch.setattr(recipes, "_RECIPES", dict(recipes._RECIPES))
    recipes.register_recipe(recipes.Recipe("cnn", "wide", train={"batch_size": 8},
                                           model_options={"filters": 7}))
    config = RunConfig.create("cnn", "sst2", recipe="wide", batch_size=None)
    assert config.train.batch_size == 8 and config.model_config["filters"] == 7
    assert "wide" in recipes.recipe_names("cnn")
    assert recipes.get_recipe("cnn", "wide").arguments() == [
        "--batch-size", "8", "--model-option", "filters=7"]
