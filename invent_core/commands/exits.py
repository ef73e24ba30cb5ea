"""Exit statuses of ``python -m invent_core``, and the failures every command maps the same way.

====  ==================================================================
0     done (batch: every row scored)
1     batch: some rows failed; they are listed in ``OUTPUT.errors.jsonl``
      and the others are in the output
2     an input, an option or an output that cannot be used; one line on
      stderr names the file, row, column or option; nothing was written
      (or, for a problem found mid-file, the rows before it are kept)
3     the disk is full (or over quota); the rows written so far are kept:
      free space and run the same command again to resume (every command)
4     another run is writing the same output (it holds ``OUTPUT.lock``;
      evaluate/tsu: ``FOLDER/.invent.lock``)
130   interrupted (Ctrl-C); rerun the same command to resume
141   standard output was closed early (e.g. piped to ``head``); nothing
      is printed about it
====  ==================================================================
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Callable

from ..errors import OutputBusyError, scrub

OK = 0
ROWS_FAILED = 1
UNUSABLE = 2
DISK_FULL = 3
BUSY = 4
INTERRUPTED = 130
PIPE_CLOSED = 141

#: errno values that mean "the disk is full", whatever file was being written.
DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def run_guarded(
    main: Callable[[argparse.Namespace], int], args: argparse.Namespace, *, writing: str = ""
) -> int:
    """``main(args)`` with the disk-full, busy-output and closed-pipe cases mapped to their statuses.

    Parameters
    ----------
    main : the command's body.
    args : its parsed options.
    writing : what the command writes (named in the disk-full message).
    """
    try:
        status = main(args)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
        return status
    except OutputBusyError as err:
        print(f"error: {scrub(err)}", file=sys.stderr)
        return BUSY
    except BrokenPipeError:
        _silence_stdout()
        return PIPE_CLOSED
    except OSError as err:
        if err.errno not in DISK_FULL_ERRNOS:
            raise
        where = f" while writing {err.filename or writing}" if (err.filename or writing) else ""
        print(
            f"error: the disk is full{where} ({err.strerror}); the rows written so far are kept: "
            "free some space and run the same command again to resume",
            file=sys.stderr,
        )
        return DISK_FULL
