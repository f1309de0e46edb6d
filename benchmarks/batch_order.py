"""Does the order of the training batches matter? One epoch of a preset, at several
orders of the texts, with the batches in bucketing's order and shuffled.

    python -m benchmarks.batch_order [--model transformer] [--dataset imdb] [--orders 3]

Each run trains the preset's default recipe for one epoch from the same weights (seed 0)
on the texts shuffled with seed 0, 1, ... (``make_dataset``'s own shuffle), grouped by
length. "bucketing's order" keeps the batches as ``bucket_by_sequence_length`` gives
them, each bucket's partial batch at the end of the epoch (``shuffle_batches=False``, the
pipeline before 2026-11-26); "shuffled" is the pipeline now. The figure is the validation
accuracy after that epoch. Writes ``benchmarks/results/batch_order.{md,json}``; the JSON's
``"provenance"`` (:func:`kerasattn.provenance.entry`) says which commit, command, seed,
device and versions measured it, when, and what cut it.
"""

import argparse
import json
import os
import statistics

from kerasattn.cli.parsing import ArgumentParser

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

RESULTS = os.path.join(os.path.dirname(__file__), "results")
ORDERS = (("bucketing's order", False), ("shuffled", True))


def one_epoch(model_name, ds, pre, config, order_seed, shuffle_batches):
    """Validation accuracy of ``model_name`` after one epoch (weights from seed 0)."""
    import keras

    from kerasattn import heads, models, recipes
    from kerasattn.data.pipeline import batches_per_epoch, make_dataset

    t = config.train
    train = make_dataset(ds.train.texts, ds.train.labels, pre, t.batch_size, shuffle=True,
                         seed=order_seed, count_batches=True,
                         shuffle_batches=shuffle_batches)
    val = make_dataset(ds.val.texts, ds.val.labels, pre, t.batch_size, count_batches=True)
    keras.utils.set_random_seed(0)
    model = models.get(model_name, vocab_size=pre.vocabulary_size, num_classes=ds.num_classes,
                       vocabulary=pre.vocabulary, **config.model_overrides)
    loss, accuracy = heads.loss_and_accuracy(model)
    # at the rate of the whole run's schedule
    model.compile(optimizer=recipes.optimizer_for(models.get_preset(model_name), t,
                                                  lambda: batches_per_epoch(train)),
                  loss=loss, metrics=[accuracy])
    history = model.fit(train, validation_data=val, epochs=1, verbose=2, shuffle=False)
    return float(history.history["val_accuracy"][-1])


def main(argv=None):
    p = ArgumentParser(prog="python -m benchmarks.batch_order", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="transformer")
    p.add_argument("--dataset", default="imdb")
    p.add_argument("--orders", type=int, default=3, help="orders of the texts (seeds 0..N-1)")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--results", default=RESULTS, help="directory for batch_order.{md,json}")
    args = p.parse_args(argv)
    if args.orders < 2:
        p.error("--orders must be at least 2 (a spread)")

    from kerasattn import provenance, runs
    from kerasattn.data import datasets
    from kerasattn.data.preprocessing import TextPreprocessor
    from kerasattn.training import RunConfig

    start = provenance.started(provenance.command_of("benchmarks.batch_order", argv), 0)
    config = RunConfig.create(args.model, args.dataset)
    if config.kind != "keras" or config.hierarchical:
        p.error(f"--model {args.model}: a flat Keras preset is needed")
    ds = datasets.load(args.dataset, data_dir=args.data_dir,
                       val_fraction=config.train.val_fraction, seed=0)
    pre = TextPreprocessor(**config.preprocessor_options()).adapt(
        ds.train.texts, min_freq=config.train.min_freq, max_size=config.train.vocab_size)
    found = {name: [] for name, _ in ORDERS}
    for seed in range(args.orders):
        for name, shuffled in ORDERS:
            acc = one_epoch(args.model, ds, pre, config, seed, shuffled)
            found[name].append(acc)
            print(f"order {seed}, {name}: validation accuracy {acc:.4f}", flush=True)

    command = (f"python -m benchmarks.batch_order --model {args.model} --dataset "
               f"{args.dataset} --orders {args.orders}")
    env = runs.environment()
    found_by = provenance.entry(start)
    lines = [
        "# Training batches in bucketing's order or shuffled",
        "",
        f"Measured with `{command}` on {env['machine']}, TensorFlow {env['tensorflow']}, "
        f"Keras {env['keras']}. Validation accuracy of `{args.model}` (default recipe) on "
        f"{args.dataset} after one epoch, from the same weights, at each order of the texts "
        "(seed 0, 1, ...). \"bucketing's order\": each length bucket's partial batch comes at "
        "the end of the epoch (the pipeline before 2026-11-26); \"shuffled\": the batches "
        "are shuffled after grouping (the pipeline now).",
        "",
        provenance.describe(found_by),
        "",
        "| order of the texts | " + " | ".join(name for name, _ in ORDERS) + " |",
        "|---|" + "---|" * len(ORDERS),
        *[f"| {seed} | " + " | ".join(f"{found[name][seed]:.3f}" for name, _ in ORDERS) + " |"
          for seed in range(args.orders)],
        "| mean ± std | " + " | ".join(
            f"{statistics.mean(found[name]):.3f} ± {statistics.stdev(found[name]):.3f}"
            for name, _ in ORDERS) + " |",
        "",
    ]
    os.makedirs(args.results, exist_ok=True)
    with open(os.path.join(args.results, "batch_order.md"), "w") as fh:
        fh.write("\n".join(lines))
    with open(os.path.join(args.results, "batch_order.json"), "w") as fh:
        json.dump({"command": command, "environment": env, "model": args.model,
                   "dataset": args.dataset, "val_accuracy_after_one_epoch": found,
                   "provenance": found_by}, fh, indent=1)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
