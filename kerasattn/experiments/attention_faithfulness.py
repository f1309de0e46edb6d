"""Is the attention an explanation? The faithfulness of a run's explanations
on a seeded sample of its test split, for ``kerasattn evaluate --faithfulness``
(:func:`measure_faithfulness`) and for the experiment comparing the families
(``kerasattn reproduce --experiment faithfulness``: :func:`faithfulness`).

The experiment's JSON carries ``"provenance"`` (:func:`kerasattn.provenance.entry`) for
its last invocation as a whole and for each run's record: the commit, command, seed (the
sample's), device, versions, UTC start and end, wall seconds and cut of the measurement,
and the trained run's own record under ``"run"``."""

import datetime
import os
import re
import time

import numpy as np

from kerasattn import provenance, run_data, runs
from kerasattn.experiments import common
from kerasattn.experiments.common import ExperimentError, _write

# the defaults of training.evaluate --faithfulness and of the experiment (200 texts, 32 steps)
FAITHFULNESS_SAMPLE, FAITHFULNESS_IG_STEPS = 200, 32


def add_flags(parser, sample_flag):
    """The flags of a faithfulness measurement (``kerasattn evaluate`` and ``kerasattn
    reproduce`` share them): the sample's size under ``sample_flag`` (read back as
    ``args.faithfulness_sample``), its seed and integrated gradients' steps."""
    parser.add_argument(sample_flag, dest="faithfulness_sample", type=int,
                        default=FAITHFULNESS_SAMPLE, metavar="N",
                        help="test texts explained (seeded sample; default "
                             f"{FAITHFULNESS_SAMPLE})")
    parser.add_argument("--seed", type=int, default=0,
                        help="seeds the sample, the random baseline and the permutations")
    parser.add_argument("--ig-steps", type=int, default=FAITHFULNESS_IG_STEPS, metavar="N",
                        help=f"integrated gradients' steps (default {FAITHFULNESS_IG_STEPS})")


def check_flags(parser, args, sample_flag):
    """One argparse error for a sample or step count below 1."""
    if args.faithfulness_sample < 1:
        parser.error(f"{sample_flag} must be >= 1")
    if args.ig_steps < 1:
        parser.error("--ig-steps must be >= 1")


def faithfulness_sample(config, size=FAITHFULNESS_SAMPLE, seed=0, data_dir=None, split="test"):
    """(texts, labels) of ``size`` texts of a run's ``split`` drawn without replacement
    by ``numpy.random.default_rng(seed)`` (all of them when the split is smaller), in
    order of length (fewer padded tokens per batch; the means do not depend on it)."""
    if config.get("stream"):
        raise ValueError("faithfulness needs the test texts in memory; this run streamed "
                         "its dataset")
    if size < 1:
        raise ValueError(f"the faithfulness sample needs at least one text, got {size}")
    part = run_data.load_dataset(config, data_dir).split(split)
    n = len(part.texts)
    rng = np.random.default_rng(seed)
    chosen = np.sort(rng.choice(n, size=min(size, n), replace=False))
    chosen = sorted(chosen, key=lambda i: (len(part.texts[i].split()), i))
    return [part.texts[i] for i in chosen], [int(part.labels[i]) for i in chosen]


def measure_faithfulness(run_dir, size=FAITHFULNESS_SAMPLE, seed=0,
                         steps=FAITHFULNESS_IG_STEPS, data_dir=None, methods=None,
                         random_draws=5, num_permutations=20, batch_size=32):
    """:func:`~kerasattn.interpret.faithfulness_report` of a Keras run on its
    :func:`faithfulness_sample`: the record stored under ``"faithfulness"``."""
    # Keras and TensorFlow: measured after a command's flags are parsed
    from kerasattn.interpret.faithfulness import (  # late: Keras and TensorFlow
        DEFAULT_KS, faithfulness_report)

    run = runs.load_run(run_dir)
    texts, labels = faithfulness_sample(run.config, size, seed, data_dir)
    start = time.perf_counter()
    rows = faithfulness_report(run.backbone, texts, labels, run.preprocessor, methods=methods,
                               seed=seed,
                               random_draws=random_draws, steps=steps,
                               num_permutations=num_permutations, batch_size=batch_size)
    return {"split": "test", "documents": len(texts), "seed": seed, "ig_steps": steps,
            "ig_baseline": "zero", "ks": list(DEFAULT_KS), "random_draws": random_draws,
            "num_permutations": num_permutations,
            "seconds": round(time.perf_counter() - start, 1),
            "measured": str(datetime.date.today()), "rows": rows}


