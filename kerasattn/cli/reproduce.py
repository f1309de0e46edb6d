"""Reproduce a paper's experiment and write our figures beside the paper's.

    kerasattn reproduce --experiment sanet-table2 [--run DIR ...]

``sanet-table2`` (SANet §5.3, Table 2): the Gini coefficient and band
diagonality (b = 1…5) of ``sanet-base``'s attention matrices, averaged over a
test set, for sentiment datasets (imdb, sst5) and topic datasets
(ag_news-test-split, bbc); the paper's datasets (Yelp, Amazon, DBPedia, Yahoo)
are not mirrored here. Give trained runs with ``--run`` (repeatable), or none
to train the four with ``SANET_TABLE2_TRAINING`` first (about 15 minutes on 2
CPU cores). Writes ``benchmarks/results/sanet_table2.md`` and ``.json``.

``iram-regulariser`` (IRAM §4.3): ``iram-vanilla`` trained on ``sst2`` with
the attention regulariser off (γ = 0), at the paper's γ = 3e-4 and at a
stronger 3e-2 (same seed and recipe otherwise), and for each the test
accuracy and, over the test set, the mean off-diagonal overlap of A Aᵀ (1:
every step attends to the same element), the share of texts whose steps all
peak on the same element, and the weight the steps give earlier summaries
(``kerasattn.interpret.step_statistics``). Give trained runs with ``--run``
or none to train the three (about 15 minutes on 2 CPU cores). Writes
``benchmarks/results/iram_regulariser.md`` and ``.json``.

``transformer-grid --dataset D`` (Transformer paper §3, Tables 2–3, Figure
10): ``transformer`` at every layers × heads of the paper's grid (1–3 × 1, 2,
4, 8) on D, a table of test accuracy, F1, precision, recall (of the positive
class, as the paper) and loss beside the paper's (IMDB: its Table 2; other
datasets: its Yelp Table 3, Yelp not being mirrored here), and the ROC curves
of all twelve on one PNG. Writes ``transformer_grid_<D>.md``/``.json``/``_roc.png``.

``transformer-baselines --dataset D`` (Table 1, Figures 8–9): the simple NN
(``mlp``), ``cnn``, ``rnn``, ``lstm``, ``bilstm``, ``gru`` and the grid's best
transformer (by validation accuracy; run the grid first), test accuracy and
loss beside the paper's, and the validation accuracy and loss of all per epoch
on one PNG. Writes ``transformer_baselines_<D>.md``/``.json``/``_curves.png``.

``faithfulness --dataset sst2|imdb`` ("is the attention an
explanation?"): one trained run of each family (SANet ``sanet-base --recipe
adjusted``, HCAN ``hcan-2sa-target`` at d = 128, IRAM ``iram-vanilla`` at 100
units, ``transformer``, and the ``cnn`` and ``gru`` baselines, which have no
attention: gradients and leave-one-out only), trained with
``FAITHFULNESS_TRAINING`` unless given with ``--run``. On a fixed sample of the
test split (``--sample`` texts, 200, drawn with ``--seed``) each explanation
method that applies (attention, rollout, gradient × input, integrated gradients
with ``--ig-steps`` steps, leave-one-out) and a random ranking get ERASER's
comprehensiveness and sufficiency AOPC (mean ± std over the documents); the
attention's ranking is compared with the others' by Kendall τ, every method's
with leave-one-out's too; pooling attentions (HCAN's target attention, the
Transformer's inter-attention) are permuted (Jain & Wallace): median TVD and
label flip rate. ``--seeds N`` trains N seeds per family (0 … N − 1).
Writes ``faithfulness_<D>.md``/``.json``. Measured on 2 shared CPU cores: SST-2
17 minutes (7 training the six runs, 10 measuring); IMDB, reduced
(``FAITHFULNESS_NOTES``) and run with ``--sample 50``, about 33 minutes.

Every experiment that trains reuses a finished run of exactly the same command
in ``--output-dir``, so an interrupted experiment continues where it stopped.
"""


import argparse
import os
import sys

from kerasattn.cli.parsing import ArgumentParser, bounded_int, positive_int, seed, with_types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# the experiments are the library's (kerasattn.experiments); this module parses their flags
from kerasattn import experiments  # noqa: E402
from kerasattn.data.datasets import DatasetError  # noqa: E402
from kerasattn.experiments import attention_faithfulness  # noqa: E402
from kerasattn.experiments import EXPERIMENTS, SEEDED, ExperimentError  # noqa: E402,F401
from kerasattn.experiments.attention_faithfulness import (  # noqa: E402
    FAITHFULNESS_PERMUTATIONS, FAITHFULNESS_RANDOM_DRAWS)


def build_parser():
    p = ArgumentParser(prog="kerasattn reproduce", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--experiment", required=True, choices=sorted(EXPERIMENTS))
    p.add_argument("--run", action="append", default=[],
                   help="a trained run directory to measure (repeatable); none: train them")
    p.add_argument("--output-dir", default=experiments.OUTPUT_DIR,
                   help="where runs trained here go")
    p.add_argument("--results-dir", default=experiments.RESULTS,
                   help="where the tables are written")
    p.add_argument("--data-dir", help="directory to look for datasets in first")
    p.add_argument("--limit", type=positive_int, help="measure only the first N test texts")
    p.add_argument("--dataset", help="the dataset of the transformer experiments (default "
                                     "imdb) and of faithfulness (sst2 or imdb; default sst2)")
    p.add_argument("--seeds", type=bounded_int, default=1, metavar="N",
                   help="training seeds per configuration when training (0 … N-1; default 1): "
                        "accuracy as mean ± standard deviation over them (iram-regulariser, "
                        "transformer-grid, transformer-baselines, faithfulness)")
    g = p.add_argument_group("faithfulness")
    # their lower bounds: check_flags's
    attention_faithfulness.add_flags(with_types(g, {
        "--sample": bounded_int, "--seed": seed, "--ig-steps": bounded_int}), "--sample")
    g.add_argument("--random-draws", type=positive_int, default=FAITHFULNESS_RANDOM_DRAWS,
                   metavar="N",
                   help="random rankings per text (default "
                        f"{FAITHFULNESS_RANDOM_DRAWS})")
    g.add_argument("--permutations", type=positive_int, default=FAITHFULNESS_PERMUTATIONS,
                   metavar="N",
                   help="permutations of the pooling attention per text (default "
                        f"{FAITHFULNESS_PERMUTATIONS})")
    return p


def main(argv=None):
    p = build_parser()
    args = p.parse_args(argv)
    for run in args.run:
        if not os.path.exists(os.path.join(run, "config.json")):
            p.error(f"{run} is not a run directory (no config.json)")
    if args.seeds < 1:
        p.error("--seeds must be >= 1")
    attention_faithfulness.check_flags(p, args, "--sample")
    options = {}
    if args.experiment == "faithfulness":
        options = dict(sample=args.faithfulness_sample, seed=args.seed, ig_steps=args.ig_steps,
                       seeds=args.seeds, random_draws=args.random_draws,
                       permutations=args.permutations)
    elif args.experiment in SEEDED:
        options = dict(seeds=args.seeds)
    elif args.seeds != 1:
        p.error(f"--seeds: {args.experiment} measures given or single runs; it applies to "
                f"{', '.join(sorted(SEEDED | {'faithfulness'}))}")
    try:
        print(experiments.run(args.experiment, args.run, args.output_dir, args.results_dir,
                              args.data_dir, args.limit, dataset=args.dataset, **options))
    except (DatasetError, ExperimentError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
