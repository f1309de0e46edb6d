"""Crash-point and fault-injection harness (run as ``python -m tests.crash_harness``).

Every write and rename kerasattn makes goes through :mod:`kerasattn.ownership`, which
calls ``fault_point`` first. This harness runs a command once to count those points
(``KERASATTN_FAULT_LOG``), then, for every point n, starts the command again from the
same files with ``KERASATTN_FAULT=n:ACTION``:

- ``kill``: the process is SIGKILLed at its n-th write or rename;
- ``enospc`` / ``erofs``: that write fails as on a full disk / a read-only file system.

After each fault it checks that no file outside kerasattn's own directories changed
(the user's files, the data, a folder of someone else's beside the runs), that every
file in kerasattn's directories is whole (JSON parses, zip archives test clean, PNGs
end), that a refused write printed exactly one ``error:`` line and no traceback, and
then that the same command, run again without a fault, succeeds and leaves no leftover.

Each command runs in a child forked from one process that imported kerasattn's command
modules and ran no TensorFlow op (so each child starts TensorFlow afresh, in well under
the cost of a new interpreter). It prints one JSON object: ``{"points": N, "checked":
K, "failures": [...]}``.

    python -m tests.crash_harness SCENARIO WORKDIR [--actions kill,enospc] [--stride S]
"""

import argparse
import hashlib
import json
import os
import shutil
import signal
import sys
import time
import zipfile

MARKER = ".kerasattn"
TIMEOUT = 240


# -- running one command in a forked child --------------------------------------------
def run_forked(argv_main, cwd, env, timeout=TIMEOUT):
    """Run ``main(argv)`` (``argv_main = (main, argv)``) in a forked child with ``env``
    added; returns ``(rc, stdout, stderr)``; rc is ``-signal`` for a killed child."""
    main, argv = argv_main
    out_path, err_path = os.path.join(cwd, ".harness.out"), os.path.join(cwd, ".harness.err")
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child
        rc = 98
        try:
            os.chdir(cwd)
            os.environ.update(env)
            from kerasattn import ownership

            ownership._calls = 0
            out = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            err = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(out, 1)
            os.dup2(err, 2)
            try:
                rc = main(list(argv))
            except SystemExit as e:
                rc = e.code if isinstance(e.code, int) else 1
            except BaseException:  # noqa: BLE001 - reported as a traceback
                import traceback

                traceback.print_exc()
                rc = 99
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(rc or 0)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "timeout", "", ""
        time.sleep(0.05)
    rc = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    texts = []
    for path in (out_path, err_path):
        with open(path, encoding="utf-8", errors="replace") as fh:
            texts.append(fh.read())
        os.remove(path)
    return rc, texts[0], texts[1]


# -- what must hold after every fault ---------------------------------------------------
def owned_dirs(root):
    """Directories under ``root`` that carry a kerasattn marker."""
    found = []
    for d, dirs, files in os.walk(root):
        if MARKER in files:
            found.append(d)
    return found


def snapshot(root, skip):
    """{relative path: sha256 (or link target)} of every entry under ``root`` outside
    the directories in ``skip`` (and the harness's own output files)."""
    skip = [os.path.abspath(s) for s in skip]
    files = {}
    for d, dirs, names in os.walk(root):
        if any(os.path.abspath(d) == s or os.path.abspath(d).startswith(s + os.sep)
               for s in skip):
            dirs[:] = []
            continue
        for n in names + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
            p = os.path.join(d, n)
            rel = os.path.relpath(p, root)
            # the harness's output, and kerasattn's files beside their place
            # (leftovers() checks that a recovered command left none)
            if n.startswith(".harness.") or is_temporary(n):
                continue
            if os.path.islink(p):
                files[rel] = "link:" + os.readlink(p)
            else:
                with open(p, "rb") as fh:
                    files[rel] = hashlib.sha256(fh.read()).hexdigest()
    return files


def is_temporary(name):
    from kerasattn import ownership

    return ownership.is_temporary(name)


def damaged_files(directory):
    """Files in a kerasattn directory that are not whole (their kind's check fails)."""
    bad = []
    for d, _, names in os.walk(directory):
        for n in names:
            p = os.path.join(d, n)
            if os.path.islink(p) or is_temporary(n):
                continue
            try:
                if n.endswith(".json") or n == MARKER:
                    with open(p, encoding="utf-8") as fh:
                        json.load(fh)
                elif n.endswith((".keras", ".skops", ".npz")):
                    with zipfile.ZipFile(p) as z:
                        if z.testzip() is not None:
                            raise ValueError("a damaged member")
                elif n.endswith(".png"):
                    with open(p, "rb") as fh:
                        data = fh.read()
                    if not data.startswith(b"\x89PNG") or b"IEND" not in data[-16:]:
                        raise ValueError("cut short")
            except (OSError, ValueError, zipfile.BadZipFile) as e:
                bad.append(f"{os.path.relpath(p, os.path.dirname(directory))}: {e}")
    return bad


