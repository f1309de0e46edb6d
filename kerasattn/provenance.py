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
uncommitted changes; an installed copy with no checkout records ``commit: null`` (the
``kerasattn`` version says which release). A record is "after" a change only when its
commit descends from that change's commit.
"""

import datetime
import os
import platform
import shlex
import subprocess
import sys


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def code_version():
    """``{"kerasattn", "commit", "dirty"}``: the package version, and the git commit of
    the checkout it runs from and whether its tracked files differ from it (None when
    the package is not run from a git checkout, or git is missing)."""
    from kerasattn import __version__

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found = {"kerasattn": __version__, "commit": None, "dirty": None}
    if not os.path.exists(os.path.join(root, ".git")):
        return found
    try:
        head = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=20)
        status = subprocess.run(["git", "-C", root, "status", "--porcelain",
                                 "--untracked-files=no"], capture_output=True, text=True,
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
    import keras

    backend = keras.backend.backend()
    gpus = []
    try:
        if backend == "tensorflow":
            import tensorflow as tf

            gpus = [tf.config.experimental.get_device_details(g).get("device_name", g.name)
                    for g in tf.config.list_physical_devices("GPU")]
        elif backend == "jax":
            import jax

            gpus = [str(getattr(d, "device_kind", d)) for d in jax.devices()
                    if d.platform != "cpu"]
        elif backend == "torch":
            import torch

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
