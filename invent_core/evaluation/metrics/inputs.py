"""What every metric takes, checked once, and the one place uncertainty becomes confidence.

Every metric of :mod:`invent_core.evaluation.metrics` takes ``(correct,
uncertainty)``: ``correct`` a 1-D array of 0/1 (or bool) judgements of the
answers, ``uncertainty`` a 1-D float array of the same length, higher = more
uncertain. :func:`check_inputs` turns them into ``(int64 0/1, float64)`` arrays
of shape (n,) or says what is wrong; :func:`confidence_from_uncertainty` is the
sign flip (paper: "Confidence is taken as the negative of the UQ measure").
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

Seed = int | np.random.Generator
OnSingleClass = Literal["redraw", "skip"]


def confidence_from_uncertainty(uncertainty: ArrayLike) -> np.ndarray:
    """Confidence = −uncertainty (paper §3 "Evaluation metrics").

    The only place in invent where the sign flips; every metric calls it.

    Parameters
    ----------
    uncertainty : array of shape (n,); higher = more uncertain.

    Returns
    -------
    array of shape (n,), float64; higher = more confident.
    """
    return -np.asarray(uncertainty, dtype=np.float64)


def check_inputs(correct: ArrayLike, uncertainty: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Validate and return ``(correct as int 0/1, uncertainty as float64)``, both (n,)."""
    c = np.asarray(correct)
    u = np.asarray(uncertainty, dtype=np.float64)
    if c.ndim != 1 or u.ndim != 1:
        raise ValueError(f"correct and uncertainty must be 1-D; got shapes {c.shape} and {u.shape}")
    if c.shape != u.shape:
        raise ValueError(
            f"correct and uncertainty must have the same length; got {c.size} and {u.size}"
        )
    if c.size == 0:
        raise ValueError("correct and uncertainty are empty")
    if c.dtype != bool:
        cf = c.astype(np.float64)
        if np.isnan(cf).any() or not np.isin(cf, (0.0, 1.0)).all():
            raise ValueError("correct must contain only 0/1 or True/False")
    c = c.astype(np.int64)
    bad = ~np.isfinite(u)
    if bad.any():
        raise ValueError(
            f"uncertainty has {int(bad.sum())} non-finite value(s) (NaN/inf), first at index "
            f"{int(np.flatnonzero(bad)[0])}; drop those questions or the method first"
        )
    return c, u


def check_both_classes(c: np.ndarray, metric: str) -> None:
    """Refuse labels that are all correct or all incorrect: ``metric`` is undefined on them."""
    n_pos = int(c.sum())
    if n_pos == 0 or n_pos == c.size:
        which = "correct" if n_pos else "incorrect"
        raise ValueError(
            f"{metric} is undefined when all {c.size} answers are {which}: "
            "it needs both correct and incorrect answers"
        )
