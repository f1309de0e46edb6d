"""Reproduce a paper's experiment and write our figures beside the paper's.

    python -m training.reproduce --experiment sanet-table2 [--run DIR ...]

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
"""

import argparse
import datetime
import os
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "benchmarks", "results")

# Table 2 of Letarte et al. (2018), in percent: dataset -> (task, Gini, diag b=1..5)
PAPER_TABLE2 = {
    "AG": ("topic", 55.31, [7.44, 11.86, 16.21, 20.42, 24.48]),
    "DBP.": ("topic", 67.94, [8.49, 13.80, 18.88, 23.74, 28.25]),
    "Yah. A.": ("topic", 67.45, [6.34, 9.83, 13.28, 16.59, 19.65]),
    "Yelp P.": ("sentiment", 65.16, [5.02, 7.89, 10.62, 13.19, 15.62]),
    "Yelp F.": ("sentiment", 84.18, [23.54, 36.89, 45.49, 50.90, 54.54]),
    "Amz. F.": ("sentiment", 89.50, [41.77, 62.35, 73.53, 79.49, 83.09]),
    "Amz. P.": ("sentiment", 87.76, [40.01, 60.34, 71.43, 77.21, 80.56]),
}

TASKS = {"imdb": "sentiment", "sst5": "sentiment", "sst2": "sentiment",
         "ag_news-test-split": "topic", "bbc": "topic"}

# How the runs are trained when no --run is given: sanet-base with our
# measured adjustments (see README, "SANet"): Adam, scaled attention and
# embeddings scaled by √100 before the positional encoding.
SANET_COMMON = ["--model", "sanet-base", "--optimizer", "adam", "--learning-rate", "0.001",
                "--model-option", "scaled=true", "--model-option", "embedding_scale=10"]
SANET_TABLE2_TRAINING = {
    "imdb": SANET_COMMON + ["--dataset", "imdb", "--epochs", "4", "--min-freq", "5"],
    "sst5": SANET_COMMON + ["--dataset", "sst5", "--epochs", "5"],
    "ag_news-test-split": SANET_COMMON + ["--dataset", "ag_news-test-split", "--epochs", "8"],
    "bbc": SANET_COMMON + ["--dataset", "bbc", "--epochs", "10"],
}


# IRAM §4.3: the same recipe with the regulariser off, at the paper's strength,
# and 100 times stronger.
IRAM_GAMMAS = (0.0, 3e-4, 3e-2)
IRAM_REGULARISER_TRAINING = ["--model", "iram-vanilla", "--dataset", "sst2", "--epochs", "4",
                             "--seed", "0"]


def _matrices(explanations, layer):
    for ex in explanations:
        weights, axes = ex.attention[layer], ex.axes[layer]
        if axes == ("query", "key"):
            yield weights
        elif axes == ("head", "query", "key"):
            yield from weights
        else:
            raise ValueError(f"layer {layer} has {axes} weights, not self-attention matrices")


def table2_statistics(run_dir, split="test", data_dir=None, limit=None, verbose=True):
    """{layer: attention_statistics} of a run's model over a split of its dataset."""
    import keras

    from kerasattn import runs
    from kerasattn.interpret import attention_layers, attention_statistics, iter_attention

    config, model, pre = runs.load_keras_run(run_dir)
    part = runs.load_dataset(config, data_dir).split(split)
    texts = part.texts[:limit] if limit else part.texts
    # similar lengths in a batch pad less; the order does not change the means
    texts = sorted(texts, key=lambda t: len(t.split()))
    out = {}
    for layer in [l.name for l in attention_layers(model)]:
        bar = keras.utils.Progbar(len(texts), unit_name="text") if verbose else None
        docs = _progress(iter_attention(model, texts, pre, batch_size=32), bar)
        out[layer] = attention_statistics(_matrices(docs, layer))
    return config, out


def _progress(items, bar):
    i = 0
    for i, item in enumerate(items, 1):
        if bar is not None and i % 256 == 0:
            bar.update(i)
        yield item
    if bar is not None:
        bar.update(i, finalize=True)


def _train(dataset, output_dir):
    return _run_training(SANET_TABLE2_TRAINING[dataset], f"sanet-base-{dataset}-table2",
                         output_dir)


def _run_training(cli, name, output_dir):
    cmd = [sys.executable, "-m", "training.train", *cli, "--output-dir", output_dir,
           "--run-name", name, "--verbose", "2"]
    print("$", " ".join(cmd[1:]), flush=True)
    subprocess.run(cmd, check=True)
    return os.path.join(output_dir, name)


def _fmt(x):
    return f"{100 * x:.2f}"


def _compare(sentiment, topic, margin=0.05):
    if abs(sentiment - topic) < margin:
        return "no real difference: both at chance level" if abs(sentiment - 1) < margin \
            and abs(topic - 1) < margin else "no real difference"
    return "sentiment higher" if sentiment > topic else "sentiment **lower**"


def _ratio(record):
    return record["diagonality"]["3"] / max(record["uniform_diagonality"]["3"], 1e-12)


