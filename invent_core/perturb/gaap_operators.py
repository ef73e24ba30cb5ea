"""GAAP's pure genetic operators: substitution, crossover, roulette-wheel selection, mutation.

Each works on a question's word slots (a tuple of strings, one per word of the
original; "" is a deleted word) and takes its randomness from the caller's
``np.random.Generator``, so :mod:`.gaap`'s search stays reproducible from one
seed. Paper, Appendix "GAAP Implementation Details".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .substitutions import Substitution


def replace(slots: Sequence[str], position: int, new: str) -> tuple[str, ...]:
    """re(S, t_j, t'): ``slots`` with slot ``position`` set to ``new`` ("" deletes it).

    References
    ----------
    Paper, Appendix "GAAP Implementation Details", Eq. (replacementdef).
    """
    if not 0 <= position < len(slots):
        raise ValueError(f"position {position} outside a sequence of {len(slots)} tokens")
    out = list(slots)
    out[position] = new
    return tuple(out)


def crossover(
    a: Sequence[str], b: Sequence[str], point: int
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """One-point crossover after ``point`` tokens.

    ``A' = (a_1 … a_h, b_{h+1} …)`` and ``B' = (b_1 … b_h, a_{h+1} …)``, with
    h ∈ {1, …, p − 1} and p the shorter length (paper's formula). For parents
    of different lengths each child keeps the whole tail of its second parent
    (so len(A') = len(b), len(B') = len(a)) rather than being truncated to p,
    which would drop the end of the sentence. GAAP itself only crosses
    equal-length slot sequences, where both readings coincide.

    References
    ----------
    Paper, Appendix "GAAP Implementation Details", Crossover.
    """
    p = min(len(a), len(b))
    if not 1 <= point <= p - 1:
        raise ValueError(
            f"crossover point must be in 1..{p - 1} for lengths {len(a)} and {len(b)}, got {point}"
        )
    return tuple(a[:point]) + tuple(b[point:]), tuple(b[:point]) + tuple(a[point:])


def roulette(fitness: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of ``k`` distinct members drawn with probability ∝ fitness (roulette wheel).

    References
    ----------
    Paper, Appendix "GAAP Implementation Details", Selection:
    P(S_xi) = a(x_0, x_i) / Σ_j a(x_0, x_j).
    """
    fitness = np.asarray(fitness, dtype=np.float64)
    if fitness.ndim != 1 or len(fitness) == 0:
        raise ValueError("fitness must be a non-empty 1-D array")
    if np.any(fitness < 0) or not np.all(np.isfinite(fitness)):
        raise ValueError("fitness values must be finite and non-negative")
    k = min(k, len(fitness))
    total = fitness.sum()
    probs = fitness / total if total > 0 else np.full(len(fitness), 1.0 / len(fitness))
    # without replacement, zero-fitness members can still be needed to reach k
    probs = np.maximum(probs, 1e-12)
    probs /= probs.sum()
    return rng.choice(len(fitness), size=k, replace=False, p=probs)


def mutate(
    slots: Sequence[str],
    positions: Sequence[int],
    sub: Callable[[int, str], Sequence[Substitution]],
    rng: np.random.Generator,
) -> tuple[tuple[str, ...], int, Substitution] | None:
    """Replace one uniformly random slot among ``positions`` by a uniform element of its SUB set.

    Parameters
    ----------
    slots : the child.
    positions : the slots that may mutate (non-empty ones).
    sub : ``sub(position, token)`` → SUB(token) including deletion.
    rng : random source.

    Returns
    -------
    (mutated slots, position, substitution), or None if no slot may mutate.

    References
    ----------
    Paper, Appendix "GAAP Implementation Details", Mutation.
    """
    if not positions:
        return None
    pos = int(positions[int(rng.integers(len(positions)))])
    options = sub(pos, slots[pos])
    if not options:
        return None
    choice = options[int(rng.integers(len(options)))]
    return replace(slots, pos, choice.text), pos, choice
