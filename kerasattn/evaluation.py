"""A run's metrics recomputed from its directory alone (``kerasattn evaluate``): the
run opened and checked (:func:`kerasattn.runs.open_run`), its dataset split again as
in training (:mod:`kerasattn.run_data`), its model loaded (:func:`kerasattn.runs.load_run`
or the skops pipeline) and its splits predicted (:mod:`kerasattn.prediction`) and
scored (:func:`kerasattn.metrics.classification_metrics`)."""

import os

from kerasattn import prediction, run_data, runs
from kerasattn.data.pipeline import make_stream_dataset
from kerasattn.metrics import classification_metrics
from kerasattn.models import tfidf as classical


def evaluate_run(run_dir, data_dir=None, splits=("val", "test"), verbose=0,
                 same_data=False):
    """Recompute a run's metrics from its directory: {split: metrics}. The run is opened
    with :func:`kerasattn.runs.open_run` (a finished run of kerasattn's, its files
    whole); ``same_data``: also refuse (:class:`kerasattn.runs.RunError`) data that is
    not what it trained on (before the metrics are to replace the recorded ones)."""
    config = runs.open_run(run_dir)
    ds = run_data.load_dataset(config, data_dir)
    if same_data:
        run_data.check_same_data(run_dir, config, ds)
    if config["kind"] == "classical":
        return _evaluate_classical(run_dir, ds, splits)
    return _evaluate_keras(run_dir, config, ds, splits, verbose)


def _evaluate_classical(run_dir, ds, splits):
    """{split: metrics} of a classical run's ``model.skops`` (trusted types only)."""
    try:
        model = classical.load(os.path.join(run_dir, runs.CLASSICAL_MODEL))  # trusted only
    except classical.UnsafeModelError:
        raise
    except Exception as e:  # a damaged skops archive
        raise runs.RunError(f"{run_dir}/{runs.CLASSICAL_MODEL} cannot be loaded (damaged?): "
                            f"{e}") from None
    out = {}
    for s in splits:
        part = ds.split(s)
        out[s] = classification_metrics(part.labels, model.predict_proba(part.texts),
                                        ds.class_names)
    return out


def _evaluate_keras(run_dir, config, ds, splits, verbose):
    """{split: metrics} of a Keras run's model, in the run's batches."""
    run = runs.load_run(run_dir)
    bs = config["train"]["batch_size"]
    out = {}
    for s in splits:
        part = ds.split(s)
        if config.get("stream"):
            probs, y = prediction.predict_batches(
                run.backbone, make_stream_dataset(part, run.preprocessor, bs), verbose=verbose)
        else:
            probs, y = prediction.predict_keras(run.backbone, part.texts, part.labels,
                                                run.preprocessor, bs, verbose)
        out[s] = classification_metrics(y, probs, ds.class_names)
    return out