def leftovers(root):
    """kerasattn's own leftovers after a command succeeded: temporary files, and
    directories set aside or half built (``.NAME.old-ID`` / ``.NAME.new-ID``)."""
    found = []
    for d, dirs, names in os.walk(root):
        for n in names:
            if is_temporary(n):
                found.append(os.path.relpath(os.path.join(d, n), root))
        for n in dirs:
            if ".old-" in n or ".new-" in n:
                found.append(os.path.relpath(os.path.join(d, n), root))
    return found


def one_error_line(err):
    lines = [line for line in err.splitlines() if line.strip()]
    # TensorFlow's C++ start-up lines are not the command's words
    lines = [line for line in lines if not line.startswith(("WARNING: All log messages",
                                                           "I0000", "W0000", "E0000"))]
    return len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err


# -- scenarios ------------------------------------------------------------------------
def _csv(path, rows=60):
    import random

    rng = random.Random(0)
    pos, neg = "good great fine lovely superb".split(), "bad awful dull poor weak".split()
    with open(path, "w") as fh:
        fh.write("text,label\n")
        for i in range(rows):
            fh.write(f"{' '.join(rng.choices(pos if i % 2 else neg, k=5))},"
                     f"{'pos' if i % 2 else 'neg'}\n")


def _user_files(base):
    """What a user keeps beside the runs: a project folder that looks a bit like a
    run, a notes file, and a link from inside the outputs to a file of theirs."""
    os.makedirs(os.path.join(base, "runs", "proj", "src"))
    with open(os.path.join(base, "runs", "proj", "config.json"), "w") as fh:
        fh.write('{"name": "app"}\n')
    with open(os.path.join(base, "runs", "proj", "src", "main.py"), "w") as fh:
        fh.write("print('mine')\n")
    with open(os.path.join(base, "notes.md"), "w") as fh:
        fh.write("my notes\n")


def _train_argv(model, epochs=1):
    return ["--model", model, "--dataset", "csv:small.csv", "--output-dir", "runs",
            "--run-name", "r", "--verbose", "0", *(["--epochs", str(epochs),
                                                    "--batch-size", "16"]
                                                   if model != "nb" else [])]


def scenario(name, base):
    """(setup(base), main, argv, owned roots to skip in the snapshot, success check)."""
    from kerasattn.cli import evaluate, export, train

    def finished(root):
        return os.path.isfile(os.path.join(root, "runs", "r", "metrics.json"))

    if name in ("train-nb", "train-mlp"):
        model = name.split("-")[1]

        def setup(root):
            _csv(os.path.join(root, "small.csv"))
            _user_files(root)
        return setup, train.main, _train_argv(model), finished
    if name in ("export", "preset", "evaluate"):
        def setup(root):
            _csv(os.path.join(root, "small.csv"))
            _user_files(root)
            # a Keras run to export; a scikit-learn one (quicker) for evaluate --write
            rc, out, err = run_forked((train.main, _train_argv(
                "nb" if name == "evaluate" else "mlp")), root, {})
            if rc != 0:
                raise RuntimeError(f"setup: train failed ({rc}): {err[-2000:]}")
            if name == "preset":  # an old preset to replace
                rc, out, err = run_forked((export.main, ["--run", "runs/r", "--preset",
                                                         "presets/p"]), root, {})
                if rc != 0:
                    raise RuntimeError(f"setup: export --preset failed: {err[-2000:]}")
        if name == "export":
            argv = ["--run", "runs/r", "--output", "served/m/1"]

            def ok(root):
                return os.path.isfile(os.path.join(root, "served", "m", "1", "saved_model.pb"))
            return setup, export.main, argv, ok
        if name == "preset":
            argv = ["--run", "runs/r", "--preset", "presets/p", "--overwrite"]

            def ok(root):
                return os.path.isfile(os.path.join(root, "presets", "p", "model.keras"))
            return setup, export.main, argv, ok
        return setup, evaluate.main, ["--run", "runs/r", "--write"], finished
    raise SystemExit(f"unknown scenario {name!r}")


