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


def test_the_help_names_the_presets_whose_default_is_the_papers(capsys):
    from kerasattn import models

    same = [n for n in models.names() if not recipes.departs_from_paper(n)]
    # the four Keras presets (and the two classical ones) that learn as published
    assert same == ["bilstm", "cnn", "lr", "mlp", "nb", "transformer"]
    for name in models.names():
        default, paper = recipes.get_recipe(name), recipes.get_recipe(name, "paper")
        changes = {**default.train, **default.model_options}
        assert bool(changes) == recipes.departs_from_paper(name), name
        assert paper.train == paper.model_options == {}
    with pytest.raises(SystemExit):
        train.build_parser().parse_args(["--help"])
    # argparse wraps at the terminal's width, also after a hyphen
    text = " ".join(capsys.readouterr().out.split()).replace("- ", "-")
    assert "the paper's for bilstm, cnn, lr, mlp, nb, transformer and chosen" in text
    assert ("cpu = the default sized for a machine without a GPU (iram-baseline, iram-full, "
            "iram-vanilla), taken there when no recipe is named") in text


def test_the_paper_recipe_is_the_preset_and_the_default_what_learns():
    paper = RunConfig.create("sanet-base", "sst2", recipe="paper")
    default = RunConfig.create("sanet-base", "sst2")
    assert paper.train.optimizer == "grouped_sgd" and paper.model_config["scaled"] is False
    assert default.train.optimizer == "adam" and default.train.learning_rate == 0.001
    assert default.model_config["scaled"] is True and default.model_config["embedding_scale"] == 10
    assert (paper.train.epochs, default.train.epochs) == (40, 10)
    # every SANet preset takes batches of 32 by default; the paper (and adjusted) keep
    # §4's 128; the big pair warms its rate up and decays it as well
    assert (paper.train.batch_size, default.train.batch_size) == (128, 32)
    assert RunConfig.create("sanet-baseline-base", "sst2").train.batch_size == 32
    assert RunConfig.create("sanet-base", "sst2", recipe="adjusted").train.batch_size == 128
    assert default.train.lr_schedule == "constant"
    for name in ("sanet-big", "sanet-baseline-big"):
        big = RunConfig.create(name, "sst2")
        assert (big.train.batch_size, big.train.lr_schedule, big.train.warmup) == (
            32, "cosine", 0.1)
        assert RunConfig.create(name, "sst2", recipe="paper").train.batch_size == 128
    # sanet-big alone at half the rate (its twin lost validation there)
    assert RunConfig.create("sanet-big", "sst2").train.learning_rate == 0.0005
    assert RunConfig.create("sanet-baseline-big", "sst2").train.learning_rate == 0.001
    assert RunConfig.create("sanet-big", "sst2", recipe="adjusted").train.learning_rate == 0.001
    adjusted = RunConfig.create("sanet-base", "sst2", recipe="adjusted")
    assert adjusted.train.epochs == 40 and adjusted.same_run(
        RunConfig.create("sanet-base", "sst2", epochs=40, batch_size=128).to_json())
    assert RunConfig.create("cnn", "sst2").same_run(RunConfig.create("cnn", "sst2",
                                                                     recipe="paper").to_json())
    # the recurrent baselines: the paper's final state; by default a masked max over the
    # states, dropout 0.5 (bilstm's preset pools so itself)
    for name in ("rnn", "lstm", "gru"):
        default, paper = (RunConfig.create(name, "sst2", recipe=r) for r in ("default", "paper"))
        assert (default.model_config["pooling"], default.model_config["dropout"]) == ("max", 0.5)
        assert (paper.model_config["pooling"], paper.model_config["dropout"]) == ("last", 0.0)
        # rnn alone clips its gradients (a simple RNN's diverged on BBC); the paper does not
        assert (default.train.clipnorm, paper.train.clipnorm) == (
            (1.0, None) if name == "rnn" else (None, None))
    assert RunConfig.create("gru", "sst2").same_run(RunConfig.create(
        "gru", "sst2", recipe="paper", model_options={"pooling": "max", "dropout": 0.5}).to_json())
    # lstm at a constant rate, as the paper (its default was warmed up and cosine-decayed)
    lstm, lstm_paper = (RunConfig.create("lstm", "sst2", recipe=r) for r in ("default", "paper"))
    assert (lstm.train.lr_schedule, lstm.train.warmup) == ("constant", 0.0)
    assert lstm.same_run(RunConfig.create("lstm", "sst2", recipe="paper", model_options={
        "pooling": "max", "dropout": 0.5}).to_json())
    assert not lstm.same_run(RunConfig.create("lstm", "sst2", lr_schedule="cosine",
                                              warmup=0.1).to_json())
    assert not lstm.same_run(lstm_paper.to_json())
    # the two-layer CANs and the HCANs with target attention take dropout 0.3 over the
    # family's d = 128, Adam 5e-4; the rest 0.1
    dropouts = [RunConfig.create(n, "sst2").model_config["dropout"] for n in
                ("can-2sa-target", "can-2sa-maxpool", "hcan-2sa-target", "can-1sa-target",
                 "hcan-2sa-maxpool", "hcan-1sa-target")]
    assert dropouts == [0.3, 0.3, 0.3, 0.1, 0.1, 0.3]
    for name in ("hcan-2sa-target", "hcan-1sa-target"):
        assert RunConfig.create(name, "sst2", recipe="paper").model_config["dropout"] == 0.1
    can2, can1 = (RunConfig.create(n, "sst2") for n in ("can-2sa-target", "can-1sa-target"))
    assert can2.model_config["d"] == can1.model_config["d"] == 128
    assert can2.train.learning_rate == can1.train.learning_rate == 0.0005
    # can-2sa-maxpool trains at half the family's rate; the paper's recipe keeps 2e-5
    assert RunConfig.create("can-2sa-maxpool", "sst2").train.learning_rate == 0.00025
    assert RunConfig.create("can-2sa-maxpool", "sst2", recipe="paper").train.learning_rate == 2e-5
    assert RunConfig.create("can-2sa-target", "sst2", recipe="paper").model_config["d"] == 512
    # IRAM's presets start their word vectors from N(0, 0.1) and their other weights (not
    # the LSTM's) from N(0, 0.05), and iram-full's highways carry their input; the paper
    # recipe starts from N(0, 1) and N(0, 0.01) with transform gates
    for name, gate in (("iram-vanilla", "transform"), ("iram-baseline", "transform"),
                       ("iram-full", "carry")):
        config = RunConfig.create(name, "sst2").model_config
        assert (config["embedding_stddev"], config["init_stddev"],
                config["highway_gate"]) == (0.1, 0.05, gate)
        paper = RunConfig.create(name, "sst2", recipe="paper").model_config
        assert (paper["embedding_stddev"], paper["init_stddev"],
                paper["highway_gate"]) == (1.0, 0.01, "transform")
    # iram-full's default drops the two highways over its embeddings; the paper keeps them
    assert RunConfig.create("iram-full", "sst2").model_config["highway_layers"] == 0
    assert RunConfig.create("iram-full", "sst2", recipe="paper").model_config[
        "highway_layers"] == 2


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