# one run per family; SST-2 as each preset learns it here (benchmarks/accuracy.py,
# transformer-baselines), sized for 2 CPU cores; HCAN at the dropout 0.1 it was measured
# with (its default until 2026-11-26)
FAITHFULNESS_TRAINING = {
    "sst2": {
        "SANet": ["--model", "sanet-base", "--dataset", "sst2", "--recipe", "adjusted",
                  "--epochs", "5", "--model-option", "embedding_dropout=0.3"],
        "HCAN": ["--model", "hcan-2sa-target", "--dataset", "sst2", "--epochs", "4",
                 "--learning-rate", "0.0005", "--model-option", "d=128",
                 "--model-option", "embedding_dim=128", "--model-option", "dropout=0.1"],
        "IRAM": ["--model", "iram-vanilla", "--dataset", "sst2", "--recipe", "paper",
                 "--epochs", "4", "--model-option", "units=100"],
        "Transformer": ["--model", "transformer", "--dataset", "sst2", "--epochs", "4"],
        "CNN": ["--model", "cnn", "--dataset", "sst2", "--epochs", "6"],
        "GRU": ["--model", "gru", "--dataset", "sst2", "--recipe", "paper", "--epochs", "6"],
    },
    # reduced to fit 2 CPU cores: reviews cut at 400 tokens (IRAM at its preset's 200),
    # HCAN at d = 64, IRAM at 64 units, one or two epochs; measured with --sample 50
    "imdb": {
        "SANet": ["--model", "sanet-base", "--dataset", "imdb", "--recipe", "adjusted",
                  "--epochs", "2", "--min-freq", "5", "--max-length", "400"],
        "HCAN": ["--model", "hcan-2sa-target", "--dataset", "imdb", "--epochs", "1",
                 "--learning-rate", "0.001", "--model-option", "d=64",
                 "--model-option", "embedding_dim=64", "--model-option", "num_heads=4",
                 "--model-option", "dropout=0.1"],
        "IRAM": ["--model", "iram-vanilla", "--dataset", "imdb", "--recipe", "paper",
                 "--epochs", "1", "--batch-size", "64", "--model-option", "units=64"],
        "Transformer": ["--model", "transformer", "--dataset", "imdb", "--epochs", "2",
                        "--max-length", "400"],
        "CNN": ["--model", "cnn", "--dataset", "imdb", "--epochs", "1", "--max-length", "400"],
        "GRU": ["--model", "gru", "--dataset", "imdb", "--recipe", "paper", "--epochs", "2",
                "--max-length", "400"],
    },
}
FAITHFULNESS_NOTES = {
    "imdb": "IMDB at reduced sizes to fit 2 CPU cores: reviews cut at 400 tokens (IRAM at "
            "its preset's 200), HCAN at d = 64 with 4 heads, IRAM at 64 units, 1–2 epochs "
            "(accuracies below the zoo's best IMDB runs), and 50 test reviews "
            "(`--sample 50`) instead of 200.",
}
FAITHFULNESS_RANDOM_DRAWS, FAITHFULNESS_PERMUTATIONS = 5, 20
_FAMILIES = {"cnn": "CNN", "gru": "GRU", "mlp": "MLP", "rnn": "RNN", "lstm": "LSTM",
             "bilstm": "BiLSTM", "transformer": "Transformer", "han": "HAN"}
