"""The preset registry: the tables are found, not listed; each is data (a family base and
each preset's departures from it) whose builders are imported only when a model is
built; a table's module is named after its family; errors name what is wrong."""

import dataclasses
import importlib
import sys
import types

import pytest

from kerasattn import models
from kerasattn.models import registry


@pytest.fixture
def isolated(monkeypatch):
    """What a test registers stays in the test."""
    monkeypatch.setattr(registry, "_PRESETS", dict(registry._PRESETS))
    monkeypatch.setattr(registry, "_TABLES", dict(registry._TABLES))


def table(name="kerasattn_test_tables.toy_presets", **attributes):
    module = types.ModuleType(name)
    for key, value in attributes.items():
        setattr(module, key, value)
    return module


def test_every_family_is_its_own_table_and_every_preset_its_table_entry():
    """kerasattn/models/<family>_presets.py for every family, found by discover(); each
    preset is its entry merged over its base (data only: builders named as strings)."""
    tables = {name: importlib.import_module(name) for name in registry._TABLES
              if name.startswith("kerasattn.models.")}
    assert {registry.table_family(t) for t in tables.values()} == set(models.families())
    seen = set()
    for module in tables.values():
        for name, spec in registry.expand(module).items():
            preset = models.get_preset(name)
            assert preset.family == registry.table_family(module), name
            assert preset.model_config == spec["config"], name
            assert preset.train_config == spec.get("train", {}), name
            assert preset.description == spec["description"], name
            assert preset.recipes == spec.get("recipes", {}), name
            assert preset.paper == spec.get("paper", module.PAPER), name
            assert preset.where() == spec["builder"], name
            assert isinstance(spec["builder"], str) and callable(preset.builder), name
            seen.add(name)
    assert seen == set(models.names())
    # the han preset is the hcan family's, in the hcan table: names and families agree
    assert "han" in registry.expand(tables["kerasattn.models.hcan_presets"])
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("kerasattn.models.han_presets")


def test_a_table_states_each_configuration_once():
    """No entry repeats its base: each holds only what differs (a setting equal to its
    base's would be a configuration stated twice)."""
    for table_name in registry._TABLES:
        if not table_name.startswith("kerasattn.models."):
            continue
        module = importlib.import_module(table_name)
        base = getattr(module, "BASE", {})
        named, done = {**getattr(module, "BASES", {}), **module.PRESETS}, {}

        def whole(name):
            if name not in done:
                entry = named[name]
                start = base if entry.get("base") is None else whole(entry["base"])
                done[name] = registry._merge(start, {k: v for k, v in entry.items()
                                                     if k != "base"})
            return done[name]

        for name, entry in named.items():
            start = base if entry.get("base") is None else whole(entry["base"])
            for part in ("config", "train"):
                same = {k for k, v in entry.get(part, {}).items()
                        if k in start.get(part, {}) and start[part][k] == v}
                assert not same, f"{table_name}: {name} repeats its base's {part} {same}"
            for key, value in entry.items():
                if key not in ("config", "train", "recipes", "base"):
                    assert start.get(key, object()) != value, (table_name, name, key)
            for recipe, value in entry.get("recipes", {}).items():
                assert start.get("recipes", {}).get(recipe) != value, (name, recipe)


def test_listing_presets_imports_no_builder():
    """The registry holds where each builder is; it is imported when first read."""
    preset = models.get_preset("sanet-base")
    assert preset.where() == "kerasattn.models.sanet:build_sanet"
    assert preset.where("make_optimizer") == "kerasattn.models.sanet:paper_optimizer"
    assert models.get_preset("cnn").where("make_optimizer") is None
    from kerasattn.models import sanet

    assert preset.builder is sanet.build_sanet and preset.make_optimizer is sanet.paper_optimizer
    assert models.sanet is sanet and models.hcan.build_han  # builder modules, by name
    with pytest.raises(AttributeError):
        models.no_such_module  # noqa: B018


def test_a_preset_takes_its_builder_as_a_function_or_a_path(isolated):
    from kerasattn.models import baselines

    spec = {"description": "x", "config": {"embedding_dim": 4, "hidden_units": 2,
                                           "dropout": 0.0}}
    by_path = models.register(models.Preset.from_spec(
        "tiny-mlp", None, {**spec, "builder": "kerasattn.models.baselines:build_mlp"}))
    by_function = models.Preset.from_spec("tiny-mlp", baselines.build_mlp, spec)
    assert by_path.builder is by_function.builder is baselines.build_mlp
    assert dataclasses.replace(by_path, name="other").builder is baselines.build_mlp
    with pytest.raises(ValueError, match="package.module:name"):
        models.Preset("bad", "kerasattn.models.baselines.build_mlp")
    with pytest.raises(TypeError, match="callable"):
        models.Preset("bad", 3)
    with pytest.raises(ValueError, match="no builder"):
        models.Preset.from_spec("bad", None, spec)
    broken = models.Preset.from_spec("broken", None, {**spec, "builder": "kerasattn.models:nope"})
    with pytest.raises(ImportError, match="has no 'nope'"):
        broken.builder  # noqa: B018
    with pytest.raises(ValueError, match="is not 'package.module:name'"):
        registry.import_object("kerasattn.models")


