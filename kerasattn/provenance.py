"""Where a record came from: the code, the command, the machine, the time, what cut it.

Every run's ``config.json`` holds ``"provenance"`` from :func:`started` and its
``metrics.json`` the same completed by :func:`finished`::

    {"kerasattn": "0.1.0", "commit": "796eb2f...", "dirty": false,
     "command": "python -m training.train --model cnn ...", "seed": 0,
     "backend": "tensorflow", "cpu": "Intel(R) Xeon(R) ...", "cores": 2, "gpus": [],
     "versions": {"python": "3.11.7", "keras": "3.15.1", "tensorflow": "2.21.0", ...},
     "started_utc": "2026-12-02T09:30:00+00:00",
     "ended_utc": "...", "wall_seconds": 41.2, "cut": ["early stopping after epoch 3 of 10"]}

``commit`` is the checkout's ``HEAD`` and ``dirty`` whether tracked files had
uncommitted changes, the records under ``benchmarks/results/`` aside (a benchmark writes
its page between measurements: that is no change of the code measured); an installed
copy with no checkout records ``commit: null`` (the ``kerasattn`` version says which
release). A record is "after" a change only when its
commit descends from that change's commit.

Benchmarks and experiments (``benchmarks/*.py``, :mod:`kerasattn.experiments`) give
every entry they write the same record, ``"provenance"``, of the process that measured
it (:func:`started` before the measurement, :func:`entry` after). An entry measured from
a trained run adds ``"run"``, that run's own record (:func:`of_run`; ``"runs"``, one per
seed, for an entry of several seeds' runs); a run recorded before provenance existed
gives ``commit: null`` and ``commit_unknown`` (never a guessed commit). A Markdown table
beside the JSON names the commit and the device in one line (:func:`describe`;
:func:`commits_line` for entries of several runs).
"""

import datetime
import json
import os
import platform
import shlex
import subprocess
import sys

from kerasattn import __version__


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


# what a measurement writes into the checkout: changes there leave the code as it was
RECORDS_DIR = "benchmarks/results"


def code_version(root=None):
    """``{"kerasattn", "commit", "dirty"}``: the package version, and the git commit of
    the checkout ``root`` (default: the one this package runs from) and whether its
    tracked files differ from it, the records under :data:`RECORDS_DIR` aside (None when
    the package is not run from a git checkout, or git is missing)."""
    root = root or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found = {"kerasattn": __version__, "commit": None, "dirty": None}
    if not os.path.exists(os.path.join(root, ".git")):
        return found
    try:
        head = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=20)
        status = subprocess.run(["git", "-C", root, "status", "--porcelain",
                                 "--untracked-files=no", "--", ".",
                                 f":(exclude){RECORDS_DIR}"], capture_output=True, text=True,
                                timeout=60)
    except (OSError, subprocess.SubprocessError):
        return found
    if head.returncode == 0:
        found["commit"] = head.stdout.strip()
        found["dirty"] = bool(status.stdout.strip()) if status.returncode == 0 else None
    return found


def cpu_model():
    """The CPU's model name (``/proc/cpuinfo``; else what ``platform`` says)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def device():
    """``{"backend", "cpu", "cores", "gpus"}``: the Keras backend, the CPU model and
    its cores, and the names of the accelerators the backend sees."""
    # late: this module loads without Keras (kerasattn.experiments imports it), and
    # versions() records only the libraries the process itself imported
    import keras  # late: see above

    backend = keras.backend.backend()
    gpus = []
    try:
        if backend == "tensorflow":
            import tensorflow as tf  # optional: only the backend Keras runs on is there

            gpus = [tf.config.experimental.get_device_details(g).get("device_name", g.name)
                    for g in tf.config.list_physical_devices("GPU")]
        elif backend == "jax":
            import jax  # optional: as tensorflow

            gpus = [str(getattr(d, "device_kind", d)) for d in jax.devices()
                    if d.platform != "cpu"]
        elif backend == "torch":
            import torch  # optional: as tensorflow

            gpus = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    except Exception:  # noqa: BLE001 - a device query never fails a run's record
        gpus = ["unknown"]
    return {"backend": backend, "cpu": cpu_model(), "cores": os.cpu_count(), "gpus": gpus}


def versions():
    """Python and the libraries a run used (those imported in this process)."""
    found = {"python": platform.python_version()}
    for name, module in (("keras", "keras"), ("tensorflow", "tensorflow"), ("jax", "jax"),
                         ("torch", "torch"), ("scikit_learn", "sklearn")):
        if module in sys.modules:
            found[name] = getattr(sys.modules[module], "__version__", None)
    return found


def started(command=None, seed=None):
    """The record of a run that starts now: code, ``command`` (default: this process's
    command line), ``seed``, device, versions and the UTC start time."""
    return {**code_version(),
            "command": command or shlex.join([os.path.basename(sys.executable)]
                                             + sys.argv),
            "seed": seed, **device(), "versions": versions(), "started_utc": utc_now()}


def finished(record, cut=None):
    """``record`` (from :func:`started`) with the UTC end time, the wall seconds since
    it started and ``cut``: what ended the run before its configured end (a list of
    sentences, empty when nothing did)."""
    end = datetime.datetime.now(datetime.timezone.utc)
    start = datetime.datetime.fromisoformat(record["started_utc"])
    return {**record, "ended_utc": end.isoformat(timespec="seconds"),
            "wall_seconds": round((end - start).total_seconds(), 1), "cut": list(cut or [])}


def cut_of(metrics, epochs=None):
    """What ended a run early or broke it, from its ``metrics.json`` fields: a time
    limit, early stopping (fewer epochs than ``epochs`` without a time limit), an
    interruption it was resumed after."""
    cut = []
    limit = metrics.get("time_limit") or {}
    if limit.get("reached"):
        cut.append(f"time limit of {limit.get('seconds', '?')} s")
    elif epochs and metrics.get("epochs_run") and metrics["epochs_run"] < epochs:
        cut.append(f"early stopping after epoch {metrics['epochs_run']} of {epochs}")
    if metrics.get("resumed_after_epoch"):
        cut.append(f"interrupted, resumed after epoch {metrics['resumed_after_epoch']}")
    return cut


# what a record that cannot prove its commit says (``commit_unknown``)
COMMIT_UNKNOWN = "commit unknown"


def command_of(prog, argv=None):
    """``python -m PROG ARGS``: a benchmark's command line, its arguments ``argv`` (default
    this process's), quoted as a shell would need them."""
    return shlex.join(["python", "-m", prog,
                       *(sys.argv[1:] if argv is None else [str(a) for a in argv])])


