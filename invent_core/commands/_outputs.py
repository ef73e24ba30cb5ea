"""The commands' output files: refused, named, before any work when they cannot be written."""

from __future__ import annotations

from pathlib import Path

from ..questions.files import BatchInputError
from .exits import DISK_FULL_ERRNOS


def check_output_file(path: Path) -> None:
    """Refuse an output file that cannot be written (a folder, a read-only one), naming it.

    Makes its folder. ``run --save`` calls it before any work, ``reference build`` before it
    writes.
    """
    from ..batch.output import check_output_paths, probe_space

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        if err.errno in DISK_FULL_ERRNOS:
            raise
        raise BatchInputError(
            f"cannot create its folder: {err.strerror or err}", file=path
        ) from None
    check_output_paths([path])
    probe_space(path.parent)  # a full disk exits 3 now, not after the whole run
