"""The papers' experiments that ``kerasattn reproduce`` runs, one module each:

- :mod:`~kerasattn.experiments.sanet_table2`: SANet's Table 2 (attention Gini and
  band diagonality);
- :mod:`~kerasattn.experiments.iram_regulariser`: IRAM's attention regulariser (§4.3);
- :mod:`~kerasattn.experiments.transformer_grid`: the Transformer paper's layers × heads
  grid (Tables 2–3) and its baselines (Table 1);
- :mod:`~kerasattn.experiments.attention_faithfulness`: is the attention an explanation?
  (ERASER faithfulness of every family's explanations);

and :mod:`~kerasattn.experiments.common`, what they share. Each experiment is a
function ``(run_dirs, output_dir, results_dir, data_dir=None, limit=None, dataset=None,
**options)`` that trains the runs it is not given (reusing finished runs of the same
command in ``output_dir``), writes its Markdown and JSON (and figures) to
``results_dir`` and returns the Markdown. :func:`run` calls one by name, e.g.
``experiments.run("iram-regulariser", seeds=2)``; ``kerasattn reproduce`` is its command
line.
"""

from kerasattn.experiments import (attention_faithfulness, iram_regulariser, sanet_table2,
                                   transformer_grid)
from kerasattn.experiments.common import OUTPUT_DIR, RESULTS, ExperimentError

# experiment name -> function
EXPERIMENTS = {"sanet-table2": sanet_table2.sanet_table2,
               "iram-regulariser": iram_regulariser.iram_regulariser,
               "transformer-grid": transformer_grid.transformer_grid,
               "transformer-baselines": transformer_grid.transformer_baselines,
               "faithfulness": attention_faithfulness.faithfulness}
# the experiments that train their runs with --seeds N (faithfulness has its own options)
SEEDED = {"iram-regulariser", "transformer-grid", "transformer-baselines"}

__all__ = ["EXPERIMENTS", "SEEDED", "ExperimentError", "OUTPUT_DIR", "RESULTS", "run"]


def run(name, run_dirs=(), output_dir=OUTPUT_DIR, results_dir=RESULTS, data_dir=None,
        limit=None, dataset=None, **options):
    """Run the experiment ``name`` (a key of :data:`EXPERIMENTS`) and return its Markdown.

    Args:
        name: the experiment, e.g. ``"sanet-table2"``.
        run_dirs: trained run directories to measure; empty: train them.
        output_dir: where the runs trained here go (finished ones are reused).
        results_dir: where the tables (and figures) are written.
        data_dir: a directory to look for datasets in first.
        limit: measure only the first N test texts (where the experiment allows it).
        dataset: the dataset, for the experiments that take one.
        **options: the experiment's own options (``seeds``; faithfulness: ``sample``,
            ``seed``, ``ig_steps``, ``seeds``, ``random_draws``, ``permutations``).

    Raises:
        ExperimentError: a request the experiment cannot carry out (also for an unknown
            ``name``).
    """
    if name not in EXPERIMENTS:
        raise ExperimentError(f"unknown experiment {name!r}; choose one of "
                              f"{', '.join(sorted(EXPERIMENTS))}")
    return EXPERIMENTS[name](list(run_dirs), output_dir, results_dir, data_dir, limit,
                             dataset=dataset, **options)