_SHORT = {"attention": "attention", "rollout": "rollout", "gradient_x_input": "grad×input",
          "integrated_gradients": "IG", "leave_one_out": "LOO", "random": "random"}


def family_of(model):
    """The zoo family of a preset name (SANet, HCAN, IRAM, Transformer, CNN, GRU, ...)."""
    if model.startswith("sanet"):
        return "SANet"
    if model.startswith(("hcan", "can-")):
        return "HCAN"
    if model.startswith("iram"):
        return "IRAM"
    return _FAMILIES.get(model, model)


def _paired(a, b):
    """Mean of a − b over the documents where both are finite, and its 95% half-width
    (1.96 standard errors of the paired differences)."""
    d = np.asarray(a, np.float64) - np.asarray(b, np.float64)
    d = d[np.isfinite(d)]
    if len(d) < 2:
        return [float(d.mean()) if len(d) else float("nan"), float("nan")]
    return [float(d.mean()), float(1.96 * d.std(ddof=1) / np.sqrt(len(d)))]


def faithfulness_of_run(run_dir, sample=FAITHFULNESS_SAMPLE, seed=0,
                        steps=FAITHFULNESS_IG_STEPS, data_dir=None,
                        random_draws=FAITHFULNESS_RANDOM_DRAWS,
                        num_permutations=FAITHFULNESS_PERMUTATIONS, batch_size=32):
    """A run's faithfulness record: the rows of
    :func:`~kerasattn.interpret.faithfulness_report` (same sample as ``training.evaluate
    --faithfulness``, same figures) with the seconds each method took, Kendall τ of every
    method against leave-one-out too, and paired differences (attention − each other
    method, each method − random) per document."""
    # Keras and TensorFlow (interpret), scikit-learn (metrics): measured after parsing
    from kerasattn.interpret.attributions import (  # late: Keras and TensorFlow
        METHODS, applicable_methods, explain_tokens, predict_probabilities, prepare_documents)
    from kerasattn.interpret.faithfulness import (  # late: Keras and TensorFlow
        DEFAULT_KS, erasure, erasure_row, permutation_test, pooling_layers, random_erasure,
        rank_agreement)
    from kerasattn.metrics import mean_std  # late: scikit-learn, slow to import

    run = runs.load_run(run_dir)
    config = run.config
    texts, labels = faithfulness_sample(config, sample, seed, data_dir)
    model, docs, _, _ = prepare_documents(run.backbone, texts, run.preprocessor)
    methods = [m for m in METHODS if m in applicable_methods(model)]
    ks = DEFAULT_KS
    rows, explanations, curves = [], {}, {}
    for m in methods:
        start = time.perf_counter()
        explanations[m] = explain_tokens(model, docs, method=m, steps=steps,
                                         batch_size=batch_size)
        scores = erasure(model, explanations[m], ks, False, batch_size)
        curves[m] = (scores.comprehensiveness_aopc, scores.sufficiency_aopc)
        rows.append({**erasure_row(m, scores, ks),
                     "seconds": round(time.perf_counter() - start, 1)})
        print(f"  {m}: comprehensiveness {rows[-1]['comprehensiveness_aopc']:.3f}, "
              f"sufficiency {rows[-1]['sufficiency_aopc']:.3f} "
              f"({rows[-1]['seconds']:.0f} s)", flush=True)
    start = time.perf_counter()
    scores = random_erasure(model, docs, None, ks, random_draws, seed, None, batch_size)
    curves["random"] = (scores.comprehensiveness_aopc, scores.sufficiency_aopc)
    rows.append({**erasure_row("random", scores, ks),
                 "seconds": round(time.perf_counter() - start, 1)})
    predicted = np.argmax(predict_probabilities(model, docs, batch_size), axis=1)
    accuracy = float(np.mean(predicted == np.asarray(labels)))
    for row in rows:
        row["accuracy"] = accuracy
    pairs = [("attention", m) for m in methods if m != "attention" and "attention" in methods]
    pairs += [(m, "leave_one_out") for m in methods
              if m not in ("attention", "leave_one_out") and "leave_one_out" in methods]
    for a, b in pairs:
        tau = rank_agreement(explanations[a], explanations[b], magnitude=True)
        mean, std = mean_std(tau, ddof=0)
        rows.append({"kind": "agreement", "method": f"{a}~{b}", "kendall_tau": mean,
                     "kendall_tau_std": std, "documents": int(np.isfinite(tau).sum())})
    if pooling_layers(model):
        start = time.perf_counter()
        results = permutation_test(model, docs, None, None, num_permutations, seed, batch_size)
        mean, std = mean_std([r.median_tvd for r in results], ddof=0)
        flips = np.concatenate([r.flipped for r in results])
        rows.append({"kind": "permutation", "method": f"permute {results[0].layer}",
                     "median_tvd": mean, "median_tvd_std": std,
                     "flip_rate": float(flips.mean()),
                     "max_attention": mean_std([r.max_attention for r in results], ddof=0)[0],
                     "documents": len(results),
                     "seconds": round(time.perf_counter() - start, 1)})
    paired = {}
    for m in methods:
        paired[f"{m}-random"] = {k: _paired(curves[m][j], curves["random"][j])
                                 for j, k in enumerate(("comprehensiveness", "sufficiency"))}
        if m != "attention" and "attention" in methods:
            paired[f"attention-{m}"] = {
                k: _paired(curves["attention"][j], curves[m][j])
                for j, k in enumerate(("comprehensiveness", "sufficiency"))}
    metrics = runs.read_json(os.path.join(run_dir, runs.METRICS))
    return {"family": family_of(config["model"]), "model": config["model"],
            "dataset": config["dataset"], "train_seed": config.get("seed", 0),
            "run_dir": run_dir, "command": config["command"],
            "test_accuracy": metrics["test"]["accuracy"],
            "train_seconds": metrics.get("train_seconds"),
            "best_epoch": metrics.get("best_epoch"), "methods": methods,
            "documents": len(docs), "sample_seed": seed, "ig_steps": steps,
            "random_draws": random_draws, "num_permutations": num_permutations,
            "ks": list(ks), "rows": rows, "paired": paired,
            "mean_tokens": float(np.mean([len(t) for t in _flat_docs(docs)])),
            "measured": str(datetime.date.today())}


