"""The folders a URL or the sidebar may name a file in, and how a name becomes a path.

A link (``?run=results/evaluate-arithmetic-100/runs/x.json``) and the sidebar's
reference path name a file by a root's name and the path below it. Only three
roots exist: the saved results of a checkout (``results`` = ``docs/results``),
the shipped data (``assets``) and the dashboard's own storage (``dashboard`` =
``$INVENT_CACHE/dashboard``: its evaluations, sweeps, uploads). A URL can come
from anyone, so a name that is absolute, climbs out of its root (``..``, a
symbolic link pointing elsewhere) or starts with an unknown root is refused:
no link reads an arbitrary file of the server's machine.

Pure: no Streamlit.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from invent_core.env import assets_dir, cache_dir

__all__ = ["RESULTS", "PlaceError", "roots", "resolve", "name_of", "confined"]

#: The saved results of a checkout (absent from an installed wheel).
RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results"


class PlaceError(ValueError):
    """A name that is no file or folder a link may open; the message says why."""


def roots() -> dict[str, Path]:
    """Root name → folder, read at each call (``$INVENT_CACHE`` may change between tests)."""
    return {"results": RESULTS, "assets": assets_dir(), "dashboard": cache_dir() / "dashboard"}


def _where(places: dict[str, Path]) -> str:
    return ", ".join(f"{name}/ ({path})" for name, path in places.items())


def resolve(name: str, places: dict[str, Path] | None = None) -> Path:
    """The existing file or folder ``name`` (``"<root>/<path below it>"``) stands for.

    Raises
    ------
    PlaceError
        Naming ``name`` and why: empty, absolute, under no root, outside its root, missing.
    """
    places = roots() if places is None else places
    text = str(name).strip()
    if not text:
        raise PlaceError("an empty name")
    pure = PurePosixPath(text.replace("\\", "/"))
    if pure.is_absolute() or ":" in pure.parts[0]:
        raise PlaceError(
            f"{text!r} is an absolute path; a link names a file below {_where(places)}"
        )
    root = pure.parts[0]
    if root not in places:
        raise PlaceError(f"{text!r} is under none of the folders a link may name: {_where(places)}")
    base = places[root].resolve()
    target = base.joinpath(*pure.parts[1:]).resolve()
    if not target.is_relative_to(base):
        raise PlaceError(f"{text!r} leads out of {root}/ ({base}); a link stays inside it")
    if not target.exists():
        raise PlaceError(f"{text!r}: no such file or folder under {root}/ ({base})")
    return target


def confined(path: str | Path, places: dict[str, Path] | None = None) -> Path:
    """A path carried inside data (a payload's ``folder``), checked as a link's name is.

    A payload opened by a link or from the history brings its own paths; they are
    no more trusted than the URL: the path must lie under a root once symbolic
    links are followed (:func:`name_of`), and its name passes :func:`resolve`.

    Raises
    ------
    PlaceError
        Naming the path and the folders it must lie in.
    """
    places = roots() if places is None else places
    name = name_of(path, places) if str(path).strip() else None
    if name is None:
        raise PlaceError(
            f"{str(path)!r} is under none of the dashboard's folders: {_where(places)}"
        )
    return resolve(name, places)


def name_of(path: str | Path, places: dict[str, Path] | None = None) -> str | None:
    """The name a link gives ``path`` (``"results/evaluate-…"``), or None outside every root."""
    places = roots() if places is None else places
    target = Path(path).resolve()
    for root, base in places.items():
        base = base.resolve()
        if target.is_relative_to(base):
            below = target.relative_to(base).as_posix()
            return root if below == "." else f"{root}/{below}"
    return None
