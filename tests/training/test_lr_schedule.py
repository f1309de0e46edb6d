"""Learning-rate warm-up and cosine decay (--lr-schedule, --warmup)."""

import dataclasses
import os

import keras
import pytest

from kerasattn import recipes, runs
from kerasattn.cli import train
from kerasattn.training import RunConfig
from tests.training.test_reliability import _tiny


def test_schedules_by_hand():
    cosine = recipes.learning_rate(1e-3, "cosine", 0.1, 100)  # 10 warm-up steps, 90 of decay
    assert [round(float(cosine(i)), 7) for i in (0, 5, 10, 55, 100)] == \
        [0.0, 0.0005, 0.001, 0.0005, 0.0]
    warm = recipes.learning_rate(1e-3, "constant", 0.2, 100)
    assert [round(float(warm(i)), 7) for i in (0, 10, 20, 60, 100)] == \
        [0.0, 0.0005, 0.001, 0.001, 0.001]
    no_warmup = recipes.learning_rate(1e-3, "cosine", 0.0, 10)
    assert float(no_warmup(0)) == pytest.approx(1e-3) and float(no_warmup(10)) == 0.0
    assert recipes.learning_rate(1e-3) == 1e-3  # constant: a plain number
    with pytest.raises(ValueError, match="number of training steps"):
        recipes.learning_rate(1e-3, "cosine")
    with pytest.raises(ValueError, match="unknown learning-rate schedule"):
        recipes.learning_rate(1e-3, "step", 0.0, 10)


def test_optimizer_for_follows_the_settings_schedule_over_the_run_steps():
    from kerasattn import models
    from kerasattn.training.config import TrainSettings

    preset = models.get_preset("transformer")
    settings = TrainSettings(optimizer="adam", learning_rate=1e-3, epochs=2,
                             lr_schedule="cosine", warmup=0.5, clipnorm=1.0)
    for given in (settings, dataclasses.asdict(settings)):  # typed or read back from JSON
        opt = recipes.optimizer_for(preset, given, lambda: 10)  # 2 epochs x 10 = 20 steps
        assert isinstance(opt, keras.optimizers.Adam) and opt.global_clipnorm == 1.0
        assert [round(float(opt._learning_rate(i)), 7) for i in (0, 5, 10, 15, 20)] == \
            [0.0, 0.0005, 0.001, 0.0005, 0.0]
    counted = []
    constant = recipes.optimizer_for(preset, TrainSettings(optimizer="adam", learning_rate=3e-4),
                                     lambda: counted.append(1))
    assert not counted  # a constant rate does not count the batches
    assert float(constant.learning_rate) == pytest.approx(3e-4)
    assert constant.global_clipnorm is None
    with pytest.raises(ValueError, match="number of training steps"):
        recipes.optimizer_for(preset, settings)


def test_a_run_trains_with_the_schedule_and_records_it(tmp_path, capsys):
    run_dir, _ = train.train(_tiny(tmp_path, "--epochs", "2", "--lr-schedule", "cosine",
                                   "--warmup", "0.25", "--run-name", "s", "--verbose", "1"))
    assert "learning rate: cosine, peak 0.001, warm-up 0.25 of 4 steps" in \
        capsys.readouterr().out  # 54 training rows, batch 32, 2 epochs
    config = runs.read_json(os.path.join(run_dir, runs.CONFIG))
    assert (config["train"]["lr_schedule"], config["train"]["warmup"]) == ("cosine", 0.25)
    model = keras.saving.load_model(os.path.join(run_dir, runs.KERAS_MODEL))
    schedule = model.optimizer.learning_rate if not hasattr(model.optimizer, "_learning_rate") \
        else model.optimizer._learning_rate
    assert isinstance(schedule, keras.optimizers.schedules.CosineDecay)
    assert float(schedule(1)) == pytest.approx(1e-3)  # the peak after one warm-up step


def test_an_optimizer_that_takes_no_schedule_is_an_error_and_leaves_nothing(tmp_path, capsys):
    argv = _tiny(tmp_path, "--lr-schedule", "cosine", "--run-name", "g", model="sanet-base")
    argv += ["--recipe", "paper", "--model-option", "d=8", "--model-option", "embedding_dim=8"]
    assert train.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: sanet-base's own optimizer (grouped_sgd) takes no learning-rate "
                   "schedule; name another optimizer (e.g. adam)"]
    assert not os.path.exists(tmp_path / "out" / "g")


