"""Show what a trained model attends to: an HTML colour map and PNG heatmaps.

    python -m training.explain --run runs/sanet-base-imdb --text "a wonderful film" \\
        --output explain/imdb.html
    python -m training.explain --run DIR --input reviews.txt --output page.html  # one text per line

Loads the run's best model and preprocessor, extracts every attention tensor
(``kerasattn.interpret.extract_attention``), and writes:

- ``FILE.html``: each text with every word coloured by the attention it
  receives (one line per attention layer), the prediction and probabilities,
  and the heatmaps below it;
- ``FILE-<n>-<layer>.png`` beside it: each attention matrix with the words on
  both axes (rows attend to columns), as in the SANet paper's Figures 3–6.

For hierarchical models (HCAN, HAN) the page shows every sentence on its own
line with its sentence-level weights and its words coloured by their
word-level weights, and ``FILE-<n>-<word layer>.png`` draws the same grid
(the HCAN paper's Figure 4) for each word-level pooling layer.

A pooling layer with one weight per word (the Transformer's inter-attention)
gets ``FILE-<n>-<layer>.png``: the text with each word's background as dark as
its weight (the Transformer paper's Figures 11–12), the PNG twin of its line
on the page.

For IRAM the page has one line per attention step (words coloured, then the
step's weights on the earlier summaries) and ``FILE-<n>-<layer>.png`` is the
words × steps matrix with the summary rows below the words (the IRAM paper's
Figure 6).
"""

import argparse
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def build_parser():
    p = argparse.ArgumentParser(prog="kerasattn explain", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", required=True, help="the run directory (of a model with attention)")
    p.add_argument("--text", action="append", default=[], help="a text to explain (repeatable)")
    p.add_argument("--input", help="a UTF-8 file with one text per line ('-' for stdin)")
    p.add_argument("--output", required=True, help="the HTML file to write")
    p.add_argument("--max-tokens", type=int, default=80,
                   help="heatmaps show at most this many words (default 80)")
    p.add_argument("--no-heatmaps", action="store_true", help="write the HTML page only")
    return p


def _texts(args):
    texts = list(args.text)
    if args.input:
        fh = sys.stdin if args.input == "-" else open(args.input, encoding="utf-8")
        with fh:
            texts += [line.rstrip("\n") for line in fh if line.strip()]
    return texts


def explain(run_dir, texts, output, max_tokens=80, heatmaps=True):
    """Write the page (and heatmaps) for ``texts``; returns (html path, png paths)."""
    from kerasattn import runs
    from kerasattn.interpret import extract_attention
    from kerasattn.interpret.plots import (attention_heatmap, attention_html,
                                           hierarchical_heatmap, hierarchical_levels,
                                           iterative_heatmap, word_colour_map)

    config, model, pre = runs.load_keras_run(run_dir)
    explanations = extract_attention(model, texts, pre)
    class_names = config.get("class_names")
    stem = os.path.splitext(output)[0]
    images, pngs = [], []
    page_dir = os.path.dirname(os.path.abspath(output))
    for i, ex in enumerate(explanations):
        mine = []
        names = class_names or [str(c) for c in range(len(ex.probabilities))]

        def draw(label, plot, *args, **kwargs):
            """Write ``FILE-<n>-<label>.png`` with ``plot`` and list it under text n."""
            png = f"{stem}-{i + 1}-{label}.png"
            plot(*args, png, **kwargs)
            pngs.append(png)
            mine.append(os.path.relpath(png, page_dir))

        title = f"text {i + 1}: predicted {names[ex.label]}"
        if ex.hierarchical:
            word_layers, sentence_layers = hierarchical_levels(ex)
            # the pooling layers (weights over tokens, not query x key matrices)
            pools = [n for n in sentence_layers if "query" not in ex.axes[n]]
            for name in word_layers if heatmaps and pools and any(ex.tokens) else ():
                if "query" not in ex.axes[name]:
                    draw(name, hierarchical_heatmap, ex, name, pools[-1], title=title)
        for name, weights in ex.attention.items() if heatmaps and ex.tokens and \
                not ex.hierarchical else ():
            axes = ex.axes[name]
            titled = f"text {i + 1}, {name}: predicted {names[ex.label]}"
            if axes == ("step", "memory"):  # IRAM: words x steps (its paper's Figure 6)
                draw(name, iterative_heatmap, weights, ex.tokens, max_tokens=max_tokens,
                     title=titled)
            elif axes == ("token",):  # a pooling layer: the text coloured by its weights
                draw(name, word_colour_map, weights, ex.tokens, title=titled)
            elif axes == ("query", "key"):
                draw(name, attention_heatmap, weights, ex.tokens, max_tokens=max_tokens,
                     title=titled)
            elif axes == ("head", "query", "key"):
                for h in range(weights.shape[0]):
                    draw(f"{name}-head{h}", attention_heatmap, weights[h], ex.tokens,
                         max_tokens=max_tokens,
                         title=f"text {i + 1}, {name}-head{h}: predicted {names[ex.label]}")
        images.append(mine)
    attention_html(explanations, output, class_names,
                   title=f"{config['model']} on {config['dataset']}: attention", images=images)
    return output, pngs


def main(argv=None):
    args = build_parser().parse_args(argv)
    from kerasattn import runs

    if not os.path.exists(os.path.join(args.run, runs.CONFIG)):
        print(f"error: {args.run} is not a run directory (no {runs.CONFIG})", file=sys.stderr)
        return 2
    texts = _texts(args)
    if not texts:
        print("error: nothing to explain: give --text and/or --input", file=sys.stderr)
        return 2
    try:
        page, pngs = explain(args.run, texts, args.output, args.max_tokens,
                             not args.no_heatmaps)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {page}" + (f" and {len(pngs)} heatmap(s)" if pngs else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