def write_table2(records, path):
    """Write the Markdown table (ours beside the paper's) and return its text."""
    ours = sorted(records, key=lambda d: (records[d]["task"] != "sentiment", d))
    head = ["metric"] + [f"{d} ({records[d]['task']})" for d in ours] + \
           [f"paper {k} ({v[0]})" for k, v in PAPER_TABLE2.items()]
    rows = [["Gini coefficient"] + [_fmt(records[d]["gini"]) for d in ours] +
            [f"{v[1]:.2f}" for v in PAPER_TABLE2.values()]]
    for b in range(1, 6):
        rows.append([f"Diagonality (b = {b})"] +
                    [_fmt(records[d]["diagonality"][str(b)]) for d in ours] +
                    [f"{v[2][b - 1]:.2f}" for v in PAPER_TABLE2.values()])
    blank = [""] * len(PAPER_TABLE2)
    rows.append(["Diagonality (b = 3) of uniform attention, same texts (chance)"] +
                [_fmt(records[d]["uniform_diagonality"]["3"]) for d in ours] + blank)
    rows.append(["Diagonality (b = 3) ÷ chance"] +
                [f"{_ratio(records[d]):.2f}" for d in ours] + blank)
    rows.append(["mean text length (tokens)"] +
                [f"{records[d]['mean_length']:.0f}" for d in ours] + blank)
    mean = {task: [records[d]["diagonality"]["3"] for d in ours if records[d]["task"] == task]
            for task in ("sentiment", "topic")}
    ratio = {task: [_ratio(records[d]) for d in ours if records[d]["task"] == task]
             for task in ("sentiment", "topic")}
    lines = [
        "# SANet Table 2 on our data: Gini and band diagonality of sanet-base attention",
        "",
        "Written by `python -m training.reproduce --experiment sanet-table2`. Percent; each "
        "metric is computed on each test document's whole n×n matrix (padding removed) and "
        "averaged over the test set (`kerasattn.interpret.attention_statistics`). The paper's "
        "datasets are not available offline; its columns are copied from Table 2.",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
        *["| " + " | ".join(r) + " |" for r in rows],
        "",
        "Runs: " + "; ".join(
            f"{d}: `{records[d]['command']}` (test accuracy {records[d]['test_accuracy']:.4f}, "
            f"{records[d]['documents']:,} documents, measured {records[d]['measured']})"
            for d in ours),
        "",
    ]
    if mean["sentiment"] and mean["topic"]:
        s, t = (sum(v) / len(v) for v in (mean["sentiment"], mean["topic"]))
        rs, rt = (sum(v) / len(v) for v in (ratio["sentiment"], ratio["topic"]))
        lines += [f"Diagonality (b = 3): sentiment mean {_fmt(s)} vs topic mean {_fmt(t)}: "
                  f"the paper's finding (sentiment > topic) is "
                  f"{'reproduced' if s > t else '**not** reproduced'} on our data by the raw "
                  f"share. The raw share depends on text length (uniform attention over a "
                  f"19-word sentence already puts 37% inside b = 3), so also compare the "
                  f"share relative to chance: sentiment {rs:.2f}× vs topic {rt:.2f}× "
                  f"({_compare(rs, rt)}).", ""]
    text = "\n".join(lines)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)
    return text


def sanet_table2(run_dirs, output_dir, results_dir, data_dir=None, limit=None):
    from kerasattn import runs

    if not run_dirs:
        run_dirs = [_train(d, output_dir) for d in SANET_TABLE2_TRAINING]
    os.makedirs(results_dir, exist_ok=True)
    json_path = os.path.join(results_dir, "sanet_table2.json")
    records = runs.read_json(json_path) if os.path.exists(json_path) else {}
    for run_dir in run_dirs:
        config, stats = table2_statistics(run_dir, data_dir=data_dir, limit=limit)
        first = next(iter(stats.values()))
        metrics = runs.read_json(os.path.join(run_dir, runs.METRICS))
        records[config["dataset"]] = {
            "task": TASKS.get(config["dataset"], "?"), "model": config["model"],
            "gini": first["gini"],
            "diagonality": {str(b): v for b, v in first["diagonality"].items()},
            "uniform_diagonality": {str(b): v
                                    for b, v in first["uniform_diagonality"].items()},
            "mean_length": first["mean_length"],
            "documents": first["documents"], "layers": stats,
            "test_accuracy": metrics["test"]["accuracy"], "command": config["command"],
            "measured": str(datetime.date.today()),
        }
        runs.write_json(json_path, records)
        print(f"{config['dataset']}: Gini {_fmt(first['gini'])}, diagonality b=3 "
              f"{_fmt(first['diagonality'][3])} over {first['documents']:,} documents",
              flush=True)
    return write_table2(records, os.path.join(results_dir, "sanet_table2.md"))