def test_one_model_per_call_and_the_cpu_recipe_is_named():
    """A recipe is the same on every machine; the IRAM presets' CPU size is the named
    recipe "cpu", which the command line takes without a GPU when no --recipe is named."""
    from kerasattn import TextClassifier
    from kerasattn.cli import train

    default = RunConfig.create("iram-full", "sst2")
    assert (default.recipe, default.sized_for, default.model_config["units"],
            default.train.batch_size) == ("default", None, 400, 32)
    assert RunConfig.create("iram-full", "sst2", device="cpu") == default  # named: as named
    cpu = RunConfig.create("iram-full", "sst2", recipe=None, device="cpu")
    gpu = RunConfig.create("iram-full", "sst2", recipe=None, device="gpu")
    assert (cpu.recipe, cpu.sized_for, cpu.model_config["units"], cpu.train.batch_size,
            cpu.train.epochs) == ("cpu", "cpu", 200, 64, 10)
    assert gpu == default
    assert cpu.model_config["highway_layers"] == 0  # the default's other options kept
    # the LSTM-only pair at twice the paper's rate for twice its batch on a CPU
    vanilla = RunConfig.create("iram-vanilla", "sst2", recipe="cpu")
    assert (vanilla.train.learning_rate, vanilla.model_config["units"]) == (6e-4, 200)
    # flags still win; the paper recipe is the paper's everywhere
    flagged = RunConfig.create("iram-full", "sst2", recipe=None, device="cpu", batch_size=16,
                               model_options={"units": 300})
    assert (flagged.model_config["units"], flagged.train.batch_size) == (300, 16)
    assert RunConfig.create("iram-full", "sst2", recipe="paper").model_config["units"] == 400
    # a preset without a CPU recipe takes its default on any machine
    assert RunConfig.create("cnn", "sst2", recipe=None, device="cpu").recipe == "default"
    assert recipes.for_device("cnn", "cpu") == "default"
    assert recipes.for_device("iram-vanilla", "gpu") == "default"
    with pytest.raises(ValueError, match="device must be"):
        recipes.for_device("iram-vanilla", "tpu")
    # the log's line: what the CPU recipe changes from the default
    assert cpu.recipe_summary() == ("batch_size=64 (default 32), units=200 (default 400)")
    # the command line: no --recipe, the machine's (this suite's machines have no GPU)
    argv = ["--model", "iram-full", "--dataset", "sst2"]
    assert train.config_of(argv).recipe == recipes.for_device("iram-full")
    assert train.config_of([*argv, "--recipe", "default"]).model_config["units"] == 400
    # TextClassifier: one architecture everywhere, the CPU size by name
    clf = TextClassifier.from_preset("iram-vanilla", num_classes=2, compile=False)
    assert clf.model_options["init_stddev"] == 0.05 and "units" not in clf.model_options
    small = TextClassifier.from_preset("iram-vanilla", num_classes=2, recipe="cpu",
                                       compile=False)
    assert small.model_options["units"] == 200 and small.default_batch_size == 64


