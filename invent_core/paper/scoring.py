"""The five Inv measures with bootstrapping, from the two affinity matrices.

Pure numpy: given the (m, m) input affinity and the (m·r, m·r) response
affinity (computed once by the caller, see :mod:`invent_core.engine.scoring`),
the B bootstrap resamples only gather rows and columns of the response
affinity and run one batched matmul.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..config import ScoreConfig, config_to_dict
from .measures import INV_MEASURES
from .random_walk import RandomWalk, random_walk, transition_matrix

#: The measures of the paper's framework, in the order of its Table 1
#: (the keys of :data:`invent_core.paper.measures.INV_MEASURES`).
MEASURE_NAMES: tuple[str, ...] = tuple(INV_MEASURES)


@dataclass(frozen=True)
class Measures:
    """Result of :func:`measures_from_similarity`: the walk and the measures of one (X, Y).

    ``values`` holds every resampled measure of :data:`~invent_core.paper.measures.INV_MEASURES`;
    each is also an attribute (``m.inv_entropy``), as are the walk's
    distributions (``m.p_x_given_y``).
    """

    walk: RandomWalk
    values: dict[str, float]

    def __getattr__(self, item: str):
        """The walk's ``p_*`` distributions and the measures by name."""
        # only called for names that are not fields: p_* from the walk, measures from values
        fields = self.__dict__
        if item.startswith("p_") and "walk" in fields:
            return getattr(fields["walk"], item)
        if item in fields.get("values", {}):
            return fields["values"][item]
        raise AttributeError(item)


def _check_affinity(sim: np.ndarray, what: str) -> np.ndarray:
    sim = np.asarray(sim, dtype=np.float64)
    if sim.ndim != 2 or sim.shape[0] != sim.shape[1]:
        raise ValueError(f"{what} must be a square (m, m) matrix, got shape {sim.shape}")
    if sim.shape[0] == 0:
        raise ValueError(f"{what} is empty: need at least the original question")
    return sim


def measures_from_similarity(
    sim_x: np.ndarray, sim_y: np.ndarray, config: ScoreConfig | None = None
) -> Measures:
    """All distributions and measures from input and output affinities (one output per state).

    Parameters
    ----------
    sim_x : (m, m) affinity a(x_i, x_j) of the original question and its n
        perturbations (m = n + 1).
    sim_y : (m, m) affinity a(y_i, y_j) of one response to each of them.
    config : options of the measures (``wd_ground``, ``max_variant``);
        default :class:`~invent_core.config.ScoreConfig`.

    Returns
    -------
    Measures with ``p_x, p_y, p_y_marginal, p_x_given_y, p_x_marginal,
    p_y_given_x`` and the resampled measures of
    :data:`~invent_core.paper.measures.INV_MEASURES` (``inv_entropy, ni_entropy,
    wd_px_py, max_py_x``).

    Examples
    --------
    >>> import numpy as np
    >>> m = measures_from_similarity(np.ones((3, 3)), np.eye(3))
    >>> round(m.inv_entropy, 4)  # P_y = I → P(X|Y) = P_x, diagonal 1/3
    1.0986
    """
    sim_x = _check_affinity(sim_x, "sim_x")
    sim_y = _check_affinity(sim_y, "sim_y")
    if sim_x.shape != sim_y.shape:
        raise ValueError(f"sim_x {sim_x.shape} and sim_y {sim_y.shape} must have the same shape")
    config = config if config is not None else ScoreConfig()
    p_x, p_y = transition_matrix(sim_x), transition_matrix(sim_y)
    values = {
        name: float(measure.fn(p_x, p_y, config))
        for name, measure in INV_MEASURES.items()
        if measure.resampled
    }
    return Measures(walk=random_walk(p_x, p_y), values=values)


def replication_indices(
    n_states: int, n_replications: int, n_bootstrap: int, rng: np.random.Generator
) -> np.ndarray:
    """Which replication each state uses in each resample (Eq. meanentropy).

    Not to be confused with :func:`invent_core.evaluation.metrics.bootstrap_indices`,
    which resamples questions for a metric's mean ± std: this one keeps every state
    and picks one of its r answers.

    Returns
    -------
    int array of shape (B, m): ``idx[b, i]`` ∈ [0, r) picks y_i^(b) from R_i,
    drawn uniformly with replacement.
    """
    return rng.integers(0, n_replications, size=(n_bootstrap, n_states))


