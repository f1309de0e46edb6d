"""Train in-domain word vectors and write them in the GloVe text format.

    kerasattn word-vectors --dataset sst2 [--dataset imdb] [--texts FILE ...] \\
        --dim 100 [--method fasttext|word2vec] --output vectors/sst2-imdb-100d.txt
    kerasattn train --model cnn --dataset sst2 --embeddings vectors/sst2-imdb-100d.txt \\
        --model-option embedding_dim=100

Reads the *training* texts of each ``--dataset`` (a built-in name or
``csv:PATH`` / ``jsonl:PATH``; never its validation or test texts) and every
line of each ``--texts`` file (plain UTF-8, one unlabelled text per line),
tokenises them as the models do (``--model`` picks that preset's text options,
e.g. HCAN's), trains FastText (default) or Word2Vec with gensim
(:mod:`kerasattn.embeddings`) and writes ``--output``. Everything is checked
before training; an existing ``--output`` is kept unless ``--overwrite``.
"""

import argparse
import os
import sys

from kerasattn import embeddings, models
from kerasattn.cli.parsing import ArgumentParser, Bounds, length, positive_int, seed
from kerasattn.data import datasets

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


THREADS = Bounds(True, 1, 1024, unit="threads", name="threads")


def build_parser():
    p = ArgumentParser(prog="kerasattn word-vectors", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dataset", action="append", default=[],
                   help="a dataset whose training texts to learn from (repeatable)")
    p.add_argument("--texts", action="append", default=[], metavar="FILE",
                   help="a UTF-8 file of unlabelled texts, one per line (repeatable)")
    p.add_argument("--output", required=True, help="the GloVe text file to write")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --output")
    p.add_argument("--dim", type=length, default=100,
                   help="vector size: the model's embedding_dim (default 100)")
    p.add_argument("--method", choices=("fasttext", "word2vec"), default="fasttext")
    p.add_argument("--epochs", type=positive_int, default=10, help="passes over the texts (10)")
    p.add_argument("--window", type=length, default=5, help="context words each side (5)")
    p.add_argument("--min-count", type=positive_int, default=2,
                   help="occurrences for a word's own vector (2, as the vocabulary's "
                        "--min-freq)")
    p.add_argument("--cbow", action="store_true", help="CBOW instead of skip-gram")
    p.add_argument("--model", default=None,
                   help="tokenise with this preset's text options (default: the default "
                        "text mode)")
    p.add_argument("--seed", type=seed, default=0)
    p.add_argument("--workers", type=THREADS, default=None,
                   help="threads (default: every core; 1 repeats exactly)")
    p.add_argument("--data-dir", default=None, help="where the datasets are "
                                                    "(default: $KERASATTN_DATA_DIR)")
    return p


def _read_lines(path):
    """The non-empty lines of a UTF-8 file; errors name the file and line."""
    with open(path, "rb") as fh:
        raw = fh.read()
    lines = raw.split(b"\n")
    texts = []
    for lineno, line in enumerate(lines, 1):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"{path}:{lineno}: not valid UTF-8 ({e.reason} at byte "
                             f"{e.start})") from None
        if text.strip():
            texts.append(text)
    return texts


def main(argv=None):
    p = build_parser()
    args = p.parse_args(argv)
    if not args.dataset and not args.texts:
        p.error("give at least one --dataset or --texts file")
    out = args.output
    if os.path.isdir(out):
        print(f"error: --output {out} is a directory", file=sys.stderr)
        return 2
    if os.path.exists(out) and not args.overwrite:
        print(f"error: {out} exists; pass --overwrite to replace it", file=sys.stderr)
        return 2
    parent = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(parent):
        print(f"error: --output's directory {parent} does not exist", file=sys.stderr)
        return 2
    for path in args.texts:
        if not os.path.isfile(path):
            print(f"error: --texts {path}: no such file", file=sys.stderr)
            return 2

    try:
        embeddings.require_gensim()  # before reading anything
    except ImportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    options = {"text_mode": "default", "remove_punctuation": False,
               "remove_stopwords": False}
    if args.model:
        try:
            defaults = models.get_preset(args.model).training_defaults()
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        options = {k: defaults[k] for k in options}
    texts = []
    try:
        for name in args.dataset:
            ds = datasets.load(name, data_dir=args.data_dir)
            print(f"{name}: {len(ds.train):,} training texts (validation and test texts "
                  f"are not used)", flush=True)
            texts += list(ds.train.texts)
        for path in args.texts:
            lines = _read_lines(path)
            print(f"{path}: {len(lines):,} texts", flush=True)
            texts += lines
    except (datasets.DatasetError, ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        vectors, stats = embeddings.train_word_vectors(
            texts, dim=args.dim, method=args.method, window=args.window,
            min_count=args.min_count, epochs=args.epochs, seed=args.seed,
            workers=args.workers, sg=not args.cbow, progress=lambda m: print(m, flush=True),
            **options)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    written = embeddings.write_glove(vectors, out, words=stats["corpus_words"])
    print(f"wrote {written:,} {args.dim}-d vectors to {out} ({stats['seconds']:.0f} s); "
          f"use it with --embeddings {out} --model-option embedding_dim={args.dim}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
