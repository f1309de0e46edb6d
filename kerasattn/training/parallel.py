"""``training.portable fit --parallel N``: prepared runs fitted in processes of their
own, at most N at once, for one accelerator shared by small models.

The scheduling is :class:`concurrent.futures.ThreadPoolExecutor`'s: each of its N
threads starts one ``python -m kerasattn.cli.portable fit`` process at a time and
waits for it; a line is printed as each run ends, and an interruption stops the
processes still going.
"""

import concurrent.futures
import os
import subprocess
import sys
import threading
import time

from kerasattn import runs

# the checkout (or site-packages) that holds kerasattn, for the processes' PYTHONPATH
_HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fit_parallel(run_dirs, parallel, flags):
    """Fit each run in a process of its own, at most ``parallel`` at once, for one
    accelerator shared by small models. Each process writes its output to the run's
    ``fit.log``; under JAX it takes a fixed share of the GPU's memory
    (``XLA_PYTHON_CLIENT_MEM_FRACTION`` = 0.9 / ``parallel``, preallocated), under
    TensorFlow it grows into what it needs, unless those variables are set already
    (each JAX process otherwise keeps the memory it has once used, and the last ones
    to grow run out). ``flags``: the other ``fit`` arguments, given to each process.
    Returns the number of runs that failed; a line is printed as each run ends."""
    processes = _Processes(_environment(parallel), flags)
    failed, done = 0, 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=parallel) as pool:
        try:
            futures = [pool.submit(processes.run, run_dir) for run_dir in run_dirs]
            for future in concurrent.futures.as_completed(futures):
                done += 1
                run_dir, returncode, seconds = future.result()
                failed += not _report(f"[{done}/{len(run_dirs)}] {run_dir}", run_dir,
                                      returncode, seconds)
        finally:  # interrupted: start no more, stop the runs still going
            pool.shutdown(wait=False, cancel_futures=True)
            processes.stop()
    return failed


def _environment(parallel):
    env = dict(os.environ)
    env.setdefault("XLA_PYTHON_CLIENT_MEM_FRACTION", f"{0.9 / parallel:.3f}")
    env.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "true")
    env.setdefault("TF_FORCE_GPU_ALLOW_GROWTH", "true")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_HERE, env.get("PYTHONPATH")) if p)
    return env


class _Processes:
    """The ``fit`` processes of :func:`fit_parallel`, one per run, and their stop."""

    def __init__(self, env, flags):
        self.env, self.flags = env, flags
        self.running, self.stopped = set(), False
        self.lock = threading.Lock()

    def run(self, run_dir):
        """Fit ``run_dir`` in a process writing to its ``fit.log``; ``(run_dir, exit
        code, seconds)`` once it has ended."""
        with open(os.path.join(run_dir, runs.FIT_LOG), "w") as log:
            with self.lock:
                if self.stopped:
                    return run_dir, None, 0.0
                process = subprocess.Popen(
                    [sys.executable, "-m", "kerasattn.cli.portable", "fit", "--run", run_dir,
                     *self.flags], stdout=log, stderr=subprocess.STDOUT, env=self.env)
                self.running.add(process)
            start = time.perf_counter()
            print(f"started {run_dir} (output: {os.path.join(run_dir, runs.FIT_LOG)})",
                  flush=True)
            process.wait()
            with self.lock:
                self.running.discard(process)
        return run_dir, process.returncode, time.perf_counter() - start

    def stop(self):
        """Start no more processes and end those still going."""
        with self.lock:
            self.stopped = True
            going = list(self.running)
        for process in going:
            process.terminate()
            process.wait()


def _report(where, run_dir, returncode, seconds):
    """Print how the run in ``run_dir`` ended; whether it finished."""
    metrics_path = os.path.join(run_dir, runs.METRICS)
    if returncode == 0 and os.path.exists(metrics_path):
        m = runs.read_json(metrics_path)
        print(f"{where}: test accuracy {m['test']['accuracy']:.4f}, validation "
              f"{m['val']['accuracy']:.4f} (best epoch {m['best_epoch']}) in "
              f"{seconds:.0f}s", flush=True)
        return True
    with open(os.path.join(run_dir, runs.FIT_LOG), errors="replace") as fh:
        said = [line.strip() for line in fh.read().replace("\r", "\n").splitlines()
                if line.strip().startswith("error:")]
    reason = said[-1][len("error:"):].strip() if said else f"exit code {returncode}"
    print(f"error: {where} failed after {seconds:.0f}s: {reason} (see "
          f"{os.path.join(run_dir, runs.FIT_LOG)})", file=sys.stderr, flush=True)
    return False