def test_runs_made_before_the_schedule_settings_are_still_the_same_run():
    config = RunConfig.create("cnn", "sst2")
    old = config.to_json()
    del old["train"]["lr_schedule"], old["train"]["warmup"]
    assert config.same_run(old)
    assert not RunConfig.create("cnn", "sst2", lr_schedule="cosine").same_run(old)


def test_the_big_sanet_presets_warm_up_by_default_and_a_stream_says_why_not():
    for name in ("sanet-big", "sanet-baseline-big"):
        config = RunConfig.create(name, "sst2")
        assert (config.train.lr_schedule, config.train.warmup) == ("cosine", 0.1)
        assert RunConfig.create(name, "sst2", recipe="adjusted").train.lr_schedule == "constant"
    assert RunConfig.create("sanet-base", "sst2").train.lr_schedule == "constant"
    from kerasattn.training.config import ConfigError

    with pytest.raises(ConfigError, match="sanet-big's default recipe schedules its learning "
                                          "rate: give lr_schedule constant warmup 0"):
        RunConfig.create("sanet-big", "imdb", stream=True)
    streamed = RunConfig.create("sanet-big", "imdb", stream=True, lr_schedule="constant",
                                warmup=0.0)
    assert streamed.train.lr_schedule == "constant"


def test_text_classifier_fits_with_its_recipes_schedule(monkeypatch):
    import numpy as np

    import kerasattn

    monkeypatch.setattr(recipes, "_RECIPES", dict(recipes._RECIPES))
    recipes.register_recipe(recipes.Recipe("cnn", "warm", train={
        "lr_schedule": "cosine", "warmup": 0.5, "learning_rate": 0.01}))
    texts = ["a good film", "a bad film", "good fun", "dull and bad", "great", "awful",
             "fine and good", "poor"]
    labels = [1, 0, 1, 0, 1, 0, 1, 0]
    clf = kerasattn.TextClassifier.from_preset("cnn", num_classes=2, recipe="warm",
                                               embedding_dim=4, filters=2)
    clf.fit(texts, labels, batch_size=4, epochs=2, verbose=0)  # 2 batches x 2 epochs
    schedule = clf.optimizer._learning_rate
    assert isinstance(schedule, keras.optimizers.schedules.CosineDecay)
    assert [round(float(schedule(i)), 6) for i in (0, 1, 2, 3, 4)] == \
        [0.0, 0.005, 0.01, 0.005, 0.0]  # the same schedule as the command line's
    assert int(clf.optimizer.iterations) == 4
    # a second fit keeps going on the same optimizer (the schedule is set once)
    clf.fit(texts, labels, batch_size=4, epochs=1, verbose=0)
    assert clf.optimizer._learning_rate is schedule and int(clf.optimizer.iterations) == 6
    # an optimizer of the caller's is left alone
    own = kerasattn.TextClassifier.from_preset("cnn", num_classes=2, recipe="warm",
                                               embedding_dim=4, filters=2, compile=False)
    own.compile(optimizer=keras.optimizers.Adam(0.002))
    own.fit(texts, labels, batch_size=4, epochs=1, verbose=0)
    assert float(np.asarray(own.optimizer.learning_rate)) == pytest.approx(0.002)


def test_the_schedule_spans_the_batches_fit_takes_when_lengths_vary(tmp_path, capsys):
    # texts of 1 to 60 words fall into several length buckets: each epoch takes more
    # batches than len / batch size (here 1), and a cosine counted on that would reach
    # zero long before the last epoch
    body = "".join(f"{' '.join(['good' if i % 2 else 'bad'] * (1 + i))},{i % 2}\n"
                   for i in range(60))
    data = tmp_path / "lengths.csv"
    data.write_text("text,label\n" + body)
    run_dir, _ = train.train(["--model", "mlp", "--dataset", f"csv:{data}", "--epochs", "2",
                              "--batch-size", "64", "--lr-schedule", "cosine",
                              "--output-dir", str(tmp_path / "out"), "--run-name", "v",
                              "--verbose", "1"])
    out = capsys.readouterr().out
    steps = int(out.split("learning rate: cosine, peak 0.001, warm-up 0 of ")[1].split()[0])
    history = runs.read_json(os.path.join(run_dir, runs.METRICS))
    model = keras.saving.load_model(os.path.join(run_dir, runs.KERAS_MODEL))
    # the model kept is the best epoch's: its optimizer has taken that many epochs' batches
    per_epoch = int(model.optimizer.iterations) // history["best_epoch"]
    assert per_epoch > 1 and steps == 2 * per_epoch