def bootstrap_measures(
    sim_x: np.ndarray,
    sim_y_all: np.ndarray,
    n_replications: int,
    config: ScoreConfig | None = None,
    *,
    rng: np.random.Generator,
) -> dict[str, np.ndarray]:
    """Inv-Entropy and its variants on B bootstrap resamples, all at once.

    Parameters
    ----------
    sim_x : (m, m) input affinities.
    sim_y_all : (m·r, m·r) affinities of every response, state-major: row
        ``i * r + k`` is replication k of state i.
    n_replications : r.
    config : B (``n_bootstrap``) and the measures' options (``wd_ground``,
        ``max_variant``); default :class:`~invent_core.config.ScoreConfig`.
    rng : the only source of randomness.

    Returns
    -------
    dict: every resampled measure of :data:`~invent_core.paper.measures.INV_MEASURES`
    (``inv_entropy, ni_entropy, wd_px_py, max_py_x``) → (B,) array.

    References
    ----------
    Paper Algorithm 1 and Eq. (meanentropy): the mean of these values is Ĥ(X|Y).
    """
    config = config if config is not None else ScoreConfig()
    sim_x = _check_affinity(sim_x, "sim_x")
    m = sim_x.shape[0]
    r = int(n_replications)
    if sim_y_all.shape != (m * r, m * r):
        raise ValueError(
            f"sim_y_all must have shape ({m * r}, {m * r}) for m={m}, r={r}; got {sim_y_all.shape}"
        )
    idx = replication_indices(m, r, config.n_bootstrap, rng)  # (B, m)
    flat = np.arange(m) * r + idx  # (B, m): row of sim_y_all for y_i^(b)
    sim_y_b = sim_y_all[flat[:, :, None], flat[:, None, :]]  # (B, m, m)
    p_x = transition_matrix(sim_x)  # (m, m), shared by every resample
    p_y = transition_matrix(sim_y_b)  # (B, m, m)
    return {
        name: measure.fn(p_x, p_y, config)
        for name, measure in INV_MEASURES.items()
        if measure.resampled
    }


