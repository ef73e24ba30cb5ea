"""The adaptive perturbation budget (ours, beyond the paper).

The paper's conclusion names "adaptively determine when further perturbation
is unnecessary" as future work. A run with ``RunConfig.adaptive.enabled``
grows its perturbation set in steps (``start, start + step, …, n``) and stops
once Inv-Entropy's bootstrap interval is narrow: more perturbations would move
the estimate less than its own resampling noise.

The width is divided by log(m): with identical answers P_y is uniform, every
P(x_i | y_i) is near 1/m and Inv-Entropy is near m · (1/m) log m = log m,
under every kernel; that is the scale the measure lives on (its hard ceiling,
m/e, is never approached). One tolerance then reads the same for m = 4 and
m = 10.

Pure: numpy only. :func:`prefix_schedule` and :func:`stop_reason` drive the
pipeline's loop; :func:`simulate_on_run` replays the rule on a saved full
run by re-scoring its prefixes, which is how ``benchmarks/bench_adaptive.py``
measures the saving without a new LLM call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..config import AdaptiveConfig


def prefix_schedule(n_max: int, config: AdaptiveConfig) -> list[int]:
    """Perturbation counts tried in turn: ``start, start + step, …``, ending at ``n_max``.

    >>> prefix_schedule(9, AdaptiveConfig(start=3, step=2))
    [3, 5, 7, 9]
    >>> prefix_schedule(4, AdaptiveConfig(start=3, step=2))
    [3, 4]
    """
    if n_max < 1:
        raise ValueError(f"n_max must be at least 1, got {n_max}")
    steps = list(range(min(config.start, n_max), n_max, config.step))
    return [*steps, n_max] if not steps or steps[-1] != n_max else steps


def normalized_width(values: np.ndarray, n_states: int, *, level: float) -> float:
    """Central ``level`` bootstrap interval width of Inv-Entropy, divided by log(m).

    Parameters
    ----------
    values : (B,) bootstrap values of Inv-Entropy (Eq. meanentropy's terms).
    n_states : m = n + 1.
    level : e.g. 0.9 for the 5 %–95 % interval.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"values must be a non-empty (B,) array, got shape {values.shape}")
    lo, hi = np.quantile(values, [(1 - level) / 2, 1 - (1 - level) / 2])
    return float(hi - lo) / float(np.log(max(n_states, 2)))


def stop_reason(
    values: np.ndarray, n_perturbations: int, n_max: int, config: AdaptiveConfig
) -> str | None:
    """Why the run stops after ``n_perturbations`` perturbations, or ``None`` to go on.

    Returns
    -------
    ``"stable"`` when the normalised interval width is below
    ``config.tolerance``, ``"n_max"`` when the budget is spent, else None.
    """
    width = normalized_width(values, n_perturbations + 1, level=config.level)
    if width < config.tolerance:
        return "stable"
    if n_perturbations >= n_max:
        return "n_max"
    return None


@dataclass
class AdaptiveRecord:
    """What an adaptive run did: each step's width, where it stopped and why.

    Attributes
    ----------
    steps : ``{"n": k, "width": w}`` per step: k perturbations, the normalised
        bootstrap width of Inv-Entropy there (:func:`normalized_width`).
    n_used : the perturbations of the step it stopped at.
    reason : ``"stable"`` or ``"n_max"`` (:func:`stop_reason`).
    llm_calls : a live run (``run_question``): every LLM request it made,
        perturbations included (cache hits count); a replay
        (:func:`simulate_on_run`): the answers only, (n_used + 1) · r.
    """

    steps: list[dict[str, float]] = field(default_factory=list)  # {"n": k, "width": w}
    n_used: int = 0
    reason: str = ""
    llm_calls: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "steps": self.steps,
            "n_used": self.n_used,
            "reason": self.reason,
            "llm_calls": self.llm_calls,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AdaptiveRecord:
        """Inverse of :meth:`to_dict`."""
        return cls(
            steps=[dict(s) for s in data.get("steps", [])],
            n_used=int(data.get("n_used", 0)),
            reason=str(data.get("reason", "")),
            llm_calls=int(data.get("llm_calls", 0)),
        )


def prefix_similarities(
    sim_x: np.ndarray, sim_y: np.ndarray, n_replications: int, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Cut the affinities down to the original and its first ``k`` perturbations.

    ``sim_x`` is (m, m); ``sim_y`` is (m·r, m·r), state-major, so the first
    (k + 1)·r rows are the responses of the first k + 1 states.
    """
    m = k + 1
    return sim_x[:m, :m], sim_y[: m * n_replications, : m * n_replications]


def simulate_on_run(
    sim_x: np.ndarray,
    sim_y: np.ndarray,
    n_replications: int,
    config: AdaptiveConfig,
    *,
    bootstrap: Any,
) -> tuple[AdaptiveRecord, np.ndarray]:
    """Replay the adaptive rule on a full run's affinities.

    Parameters
    ----------
    sim_x, sim_y : the full run's (m, m) and (m·r, m·r) affinities.
    n_replications : r.
    config : the rule.
    bootstrap : ``bootstrap(sim_x, sim_y) -> (B,) Inv-Entropy values`` for a
        prefix (the caller fixes B, the seed and the kernel).

    Returns
    -------
    The record (``llm_calls`` counts answers only: (k + 1)·r) and the
    Inv-Entropy values of the step where the rule stopped.
    """
    n_max = sim_x.shape[0] - 1
    record = AdaptiveRecord()
    values = np.empty(0)
    for k in prefix_schedule(n_max, config):
        sx, sy = prefix_similarities(sim_x, sim_y, n_replications, k)
        values = np.asarray(bootstrap(sx, sy))
        width = normalized_width(values, k + 1, level=config.level)
        record.steps.append({"n": k, "width": width})
        reason = stop_reason(values, k, n_max, config)
        if reason is not None:
            record.n_used, record.reason = k, reason
            break
    record.llm_calls = (record.n_used + 1) * n_replications
    return record, values