def _dataset_stem(dataset):
    """A file-name part for a dataset: its name, or for csv:PATH / jsonl:PATH the file's."""
    if ":" in dataset:
        kind, path = dataset.split(":", 1)
        dataset = f"{kind}_{os.path.splitext(os.path.basename(path))[0]}"
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", dataset)


def _flat_docs(docs):
    for doc in docs:
        yield [w for s in doc for w in s] if doc and isinstance(doc[0], list) else doc


def _row(record, kind, method):
    for r in record["rows"]:
        if r["kind"] == kind and r["method"] == method:
            return r
    return None


def _pm(row, key, digits=3):
    if row is None:
        return "–"
    return f"{row[key]:.{digits}f} ± {row[key + '_std']:.{digits}f}"


def _num(row, key, digits=3):
    if row is None or row.get(key) is None:
        return "–"
    return f"{row[key]:.{digits}f}"


# differences of mean AOPC below this (a tenth of a percentage point of probability) are ties
_TIE = 1e-3


def _beats(paired, name, better_higher):
    """'yes' / 'no' / 'tie' of a paired comparison: 'yes' when the 95% interval of the
    mean per-document difference excludes 0 on the better side and the mean differs by
    at least ``_TIE``."""
    if name not in paired:
        return None
    mean, half = paired[name]
    if not (half == half):  # NaN
        return "?"
    if abs(mean) < _TIE:
        return "tie"
    if (mean - half > 0) if better_higher else (mean + half < 0):
        return "yes"
    if (mean + half < 0) if better_higher else (mean - half > 0):
        return "no"
    return "tie"


