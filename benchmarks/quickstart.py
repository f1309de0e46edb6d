"""The README's Python quickstart (TextClassifier, cnn, SST-2, 3 epochs) over seeds.

    python -m benchmarks.quickstart [--seeds 10] [--preset cnn] [--dataset sst2] [--epochs 3]

Fits ``kerasattn.TextClassifier.from_preset(PRESET)`` on the training texts with
the dev split for validation, once per seed (``keras.utils.set_random_seed``),
and writes the test accuracy of each seed and their mean ± standard deviation
to ``benchmarks/results/quickstart.md`` (and ``.json``). Needs the datasets
(KERASATTN_DATA_DIR). Each seed's entry in the JSON and the file as a whole carry
``"provenance"`` (:func:`kerasattn.provenance.entry`: commit, command, seed, device,
versions, UTC start and end, what cut the run).
"""

import argparse
import datetime
import os
import time

from kerasattn.cli.parsing import ArgumentParser

RESULTS_DIR = os.path.join(os.path.dirname(__file__), "results")


def measure(preset, dataset, epochs, seed):
    """Test accuracy and fit seconds of one quickstart run."""
    import keras

    import kerasattn
    from kerasattn.data import datasets

    keras.utils.set_random_seed(seed)
    ds = datasets.load(dataset)
    clf = kerasattn.TextClassifier.from_preset(preset, num_classes=ds.num_classes)
    start = time.perf_counter()
    # as the README does: the seed goes through keras.utils.set_random_seed alone
    clf.fit(ds.train.texts, ds.train.labels, validation_data=(ds.val.texts, ds.val.labels),
            epochs=epochs, verbose=2)
    seconds = time.perf_counter() - start
    _, accuracy = clf.evaluate(ds.test.texts, ds.test.labels, verbose=0)
    return float(accuracy), seconds


def main(argv=None):
    from kerasattn import provenance, runs
    from kerasattn.metrics import mean_std

    p = ArgumentParser(prog="python -m benchmarks.quickstart", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--preset", default="cnn")
    p.add_argument("--dataset", default="sst2")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--results", default=os.path.join(RESULTS_DIR, "quickstart.md"))
    args = p.parse_args(argv)
    invoked = provenance.command_of("benchmarks.quickstart", argv)
    whole = provenance.started(invoked)
    rows = []
    for seed in range(args.seeds):
        start = provenance.started(invoked, seed)
        accuracy, seconds = measure(args.preset, args.dataset, args.epochs, seed)
        rows.append({"seed": seed, "test_accuracy": accuracy, "fit_seconds": round(seconds, 1),
                     "provenance": provenance.entry(start)})
        print(f"seed {seed}: test accuracy {accuracy:.4f} ({seconds:.0f} s)", flush=True)
    mean, std = mean_std([r["test_accuracy"] for r in rows])
    summary = {"preset": args.preset, "dataset": args.dataset, "epochs": args.epochs,
               "mean": mean, "std": std,
               "runs": rows, "machine": runs.environment()["machine"],
               "measured": str(datetime.date.today()),
               "provenance": provenance.entry(whole)}
    command = (f"python -m benchmarks.quickstart --seeds {args.seeds} --preset {args.preset} "
               f"--dataset {args.dataset} --epochs {args.epochs}")
    text = [
        "# The README's Python quickstart over seeds",
        "",
        f"Written by `{command}` on {summary['machine']}, {summary['measured']}: "
        f"`TextClassifier.from_preset({args.preset!r})` fitted on the {args.dataset} training "
        f"texts for {args.epochs} epochs (its recipe's defaults otherwise), dev split for "
        "validation, official test split.",
        "",
        provenance.describe(summary["provenance"]),
        "",
        f"**Test accuracy {summary['mean']:.4f} ± {summary['std']:.4f}** (mean ± standard "
        f"deviation over {len(rows)} seeds).",
        "",
        "| seed | test accuracy | fit s |",
        "|---|---|---|",
        *[f"| {r['seed']} | {r['test_accuracy']:.4f} | {r['fit_seconds']:.0f} |" for r in rows],
        "",
    ]
    os.makedirs(os.path.dirname(args.results), exist_ok=True)
    with open(args.results, "w") as fh:
        fh.write("\n".join(text))
    runs.write_json(os.path.splitext(args.results)[0] + ".json", summary)
    print("\n".join(text))


if __name__ == "__main__":
    main()
