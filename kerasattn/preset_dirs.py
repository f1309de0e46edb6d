"""Presets as locations: a directory, a ``.keras`` file or an ``hf://`` repository
holding a trained :class:`kerasattn.TextClassifier`, as keras-hub's presets are.

    clf.save_to_preset("my-sentiment")                  # a self-contained directory
    clf = TextClassifier.from_preset("my-sentiment")    # in another process, elsewhere
    clf.save_to_preset("hf://me/my-sentiment")           # the Hugging Face Hub ([hub] extra)
    clf = TextClassifier.from_preset("hf://me/my-sentiment")

A preset directory holds:

- ``model.keras``: the classifier (its configuration, weights, vocabulary and class
  names; ``keras.saving.load_model`` reads it after ``import kerasattn``);
- ``metadata.json``: the format, the registered preset it was built from, its family and
  paper, its recipe (``recipe``: name, description, its ``defaults`` and model options,
  as set before training), what was actually trained (``trained``: the epochs run and
  asked for, batch size, early stopping, seed, data and validation accuracy, from the run
  or from ``TextClassifier.training_summary``; None when neither recorded it), the class
  names and the versions that wrote it;
- ``vocab.txt``: the vocabulary, one token a line (id = line number);
- ``metrics.json`` and ``config.json``: the run's, when it came from a run directory
  (``TextClassifier.from_run`` or ``kerasattn export --run RUN --preset DIR``);
- ``README.md``: the model card (:func:`model_card`), the same from Python and from a
  run: the Hub's front matter (``library_name``, ``pipeline_tag``, ``tags``,
  ``license``, ``datasets``, ``metrics``), use, model, data, what was trained (every
  command of a run), accuracy with its 95 % interval, intended use, limitations,
  licence and citation.

The Hub is reached through ``huggingface_hub`` (``pip install kerasattn[hub]``), with the
calls Keras 3 makes for ``hf://`` (``HfApi.create_repo`` and ``upload_folder``,
``snapshot_download``). Every failure there (no connection, offline, an HTTP error, a
repository id the Hub refuses, the package missing) is one :class:`PresetError` line
naming the location.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shutil
import tempfile
from importlib import metadata as package_metadata
from collections.abc import Iterator
from typing import Any

from kerasattn import __version__, models, ownership, runs

FORMAT = "kerasattn.preset/1"
MODEL, METADATA, VOCAB, CARD = "model.keras", "metadata.json", "vocab.txt", "README.md"
HUB = "hf://"
# what save() writes: a directory without a marker is an old preset only when it holds
# nothing else
PRESET_FILES = frozenset({MODEL, METADATA, VOCAB, CARD, "metrics.json", "config.json"})


class PresetError(ValueError):
    """A preset location that cannot be read or written (one line, no partial output)."""


def is_location(preset: str | os.PathLike[str]) -> bool:
    """Whether ``preset`` names a location rather than a registered name: an ``hf://``
    handle, a ``.keras`` file, or a path (it exists, or it has a path separator)."""
    preset = os.fspath(preset)
    return (preset.startswith(HUB) or preset.endswith(".keras") or os.path.exists(preset)
            or os.sep in preset or "/" in preset)


def _hub():
    try:
        import huggingface_hub  # optional: hf:// presets only (the [hub] extra)
    except ImportError:
        raise PresetError("hf:// presets need huggingface_hub: pip install "
                          "'kerasattn[hub]'") from None
    return huggingface_hub


# a part of a Hub repository id, as huggingface_hub's validate_repo_id takes it: letters,
# digits, "-", "_" and ".", neither "-" nor "." at an end, no "--" or "..", at most 96
# characters (and the name not ending in ".git")
_REPO_PART = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9_])?")
_REPO_PART_MAX = 96


def _repo(handle):
    repo = handle[len(HUB):].strip("/")
    parts = repo.split("/")
    if len(parts) != 2 or parts[1].endswith(".git") or not all(
            _REPO_PART.fullmatch(p) and ".." not in p and "--" not in p for p in parts):
        raise PresetError(f"{handle}: an hf:// preset is hf://NAMESPACE/NAME (letters, "
                          "digits, '-', '_' and '.'; no '-' or '.' at an end, no '--' or "
                          f"'..'; each at most {_REPO_PART_MAX} characters)")
    return repo


# exception class names (anywhere in an error's MRO) that say the Hub was not reached:
# requests', httpx's, the standard library's and huggingface_hub's offline mode
_UNREACHABLE = frozenset({"ConnectionError", "ConnectError", "ConnectTimeout", "Timeout",
                          "TimeoutException", "TimeoutError", "NetworkError",
                          "TransportError", "OfflineModeIsEnabled", "LocalEntryNotFoundError",
                          "ProxyError", "SSLError"})


def _hub_reason(error):
    """One line saying why a huggingface_hub call failed."""
    names = {c.__name__ for c in type(error).__mro__}
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    detail = f"{type(error).__name__}: {lines[0][:200]}" if lines else type(error).__name__
    if names & _UNREACHABLE:
        return f"the Hub cannot be reached (offline, or no connection): {detail}"
    if "RepositoryNotFoundError" in names:
        return (f"no such repository, or it is private or gated (log in with "
                f"`hf auth login`): {detail}")
    if "HFValidationError" in names:
        return f"the Hub refuses this repository id: {detail}"
    return detail


@contextlib.contextmanager
def _hub_errors(location: str, doing: str) -> Iterator[None]:
    """Every failure of the ``huggingface_hub`` calls inside as one :class:`PresetError`
    line naming ``location``."""
    try:
        yield
    except PresetError as e:  # _hub(): the package missing
        raise PresetError(f"{location}: {e}") from None
    except Exception as e:  # noqa: BLE001 -- the Hub's boundary: its HTTP errors, repository
        # id validation, requests'/httpx's connection errors, OSError, ... all one line
        raise PresetError(f"{location}: {doing} the Hugging Face Hub failed: "
                          f"{_hub_reason(e)}") from None


def local_path(preset: str | os.PathLike[str]) -> str:
    """A local directory or ``.keras`` file for ``preset`` (an ``hf://`` repository is
    downloaded first); :class:`PresetError` for a location that is not a preset, and for
    any failure of the Hub (one line naming it)."""
    preset = os.fspath(preset)
    if preset.startswith(HUB):
        repo = _repo(preset)
        with _hub_errors(preset, "downloading from"):
            return _hub().snapshot_download(repo_id=repo, library_name="kerasattn",
                                            library_version=__version__)
    if preset.endswith(".keras"):
        if not os.path.isfile(preset):
            raise PresetError(f"{preset}: no such file")
        return preset
    if not os.path.isdir(preset):
        raise PresetError(f"{preset}: no such preset directory (and no registered preset of "
                          "that name)")
    if not os.path.isfile(os.path.join(preset, METADATA)):
        raise PresetError(f"{preset} is not a kerasattn preset directory (no {METADATA}; "
                          "write one with TextClassifier.save_to_preset)")
    return preset


def load(preset: str | os.PathLike[str], compile: bool = True) -> Any:
    """The :class:`kerasattn.TextClassifier` at ``preset`` (a preset directory, a
    ``.keras`` file or an ``hf://`` repository)."""
    import keras  # late: kerasattn explain reads METADATA here before Keras loads

    path = local_path(preset)
    if os.path.isdir(path):
        metadata = read_metadata(path)
        path = os.path.join(path, MODEL)
        if not os.path.isfile(path):
            raise PresetError(f"{preset}: {MODEL} is missing")
    else:
        metadata = None
    try:
        model = keras.saving.load_model(path, compile=compile)
    except Exception as e:  # a damaged archive: zipfile, h5py, JSON or Keras errors
        raise PresetError(f"{path} cannot be loaded (damaged or not a kerasattn "
                          f"classifier): {str(e).splitlines()[0] if str(e) else type(e).__name__}"
                          ) from None
    if not hasattr(model, "save_to_preset"):
        raise PresetError(f"{preset} holds a {type(model).__name__}, not a TextClassifier")
    if metadata and metadata.get("preset") != model.preset:
        raise PresetError(f"{preset}: {METADATA} names preset {metadata.get('preset')!r} but "
                          f"{MODEL} holds {model.preset!r}")
    return model


def is_legacy_preset(path: str) -> bool:
    """Whether ``path``, without a marker, is a preset directory written before markers
    existed: a ``metadata.json`` of :data:`FORMAT`, a ``model.keras`` and nothing else
    than a preset's files."""
    try:
        read_metadata(path)
    except PresetError:
        return False
    names = set(os.listdir(path))
    return MODEL in names and names <= PRESET_FILES


def read_metadata(path: str) -> dict[str, Any]:
    """A preset directory's ``metadata.json``, checked (:class:`PresetError`)."""
    try:
        with open(os.path.join(path, METADATA), encoding="utf-8") as fh:
            metadata = json.load(fh)
    except (OSError, ValueError) as e:
        raise PresetError(f"{path}/{METADATA} cannot be read: {e}") from None
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT \
            or not isinstance(metadata.get("preset"), str):
        raise PresetError(f"{path}/{METADATA} is not a {FORMAT} file")
    marker = ownership.read_marker(path)
    if marker is not None and metadata.get("preset_id") not in (None, marker["id"]):
        raise PresetError(f"{path}/{METADATA} belongs to another preset (its preset_id is "
                          f"not the one of {path}/{ownership.MARKER}); it was copied in")
    return metadata


def _interval(accuracy, n, z=1.96):
    """The 95 % Wilson interval of an accuracy over ``n`` texts."""
    if not n:
        return accuracy, accuracy
    centre = (accuracy + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(accuracy * (1 - accuracy) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


# -- the model card -----------------------------------------------------------------
LICENSE = "apache-2.0"  # kerasattn's licence (LICENSE, CITATION.cff), as the Hub spells it
PIPELINE_TAG = "text-classification"
# CITATION.cff's title and authors: the card's citation of kerasattn
CITATION_TITLE = ("kerasattn: interpretable attention models for text classification in "
                  "Keras 3")
CITATION_AUTHORS = "kerasattn contributors"
CITATION_YEAR = 2026  # CITATION.cff's date-released
# what the faithfulness results of the zoo's attention are (a section of the docs)
FAITHFULNESS_PAGE = "docs/interpretability.md"
FAITHFULNESS_SECTION = ("Is attention an explanation? Attributions and faithfulness",
                        "is-attention-an-explanation-attributions-and-faithfulness")


def _project_url():
    """kerasattn's repository address, where its package metadata (``Project-URL``) or
    its ``CITATION.cff`` (``repository-code``, ``url``) gives one; else None."""
    try:
        for entry in package_metadata.metadata("kerasattn").get_all("Project-URL") or []:
            label, _, url = entry.partition(",")
            if label.strip().lower() in ("repository", "source", "source code", "homepage") \
                    and url.strip():
                return url.strip()
    except package_metadata.PackageNotFoundError:
        pass
    cff = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "CITATION.cff")
    try:
        with open(cff, encoding="utf-8") as fh:
            for line in fh:
                found = re.match(r"(?:repository-code|url):\s*[\"']?(https?://[^\"'\s]+)",
                                 line)
                if found:
                    return found.group(1)
    except OSError:
        pass
    return None


def _dataset_facts(name):
    """``(description, domain, language)`` of a built-in dataset ``name``, as its loader
    registered them (:func:`kerasattn.data.datasets.facts`); None for a user's file or a
    name this process does not know."""
    if not name:
        return None
    from kerasattn.data import datasets  # late: numpy only, but not for every import

    found = datasets.facts(name)
    return None if found is None else (found.description, found.domain, found.language)


def _plain_early_stopping(patience, epochs, epochs_requested, cut_by_time):
    if not patience:
        return None
    stopped = bool(epochs and epochs_requested and epochs < epochs_requested
                   and not cut_by_time)
    # Keras's EarlyStopping.stopped_epoch: the 0-based last epoch when it stopped, else 0
    return {"monitor": "val_accuracy", "patience": patience,
            "stopped_epoch": epochs - 1 if stopped else 0}


def run_commands(config: dict[str, Any], metrics: dict[str, Any] | None = None) -> list[str]:
    """Every command that made a run, in order, each once: its ``config.json``'s (a
    ``training.train`` run's, or a ``training.portable`` run's ``prepare`` step) and its
    ``metrics.json`` provenance's (the ``fit`` step of a portable run, a resumed run)."""
    commands: list[str] = []
    for command in (config.get("command"), (config.get("provenance") or {}).get("command"),
                    ((metrics or {}).get("provenance") or {}).get("command")):
        if command and command not in commands:
            commands.append(command)
    return commands


def trained_of_run(config: dict[str, Any],
                   metrics: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a run trained, from its ``config.json`` and ``metrics.json``, with the keys
    of ``TextClassifier.training_summary`` (``epochs`` actually run,
    ``epochs_requested``, ``batch_size``, ``recipe``, ``early_stopping``, ``seed``,
    ``train_texts``, ``validation_texts``, ``dataset``, ``validation``,
    ``class_names``) and ``best_epoch``, ``cut`` (what ended it early) and
    ``commands`` (:func:`run_commands`)."""
    metrics = metrics or {}
    train = config.get("train") or {}
    sizes = config.get("dataset_sizes") or None
    epochs, requested = metrics.get("epochs_run"), train.get("epochs")
    val = metrics.get("val") or {}
    cut_by_time = bool((metrics.get("time_limit") or {}).get("reached"))
    return {
        "epochs": epochs, "epochs_requested": requested,
        "batch_size": train.get("batch_size"), "recipe": config.get("recipe"),
        "early_stopping": _plain_early_stopping(config.get("early_stopping"), epochs,
                                                requested, cut_by_time),
        "seed": config.get("seed"),
        "train_texts": (sizes or {}).get("train"), "validation_texts": (sizes or {}).get("val"),
        "dataset": None if not config.get("dataset") else {"name": config["dataset"],
                                                           "sizes": sizes},
        "validation": None if "accuracy" not in val else {
            "accuracy": val["accuracy"], "examples": val.get("examples")},
        "class_names": config.get("class_names"),
        "best_epoch": metrics.get("best_epoch"),
        "cut": list((metrics.get("provenance") or {}).get("cut") or []),
        "commands": run_commands(config, metrics),
    }


def _yaml_list(key, items):
    # JSON strings are YAML's double-quoted scalars: any name parses back as it was
    return [f"{key}:", *(f"- {json.dumps(str(i))}" for i in items)]


def _front_matter(metadata, dataset):
    tags = ["kerasattn", "keras", PIPELINE_TAG]
    for tag in (metadata.get("family"), metadata.get("preset")):
        if tag and tag not in tags:
            tags.append(tag)
    return ["---", "library_name: kerasattn", f"pipeline_tag: {PIPELINE_TAG}",
            f"license: {LICENSE}", *_yaml_list("tags", tags),
            *(_yaml_list("datasets", [dataset]) if dataset else []),
            *_yaml_list("metrics", ["accuracy"]), "---"]


def _count(n):
    return f"{n:,}" if isinstance(n, int) else "an unrecorded number of"


def _accuracy_line(split, m):
    low, high = _interval(m["accuracy"], m.get("examples") or 0)
    return (f"- {split}: {m['accuracy']:.4f} (95 % interval over its "
            f"{m.get('examples') or 0:,} texts: {low:.4f}–{high:.4f})"
            + (f", macro F1 {m['f1_macro']:.4f}" if "f1_macro" in m else ""))


def _data_section(trained, facts, notes):
    dataset = (trained or {}).get("dataset")
    if dataset:
        sizes = dataset.get("sizes") or {}
        split = f" ({facts[0]})" if facts else ""
        lines = [f"Dataset `{dataset['name']}`{split}"
                 + (f": {', '.join(f'{k} {v:,}' for k, v in sizes.items())} texts"
                    if sizes else "") + "."]
        lines += [f"- {n}" for n in notes if not str(n).startswith("source:")]
        return lines
    if trained:
        return [f"Trained in Python with `fit` on {_count(trained.get('train_texts'))} "
                f"texts (validation: {_count(trained.get('validation_texts'))} texts); "
                "they were not a named kerasattn dataset, so where they came from is not "
                "recorded here."]
    return ["Not recorded: the classifier was saved without a record of its training (a "
            "run, or `fit` in this version of kerasattn, records one)."]


def _training_section(trained, recipe):
    if not trained:
        return [f"Not recorded. The recipe `{recipe.get('name', 'default')}`'s settings are "
                "in `metadata.json` under `recipe` (what it sets, not what was trained)."]
    epochs, requested = trained.get("epochs"), trained.get("epochs_requested")
    lines = [f"- epochs: {epochs if epochs is not None else 'not recorded'} run"
             + (f" of {requested} asked for" if requested is not None else "")
             + (f"; best epoch {trained['best_epoch']} kept" if trained.get("best_epoch")
                else ""),
             f"- batch size: {trained.get('batch_size')}",
             f"- recipe: `{trained.get('recipe') or recipe.get('name', 'default')}` "
             f"({recipe.get('description') or 'its settings are in metadata.json'})"]
    stop = trained.get("early_stopping")
    if stop:
        stopped = stop.get("stopped_epoch")
        lines.append(f"- early stopping on `{stop.get('monitor')}`, patience "
                     f"{stop.get('patience')}: "
                     + (f"it stopped training after epoch {stopped + 1}" if stopped else
                        "it did not stop training early"))
    else:
        lines.append("- early stopping: none")
    lines.append(f"- seed: {trained.get('seed') if trained.get('seed') is not None else 'none'}")
    lines += [f"- cut short: {c}" for c in trained.get("cut") or []]
    commands = trained.get("commands") or []
    if commands:
        lines += ["", "Trained with" + (" (every step, in order)" if len(commands) > 1
                                         else "") + ":", "", "```bash", *commands, "```"]
    lines += ["", "`metadata.json` keeps this under `trained`, and the recipe's own settings "
              "(as set before training) under `recipe`."]
    return lines


def _metrics_section(metrics, trained):
    if metrics and any("accuracy" in (metrics.get(s) or {}) for s in ("test", "val")):
        lines = [_accuracy_line(split, metrics[key]) for split, key in
                 (("test", "test"), ("validation", "val"))
                 if "accuracy" in (metrics.get(key) or {})]
        lines += ["", "Intervals: 95 % Wilson score intervals. One training run (its seed "
                  "above); the zoo's benchmarks give figures over several seeds."]
        if not (metrics.get("learning") or {}).get("learned", True):
            lines += ["", "**This run did not learn** (validation accuracy near the "
                      "majority class rate)."]
        return lines
    validation = (trained or {}).get("validation")
    if validation and validation.get("accuracy") is not None:
        return [_accuracy_line("validation", validation), "",
                "Validation only, on the `validation_data` given to `fit` (no test split was "
                "evaluated): 95 % Wilson score interval. Those texts may have chosen the "
                "model (early stopping), so evaluate it on labelled texts of your own that "
                "it never saw (`clf.evaluate(texts, labels)`)."]
    return ["No held-out accuracy was recorded: evaluate the classifier on labelled texts "
            "of your own (`clf.evaluate(texts, labels)`)."]


def _faithfulness_link(url):
    title, anchor = FAITHFULNESS_SECTION
    if url and "github.com" in url:
        return f"[{title}]({url.rstrip('/')}/blob/main/{FAITHFULNESS_PAGE}#{anchor})"
    return f"*{title}* in kerasattn's `{FAITHFULNESS_PAGE}`"


def model_card(metadata: dict[str, Any], metrics: dict[str, Any] | None = None,
               config: dict[str, Any] | None = None) -> str:
    """The preset's ``README.md``, the same from Python and from a run: the Hub's front
    matter (``library_name``, ``pipeline_tag``, ``tags``, ``license``, ``datasets`` when
    known, ``metrics``), how to use it, the model, its data (name, sizes, split), what
    was trained (epochs run and asked for, batch size, recipe, early stopping, seed and
    every command of a run), its accuracy with the 95 % interval, intended use,
    limitations (the data's domain and language; what attention does not show),
    licence and citation. ``metadata``: a preset's ``metadata.json``; ``metrics`` and
    ``config``: its run's, when it came from one (they take precedence over
    ``metadata["trained"]``)."""
    name = metadata.get("name") or metadata["preset"]
    trained = trained_of_run(config, metrics) if config else (metadata.get("trained") or None)
    dataset = ((trained or {}).get("dataset") or {}).get("name")
    facts = _dataset_facts(dataset)
    url = _project_url()
    kerasattn = f"[kerasattn]({url})" if url else "kerasattn"
    recipe = metadata.get("recipe") or {}
    classes = ", ".join(map(str, metadata.get("class_names") or []))
    attention = metadata.get("attention")
    if attention is None:  # metadata written before it said
        attention = metadata.get("family") not in (None, "baselines")

    lines = [*_front_matter(metadata, dataset if facts else None), "", f"# {name}", "",
             f"A `{metadata['preset']}` text classifier ({metadata.get('description', '')}) "
             f"made with {kerasattn}: it takes raw strings.", "",
             "## Use", "", "```python", "import kerasattn", "",
             f'clf = kerasattn.TextClassifier.from_preset("{metadata.get("location", name)}")',
             'print(clf.predict_labels(["a gripping, moving film"]))', "```", "",
             f"Classes: {classes}.", "",
             "## Model", "",
             f"- preset `{metadata['preset']}` (family `{metadata.get('family')}`): "
             f"{metadata.get('description', '')}"]
    if metadata.get("paper"):
        lines.append(f"- paper: {metadata['paper']}")
    lines += [f"- attention layers: {'yes' if attention else 'none'}",
              *([f"- vocabulary: {metadata['vocabulary_size']:,} tokens"]
                if isinstance(metadata.get("vocabulary_size"), int) else []), ""]
    notes = (config or {}).get("dataset_notes") or (metrics or {}).get("dataset_notes") or []
    lines += ["## Data", "", *_data_section(trained, facts, notes), ""]
    lines += ["## Training", "", *_training_section(trained, recipe), ""]
    lines += ["## Accuracy", "", *_metrics_section(metrics, trained), ""]

    if facts:
        domain = facts[1] or "the texts of that dataset"
        what = f"{facts[2]} {domain}"
        data_limit = (f"It learned from `{dataset}`: {what}. Texts of another domain, "
                      f"register or language than {facts[2]} lie outside what it saw; its "
                      "accuracy on them is unknown.")
    elif dataset:
        what = "texts like its training data"
        data_limit = (f"It learned from `{dataset}`, data of its user's: its domain and "
                      "language are that data's, and its accuracy on other texts is unknown.")
    elif trained:
        what = "texts like its training data"
        data_limit = ("It learned from texts given to `fit` in Python: their domain and "
                      "language are not recorded, and its accuracy on other texts is "
                      "unknown.")
    else:
        what = "texts like its training data"
        data_limit = ("Its training data is not recorded, so neither are its domain and "
                      "language: check it on texts of your own before use.")
    lines += ["## Intended use", "",
              f"Sorting {what} into its classes ({classes}), and studying how the model "
              "decides (`clf.explain`, `clf.attribute`, `kerasattn explain --serve`). It is "
              "a research model from a model zoo: check it on labelled texts of your own "
              "before relying on it, and do not use it alone for decisions about people.",
              "", "## Limitations", "", f"- {data_limit}",
              "- Words outside its vocabulary are read as `[UNK]`."]
    if attention:
        lines.append("- Its attention weights are not by themselves an explanation of its "
                     "predictions: kerasattn measures the faithfulness of the zoo's attention "
                     "beside attributions and erasure tests "
                     f"({_faithfulness_link(url)}); read those results before presenting "
                     "attention as the reason for a prediction.")
    else:
        lines.append("- It has no attention layer: explain its predictions with "
                     "attributions (`clf.attribute`).")
    lines += ["- One training run: another seed gives another model and accuracy.", ""]

    source = f"`{dataset}`" if dataset else "its training data"
    lines += ["## Licence", "",
              "The code, kerasattn, is under the Apache License 2.0 (`license: apache-2.0` "
              f"above). The weights were learned from {source} and inherit that data's "
              "terms of use: check its licence before using or sharing them beyond "
              "research.", ""]
    lines += ["## Citation", ""]
    if metadata.get("paper"):
        lines += [f"The model's paper: {metadata['paper']}.", ""]
    lines += ["kerasattn:", "", "```bibtex", "@software{kerasattn,",
              f"  title = {{{CITATION_TITLE}}},", f"  author = {{{{{CITATION_AUTHORS}}}}},",
              f"  year = {{{CITATION_YEAR}}},",
              f"  version = {{{(metadata.get('versions') or {}).get('kerasattn', __version__)}}},",
              *([f"  url = {{{url}}},"] if url else []),
              "  license = {Apache-2.0}", "}", "```", ""]
    versions = metadata.get("versions") or {}
    if versions:
        lines += [f"Written by kerasattn {versions.get('kerasattn')} (Keras "
                  f"{versions.get('keras')}).", ""]
    return "\n".join(lines)


def _plain(value):
    """A JSON-like value as plain dicts and lists (Keras tracks an attribute's dicts and
    lists in types of its own)."""
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _has_attention(classifier):
    """Whether the classifier's backbone has an attention layer kerasattn can read."""
    from kerasattn.interpret import attention  # late: it imports Keras (as in load)

    return bool(attention.attention_layers(classifier.backbone))


def save(classifier: Any, target: str | os.PathLike[str], run_dir: str | None = None,
         overwrite: bool = False) -> str:
    """Write ``classifier`` as a preset at ``target`` (a directory, or ``hf://NS/NAME``);
    ``run_dir``: the run directory it came from (its ``metrics.json`` and ``config.json``
    go along, and make ``trained``), else ``trained`` is the classifier's
    ``training_summary``. The directory is written whole or not at all; an existing one
    is refused unless empty or ``overwrite``. Every failure of the Hub is one
    :class:`PresetError` line. Returns ``target``."""
    import keras  # late: as in load

    target = os.fspath(target)
    if classifier.backbone is None:
        raise PresetError("nothing to save: the classifier has not been fitted")
    hub = target.startswith(HUB)
    if hub:
        repo = _repo(target)
        with _hub_errors(target, "uploading to"):
            hub_module = _hub()  # before any work: the package missing is said first
    elif os.path.lexists(target) and not ownership.is_empty_dir(target):
        if not overwrite:
            raise PresetError(f"{target} exists; pass overwrite=True (--overwrite) to replace "
                              "it")
        try:  # only a preset directory kerasattn wrote is replaced
            ownership.require_owned(target, "preset", is_legacy_preset)
        except ownership.OwnershipError as e:
            raise PresetError(f"{e}; it is not replaced") from None
    spec = models.get_preset(classifier.preset)
    from kerasattn import recipes  # late: it imports Keras (as in load)

    try:
        description = recipes.get_recipe(classifier.preset, classifier.recipe).description
    except ValueError:  # a recipe registered in another process
        description = ""
    # the recipe's settings as set before training (not what was trained: "trained")
    recipe = {"name": classifier.recipe, "description": description,
              "defaults": _plain(classifier._settings),
              "model_options": _plain(classifier.model_options)}
    metrics = config = None
    trained: dict[str, Any] | None
    if run_dir is not None:
        try:
            config = runs.open_run(run_dir)  # checked: a finished run of kerasattn's
            metrics = runs.read_json(os.path.join(run_dir, runs.METRICS))
        except runs.RunError as e:
            raise PresetError(str(e)) from None
        trained = trained_of_run(config, metrics)
    else:
        summary = getattr(classifier, "training_summary", None)
        trained = _plain(summary) if summary else None
    metadata = {"format": FORMAT, "name": os.path.basename(target.rstrip("/")),
                "location": target, "preset": classifier.preset, "family": spec.family,
                "paper": spec.paper, "description": spec.description,
                "hierarchical": spec.hierarchical, "attention": _has_attention(classifier),
                "recipe": recipe, "trained": trained,
                "class_names": [str(c) for c in classifier.class_names],
                "vocabulary_size": len(classifier.preprocessor.vocabulary),
                "versions": {"kerasattn": __version__, "keras": keras.__version__}}
    if hub:
        work, owner = tempfile.mkdtemp(prefix=".preset-"), None
        ownership.write_marker(work, "preset")
    else:
        for line in ownership.recover(target, "preset"):  # after a kill mid-replace
            print(f"note: {line}", flush=True)
        work, owner = ownership.work_dir(target, "preset")  # beside, then renamed in
    metadata["preset_id"] = owner or ownership.owner_of(work, "preset")
    try:
        ownership.fault_point("write", os.path.join(work, MODEL))
        classifier.save(os.path.join(work, MODEL))
        ownership.write_text(os.path.join(work, VOCAB),
                             "\n".join(classifier.preprocessor.vocabulary) + "\n")
        for name, data in ((METADATA, metadata), ("metrics.json", metrics),
                           ("config.json", config)):
            if data is not None:
                ownership.write_json(os.path.join(work, name), data, default=str)
        ownership.write_text(os.path.join(work, CARD), model_card(metadata, metrics, config))
        if hub:
            with _hub_errors(target, "uploading to"):
                api = hub_module.HfApi(library_name="kerasattn", library_version=__version__)
                repo_id = api.create_repo(repo, exist_ok=True).repo_id
                api.upload_folder(repo_id=repo_id, folder_path=work,
                                  commit_message="Save a kerasattn preset")
            return target
        # the old preset renamed aside, the new one renamed in, then the old one deleted:
        # a kill at any point leaves one of them whole (recover() on the next save)
        ownership.replace_dir(work, target, "preset", is_legacy_preset)
        return target
    finally:
        if os.path.isdir(work) and ownership.owner_of(work, "preset"):
            shutil.rmtree(work)