def unknown(reason, **known):
    """The record of something made before provenance was recorded: ``commit`` and
    ``dirty`` null and ``commit_unknown`` saying why (``"commit unknown: REASON"``), with
    the fields that can still be read elsewhere (``known``)."""
    return {"commit": None, "dirty": None, "commit_unknown": f"{COMMIT_UNKNOWN}: {reason}",
            **known}


def _read(path):
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def of_run(run_dir):
    """A finished run's own record: ``metrics.json``'s ``"provenance"``; for a run that
    predates it, :func:`unknown` with what its files still prove (the command and seed
    from ``config.json``, ``cut`` from ``metrics.json``'s fields)."""
    metrics = _read(os.path.join(run_dir, "metrics.json")) or {}
    if isinstance(metrics.get("provenance"), dict):
        return metrics["provenance"]
    config = _read(os.path.join(run_dir, "config.json")) or {}
    epochs = (config.get("train") or {}).get("epochs") if config.get("kind") != "classical" \
        else None
    known = {k: config[k] for k in ("command", "seed") if k in config}
    return unknown("the run's metrics.json predates provenance", **known,
                   cut=cut_of(metrics, epochs))


def entry(start, cut=None, run_dir=None, run_dirs=None):
    """The ``"provenance"`` of a benchmark's or an experiment's entry: :func:`finished`
    on ``start`` (from :func:`started` before the measurement) with ``cut``. An entry
    measured from one trained run (``run_dir``) adds ``"run"``, that run's own record
    (:func:`of_run`); an entry of several seeds' runs (``run_dirs``) adds ``"runs"``, one
    each. What cut a run joins ``cut`` (prefixed by the run's folder when there are
    several)."""
    found = [of_run(d) for d in ([run_dir] if run_dir else run_dirs or [])]
    cut = list(cut or [])
    for d, run in zip([run_dir] if run_dir else run_dirs or [], found):
        cut += [c if run_dir else f"{os.path.basename(os.path.normpath(d))}: {c}"
                for c in run.get("cut") or []]
    record = finished(start, cut)
    if run_dir:
        record["run"] = found[0]
    elif run_dirs is not None:
        record["runs"] = found
    return record


def commit_label(record):
    """``abc1234`` (short), ``abc1234 + uncommitted changes``, ``no checkout, kerasattn
    0.1.0`` (an installed copy) or ``commit unknown``."""
    record = record or {}
    commit = record.get("commit")
    if not commit:
        # run from an installed copy (no checkout): the release says which code it was
        return (f"no checkout, kerasattn {record['kerasattn']}"
                if record.get("kerasattn") and "commit_unknown" not in record
                else COMMIT_UNKNOWN)
    return commit[:7] + (" + uncommitted changes" if record.get("dirty") else "")


def device_label(record):
    """``Intel(R) Xeon(R) ..., 2 cores, no GPU (Keras backend tensorflow)``, or what of it
    ``record`` holds."""
    record = record or {}
    if not record.get("cpu") and not record.get("gpus"):
        return "device unknown"
    gpus = record.get("gpus") or []
    return (f"{record.get('cpu') or 'CPU unknown'}, {record.get('cores') or '?'} cores, "
            + (", ".join(gpus) if gpus else "no GPU")
            + (f" (Keras backend {record['backend']})" if record.get("backend") else ""))


def commit_text(record):
    """:func:`commit_label` for Markdown: ``commit `abc1234``` (a code span), or as is."""
    label = commit_label(record)
    return f"commit `{label}`" if (record or {}).get("commit") else label


def describe(record, label="Provenance"):
    """One Markdown line naming the commit (:func:`commit_label`) and the device of
    ``record``, and when it ran (``LABEL: commit `abc1234`; CPU, 2 cores, no GPU ...``)."""
    record = record or {}
    return (f"{label}: {commit_text(record)}; {device_label(record)}"
            + (f"; {record['started_utc']} to {record['ended_utc']} "
               f"({record['wall_seconds']:g} s)" if record.get("ended_utc") else "")
            + ".")


def commits_line(records, label="Provenance"):
    """One Markdown line naming the commits of several entries (``records``: name ->
    record, None for an entry without one), each with the entries it holds."""
    by = {}
    for name, record in records.items():
        by.setdefault(commit_text(record), []).append(str(name))
    if len(by) == 1:
        return f"{label}: {next(iter(by))} (every entry)."
    return f"{label} (commit: entries): " + "; ".join(
        f"{label}: {', '.join(names)}" for label, names in sorted(by.items())) + "."
