"""The one error of a question file (and of a batch output file): what is wrong, and where."""

from __future__ import annotations

import os
from typing import Any

from ...errors import InventError

__all__ = ["BatchInputError", "OutputBusyError"]


class BatchInputError(InventError, ValueError):
    """An input (question) file, or a batch output file, cannot be used; the message names where.

    Attributes
    ----------
    file, row, column, line, byte : where the problem is (``None`` when not
        known). ``row`` is the 1-based data row (the header is not a row),
        ``line`` the 1-based physical line, ``byte`` a 0-based byte offset.
    reason : the message without the location.
    """

    def __init__(
        self,
        reason: str,
        *,
        file: str | os.PathLike | None = None,
        row: int | None = None,
        column: str | None = None,
        line: int | None = None,
        byte: int | None = None,
    ) -> None:
        self.reason = reason
        self.file = str(file) if file is not None else None
        self.row, self.column, self.line, self.byte = row, column, line, byte
        super().__init__(f"{self.where}: {reason}" if self.where else reason)

    @property
    def where(self) -> str:
        """``file, row R (line L), byte B, column 'c'`` with the parts that are known."""
        parts = [self.file] if self.file else []
        if self.row is not None:
            parts.append(
                f"row {self.row}" + (f" (line {self.line})" if self.line is not None else "")
            )
        elif self.line is not None:
            parts.append(f"line {self.line}")
        if self.byte is not None:
            parts.append(f"byte {self.byte}")
        if self.column is not None:
            parts.append(f"column {self.column!r}")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """The location and the reason, as one line of the errors sidecar."""
        return {
            "file": self.file,
            "row": self.row,
            "line": self.line,
            "column": self.column,
            "byte": self.byte,
            "error": self.reason,
            "message": str(self),
        }


class OutputBusyError(BatchInputError):
    """Another run holds the output's lock (:mod:`invent_core.batch.output.lock`).

    Defined beside its base rather than with the lock, so that the commands'
    exit mapping can name it without importing the batch package (0.3 s of
    the methods and scipy.linalg that a refused command must not pay).
    """