def test_recipes_are_checked_when_registered():
    with pytest.raises(ValueError, match="unknown model options"):
        recipes.register_recipe(recipes.Recipe("cnn", "tiny", model_options={"nosuch": 1}))
    with pytest.raises(TypeError):
        recipes.Recipe("cnn", "tiny", cpu={"optimizer": "sgd"})  # sizes are named recipes


def test_the_presets_are_their_families_tables():
    """Every preset is its table entry (kerasattn/models/*_presets.py, each entry merged
    over its family's base by registry.expand), data only: the builder's arguments, the
    paper's training settings, the named recipes."""
    import importlib
    import pkgutil

    from kerasattn import models
    from kerasattn.models import registry

    seen = set()
    tables = [m.name for m in pkgutil.iter_modules(models.__path__)
              if m.name.endswith("_presets")]
    assert len(tables) >= 5
    for module in tables:
        table = importlib.import_module(f"kerasattn.models.{module}")
        for name, spec in registry.expand(table).items():
            preset = models.get_preset(name)
            assert preset.model_config == spec.get("config", {}), name
            assert preset.train_config == spec.get("train", {}), name
            assert preset.description == spec["description"], name
            for recipe_name, recipe in spec.get("recipes", {}).items():
                got = recipes.get_recipe(name, recipe_name)
                assert (got.train, got.model_options, got.description) == (
                    recipe.get("train", {}), recipe.get("model_options", {}),
                    recipe["description"]), (name, recipe_name)
            assert recipes.departs_from_paper(name) == ("default" in spec.get("recipes", {}))
            seen.add(name)
    assert seen == set(models.names())


def test_a_table_entry_with_an_unknown_setting_is_refused_when_registered():
    from kerasattn.models import baselines
    from kerasattn.models.registry import Preset, register, unregister

    good = {"description": "x", "config": {"embedding_dim": 4, "hidden_units": 2,
                                           "dropout": 0.0}}
    bad = [({**good, "train": {"learning_rte": 1}}, "unknown training options"),
           ({**good, "recipes": {"default": {"train": {"lr": 1}}}}, "unknown training settings"),
           ({**good, "recipes": {"default": {"model_options": {"units": 1}}}},
            "unknown model options"),
           ({**good, "recipes": {"paper": {}}}, "'paper' is the preset itself"),
           ({**good, "recipes": {"fast": {"epochs": 1}}}, "unknown entries"),
           ({**good, "training": {}}, "unknown entries")]
    for spec, said in bad:
        with pytest.raises(ValueError, match=said):
            register(Preset.from_spec("tiny-mlp", baselines.build_mlp, spec))
        unregister("tiny-mlp")


def test_presets_are_listed_with_their_family_paper_and_recipes(capsys):
    import json

    from kerasattn import TextClassifier, models
    from kerasattn.cli import presets as command

    keras_presets = TextClassifier.presets
    assert set(keras_presets) == set(models.names("keras")) and "nb" not in keras_presets
    sanet = keras_presets["sanet-base"]
    assert sanet["family"] == "sanet" and sanet["paper"].startswith("Letarte et al. 2018")
    assert sanet["recipes"] == ["default", "paper", "adjusted"]
    assert keras_presets["hcan-2sa-target"]["hierarchical"]
    assert models.describe("classical")["lr"]["kind"] == "classical"
    assert models.describe()["cnn"]["paper"].startswith("Kim 2014")
    assert command.main(["--family", "iram"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["preset", "family", "kind", "recipes", "description"]
    assert sorted(line.split()[0] for line in lines[1:]) == [
        "iram-baseline", "iram-full", "iram-vanilla"]
    assert command.main(["--kind", "classical", "--json"]) == 0
    assert sorted(json.loads(capsys.readouterr().out)) == ["lr", "nb"]


def test_a_near_miss_names_the_preset_meant():
    from kerasattn import TextClassifier, models

    with pytest.raises(ValueError, match=r"unknown model 'sanet-bse' \(did you mean "
                                         r"'sanet-base'\?\)"):
        models.get_preset("sanet-bse")
    with pytest.raises(ValueError, match=r"did you mean 'transformer'"):
        TextClassifier.from_preset("transfomer")
    with pytest.raises(ValueError, match=r"unknown model 'zzz'; registered"):
        models.get_preset("zzz")
    with pytest.raises(ValueError, match=r"models.get\('nb', num_classes=N\)"):
        TextClassifier.from_preset("nb")
