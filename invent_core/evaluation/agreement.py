"""Agreement between uncertainty methods on one evaluation: rank correlations.

Two methods whose scores rank the questions the same way give the same AUROC, PRR
and isotonic Brier (all three depend on the ranking only), so a results table
that lists them apart shows two baselines where there is one. Spearman's ρ over
the questions of one evaluation says so directly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

COINCIDE_RHO = 0.999  # ρ at or above which two methods are reported as one ranking
DECIMALS = 9  # scores are rounded before ranking: 1e-16 of float noise is not a ranking


@dataclass(frozen=True)
class RankCorrelation:
    """Spearman ρ between every pair of methods on the questions all of them scored.

    ``rho`` is (k, k), symmetric, ones on the diagonal; NaN where a method is
    constant on those questions (no ranking to compare).
    """

    methods: tuple[str, ...]
    rho: np.ndarray
    n_questions: int

    def coinciding(self, threshold: float = COINCIDE_RHO) -> list[tuple[str, ...]]:
        """Groups of two or more methods pairwise at ρ ≥ threshold (transitive closure)."""
        k = len(self.methods)
        parent = list(range(k))

        def root(i: int) -> int:
            while parent[i] != i:
                i = parent[i]
            return i

        for i in range(k):
            for j in range(i + 1, k):
                if np.isfinite(self.rho[i, j]) and self.rho[i, j] >= threshold:
                    parent[root(j)] = root(i)
        groups: dict[int, list[str]] = {}
        for i, name in enumerate(self.methods):
            groups.setdefault(root(i), []).append(name)
        return [tuple(g) for g in groups.values() if len(g) > 1]


def rank_correlation(
    scores: Mapping[str, Sequence[float]],
    methods: Sequence[str] | None = None,
    *,
    decimals: int = DECIMALS,
) -> RankCorrelation:
    """Spearman rank correlation between methods' uncertainty scores.

    Parameters
    ----------
    scores : method name -> (n,) scores over the same n questions (higher = more
        uncertain); NaN marks a question the method did not score.
    methods : order of the rows/columns; defaults to the mapping's order.
    decimals : scores are rounded to this many decimals first, so that two identical
        answer sets scored −1.0 and −0.9999999999999997 tie as they should.

    Returns
    -------
    RankCorrelation over the questions every listed method scored (rows with a
    NaN in any method are dropped, so all pairs rest on the same questions).
    """
    names = tuple(methods if methods is not None else scores)
    if not names:
        raise ValueError("rank_correlation needs at least one method")
    table = np.column_stack([np.asarray(scores[m], dtype=np.float64) for m in names])
    table = np.round(table[np.all(np.isfinite(table), axis=1)], decimals)
    k = len(names)
    rho = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(i, k):
            value = _spearman(table[:, i], table[:, j])
            rho[i, j] = rho[j, i] = value
    return RankCorrelation(methods=names, rho=rho, n_questions=int(table.shape[0]))


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    """ρ of two columns; NaN when either is constant or fewer than 3 questions."""
    if a.size < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    from scipy.stats import spearmanr  # lazy: scipy.stats costs ~1 s at every CLI start

    return float(spearmanr(a, b).statistic)
