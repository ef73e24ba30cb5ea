"""Temperature Sensitivity of Uncertainty (TSU), paper Eq. (tsudefinition).

``uq`` is an (n_questions, n_temperatures) array, column j the uncertainty at
``temperatures[j]`` (strictly increasing). :func:`tsu_score` is the fraction of
questions whose uncertainty strictly increases along every column;
:func:`tsu_pair` / :func:`tsu_chain` take two columns or a run of them, and
:func:`tsu_table` the paper's four columns for several methods.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike


def _check_temperatures(temperatures: ArrayLike, n_cols: int) -> np.ndarray:
    t = np.asarray(temperatures, dtype=np.float64)
    if t.ndim != 1 or t.size != n_cols:
        raise ValueError(
            f"temperatures must list one temperature per column of uq ({n_cols}); got {t.tolist()}"
        )
    if t.size < 2:
        raise ValueError("TSU needs at least two temperatures")
    if not np.all(np.diff(t) > 0):
        raise ValueError(f"temperatures must be strictly increasing; got {t.tolist()}")
    return t


def tsu_score(
    uq: ArrayLike,
    temperatures: ArrayLike,
    *,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> float:
    """TSU(T_1, …, T_n): fraction of questions whose UQ strictly increases with temperature.

    ``TSU = 1/|D| Σ_{S_x ∈ D} 1(UQ(S_x, T_1) < UQ(S_x, T_2) < … < UQ(S_x, T_n))``.
    Ties are not increases.

    Parameters
    ----------
    uq : array of shape (n_questions, n_temperatures); column j is the uncertainty at
        ``temperatures[j]``, higher = more uncertain.
    temperatures : strictly increasing sequence of length n_temperatures.
    nan_policy : {"raise", "omit"}, default "raise"
        NaN marks a method unavailable for a question. "raise": ValueError. "omit": drop
        questions with a NaN in any column (|D| counts only the rest).

    Returns
    -------
    float in [0, 1] (format as a percentage at the edge).

    References
    ----------
    Paper §3 "Evaluation metrics", Eq. (tsudefinition).

    Examples
    --------
    >>> tsu_score([[0.1, 0.2, 0.3], [0.1, 0.1, 0.3]], [0.3, 0.7, 1.0])
    0.5
    """
    a = np.asarray(uq, dtype=np.float64)
    if a.ndim != 2:
        raise ValueError(f"uq must be 2-D (n_questions, n_temperatures); got shape {a.shape}")
    _check_temperatures(temperatures, a.shape[1])
    if nan_policy not in ("raise", "omit"):
        raise ValueError(f"nan_policy must be 'raise' or 'omit'; got {nan_policy!r}")
    if np.isinf(a).any():
        raise ValueError("uq contains infinite values")
    nan_rows = np.isnan(a).any(axis=1)
    if nan_rows.any():
        if nan_policy == "raise":
            raise ValueError(
                f"uq has NaN for {int(nan_rows.sum())} of {a.shape[0]} questions (first row "
                f"{int(np.flatnonzero(nan_rows)[0])}); pass nan_policy='omit' to exclude them"
            )
        a = a[~nan_rows]
    if a.shape[0] == 0:
        raise ValueError("TSU needs at least one question with UQ at every temperature")
    return float(np.mean(np.all(np.diff(a, axis=1) > 0, axis=1)))


def _column(temperatures: np.ndarray, t: float) -> int:
    hit = np.flatnonzero(np.isclose(temperatures, t))
    if hit.size == 0:
        raise ValueError(f"temperature {t} is not among {temperatures.tolist()}")
    return int(hit[0])


def tsu_pair(
    uq: ArrayLike,
    temperatures: ArrayLike,
    low: float,
    high: float,
    *,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> float:
    """TSU(low, high): Eq. (tsudefinition) on two columns of ``uq`` (e.g. TSU(1.0,1.4)).

    Parameters
    ----------
    uq : (n_questions, n_temperatures) array; temperatures : strictly increasing.
    low, high : two of ``temperatures``, ``low < high``.
    nan_policy : see :func:`tsu_score` (applies to the two columns only).
    """
    a = np.asarray(uq, dtype=np.float64)
    t = _check_temperatures(temperatures, a.shape[-1] if a.ndim == 2 else -1)
    if not low < high:
        raise ValueError(f"TSU pair needs low < high; got ({low}, {high})")
    cols = [_column(t, low), _column(t, high)]
    return tsu_score(a[:, cols], t[cols], nan_policy=nan_policy)


def tsu_chain(
    uq: ArrayLike,
    temperatures: ArrayLike,
    low: float | None = None,
    high: float | None = None,
    *,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> float:
    """TSU(low–high): strictly increasing UQ across every temperature in [low, high].

    E.g. with temperatures (0.3, 0.7, 1.0, 1.4), ``tsu_chain(uq, t, 0.7, 1.4)`` is the
    paper's TSU(0.7–1.4), a chain over 0.7 < 1.0 < 1.4. ``low``/``high`` default to the
    first/last temperature.
    """
    a = np.asarray(uq, dtype=np.float64)
    t = _check_temperatures(temperatures, a.shape[-1] if a.ndim == 2 else -1)
    i = 0 if low is None else _column(t, low)
    j = t.size - 1 if high is None else _column(t, high)
    if j - i < 1:
        raise ValueError(f"TSU chain needs low < high; got ({t[i]}, {t[j]})")
    return tsu_score(a[:, i : j + 1], t[i : j + 1], nan_policy=nan_policy)


def tsu_label(low: float, high: float, *, kind: Literal["pair", "chain"]) -> str:
    """Paper-style column label: ``TSU(1.0,1.4)`` for a pair, ``TSU(0.7–1.4)`` for a chain."""
    if kind not in ("pair", "chain"):
        raise ValueError(f"kind must be 'pair' or 'chain'; got {kind!r}")

    def fmt(t: float) -> str:
        s = f"{t:g}"
        return s if "." in s else s + ".0"  # 1 -> "1.0", as the paper writes it

    sep = "," if kind == "pair" else "–"
    return f"TSU({fmt(low)}{sep}{fmt(high)})"


#: Columns of the paper's TSU table (Table tsu_horizontal), temperatures 0.3/0.7/1.0/1.4.
PAPER_TSU_PAIRS: tuple[tuple[float, float], ...] = ((1.0, 1.4), (0.7, 1.4))
PAPER_TSU_CHAINS: tuple[tuple[float, float], ...] = ((0.7, 1.4), (0.3, 1.4))


def tsu_table(
    uq_by_method: Mapping[str, ArrayLike],
    temperatures: ArrayLike,
    *,
    pairs: Sequence[tuple[float, float]] = PAPER_TSU_PAIRS,
    chains: Sequence[tuple[float, float]] = PAPER_TSU_CHAINS,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> dict[str, dict[str, float]]:
    """TSU pairs and chains for several methods: method -> {label: fraction}.

    Parameters
    ----------
    uq_by_method : method -> (n_questions, n_temperatures) array.
    temperatures : strictly increasing, one per column.
    pairs, chains : (low, high) temperatures; defaults are the paper's columns
        TSU(1.0,1.4), TSU(0.7,1.4), TSU(0.7–1.4), TSU(0.3–1.4).
    nan_policy : see :func:`tsu_score`.

    Returns
    -------
    dict, ready for :func:`invent_core.evaluation.tables.tsu_results_table`.
    """
    out: dict[str, dict[str, float]] = {}
    for method, uq in uq_by_method.items():
        row = {}
        for low, high in pairs:
            row[tsu_label(low, high, kind="pair")] = tsu_pair(
                uq, temperatures, low, high, nan_policy=nan_policy
            )
        for low, high in chains:
            row[tsu_label(low, high, kind="chain")] = tsu_chain(
                uq, temperatures, low, high, nan_policy=nan_policy
            )
        out[method] = row
    return out