def test_merging_over_a_base():
    toy = table(
        BASE={"builder": "m:f", "config": {"a": 1, "b": 2}, "train": {"epochs": 3},
              "recipes": {"default": {"description": "d", "train": {"epochs": 4}},
                          "other": {"description": "o"}}},
        BASES={"big": {"config": {"b": 20}, "train": {"batch_size": 8}}},
        PRESETS={"toy-small": {"description": "s"},
                 "toy-big": {"base": "big", "description": "b",
                             "recipes": {"default": {"description": "D"}}},
                 "toy-bigger": {"base": "toy-big", "config": {"a": 10}}})
    whole = registry.expand(toy)
    assert list(whole) == ["toy-small", "toy-big", "toy-bigger"]  # the bases are no presets
    assert whole["toy-small"]["config"] == {"a": 1, "b": 2}
    assert whole["toy-big"]["config"] == {"a": 1, "b": 20}
    assert whole["toy-big"]["train"] == {"epochs": 3, "batch_size": 8}
    # a recipe named again is stated whole; the others are the base's
    assert whole["toy-big"]["recipes"] == {"default": {"description": "D"},
                                           "other": {"description": "o"}}
    assert whole["toy-bigger"]["config"] == {"a": 10, "b": 20}
    assert whole["toy-bigger"]["description"] == "b"
    whole["toy-small"]["config"]["a"] = 5  # each entry is its own copy
    assert registry.expand(toy)["toy-small"]["config"]["a"] == 1


@pytest.mark.parametrize("attributes,said", [
    (dict(PRESETS={"a": {"base": "nope"}}), "neither in BASES nor in PRESETS"),
    (dict(PRESETS={"a": {"base": "b"}, "b": {"base": "a"}}), "based on each other"),
    (dict(BASES={"a": {}}, PRESETS={"a": {}}), "named in both"),
    (dict(PRESETS={"a": {"confg": {}}}), "unknown entries"),
])
def test_a_bad_table_is_refused(attributes, said):
    with pytest.raises(ValueError, match=said):
        registry.expand(table(**attributes))


def test_a_tables_family_is_its_modules_name(isolated):
    with pytest.raises(ValueError, match="is its module's name"):
        registry.register_table(table(FAMILY="other", PRESETS={}))
    with pytest.raises(ValueError, match="FAMILY_presets"):
        registry.register_table(table("kerasattn_test_tables.toy", PRESETS={}))
    toy = table(PAPER="p", PRESETS={"toy-a": {"builder": "m:f", "description": "a"}})
    assert registry.register_table(toy) == ["toy-a"]
    assert models.get_preset("toy-a").family == "toy" and models.describe()["toy-a"]["paper"] == "p"
    assert registry.register_table(toy) == ["toy-a"]  # again: nothing more
    other = table("kerasattn_test_tables.other_presets",
                  PRESETS={"toy-b": {"builder": "m:f"}, "toy-a": {"builder": "m:f"}})
    with pytest.raises(ValueError, match=r"\['toy-a'\] are already registered"):
        registry.register_table(other)
    assert "toy-b" not in models.names()  # all or none
    bad = table("kerasattn_test_tables.bad_presets",
                PRESETS={"bad-a": {"builder": "m:f", "train": {"epoch": 1}}})
    with pytest.raises(ValueError, match="unknown training options"):
        registry.register_table(bad)
    assert "bad-a" not in models.names()


def test_installed_packages_register_through_their_entry_point(isolated, monkeypatch,
                                                                tmp_path):
    """A package names its tables under the entry point group kerasattn.presets; one that
    fails to load is skipped with a warning."""
    import importlib.metadata

    (tmp_path / "plugged").mkdir()
    (tmp_path / "plugged" / "__init__.py").write_text("")
    (tmp_path / "plugged" / "plug_presets.py").write_text(
        'PRESETS = {"plug-a": {"builder": "plugged.plug:build", "description": "a"}}\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    points = [importlib.metadata.EntryPoint("plug", "plugged", registry.ENTRY_POINT_GROUP),
              importlib.metadata.EntryPoint("gone", "not_a_package_here",
                                            registry.ENTRY_POINT_GROUP)]
    def installed(group=None):
        return [p for p in points if p.group == group]

    monkeypatch.setattr(importlib.metadata, "entry_points", installed)
    monkeypatch.setattr(registry, "entry_points", installed, raising=False)
    with pytest.warns(RuntimeWarning, match="not_a_package_here"):
        assert registry.discover_installed() == ["plug-a"]
    assert models.get_preset("plug-a").family == "plug"
    assert "plug" in models.families()
    sys.modules.pop("plugged", None)
    sys.modules.pop("plugged.plug_presets", None)


def test_the_families_are_those_registered():
    assert models.families() == ["baselines", "hcan", "iram", "sanet", "transformer"]
    assert models.families("classical") == ["baselines"]
