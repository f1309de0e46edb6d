"""Show what a trained model attends to, and what its prediction rests on: an HTML
colour map and PNG heatmaps.

    python -m training.explain --run runs/sanet-base-imdb --text "a wonderful film" \\
        --output explain/imdb.html
    python -m training.explain --run DIR --input reviews.txt --output page.html  # one text per line
    python -m training.explain --run runs/gru-sst2 --text "dull" --output gru.html \\
        --attribution leave_one_out
    python -m training.explain --run DIR --serve [--port 8765] [--host 127.0.0.1]
        # an interactive page: type texts, see the same (kerasattn.interpret.server)

Loads the run's best model and preprocessor, extracts every attention tensor
(``kerasattn.interpret.extract_attention``), computes a token attribution
(``kerasattn.interpret.explain_tokens``; ``--attribution``: integrated gradients
by default, ``none`` to skip it), and writes:

- ``FILE.html``: each text with every word coloured by the attention it
  receives (one line per attention layer) and, beside it over the same words,
  by its attribution to the predicted class (green: for it, purple: against
  it), the prediction and probabilities, and the heatmaps below it. Models
  without attention (``mlp``, ``cnn``, the RNNs) get the attribution only;
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

from kerasattn.cli.parsing import ArgumentParser, output_file_error, read_text_lines

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# kerasattn.interpret.attributions.METHODS, and "none" (no import of TensorFlow to parse)
ATTRIBUTIONS = ("integrated_gradients", "gradient_x_input", "leave_one_out", "attention",
                "rollout", "none")


def build_parser():
    p = ArgumentParser(prog="kerasattn explain", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", required=True, help="the run directory (of any Keras model)")
    p.add_argument("--text", action="append", default=[], help="a text to explain (repeatable)")
    p.add_argument("--input", help="a UTF-8 file with one text per line ('-' for stdin)")
    p.add_argument("--output", help="the HTML file to write (required unless --serve)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace --output (and its heatmaps) when they exist; by default an "
                        "existing file is refused")
    p.add_argument("--serve", action="store_true",
                   help="start a local web server with an interactive page instead of "
                        "writing a file (kerasattn.interpret.server)")
    p.add_argument("--port", type=int, default=8765,
                   help="--serve: the port (default 8765; 0 = a free port)")
    p.add_argument("--host", default="127.0.0.1",
                   help="--serve: the address to bind (default 127.0.0.1; the page has no "
                        "authentication)")
    p.add_argument("--max-tokens", type=int, default=80,
                   help="heatmaps show at most this many words (default 80)")
    p.add_argument("--no-heatmaps", action="store_true", help="write the HTML page only")
    p.add_argument("--attribution", default="integrated_gradients", choices=ATTRIBUTIONS,
                   metavar="METHOD",
                   help="token attribution shown beside the attention: " +
                        ", ".join(ATTRIBUTIONS) + " (default integrated_gradients)")
    p.add_argument("--steps", type=int, default=50,
                   help="integrated gradients: Riemann-sum steps (default 50)")
    return p


def _texts(args):
    texts = list(args.text)
    if args.input:
        texts += read_text_lines(args.input)
    return texts


def _heatmaps_of(output):
    """Heatmaps an earlier page at ``output`` left (``STEM-<n>-<layer>.png``)."""
    import glob

    stem = glob.escape(os.path.splitext(output)[0])
    return sorted(glob.glob(f"{stem}-[0-9]*-*.png"))


def _token_attribution(model, texts, pre, method, steps):
    """The run's attributions of ``texts`` by ``method`` (None for ``"none"``)."""
    from kerasattn.interpret.attributions import applicable_methods, explain_tokens

    if method == "none":
        return None
    available = applicable_methods(model)
    if method not in available:
        raise ValueError(f"--attribution {method} does not apply to model {model.name!r} "
                         f"(it takes: {', '.join(available)}, or none)")
    return explain_tokens(model, texts, pre, method=method, steps=steps)


