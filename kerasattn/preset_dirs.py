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
  paper, the recipe's settings, the class names and the versions that wrote it;
- ``vocab.txt``: the vocabulary, one token a line (id = line number);
- ``metrics.json`` and ``config.json``: the run's, when it came from a run directory
  (``TextClassifier.from_run`` or ``kerasattn export --run RUN --preset DIR``);
- ``README.md``: a model card made from them (data, accuracy with its interval, the
  command, the paper).

The Hub is reached through ``huggingface_hub`` (``pip install kerasattn[hub]``), with the
calls Keras 3 makes for ``hf://`` (``HfApi.create_repo`` and ``upload_folder``,
``snapshot_download``).
"""

import json
import math
import os
import shutil
import tempfile

from kerasattn import __version__, models, ownership, runs

FORMAT = "kerasattn.preset/1"
MODEL, METADATA, VOCAB, CARD = "model.keras", "metadata.json", "vocab.txt", "README.md"
HUB = "hf://"
# what save() writes: a directory without a marker is an old preset only when it holds
# nothing else
PRESET_FILES = frozenset({MODEL, METADATA, VOCAB, CARD, "metrics.json", "config.json"})


class PresetError(ValueError):
    """A preset location that cannot be read or written (one line, no partial output)."""


def is_location(preset):
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


def _repo(handle):
    repo = handle[len(HUB):].strip("/")
    if repo.count("/") != 1 or not all(repo.split("/")):
        raise PresetError(f"{handle}: an hf:// preset is hf://NAMESPACE/NAME")
    return repo


def local_path(preset):
    """A local directory or ``.keras`` file for ``preset`` (an ``hf://`` repository is
    downloaded first); :class:`PresetError` for a location that is not a preset."""
    preset = os.fspath(preset)
    if preset.startswith(HUB):
        return _hub().snapshot_download(repo_id=_repo(preset), library_name="kerasattn",
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


def load(preset, compile=True):
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


def is_legacy_preset(path):
    """Whether ``path``, without a marker, is a preset directory written before markers
    existed: a ``metadata.json`` of :data:`FORMAT`, a ``model.keras`` and nothing else
    than a preset's files."""
    try:
        read_metadata(path)
    except PresetError:
        return False
    names = set(os.listdir(path))
    return MODEL in names and names <= PRESET_FILES


def read_metadata(path):
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


def model_card(metadata, metrics=None, config=None):
    """The preset's ``README.md``: what it is, its data and accuracy (with the 95 %
    interval over the test texts), the command that trained it, the paper."""
    name = metadata.get("name") or metadata["preset"]
    lines = ["---", "library_name: kerasattn", "tags: [keras, text-classification]", "---",
             "", f"# {name}", "",
             f"A `{metadata['preset']}` text classifier ({metadata.get('description', '')}) "
             "of [kerasattn](https://pypi.org/project/kerasattn/), for raw strings:", "",
             "```python", "import kerasattn", "",
             f'clf = kerasattn.TextClassifier.from_preset("{metadata.get("location", name)}")',
             'print(clf.predict_labels(["a gripping, moving film"]))', "```", "",
             f"Classes: {', '.join(map(str, metadata.get('class_names') or []))}.", ""]
    if metadata.get("paper"):
        lines += [f"Paper: {metadata['paper']}.", ""]
    recipe = metadata.get("recipe") or {}
    lines += [f"Recipe: `{recipe.get('name', 'default')}` ({recipe.get('description', '')}).",
              ""]
    if config:
        lines += ["## Data", "", f"Dataset `{config.get('dataset')}`"
                  + (f", {', '.join(f'{k} {v:,}' for k, v in config['dataset_sizes'].items())}"
                     " texts" if config.get("dataset_sizes") else "") + ".", ""]
        if config.get("command"):
            lines += ["Trained with:", "", "```bash", config["command"], "```", ""]
    if metrics:
        test, val = metrics.get("test", {}), metrics.get("val", {})
        lines += ["## Accuracy", ""]
        for split, m in (("test", test), ("validation", val)):
            if "accuracy" in m:
                low, high = _interval(m["accuracy"], m.get("examples") or 0)
                lines.append(f"- {split}: {m['accuracy']:.4f} (95 % interval over its "
                             f"{m.get('examples', 0):,} texts: {low:.4f}–{high:.4f})"
                             + (f", macro F1 {m['f1_macro']:.4f}" if "f1_macro" in m else ""))
        lines += ["", "One training run (its seed in the command); the zoo's figures over "
                  "three seeds are in its benchmarks.", ""]
        if not (metrics.get("learning") or {}).get("learned", True):
            lines += ["**This run did not learn** (validation accuracy near the majority "
                      "class rate).", ""]
    return "\n".join(lines)


def save(classifier, target, run_dir=None, overwrite=False):
    """Write ``classifier`` as a preset at ``target`` (a directory, or ``hf://NS/NAME``);
    ``run_dir``: the run directory it came from (its ``metrics.json`` and ``config.json``
    go along). The directory is written whole or not at all; an existing one is refused
    unless empty or ``overwrite``. Returns ``target``."""
    import keras  # late: as in load

    target = os.fspath(target)
    if classifier.backbone is None:
        raise PresetError("nothing to save: the classifier has not been fitted")
    hub = target.startswith(HUB)
    if hub:
        repo = _repo(target)
    elif os.path.lexists(target) and not ownership.is_empty_dir(target):
        if not overwrite:
            raise PresetError(f"{target} exists; pass overwrite=True (--overwrite) to replace "
                              "it")
        try:  # only a preset directory kerasattn wrote is replaced
            ownership.require_owned(target, "preset", is_legacy_preset)
        except ownership.OwnershipError as e:
            raise PresetError(f"{e}; it is not replaced") from None
    spec = models.get_preset(classifier.preset)
    recipe = {"name": classifier.recipe, "train": classifier._settings,
              "model_options": classifier.model_options}
    metadata = {"format": FORMAT, "name": os.path.basename(target.rstrip("/")),
                "location": target, "preset": classifier.preset, "family": spec.family,
                "paper": spec.paper, "description": spec.description,
                "hierarchical": spec.hierarchical, "recipe": recipe,
                "class_names": [str(c) for c in classifier.class_names],
                "versions": {"kerasattn": __version__, "keras": keras.__version__}}
    metrics = config = None
    if run_dir is not None:
        try:
            config = runs.open_run(run_dir)  # checked: a finished run of kerasattn's
            metrics = runs.read_json(os.path.join(run_dir, runs.METRICS))
        except runs.RunError as e:
            raise PresetError(str(e)) from None
        metadata["command"] = config.get("command")
    from kerasattn import recipes  # late: it imports Keras (as in load)

    try:
        metadata["recipe"]["description"] = recipes.get_recipe(classifier.preset,
                                                               classifier.recipe).description
    except ValueError:  # a recipe registered in another process
        metadata["recipe"]["description"] = ""
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
            hub_module = _hub()
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
