"""``python -m invent_core <command>``: one module per command in ``invent_core/commands``."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
import warnings
from pathlib import Path

from .commands.common import check_llm_args
from .commands.terminal import terminal_safe_streams
from .errors import InventError, InventWarning, scrub

#: command modules under invent_core.commands, in the order --help lists them
COMMANDS: tuple[str, ...] = (
    "score",
    "batch",
    "merge",
    "export-samples",
    "evaluate",
    "compare",
    "tsu",
    "run",
    "report",
    "reference",
)


class OneLineParser(argparse.ArgumentParser):
    """An option argparse refuses is one ``error:`` line, as every other refusal.

    argparse's own prints the whole usage block (40 lines for ``batch``) above it;
    the line names the option and where to read about the others.
    """

    def error(self, message: str):
        """Print ``error: MESSAGE (PROG --help lists the options)`` and exit 2."""
        self.exit(2, f"error: {self.prog}: {message} ({self.prog} --help lists the options)\n")


def build_parser() -> argparse.ArgumentParser:
    """Build the ``python -m invent_core`` parser with every command's subparser."""
    parser = OneLineParser(
        # the console script of `pip install .` is `invent`; the module stays
        prog="invent" if Path(sys.argv[0]).name == "invent" else "python -m invent_core",
        description="Inv-Entropy uncertainty quantification for LLM answers.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(f"invent_core.commands.{name.replace('-', '_')}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; a usage error exits 2 with one line naming the problem."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # a process of its own (argv None: the console script, python -m): invent's warnings
    # print as the commands' "warning: …" lines; a caller's (a test's) warning machinery is kept
    shown = one_line_warnings() if argv is None else contextlib.nullcontext()
    with shown, terminal_safe_streams():  # model and server text is printed, never run
        return _run(args)


@contextlib.contextmanager
def one_line_warnings():
    """Within: an :class:`~invent_core.errors.InventWarning` prints as ``warning: MESSAGE``.

    Python's default shows the source file and line of the ``warnings.warn`` call,
    which names our code, not the user's file. Other warnings keep the default.
    """
    with warnings.catch_warnings():
        default = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if issubclass(category, InventWarning):
                print(f"warning: {scrub(message)}", file=file or sys.stderr)
            else:
                default(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield


def _run(args) -> int:
    try:
        if hasattr(args, "llm"):  # an unusable --llm / --paraphrase-llm: before any file is touched
            check_llm_args(args)
        return int(args.func(args) or 0)
    except (InventError, ValueError, FileNotFoundError, PermissionError, IsADirectoryError) as err:
        # People get one line naming the problem, not a traceback.
        print(f"error: {scrub(err)}", file=sys.stderr)  # a server may have echoed a key
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
