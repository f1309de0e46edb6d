"""Gradient clipping (--clipnorm, the recipes' ``clipnorm``)."""

import os

import keras
import numpy as np
import pytest

from kerasattn import models, recipes, runs
from kerasattn.cli import train
from kerasattn.training import RunConfig
from tests.training.test_reliability import _tiny


@pytest.mark.parametrize("clipnorm,expected", [(None, [-3.0, -4.0]), (0.5, [-0.3, -0.4]),
                                               (10.0, [-3.0, -4.0])])
def test_clipnorm_scales_a_step_down_to_its_norm_by_hand(clipnorm, expected):
    """SGD at rate 1 on a gradient of norm 5: clipped to 0.5 the step is a tenth of it; a
    norm above 5 leaves it as it is."""
    optimizer = recipes.make_optimizer(models.get_preset("mlp"), "sgd", 1.0, clipnorm)
    assert optimizer.global_clipnorm == clipnorm
    variable = keras.Variable(np.zeros(2, "float32"))
    optimizer.apply_gradients([(np.array([3.0, 4.0], "float32"), variable)])
    np.testing.assert_allclose(np.asarray(variable), expected, rtol=1e-6)


def test_clipnorm_replaces_the_recipes_clipping_and_keeps_the_rest_of_its_optimizer():
    preset = models.get_preset("iram-vanilla")  # §4.2: AMSGrad, clipped at 1.0, decay 3e-5
    own = recipes.make_optimizer(preset)
    assert own.global_clipnorm == 1.0
    clipped = recipes.make_optimizer(preset, clipnorm=5.0)
    assert type(clipped) is type(own) and clipped.global_clipnorm == 5.0
    assert clipped.amsgrad and clipped.weight_decay == pytest.approx(3e-5)
    assert float(clipped.learning_rate) == pytest.approx(3e-4)
    schedule = recipes.learning_rate(1e-3, "cosine", 0.1, 100)
    scheduled = recipes.make_optimizer(models.get_preset("mlp"), None, schedule, 1.0)
    assert isinstance(scheduled._learning_rate, keras.optimizers.schedules.CosineDecay)
    assert scheduled.global_clipnorm == 1.0
    sanet = recipes.make_optimizer(models.get_preset("sanet-base"), None, None, 2.0)
    assert (type(sanet).__name__, sanet.embedding_learning_rate) == ("GroupedSGD", 0.001)
    with pytest.raises(ValueError, match="clipnorm must be > 0"):
        recipes.make_optimizer(preset, clipnorm=0.0)


def test_a_run_trains_with_clipnorm_and_records_it(tmp_path):
    run_dir, _ = train.train(_tiny(tmp_path, "--clipnorm", "0.5", "--run-name", "c"))
    assert runs.read_json(os.path.join(run_dir, runs.CONFIG))["train"]["clipnorm"] == 0.5
    model = keras.saving.load_model(os.path.join(run_dir, runs.KERAS_MODEL))
    assert model.optimizer.global_clipnorm == 0.5


def test_a_clipnorm_of_0_is_one_error_line_and_leaves_nothing(tmp_path, capsys):
    assert train.main(_tiny(tmp_path, "--clipnorm", "0", "--run-name", "z")) == 2
    assert capsys.readouterr().err.strip().splitlines() == \
        ["error: --clipnorm must be > 0, got 0.0"]
    assert not os.path.exists(tmp_path / "out" / "z")


def test_runs_made_before_clipnorm_existed_are_still_the_same_run():
    config = RunConfig.create("cnn", "sst2")
    old = config.to_json()
    del old["train"]["clipnorm"]
    assert config.same_run(old)
    assert not RunConfig.create("cnn", "sst2", clipnorm=1.0).same_run(old)


def test_a_recipes_clipnorm_reaches_text_classifier(monkeypatch):
    import kerasattn

    monkeypatch.setattr(recipes, "_RECIPES", dict(recipes._RECIPES))
    recipes.register_recipe(recipes.Recipe("mlp", "clipped", train={"clipnorm": 0.5},
                                           model_options={"hidden_units": 4}))
    clf = kerasattn.TextClassifier.from_preset("mlp", recipe="clipped")
    clf.fit(["good", "fine film", "bad", "awful film"], ["pos", "pos", "neg", "neg"], epochs=1,
            verbose=0)
    assert clf.optimizer.global_clipnorm == 0.5
    plain = kerasattn.TextClassifier.from_preset("mlp", hidden_units=4)
    plain.fit(["good film", "bad film"], ["pos", "neg"], epochs=1, verbose=0)
    assert plain.optimizer.global_clipnorm is None