def _verdict_of(record, method):
    """How ``method`` compares with the random ranking on both metrics, in words."""
    paired = record["paired"]
    comp = _beats({k: v["comprehensiveness"] for k, v in paired.items()},
                  f"{method}-random", True)
    suff = _beats({k: v["sufficiency"] for k, v in paired.items()}, f"{method}-random", False)
    if comp == suff == "yes":
        return "better on both"
    return f"compr. {comp}, suff. {suff} (better than random?)"


def _verdict(record, other):
    """How the attention compares with ``other`` on both metrics, in words."""
    paired = record["paired"]
    name = f"attention-{other}" if other != "random" else "attention-random"
    comp = _beats({k: v["comprehensiveness"] for k, v in paired.items()}, name, True)
    suff = _beats({k: v["sufficiency"] for k, v in paired.items()}, name, False)
    if comp is None:
        return "–"
    words = {"yes": "better", "no": "worse", "tie": "tie", "?": "?"}
    if comp == suff:
        return {"yes": "**better** on both", "no": "worse on both", "tie": "tie on both",
                "?": "?"}[comp]
    return f"compr. {words[comp]}, suff. {words[suff]}"


def _findings(records, keys):
    """Bullet points: does each family's attention beat random, the gradients, LOO?"""
    out = []
    for k in keys:
        r = records[k]
        if "attention" not in r["methods"]:
            continue
        att = _row(r, "erasure", "attention")
        best = max((m for m in r["methods"] if m != "attention"),
                   key=lambda m: _row(r, "erasure", m)["comprehensiveness_aopc"])
        text = (f"- **{k}**: attention vs random: {_verdict(r, 'random')}; vs integrated "
                f"gradients: {_verdict(r, 'integrated_gradients')}; vs leave-one-out: "
                f"{_verdict(r, 'leave_one_out')}. Comprehensiveness "
                f"{att['comprehensiveness_aopc']:.3f} "
                f"against {_row(r, 'erasure', 'random')['comprehensiveness_aopc']:.3f} at random "
                f"and {_row(r, 'erasure', best)['comprehensiveness_aopc']:.3f} for the best method "
                f"({_SHORT.get(best, best)}).")
        rollout = _row(r, "agreement", "attention~rollout")
        if rollout is not None and rollout["kendall_tau"] > 0.999:
            text += (" Its rollout ranks the tokens exactly as its attention does (τ = 1: one "
                     "self-attention layer, whose rollout is (A + I)/2).")
        permutation = next((x for x in r["rows"] if x["kind"] == "permutation"), None)
        if permutation is not None:
            text += (f" Permuting its pooling attention moves the output by a median TVD of "
                     f"{permutation['median_tvd']:.4f} and flips {permutation['flip_rate']:.1%} "
                     f"of the labels (largest weight {permutation['max_attention']:.3f} on "
                     f"average).")
        out.append(text)
    gradient = [k for k in keys if "attention" not in records[k]["methods"]]
    if gradient:
        taus = ", ".join(_num(_row(records[k], "agreement", "integrated_gradients~leave_one_out"),
                              "kendall_tau", 2) for k in gradient)
        verdicts = {_verdict_of(records[k], m) for k in gradient
                    for m in ("integrated_gradients", "leave_one_out")}
        out.append(f"- Without attention ({', '.join(gradient)}): integrated gradients and "
                   f"leave-one-out agree at τ = {taus}; against random they are "
                   f"{' / '.join(sorted(verdicts))}.")
    return [x for x in out if x]


