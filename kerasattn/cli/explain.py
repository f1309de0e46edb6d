"""Show what a trained model attends to, and what its prediction rests on: an HTML
colour map and PNG heatmaps.

    kerasattn explain --run runs/sanet-base-imdb --text "a wonderful film" \\
        --output explain/imdb.html
    kerasattn explain --run DIR --input reviews.txt --output page.html  # one text per line
    kerasattn explain --run runs/gru-sst2 --text "dull" --output gru.html \\
        --attribution leave_one_out
    kerasattn explain --run DIR --serve [--port 8765] [--host 127.0.0.1]
        # an interactive page: type texts, see the same (kerasattn.explain_server)

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

Per family (hierarchical models, pooling layers, IRAM's steps): see
``kerasattn.interpret.report``.
"""

import argparse
import os
import sys

from kerasattn import runs
from kerasattn.cli.parsing import (ArgumentParser, fault_line, output_file_error, port_number,
                                   positive_int, read_text_lines, utf8_text)
from kerasattn.preset_dirs import METADATA

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# kerasattn.interpret.attributions.METHODS, and "none" (no import of TensorFlow to parse)
ATTRIBUTIONS = ("integrated_gradients", "gradient_x_input", "leave_one_out", "attention",
                "rollout", "none")


def build_parser():
    p = ArgumentParser(prog="kerasattn explain", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", required=True,
                   help="the run directory (of any Keras model); with --serve also a "
                        "preset directory or a .keras file of a TextClassifier")
    p.add_argument("--text", action="append", default=[], type=utf8_text,
                   help="a text to explain (repeatable)")
    p.add_argument("--input", help="a UTF-8 file with one text per line ('-' for stdin)")
    p.add_argument("--output", help="the HTML file to write (required unless --serve)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace --output (and its heatmaps) when they exist; by default an "
                        "existing file is refused")
    p.add_argument("--serve", action="store_true",
                   help="start a local web server with an interactive page instead of "
                        "writing a file (kerasattn.explain_server)")
    p.add_argument("--port", type=port_number, default=8765,
                   help="--serve: the port (default 8765; 0 = a free port)")
    p.add_argument("--host", default="127.0.0.1",
                   help="--serve: the address to bind (default 127.0.0.1; the page has no "
                        "authentication)")
    p.add_argument("--max-tokens", type=positive_int, default=80,
                   help="heatmaps show at most this many words (default 80)")
    p.add_argument("--no-heatmaps", action="store_true", help="write the HTML page only")
    p.add_argument("--attribution", default="integrated_gradients", choices=ATTRIBUTIONS,
                   metavar="METHOD",
                   help="token attribution shown beside the attention: " +
                        ", ".join(ATTRIBUTIONS) + " (default integrated_gradients)")
    p.add_argument("--steps", type=positive_int, default=50,
                   help="integrated gradients: Riemann-sum steps (default 50)")
    return p


def _texts(args):
    texts = list(args.text)
    if args.input:
        texts += read_text_lines(args.input)
    return texts


def explain(run_dir, texts, output, max_tokens=80, heatmaps=True,
            attribution="integrated_gradients", steps=50):
    """Write a run's page (and heatmaps) for ``texts``: :func:`kerasattn.interpret.report.
    write_report` on the run's model; returns (html path, png paths)."""
    from kerasattn.interpret.report import write_report  # late: Keras and TensorFlow, after parsing

    run = runs.load_run(run_dir)
    return write_report(run.backbone, run.preprocessor, texts, output,
                        run.config.get("class_names"),
                        f"{run.config['model']} on {run.config['dataset']}", max_tokens,
                        heatmaps, attribution, steps)


def _error(message):
    print(f"error: {message}", file=sys.stderr)
    return 2


def main(argv=None):
    args = build_parser().parse_args(argv)
    saved = args.serve and (args.run.endswith(".keras") and os.path.isfile(args.run)
                            or os.path.isfile(os.path.join(args.run, METADATA)))
    if not saved:
        try:  # the one check of a run every command makes (marker, schema, files)
            runs.open_run(args.run, finished=False, need=[runs.KERAS_MODEL])
        except runs.RunError as e:
            return _error(f"{e}" + ("" if args.serve or os.path.exists(
                os.path.join(args.run, runs.CONFIG)) else
                "; --serve also takes a preset or .keras file"))
    if args.serve:
        if args.output or args.text or args.input:
            return _error("--serve takes its texts from the page: drop --output, --text "
                          "and --input")
        from kerasattn import explain_server as server  # late: Keras and TensorFlow, after parsing

        try:
            return server.serve(args.run, args.host, args.port)
        except (ValueError, OSError) as e:
            return _error(e)
    if not args.output:
        return _error("give --output FILE.html (or --serve for the interactive page)")
    from kerasattn.interpret.report import heatmaps_of  # late: Keras and TensorFlow, after parsing

    problem = output_file_error(args.output, args.overwrite)
    if problem is None and not args.overwrite and not args.no_heatmaps \
            and heatmaps_of(args.output):
        problem = (f"--output {args.output}: heatmaps of an earlier page are beside it "
                   f"({os.path.basename(heatmaps_of(args.output)[0])}, ...); pass "
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
    except Exception as e:  # a full disk, a read-only folder
        line = fault_line(e, args.output)
        if line is None and isinstance(e, OSError):
            line = f"cannot write {e.filename or args.output}: {e.strerror or e}"
        if line is None:
            raise
        print(f"error: {line}", file=sys.stderr)
        return 1
    print(f"wrote {page}" + (f" and {len(pngs)} heatmap(s)" if pngs else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
