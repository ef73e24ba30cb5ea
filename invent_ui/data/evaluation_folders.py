"""The evaluate folders the dashboard can compare: the shipped ones and those made here.

Pure: the page passes the roots (``docs/results`` of a checkout, the
dashboard's own evaluation folders); every folder under them holding a
``scores.csv`` is offered, named by its path below its root.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

#: The saved evaluations of a checkout (absent from an installed wheel).
SHIPPED = Path(__file__).resolve().parents[2] / "docs" / "results"


def evaluation_folders(roots: Iterable[tuple[str, Path]]) -> dict[str, Path]:
    """``{"<root name>/<folder>": folder}`` for every evaluate folder (one with scores.csv) under the roots.

    ``roots``: (name shown, folder) pairs; a root that does not exist offers nothing.
    """
    found: dict[str, Path] = {}
    for name, root in roots:
        if not root.is_dir():
            continue
        for scores in sorted(root.glob("*/scores.csv")):
            found[f"{name}/{scores.parent.name}"] = scores.parent
    return found
