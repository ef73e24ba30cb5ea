"""What the command line prints is text, never terminal commands.

Questions, rewordings and answers come from a model, error messages from a
server: any of them may carry escape sequences (``ESC [2J`` clears the
screen, ``ESC ] 0;… BEL`` retitles the window, OSC 52 writes the clipboard).
:class:`TerminalSafe` wraps ``sys.stdout`` and ``sys.stderr`` for the whole
command, so no print site can forget: escape sequences and control
characters are dropped; line breaks and tabs stay, and so does the carriage
return a progress line starts with (the one control we write ourselves).
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from typing import Any

__all__ = ["TerminalSafe", "printable", "terminal_safe_streams"]

_CONTROLS = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, screen clears
    r"|\x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC, DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-~]?"  # other escapes (and a lone ESC)
    r"|\x9b[0-?]*[ -/]*[@-~]"  # the 8-bit CSI
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # every other C0 / C1 control but tab and line feed
)


def printable(text: str) -> str:
    r"""``text`` without escape sequences or control characters (line breaks and tabs kept).

    >>> printable("\x1b]0;pwned\x07\x1b[31mParis\x1b[0m\r\n")
    'Paris\n'
    """
    return _CONTROLS.sub("", text)


class TerminalSafe:
    """A text stream that writes :func:`printable` text; everything else is the wrapped stream's."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        """Write the text without controls; a leading carriage return (a progress line) stays."""
        lead = "\r" if text.startswith("\r") else ""
        self._stream.write(lead + printable(text[len(lead) :]))
        return len(text)

    def writelines(self, lines: Any) -> None:
        """Write each line as :meth:`write` does."""
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def terminal_safe_streams() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` wrapped in :class:`TerminalSafe` for the block."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalSafe(out), TerminalSafe(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
