"""The option-field helper and the checks every config's ``__post_init__`` runs.

:func:`opt` makes a dataclass field carrying the metadata the CLI / sidebar
generators read (:mod:`.options`). The ``_check_*`` helpers raise
``ValueError`` with a message that names the option (``"RunConfig.temperature
must be in [0, 2], got 3"``), so validation is written once, here. The bounds
(``MAX_*``) cap the size options before any work or allocation.
"""

from __future__ import annotations

import math
from dataclasses import field
from typing import Any, get_args

#: Highest answer temperature accepted (OpenAI's API limit; llama.cpp takes more,
#: but above 2 a 0.5B model emits noise, not answers).
MAX_TEMPERATURE = 2.0

#: Upper bounds of the size options (B, n, r): far above any use, far below an allocation
#: that cannot succeed (``-B 10**12`` asked for 14.6 TiB).
MAX_BOOTSTRAP = 100_000
MAX_SAMPLES = 1_000
#: Most requests the paraphrase gate may add for one question (re-asks; meaning checks):
#: a probe's unbounded re-asking sent 4,472 requests in 90 s.
MAX_GATE_REQUESTS = 1_000
#: Most tokens of one reply (a rewording list, an answer): above any context the models take.
MAX_TOKENS = 32_768
#: Most rounds, generations or steps of a loop an option sets (GAAP, the adaptive budget).
MAX_ROUNDS = 1_000


def opt(default: Any, help: str, *, flag: str | None = None, cli: bool = True, **extra: Any):
    """A dataclass field with the metadata the CLI / sidebar generators read.

    ``flag`` is an extra short option (``"-n"``); ``cli=False`` keeps a field
    out of the generated options (it is set from another one).
    """
    meta = {"help": help, "flag": flag, "cli": cli, **extra}
    if isinstance(default, list | dict | set):  # pragma: no cover - no mutable defaults here
        raise TypeError("mutable defaults are not allowed in a frozen config")
    return field(default=default, metadata=meta)


def check_int(owner: str, name: str, value: Any, *, low: int, high: int | None = None) -> None:
    """Refuse anything but an integer in [low, high], naming ``owner.name``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{owner}.{name} must be an integer, got {value!r}")
    if value < low:
        raise ValueError(f"{owner}.{name} must be at least {low}, got {value}")
    if high is not None and value > high:  # sizes: bounded before any work or allocation
        raise ValueError(f"{owner}.{name} must be at most {high:,}, got {value:,}")


def check_float(owner: str, name: str, value: Any, *, low: float, high: float) -> None:
    """Refuse anything but a finite number in [low, high], naming ``owner.name``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{owner}.{name} must be a finite number, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{owner}.{name} must be in [{low:g}, {high:g}], got {value:g}")


def check_bool(owner: str, name: str, value: Any) -> None:
    """Refuse anything but True or False (not 0 or 1), naming ``owner.name``."""
    if not isinstance(value, bool):
        raise ValueError(f"{owner}.{name} must be true or false, got {value!r}")


def check_choice(owner: str, name: str, value: Any, kind: Any) -> None:
    """Refuse a value that is not one of the ``Literal`` type ``kind``, naming ``owner.name``."""
    allowed = get_args(kind)
    if value not in allowed:
        raise ValueError(
            f"{owner}.{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}"
        )
