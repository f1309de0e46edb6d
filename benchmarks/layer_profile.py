"""Where a training step spends its time, layer by layer (TensorFlow's profiler).

    python -m benchmarks.layer_profile [--models sanet-base hcan-2sa-target] [--length 256]
    tensorboard --logdir runs/profile          # the same traces, in TensorBoard's profile tab

Trains each preset for a few steps on a fixed batch of random ids (``--batch``
texts of ``--length`` tokens; hierarchical models: the same tokens as
sentences x words), after warm-up, under ``tf.profiler.experimental``; reads
the trace back (the XPlane protocol buffer the profiler writes) and adds up
the time of every TensorFlow op by the layer that made it (its name scope;
the gradient of a layer's ops counts as that layer's backward time) and by
op type. Ops of the two executor threads may overlap, so shares are of the
summed op time, not of the wall time. Writes ``benchmarks/results/layer_profile.md``,
with one line naming the commit, the device and when it ran (``kerasattn.provenance``).
"""

import collections
import datetime
import glob
import os
import re
import shlex
import sys
import time

from kerasattn.cli.parsing import ArgumentParser

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def _layer_of(op_name, model_name):
    """("layer/sub-layer", "forward"|"backward"|"optimizer") of a profiled op name."""
    backward = op_name.startswith("gradient_tape/")
    path = op_name.split(":")[0]
    if backward:
        path = path[len("gradient_tape/"):]
    parts = [re.sub(r"(_\d+)+$", "", p) for p in path.split("/")]
    if parts and parts[0] == re.sub(r"(_\d+)+$", "", model_name):
        parts = parts[1:]
        layer = "/".join(parts[:2]) if len(parts) > 2 else parts[0] if parts else "?"
        return layer, "backward" if backward else "forward"
    return parts[0] if parts else "?", "optimizer and other"


def aggregate(xplane_path, model_name):
    """{(layer, phase): ps}, {op type: ps} and the total op time of a trace."""
    from tensorflow.tsl.profiler.protobuf import xplane_pb2

    space = xplane_pb2.XSpace()
    with open(xplane_path, "rb") as fh:
        space.ParseFromString(fh.read())
    by_layer, by_type, total = collections.Counter(), collections.Counter(), 0
    for plane in space.planes:
        if not plane.name.startswith("/host:CPU") and not plane.name.startswith("/device:"):
            continue
        for line in plane.lines:
            if not line.name.startswith(("tf_Compute", "TensorFlow Ops", "XLA Ops")):
                continue
            for event in line.events:
                name = plane.event_metadata[event.metadata_id].name
                if ":" not in name or "::" in name:  # executor bookkeeping, not an op
                    continue
                op_type = name.rsplit(":", 1)[1]
                by_layer[_layer_of(name, model_name)] += event.duration_ps
                by_type[op_type] += event.duration_ps
                total += event.duration_ps
    return by_layer, by_type, total


def profile(name, length, batch, steps, logdir):
    import keras
    import numpy as np
    import tensorflow as tf

    from benchmarks.speed import VOCAB, build, hierarchical_shape
    from kerasattn import models

    keras.utils.set_random_seed(0)
    model, optimizer, loss = build(name)  # the preset's recipe and loss
    model.compile(optimizer=optimizer, loss=loss)
    shape = ((batch, *hierarchical_shape(length)) if models.get_preset(name).hierarchical
             else (batch, length))
    rng = np.random.default_rng(0)
    x = rng.integers(2, VOCAB, size=shape).astype("int32")
    y = rng.integers(0, 2, size=batch).astype("int32")
    for _ in range(2):
        model.train_on_batch(x, y)
    start = time.perf_counter()
    for _ in range(steps):
        model.train_on_batch(x, y)
    plain = (time.perf_counter() - start) / steps
    run_dir = os.path.join(logdir, f"{name}-{length}")
    tf.profiler.experimental.start(run_dir)
    for _ in range(steps):
        model.train_on_batch(x, y)
    tf.profiler.experimental.stop()
    trace = sorted(glob.glob(os.path.join(run_dir, "**", "*.xplane.pb"), recursive=True))[-1]
    by_layer, by_type, total = aggregate(trace, model.name)
    return {"model": name, "shape": shape, "step_s": plain, "by_layer": by_layer,
            "by_type": by_type, "total_ps": total, "trace": trace}


def report(results, command, top, found_by=None):
    """The Markdown report; ``found_by``: the run's provenance (a line naming the commit
    and the device)."""
    from kerasattn import provenance

    lines = ["# Where a training step spends its time", "",
             f"Measured {datetime.date.today()} with `{command}` (TensorFlow's profiler on the "
             "CPU; `benchmarks/layer_profile.py`). Shares are of the summed op time of the "
             "profiled steps (the two executor threads overlap); a layer's backward row is the "
             "gradient of its ops.", ""]
    if found_by:
        lines += [provenance.describe(found_by), ""]
    for r in results:
        total = r["total_ps"] or 1
        lines += [f"## {r['model']}: batch {' x '.join(map(str, r['shape']))}, "
                  f"{r['step_s'] * 1000:.0f} ms per step", "",
                  "| layer | phase | share |", "|---|---|---|"]
        for (layer, phase), ps in r["by_layer"].most_common(top):
            lines.append(f"| {layer} | {phase} | {ps / total:.1%} |")
        lines += ["", "| op type | share |", "|---|---|"]
        for op, ps in r["by_type"].most_common(top):
            lines.append(f"| {op} | {ps / total:.1%} |")
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    p = ArgumentParser(prog="python -m benchmarks.layer_profile",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("--models", nargs="+", default=["sanet-base", "hcan-2sa-target"])
    p.add_argument("--length", type=int, default=256)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--top", type=int, default=12)
    p.add_argument("--logdir", default=os.path.join("runs", "profile"))
    p.add_argument("--output", default=os.path.join(RESULTS, "layer_profile.md"))
    args = p.parse_args(argv)
    from kerasattn import provenance

    command = "python -m benchmarks.layer_profile " + shlex.join(
        sys.argv[1:] if argv is None else argv)
    start = provenance.started(command.strip(), 0)
    results = [profile(m, args.length, args.batch, args.steps, args.logdir)
               for m in args.models]
    text = report(results, command.strip(), args.top, provenance.entry(start))
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as fh:
        fh.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