@dataclass
class ScoreResult:
    """The five Inv measures of one question and everything needed to show or re-derive them.

    Attributes
    ----------
    measures : name → value; bootstrap means (Ĥ of Eq. meanentropy) except
        ``nr_inv_entropy``, which uses the first response of each state only.
    values : name → (B,) bootstrap values (``nr_inv_entropy``: one value).
    walk : the random walk of the first replication (what NR-Inv-Entropy uses).
    sim_x : (m, m) input affinities; sim_y : (m·r, m·r) response affinities.
    embedder : the identity of ψ (model name and weights digest).
    config : the options the measures were computed with.
    """

    questions: list[str]
    responses: list[list[str]]
    measures: dict[str, float]
    values: dict[str, np.ndarray]
    walk: RandomWalk
    sim_x: np.ndarray
    sim_y: np.ndarray
    embedder: str
    config: ScoreConfig = field(default_factory=ScoreConfig)

    @property
    def n_perturbations(self) -> int:
        """n, the number of perturbations."""
        return len(self.questions) - 1

    @property
    def n_replications(self) -> int:
        """r, the answers per question."""
        return len(self.responses[0])

    def interval(self, name: str, level: float = 0.9) -> tuple[float, float]:
        """Central bootstrap percentile interval of a measure."""
        v = self.values[name]
        lo = (1 - level) / 2
        return float(np.quantile(v, lo)), float(np.quantile(v, 1 - lo))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (arrays as nested lists)."""
        w = self.walk
        return {
            "questions": self.questions,
            "responses": self.responses,
            "measures": self.measures,
            "values": {k: v.tolist() for k, v in self.values.items()},
            "walk": {k: getattr(w, k).tolist() for k in w.__dataclass_fields__},
            "sim_x": self.sim_x.tolist(),
            "sim_y": self.sim_y.tolist(),
            "embedder": self.embedder,
            "config": config_to_dict(self.config),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScoreResult:
        """Inverse of :meth:`to_dict`; results saved before configs (key ``options``) load too."""
        if "config" in data:
            config = ScoreConfig.from_dict(data["config"])
        else:  # saved before ScoreConfig: ψ's name was not kept, only its identity
            config = ScoreConfig.from_dict(data.get("options", {}))
        walk = RandomWalk(**{k: np.asarray(v) for k, v in data["walk"].items()})
        return cls(
            questions=list(data["questions"]),
            responses=[list(r) for r in data["responses"]],
            measures={k: float(v) for k, v in data["measures"].items()},
            values={k: np.asarray(v, dtype=np.float64) for k, v in data["values"].items()},
            walk=walk,
            sim_x=np.asarray(data["sim_x"]),
            sim_y=np.asarray(data["sim_y"]),
            embedder=data["embedder"],
            config=config,
        )


#: the entropies of the Inv family: over k states their largest value is log k, so a
#: question scored on fewer distinct states is put back on the scale of the run's m
ENTROPY_MEASURES: frozenset[str] = frozenset({"inv_entropy", "ni_entropy", "nr_inv_entropy"})


def distinct_state_indices(questions: list[str]) -> np.ndarray:
    """Indices of the first state of each distinct question text (state 0 first).

    >>> distinct_state_indices(["q", "r", "q", "r", "s"]).tolist()
    [0, 1, 4]
    """
    first: dict[str, int] = {}
    for i, q in enumerate(questions):
        first.setdefault(q, i)
    return np.array(sorted(first.values()))


def state_scale(n_states: int, n_distinct: int) -> float:
    """``log(m) / log(k)``: the factor that puts an entropy over k distinct states on m's scale.

    Why: a padded copy of a question is the same input asked again; scoring it as a
    state of its own makes the walk's P(X|Y) spread over m states where only k differ,
    and an Inv-Entropy over k states lies in [0, log k]. Scored on the k distinct
    states and multiplied by log m / log k, identical answers read the same for every
    k (``log m`` when P_x is uniform, see ``tests/paper/test_scoring.py``), and a run
    with nothing padded (k = m) is unchanged. With k = 1 (no rewording passed) the
    walk has one state and no entropy; such a run keeps the paper's padding.
    """
    if n_distinct < 2 or n_distinct == n_states:
        return 1.0
    return float(np.log(n_states) / np.log(n_distinct))


def score_from_similarity(
    questions: list[str],
    responses: list[list[str]],
    sim_x: np.ndarray,
    sim_y: np.ndarray,
    *,
    embedder: str,
    config: ScoreConfig,
) -> ScoreResult:
    """Compute the bootstrap and the NR measure from precomputed affinities.

    See :func:`score_responses`; ``embedder`` is ψ's identity string. Under
    ``config.padding == "distinct"`` the measures read each distinct question once
    (:func:`distinct_state_indices`, :func:`state_scale`); the walk shown
    (``ScoreResult.walk``) keeps every state.
    """
    m, r = len(questions), len(responses[0])
    keep = distinct_state_indices(questions) if config.padding == "distinct" else np.arange(m)
    if len(keep) < 2:
        keep = np.arange(m)  # one distinct question: the paper's padding (see state_scale)
    rows = (keep[:, None] * r + np.arange(r)).ravel()  # the kept states' answers
    values = _measure_values(sim_x[np.ix_(keep, keep)], sim_y[np.ix_(rows, rows)], r, config)
    scale = state_scale(m, len(keep))
    values = {k: v * scale if k in ENTROPY_MEASURES else v for k, v in values.items()}
    measures = {name: float(np.mean(values[name])) for name in INV_MEASURES}
    for name, v in measures.items():
        if not np.isfinite(v):  # pragma: no cover - guarded by transition_matrix
            raise ValueError(f"{name} is not finite; check the similarity inputs")
    first = np.arange(m) * r  # replication 0 of each state: the walk shown
    return ScoreResult(
        questions=questions,
        responses=responses,
        measures=measures,
        values={name: values[name] for name in INV_MEASURES},
        walk=measures_from_similarity(sim_x, sim_y[np.ix_(first, first)], config).walk,
        sim_x=sim_x,
        sim_y=sim_y,
        embedder=embedder,
        config=config,
    )


def _measure_values(
    sim_x: np.ndarray, sim_y: np.ndarray, r: int, config: ScoreConfig
) -> dict[str, np.ndarray]:
    """Every measure's values: B bootstrap values, or one for the NR measure."""
    m = sim_x.shape[0]
    rng = np.random.default_rng(config.seed)
    values = bootstrap_measures(sim_x, sim_y, r, config, rng=rng)
    first = np.arange(m) * r  # replication 0 of each state
    nr = measures_from_similarity(sim_x, sim_y[np.ix_(first, first)], config)
    for name, measure in INV_MEASURES.items():
        if not measure.resampled:  # NR: once, on the first replication's walk
            values[name] = np.array([float(measure.fn(nr.p_x, nr.p_y, config))])
    return values