def _preimport():
    """Import, once, what the commands import (no TensorFlow op runs): each forked child
    then starts in a fraction of a second instead of seconds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401
    import keras  # noqa: F401
    import skops.io  # noqa: F401
    import sklearn.feature_extraction.text  # noqa: F401
    import sklearn.linear_model  # noqa: F401
    import sklearn.naive_bayes  # noqa: F401
    import tensorflow  # noqa: F401

    import kerasattn.data.pipeline  # noqa: F401
    import kerasattn.export  # noqa: F401
    import kerasattn.metrics  # noqa: F401
    import kerasattn.models  # noqa: F401
    import kerasattn.preset_dirs  # noqa: F401
    import kerasattn.run_plots  # noqa: F401
    import kerasattn.tasks  # noqa: F401
    import kerasattn.training.trainer  # noqa: F401


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("scenario")
    p.add_argument("workdir")
    p.add_argument("--actions", default="kill,enospc,erofs")
    p.add_argument("--stride", type=int, default=1, help="every S-th point (and the last)")
    p.add_argument("--cases", help="instead of every point: ACTION@N,... where N counts "
                                   "from 1, or from the end when negative (-1: the last "
                                   "write), or is 'mid'")
    args = p.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    _preimport()
    setup, main_fn, cmd, ok = scenario(args.scenario, args.workdir)
    pristine = os.path.join(args.workdir, "pristine")
    os.makedirs(pristine)
    setup(pristine)
    # count the points: one run without faults
    log = os.path.join(args.workdir, "points.log")
    reference = pristine if args.scenario == "evaluate" else \
        os.path.join(args.workdir, "reference")
    if reference != pristine:
        shutil.copytree(pristine, reference, symlinks=True)
    rc, out, err = run_forked((main_fn, cmd), reference, {"KERASATTN_FAULT_LOG": log})
    failures = []
    if rc != 0 or not ok(reference):
        failures.append(f"the command without faults failed ({rc}): {err[-1500:]}")
        print(json.dumps({"points": 0, "checked": 0, "failures": failures}))
        return 0
    with open(log) as fh:
        points = len(fh.read().splitlines())
    chosen = sorted(set(range(1, points + 1, args.stride)) | {points})
    cases = [(a, n) for a in args.actions.split(",") for n in chosen]
    if args.cases:
        cases = []
        for case in args.cases.split(","):
            action, _, at = case.partition("@")
            n = points // 2 + 1 if at == "mid" else int(at)
            cases.append((action, n if n > 0 else points + 1 + n))
    checked = 0
    for action, n in cases:
        if True:
            where = f"{action} at point {n}/{points}"
            root = os.path.join(args.workdir, f"{action}-{n}")
            if args.scenario == "evaluate":  # a run names its data by absolute path
                os.makedirs(root)
                setup(root)
            else:
                shutil.copytree(pristine, root, symlinks=True)
            before = snapshot(root, owned_dirs(root))
            rc, out, err = run_forked((main_fn, cmd), root,
                                      {"KERASATTN_FAULT": f"{n}:{action}"})
            if action == "kill" and rc != -signal.SIGKILL:
                failures.append(f"{where}: expected a kill, got rc {rc}: {err[-800:]}")
            if action != "kill" and (rc not in (1, 2) or not one_error_line(err)):
                failures.append(f"{where}: expected one error line and rc 1 or 2, got rc "
                                f"{rc}: {err[-1500:]}")
            owned = owned_dirs(root)
            after = snapshot(root, owned)
            changed = sorted(k for k in set(before) | set(after)
                             if before.get(k) != after.get(k)
                             and not any(os.path.join(root, k).startswith(o + os.sep)
                                         for o in owned))
            # a directory kerasattn made in this run is new in "after" only when marked;
            # anything else that changed outside kerasattn's own is a defect
            if changed:
                failures.append(f"{where}: files outside kerasattn's own changed: {changed}")
            for o in owned:
                for bad in damaged_files(o):
                    failures.append(f"{where}: half-written: {bad}")
            rc2, _, err2 = run_forked((main_fn, cmd), root, {})
            if rc2 != 0 or not ok(root):
                failures.append(f"{where}: the same command did not recover (rc {rc2}): "
                                f"{err2[-1500:]}")
            else:
                left = [x for x in leftovers(root) if not x.startswith("pristine")]
                if left:
                    failures.append(f"{where}: leftovers after recovery: {left}")
                final = snapshot(root, owned_dirs(root))
                changed = sorted(k for k in before if before[k] != final.get(k))
                if changed:
                    failures.append(f"{where}: after recovery, files outside kerasattn's "
                                    f"own changed: {changed}")
            for o in owned_dirs(root):
                for bad in damaged_files(o):
                    failures.append(f"{where} (after recovery): half-written: {bad}")
            checked += 1
            shutil.rmtree(root)
    print(json.dumps({"points": points, "checked": checked, "failures": failures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
