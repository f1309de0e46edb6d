"""MkDocs hook: pages generated from the code at build time, so they never go stale.

- A line ``<!-- cli-help: COMMAND [ARGS...] -->`` on its own is replaced by a ``text``
  block with the output of ``kerasattn COMMAND [ARGS...] --help`` (run in this process
  through :func:`kerasattn.cli.main`, 100 columns wide): the flag lists of the command
  line page come from the argparse parsers. A command that fails to print its help
  fails the build.
- A line ``<!-- api-modules: PACKAGE [except=a,b] -->`` on its own is replaced by one
  mkdocstrings directive (``::: PACKAGE.module``) per public module of the package
  (files not starting with ``_``, read from the source tree, sorted), so a new module
  appears in the API reference without editing the page.
"""

import contextlib
import io
import os
import re
import shlex
import sys

MARKER = re.compile(r"^<!-- cli-help: (?P<args>[^>]+?) -->$", re.MULTILINE)
MODULES = re.compile(r"^<!-- api-modules: (?P<package>[\w.]+)(?: except=(?P<skip>[\w,]+))? -->$",
                     re.MULTILINE)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
WIDTH = "100"

_cache = {}
# sub-packages with a reference page of their own (mkdocs.yml's nav)
SEPARATE_PAGES = {"kerasattn.data", "kerasattn.interpret", "kerasattn.layers", "kerasattn.models",
                  "kerasattn.training", "kerasattn.experiments", "kerasattn.cli"}


def command_help(args):
    """The ``--help`` text of ``kerasattn ARGS --help`` (a list of words)."""
    key = tuple(args)
    if key not in _cache:
        if ROOT not in sys.path:  # the checkout's kerasattn, also when it is not installed
            sys.path.insert(0, ROOT)  # (MkDocs restores sys.path after loading a hook)
        from kerasattn import cli

        old = os.environ.get("COLUMNS")
        os.environ["COLUMNS"] = WIDTH
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                try:
                    status = cli.main([*args, "--help"])
                except SystemExit as e:  # argparse exits after printing the help
                    status = e.code
        finally:
            if old is None:
                os.environ.pop("COLUMNS", None)
            else:
                os.environ["COLUMNS"] = old
        text = out.getvalue().rstrip()
        if status not in (0, None) or not text:
            raise RuntimeError(f"kerasattn {' '.join(args)} --help failed ({status})")
        _cache[key] = text
    return _cache[key]


def public_modules(package, skip=()):
    """The public modules and sub-packages of ``package``, from its source directory (a
    sub-package is rendered whole: the names it exports, not its own modules)."""
    folder = os.path.join(ROOT, *package.split("."))
    names = sorted(f[:-3] for f in os.listdir(folder)
                   if f.endswith(".py") and not f.startswith("_") and f[:-3] not in skip)
    names += [f for f in os.listdir(folder)
              if os.path.isfile(os.path.join(folder, f, "__init__.py"))
              and not f.startswith("_") and f not in skip
              and f"{package}.{f}" not in SEPARATE_PAGES]
    names.sort()
    if not names:
        raise RuntimeError(f"no public module in {folder}")
    return [f"{package}.{name}" for name in names]


def on_page_markdown(markdown, page, config, files, **kwargs):
    def replace_help(match):
        args = shlex.split(match.group("args"))
        return "```text\n" + command_help(args) + "\n```"

    def replace_modules(match):
        skip = (match.group("skip") or "").split(",")
        return "\n\n".join(f"::: {m}" for m in public_modules(match.group("package"), skip))

    return MODULES.sub(replace_modules, MARKER.sub(replace_help, markdown))
