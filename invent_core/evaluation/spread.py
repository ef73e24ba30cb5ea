"""Where the uncertainty comes from: answer spread within one wording vs across wordings.

Beyond the paper. Its Fig. 1 argues that replication alone can be confidently
wrong (the same wording gives the same wrong answer every time) and that
rewording reveals it. This module measures that split for one question.

The answers of a run form an (m, r) grid: m wordings (the original question and
its perturbations) × r replications each. With X the wording (uniform over the m
rows) and Y the answer's class (answers equal after normalisation), the entropy
of the pooled answers splits exactly (chain rule):

    H(Y)  =  H(Y | X)  +  I(X; Y)
    total =  within    +  across

* within  = H(Y | X) = (1/m) Σ_i H(Y | X = i): the mean entropy of one wording's
  r replications — what replication alone can see;
* across  = I(X; Y) = H(Y) − H(Y | X): how much the answer depends on the
  wording — zero when every wording gives the same answer distribution.

Both are in nats and non-negative; ``across_share`` = across / total (NaN when
total = 0, i.e. one answer everywhere).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True)
class SpreadSplit:
    """Entropy (nats) of one question's answers, split into within and across wordings."""

    total: float
    within: float
    across: float

    @property
    def across_share(self) -> float:
        """Fraction of the spread that is across wordings; NaN when there is none."""
        return self.across / self.total if self.total > 0 else float("nan")

    def to_dict(self) -> dict[str, float]:
        """Plain dict for a run's JSON."""
        return {**asdict(self), "across_share": self.across_share}


def _entropy(labels: Sequence[Hashable]) -> float:
    """Plug-in entropy (nats) of the empirical distribution of ``labels``."""
    counts = np.fromiter(Counter(labels).values(), dtype=np.float64)
    p = counts / counts.sum()
    return float(-(p * np.log(p)).sum())


def wording_entropy_split(
    answers: Sequence[Sequence[Hashable]], key: Callable[[Hashable], Hashable] | None = None
) -> SpreadSplit:
    """Split the entropy of a run's answers into within-wording and across-wording parts.

    Parameters
    ----------
    answers : (m, r) answers — row i holds the r replications of wording i
        (row 0 the original question). Every row needs the same r ≥ 1.
    key : maps an answer to its class (e.g. ``normalize_answer``); identity if None.

    Returns
    -------
    SpreadSplit with total = H(Y), within = H(Y | X), across = I(X; Y) = total −
    within (clipped at 0 against rounding), X uniform over the m wordings.
    """
    rows = [list(row) for row in answers]
    if not rows or any(len(row) == 0 for row in rows):
        raise ValueError("answers must be a non-empty (m, r) grid with r >= 1")
    if len({len(row) for row in rows}) != 1:
        raise ValueError(
            f"every wording needs the same number of replications, got {[len(r) for r in rows]}"
        )
    classify = key if key is not None else (lambda a: a)
    classes = [[classify(a) for a in row] for row in rows]
    total = _entropy([c for row in classes for c in row])
    within = float(np.mean([_entropy(row) for row in classes]))
    return SpreadSplit(total=total, within=within, across=max(total - within, 0.0))