def step_statistics_of_run(run_dir, split="test", data_dir=None, limit=None, verbose=True):
    """(config, {layer: step_statistics}) of an IRAM run over a split of its dataset."""
    import keras

    from kerasattn import runs
    from kerasattn.interpret import iter_attention, step_statistics

    config, model, pre = runs.load_keras_run(run_dir)
    part = runs.load_dataset(config, data_dir).split(split)
    texts = part.texts[:limit] if limit else part.texts
    texts = sorted(texts, key=lambda t: len(t.split()))
    out = {}
    probe = iter_attention(model, texts[:1], pre)
    layers = [n for n, a in next(probe).axes.items() if a == ("step", "memory")]
    if not layers:
        raise ValueError(f"{run_dir}: the model has no iterative (step x memory) attention")
    for layer in layers:
        bar = keras.utils.Progbar(len(texts), unit_name="text") if verbose else None
        docs = _progress(iter_attention(model, texts, pre, batch_size=64), bar)
        out[layer] = step_statistics(ex.attention[layer] for ex in docs if ex.tokens)
    return config, out


def _gamma(config):
    return float(config["model_config"].get("gamma", 0.0))


def write_iram_regulariser(records, path):
    """Write the Markdown table of the regulariser experiment; returns its text."""
    rows = sorted(records.values(), key=lambda r: r["gamma"])
    lines = [
        "# IRAM §4.3: the attention regulariser and the overlap of the steps' attention",
        "",
        "Written by `python -m training.reproduce --experiment iram-regulariser`. Overlap: the "
        "mean over test texts of the mean off-diagonal entry of A Aᵀ (A: the T × (N + T − 1) "
        "step × memory weights; 1 = every step puts all its weight on the same element). "
        "Same peak: the share of test texts whose T steps all attend most to the same element. "
        "Summary weight: the mean weight a step gives the earlier summaries.",
        "",
        "| γ | test accuracy | overlap | same peak | summary weight | best epoch | seconds "
        "| command |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['gamma']:g} | {r['test_accuracy']:.4f} | {r['overlap']:.3f} | "
                     f"{r['same_argmax']:.1%} | {r['summary_weight']:.3f} | {r['best_epoch']} | "
                     f"{r['seconds']:.0f} | `{r['command']}` |")
    off = [r for r in rows if r["gamma"] == 0]
    on = [r for r in rows if r["gamma"] > 0]
    if off and on:
        base = off[0]["overlap"]
        verdicts = [f"γ = {r['gamma']:g}: {r['overlap']:.3f} "
                    f"({'lower' if r['overlap'] < base else '**not lower**'})" for r in on]
        lines += ["", f"Overlap without the regulariser {base:.3f}; with it " +
                  "; ".join(verdicts) + f". {on[0]['documents']:,} test texts, measured "
                  f"{rows[-1]['measured']}."]
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)
    return text


def iram_regulariser(run_dirs, output_dir, results_dir, data_dir=None, limit=None):
    from kerasattn import runs

    if not run_dirs:
        run_dirs = [_run_training(IRAM_REGULARISER_TRAINING + ["--model-option", f"gamma={g}"],
                                  f"iram-vanilla-sst2-gamma{g:g}", output_dir)
                    for g in IRAM_GAMMAS]
    os.makedirs(results_dir, exist_ok=True)
    json_path = os.path.join(results_dir, "iram_regulariser.json")
    records = runs.read_json(json_path) if os.path.exists(json_path) else {}
    for run_dir in run_dirs:
        config, stats = step_statistics_of_run(run_dir, data_dir=data_dir, limit=limit)
        first = next(iter(stats.values()))
        metrics = runs.read_json(os.path.join(run_dir, runs.METRICS))
        gamma = _gamma(config)
        records[f"{config['model']} {config['dataset']} gamma={gamma:g}"] = {
            "gamma": gamma, "model": config["model"], "dataset": config["dataset"], **first,
            "test_accuracy": metrics["test"]["accuracy"],
            "best_epoch": metrics.get("best_epoch"), "seconds": metrics.get("train_seconds", 0),
            "command": config["command"], "measured": str(datetime.date.today()),
        }
        runs.write_json(json_path, records)
        print(f"γ = {gamma:g}: test accuracy {metrics['test']['accuracy']:.4f}, overlap "
              f"{first['overlap']:.3f}, same peak {first['same_argmax']:.1%}", flush=True)
    return write_iram_regulariser(records, os.path.join(results_dir, "iram_regulariser.md"))


EXPERIMENTS = {"sanet-table2": sanet_table2, "iram-regulariser": iram_regulariser}


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m training.reproduce", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--experiment", required=True, choices=sorted(EXPERIMENTS))
    p.add_argument("--run", action="append", default=[],
                   help="a trained run directory to measure (repeatable); none: train them")
    p.add_argument("--output-dir", default=os.path.join("runs", "reproduce"),
                   help="where runs trained here go")
    p.add_argument("--results-dir", default=RESULTS, help="where the tables are written")
    p.add_argument("--data-dir", help="directory to look for datasets in first")
    p.add_argument("--limit", type=int, help="measure only the first N test texts")
    args = p.parse_args(argv)
    for run in args.run:
        if not os.path.exists(os.path.join(run, "config.json")):
            p.error(f"{run} is not a run directory (no config.json)")
    from kerasattn.data.datasets import DatasetError

    try:
        print(EXPERIMENTS[args.experiment](args.run, args.output_dir, args.results_dir,
                                           args.data_dir, args.limit))
    except DatasetError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