def _explanations(model, texts, pre):
    """The attention of each text (``extract_attention``); a model without attention
    gets each text's tokens and probabilities with an empty ``attention``."""
    from kerasattn.interpret import Explanation, attention_layers, extract_attention
    from kerasattn.interpret.attributions import predict_probabilities, prepare_documents

    if attention_layers(model):
        return extract_attention(model, texts, pre)
    _, docs, tokens, hierarchical = prepare_documents(model, texts, pre)
    probs = predict_probabilities(model, docs)
    return [Explanation(tokens=t, probabilities=p.astype("float32"), attention={}, axes={},
                        hierarchical=hierarchical) for t, p in zip(tokens, probs)]


def explain(run_dir, texts, output, max_tokens=80, heatmaps=True,
            attribution="integrated_gradients", steps=50):
    """Write the page (and heatmaps) for ``texts``; returns (html path, png paths).

    ``attribution``: the :func:`kerasattn.interpret.explain_tokens` method shown
    beside the attention (``"none"``: the attention only; a model without
    attention then shows its predictions alone)."""
    from kerasattn import runs
    from kerasattn.interpret.plots import (METHOD_NAMES, attention_heatmap, attention_html,
                                           hierarchical_heatmap, hierarchical_levels,
                                           iterative_heatmap, word_colour_map)

    config, model, pre = runs.load_keras_run(run_dir)
    attributions = _token_attribution(model, texts, pre, attribution, steps)
    explanations = _explanations(model, texts, pre)
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
    what = [name for name, present in (
        ("attention", any(ex.attention for ex in explanations)),
        (METHOD_NAMES.get(attribution, attribution), attributions is not None)) if present]
    attention_html(explanations, output, class_names,
                   title=f"{config['model']} on {config['dataset']}: "
                         f"{' and '.join(what) or 'predictions'}",
                   images=images, attributions=attributions)
    return output, pngs


def _error(message):
    print(f"error: {message}", file=sys.stderr)
    return 2


def main(argv=None):
    args = build_parser().parse_args(argv)
    from kerasattn import runs

    if not os.path.exists(os.path.join(args.run, runs.CONFIG)):
        return _error(f"{args.run} is not a run directory (no {runs.CONFIG})")
    if args.max_tokens < 1:
        return _error(f"--max-tokens must be >= 1, got {args.max_tokens}")
    if args.steps < 1:
        return _error(f"--steps must be >= 1, got {args.steps}")
    if args.serve:
        if args.output or args.text or args.input:
            return _error("--serve takes its texts from the page: drop --output, --text "
                          "and --input")
        if not 0 <= args.port <= 65535:
            return _error(f"--port must be in 0..65535 (0: any free port), got {args.port}")
        from kerasattn.interpret import server

        try:
            return server.serve(args.run, args.host, args.port)
        except (ValueError, OSError) as e:
            return _error(e)
    if not args.output:
        return _error("give --output FILE.html (or --serve for the interactive page)")
    problem = output_file_error(args.output, args.overwrite)
    if problem is None and not args.overwrite and not args.no_heatmaps \
            and _heatmaps_of(args.output):
        problem = (f"--output {args.output}: heatmaps of an earlier page are beside it "
                   f"({os.path.basename(_heatmaps_of(args.output)[0])}, ...); pass "
                   "--overwrite to replace them")
    if problem:
        return _error(problem)
    try:
        texts = _texts(args)
    except ValueError as e:
        return _error(e)
    if not texts:
        return _error("nothing to explain: give --text and/or --input")
    try:
        page, pngs = explain(args.run, texts, args.output, args.max_tokens,
                             not args.no_heatmaps, args.attribution, args.steps)
    except ValueError as e:
        return _error(e)
    except OSError as e:
        return _error(f"cannot write {e.filename or args.output}: {e.strerror or e}")
    print(f"wrote {page}" + (f" and {len(pngs)} heatmap(s)" if pngs else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