def write_faithfulness(data, path):
    """Write the Markdown tables of the faithfulness experiment; returns the text."""
    records = data["records"]
    order = ["SANet", "HCAN", "IRAM", "Transformer", "CNN", "GRU"]
    keys = sorted(records, key=lambda k: (order.index(records[k]["family"])
                                          if records[k]["family"] in order else len(order), k))
    dataset = data["dataset"]
    settings = sorted({(r["documents"], r["sample_seed"], r["ig_steps"], r["random_draws"],
                        r["num_permutations"]) for r in records.values()})
    n, seed, steps, draws, perms = settings[0]
    lines = [
        f"# Is the attention an explanation? Faithfulness of explanations on {dataset}",
        "",
        f"Written by `{data['command']}`. For each family a trained run is explained on the "
        f"same {n} test texts (drawn with `numpy.random.default_rng({seed})`, "
        "`kerasattn.experiments.attention_faithfulness.faithfulness_sample`; "
        "`python -m training.evaluate --run DIR "
        f"--faithfulness --seed {seed}` gives the same figures for one run). Every metric "
        "explains the class the model predicts.",
        "",
        "- **Comprehensiveness AOPC** (higher = more faithful): p(class | text) − p(class | "
        "text without the top k % of tokens), averaged over k = "
        f"{', '.join(map(str, records[keys[0]]['ks']))} %; tokens are removed, not "
        "replaced (DeYoung et al. 2020, ERASER). **Sufficiency AOPC** (lower = more "
        "faithful): p(class | text) − p(class | only the top k %). Mean ± standard deviation "
        "over the documents.",
        f"- **random**: uniformly random token rankings ({draws} per document). **IG**: "
        f"integrated gradients, zero-embedding baseline, {steps} steps; **LOO**: "
        "leave-one-out (the token removed); **rollout**: attention rollout (Abnar & Zuidema "
        "2020) where there are self-attention layers. Attention scores per family: "
        "`kerasattn.interpret.attributions`.",
        "- **τ**: Kendall τ_b between two methods' token rankings by |score| (mean ± std over "
        "the documents; Jain & Wallace 2019 §4.1). **Permutation**: the pooling attention's "
        f"weights permuted among the tokens ({perms} permutations per document; Jain & "
        "Wallace §4.2.1): median total-variation distance of the output, and the share of "
        "permutations that flip the label (HCAN's target attention, the Transformer's "
        "inter-attention; SANet's self-attention and IRAM's iterative attention are not a "
        "single pooling).",
        "- **beats** / **better**: the mean per-document paired difference (of AOPC) is at "
        "least 0.001 and its 95% interval (1.96 standard errors) excludes 0; **worse**: the "
        "same the other way; **tie** otherwise.",
        "",
    ]
    if len(settings) > 1:
        lines += ["**Note:** the rows were measured with different settings (documents, seed, "
                  "IG steps, random draws, permutations): " + "; ".join(map(str, settings)),
                  ""]
    if FAITHFULNESS_NOTES.get(dataset):
        lines += [f"**Note:** {FAITHFULNESS_NOTES[dataset]}", ""]
    lines += [
        "## Key numbers",
        "",
        "| family | test acc. | compr.: attention | random | IG | LOO | suff.: attention "
        "| random | IG | LOO | τ(att, IG) | τ(att, LOO) | τ(IG, LOO) | attention vs random "
        "| attention vs IG | attention vs LOO |",
        "|---|" + "---|" * 15,
    ]
    for k in keys:
        r = records[k]

        def erasure_cell(method, key):
            row = _row(r, "erasure", method)
            return _num(row, key)

        lines.append(
            f"| {k} | {r['test_accuracy']:.3f} | "
            + " | ".join(erasure_cell(m, "comprehensiveness_aopc")
                         for m in ("attention", "random", "integrated_gradients",
                                   "leave_one_out")) + " | "
            + " | ".join(erasure_cell(m, "sufficiency_aopc")
                         for m in ("attention", "random", "integrated_gradients",
                                   "leave_one_out")) + " | "
            + " | ".join(_num(_row(r, "agreement", pair), "kendall_tau")
                         for pair in ("attention~integrated_gradients",
                                      "attention~leave_one_out",
                                      "integrated_gradients~leave_one_out")) + " | "
            + " | ".join(_verdict(r, o) if "attention" in r["methods"] else "–"
                         for o in ("random", "integrated_gradients", "leave_one_out")) + " |")
    lines += [
        "",
        "## Every method",
        "",
        "| family | method | comprehensiveness AOPC | sufficiency AOPC | beats random "
        "(compr. / suff.) | τ with attention | τ with LOO | permutation median TVD "
        "| permutation flip rate | largest attention weight | seconds |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for k in keys:
        r = records[k]
        permutation = next((x for x in r["rows"] if x["kind"] == "permutation"), None)
        for m in r["methods"] + ["random"]:
            row = _row(r, "erasure", m)
            comp = {n_: v["comprehensiveness"] for n_, v in r["paired"].items()}
            suff = {n_: v["sufficiency"] for n_, v in r["paired"].items()}
            beats = "–" if m == "random" else \
                f"{_beats(comp, f'{m}-random', True)} / {_beats(suff, f'{m}-random', False)}"
            tau_att = _pm(_row(r, "agreement", f"attention~{m}"), "kendall_tau", 2)
            tau_loo = _pm(_row(r, "agreement", f"{m}~leave_one_out"), "kendall_tau", 2) \
                if m != "attention" else _pm(_row(r, "agreement", "attention~leave_one_out"),
                                             "kendall_tau", 2)
            if m == "leave_one_out":
                tau_loo = "–"
            tvd = flip = top = "–"
            if m == "attention" and permutation is not None:
                tvd = _pm(permutation, "median_tvd", 4)
                flip = f"{permutation['flip_rate']:.3f}"
                top = f"{permutation['max_attention']:.3f}"
            lines.append(f"| {k} | {_SHORT.get(m, m)} | {_pm(row, 'comprehensiveness_aopc')} | "
                         f"{_pm(row, 'sufficiency_aopc')} | {beats} | {tau_att} | {tau_loo} | "
                         f"{tvd} | {flip} | {top} | {row.get('seconds', 0):.0f} |")
    lines += ["", "## Findings (computed from the tables)", "", *_findings(records, keys),
              "", "## Runs", ""]
    for k in keys:
        r = records[k]
        lines.append(f"- {k}: `{r['command']}` — test accuracy {r['test_accuracy']:.4f} "
                     f"(best epoch {r['best_epoch']}, trained in {r['train_seconds'] or 0:.0f} "
                     f"s), accuracy on the sample {_row(r, 'erasure', 'random')['accuracy']:.3f}, "
                     f"{r['mean_tokens']:.1f} tokens per text; measured in "
                     f"{r['measure_seconds']:.0f} s on {r['measured']}.")
    train = sum(r["train_seconds"] or 0 for r in records.values())
    measure = sum(r["measure_seconds"] for r in records.values())
    lines += ["", f"Time on {data['machine']} (other processes shared the cores): training "
              f"{train / 60:.1f} min (`model.fit` of the {len(records)} runs), measuring "
              f"{measure / 60:.1f} min. The last invocation took "
              f"{data['wall_seconds'] / 60:.1f} min of wall time "
              f"({data['train_wall_seconds'] / 60:.1f} min training or finding the runs, "
              f"{data['measure_wall_seconds'] / 60:.1f} min measuring)."]
    lines += ["", provenance.commits_line({k: records[k].get("provenance") for k in keys})]
    if data.get("provenance"):
        lines += ["", provenance.describe(data["provenance"],
                                          "Provenance of the last invocation")]
    return _write(path, lines)


def faithfulness(run_dirs, output_dir, results_dir, data_dir=None, limit=None, dataset=None,
                 sample=FAITHFULNESS_SAMPLE, seed=0, ig_steps=FAITHFULNESS_IG_STEPS, seeds=1,
                 random_draws=FAITHFULNESS_RANDOM_DRAWS,
                 permutations=FAITHFULNESS_PERMUTATIONS):
    started = time.perf_counter()
    whole = provenance.started(seed=seed)
    given = bool(run_dirs)
    if limit is not None:
        raise ExperimentError("faithfulness measures a seeded sample: give --sample N, "
                              "not --limit")
    if sample < 1 or ig_steps < 1 or seeds < 1 or random_draws < 1 or permutations < 1:
        raise ExperimentError("--sample, --ig-steps, --seeds, --random-draws and "
                              "--permutations must be >= 1")
    if run_dirs:
        found = sorted({runs.read_json(os.path.join(d, runs.CONFIG))["dataset"]
                        for d in run_dirs})
        if len(found) > 1 or (dataset is not None and found != [dataset]):
            raise ExperimentError(f"the runs are on {', '.join(found)}"
                                  + (f", not {dataset}" if dataset else "")
                                  + ": one dataset per table")
        dataset = found[0]
        for d in run_dirs:
            if runs.read_json(os.path.join(d, runs.CONFIG))["kind"] == "classical":
                raise ExperimentError(f"{d} holds a scikit-learn model: nothing to explain")
    else:
        dataset = dataset or "sst2"
        if dataset not in FAITHFULNESS_TRAINING:
            raise ExperimentError(f"faithfulness trains on {', '.join(FAITHFULNESS_TRAINING)}; "
                                  f"give runs on {dataset} with --run")
        run_dirs = []
        for family, cli in FAITHFULNESS_TRAINING[dataset].items():
            for s in range(seeds):
                name = f"{family.lower()}-{dataset}-faithfulness" + (f"-seed{s}" if s else "")
                run_dirs.append(common._run_training(
                    cli + (["--seed", str(s)] if s else []), name, output_dir))
    trained = time.perf_counter()
    command = ["python -m training.reproduce --experiment faithfulness", f"--dataset {dataset}"]
    for flag, value, default in (("--sample", sample, FAITHFULNESS_SAMPLE),
                                 ("--seed", seed, 0), ("--ig-steps", ig_steps,
                                                       FAITHFULNESS_IG_STEPS),
                                 ("--seeds", seeds, 1),
                                 ("--random-draws", random_draws, FAITHFULNESS_RANDOM_DRAWS),
                                 ("--permutations", permutations, FAITHFULNESS_PERMUTATIONS)):
        if value != default:
            command.append(f"{flag} {value}")
    if given:
        command += [f"--run {d}" for d in run_dirs]
    elif os.path.normpath(output_dir) != os.path.join("runs", "reproduce"):
        command.append(f"--output-dir {output_dir}")
    stem = os.path.join(results_dir, f"faithfulness_{_dataset_stem(dataset)}")
    json_path = stem + ".json"
    os.makedirs(results_dir, exist_ok=True)
    data = runs.read_json(json_path) if os.path.exists(json_path) else {}
    if data.get("dataset") != dataset:
        data = {"dataset": dataset, "records": {}}
    for run_dir in run_dirs:
        print(f"faithfulness of {run_dir} on {sample} test texts:", flush=True)
        start = time.perf_counter()
        measuring = provenance.started(seed=seed)
        record = faithfulness_of_run(run_dir, sample, seed, ig_steps, data_dir, random_draws,
                                     permutations)
        record["measure_seconds"] = round(time.perf_counter() - start, 1)
        record["provenance"] = provenance.entry(measuring, run_dir=run_dir)
        key = record["family"] + (f" (seed {record['train_seed']})" if seeds > 1 or
                                  record["train_seed"] else "")
        if key in data["records"] and data["records"][key]["model"] != record["model"]:
            key = f"{key} [{record['model']}]"
        data["records"][key] = record
        runs.write_json(json_path, data)
    finished = time.perf_counter()
    data.update(command=" ".join(command), wall_seconds=round(finished - started, 1),
                train_wall_seconds=round(trained - started, 1),
                measure_wall_seconds=round(finished - trained, 1),
                machine=runs.environment()["machine"], provenance=provenance.entry(whole))
    runs.write_json(json_path, data)
    return write_faithfulness(data, stem + ".md")
