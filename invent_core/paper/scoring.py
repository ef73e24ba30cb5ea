"""Score already-generated responses: the five Inv measures with bootstrapping.

This is Algorithm 1 of the paper minus the LLM calls. The expensive shared
statistics (embeddings, the affinity of every input pair and of every
response pair) are computed once; the B bootstrap resamples only gather rows
and columns of the response affinity and run one batched matmul.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
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
            config = ScoreConfig(**data.get("options", {}))
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


class ResponseShapeError(ValueError):
    """Questions and responses that do not fit together.

    ``kind`` says what ("questions", "count", "type", "empty", "ragged") and
    ``index`` / ``expected`` / ``got`` where, so a file reader can word the
    same check in its own terms (``invent_core.batch`` names list i of a cell).
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        index: int | None = None,
        expected: int | None = None,
        got: int | None = None,
    ) -> None:
        super().__init__(message)
        self.kind, self.index, self.expected, self.got = kind, index, expected, got


def _list_like(value: Any) -> bool:
    """A list, tuple or array — not a string, a mapping or None."""
    return not isinstance(value, str) and isinstance(value, Sequence | np.ndarray)


def _check_questions(questions: Any) -> list[str]:
    if not _list_like(questions):
        raise ResponseShapeError(
            "questions must be a list: the original question followed by its perturbations",
            kind="questions",
        )
    questions = list(questions)
    if not questions:
        raise ResponseShapeError(
            "questions is empty: need at least the original question", kind="questions"
        )
    for i, q in enumerate(questions):
        if not isinstance(q, str):
            raise ResponseShapeError(
                f"questions[{i}] is {type(q).__name__}, expected a string",
                kind="questions",
                index=i,
            )
    return questions


def _check_replications(i: int, reps: Any) -> list[str]:
    if isinstance(reps, str):
        reps = [reps]
    if not _list_like(reps):
        raise ResponseShapeError(
            f"responses[{i}] is {type(reps).__name__}, expected a list of strings",
            kind="type",
            index=i,
        )
    reps = list(reps)
    if not reps:
        raise ResponseShapeError(
            f"responses[{i}] is empty: every question needs at least one response",
            kind="empty",
            index=i,
        )
    for k, t in enumerate(reps):
        if not isinstance(t, str):
            raise ResponseShapeError(
                f"responses[{i}][{k}] is {type(t).__name__}, expected a string",
                kind="type",
                index=i,
            )
    return reps


def validate_responses(
    questions: Sequence[str], responses: Sequence[Sequence[str]]
) -> tuple[list[str], list[list[str]]]:
    """Check the shapes of a question set and its responses; return plain lists.

    Raises
    ------
    ResponseShapeError
        A ``ValueError`` naming the offending index: no questions, a count
        mismatch, a non-string, or a ragged replication count.
    """
    questions = _check_questions(questions)
    if not _list_like(responses):
        raise ResponseShapeError(
            f"responses is {type(responses).__name__}, expected a list of lists of strings",
            kind="type",
        )
    if len(responses) != len(questions):
        raise ResponseShapeError(
            f"got {len(questions)} questions but responses for {len(responses)}: "
            "responses[i] must hold the answers to questions[i]",
            kind="count",
            expected=len(questions),
            got=len(responses),
        )
    out = [_check_replications(i, reps) for i, reps in enumerate(responses)]
    r = len(out[0])
    for i, reps in enumerate(out):
        if len(reps) != r:
            raise ResponseShapeError(
                f"ragged responses: question 0 has {r} replications but question {i} has {len(reps)}; "
                "every question needs the same number r",
                kind="ragged",
                index=i,
                expected=r,
                got=len(reps),
            )
    return questions, out


def score_responses(
    questions: Sequence[str],
    responses: Sequence[Sequence[str]],
    config: ScoreConfig | None = None,
    *,
    embedder: Any = None,
) -> ScoreResult:
    """Score responses that were already generated — no LLM call.

    Parameters
    ----------
    questions : the original question followed by its n perturbations (m = n + 1).
    responses : ``responses[i]`` holds the r answers to ``questions[i]``;
        r must be the same for every question.
    config : ψ, B, seed, affinity, WD ground metric and MAX variant
        (default: the paper's; see :class:`~invent_core.config.ScoreConfig`).
    embedder : an already loaded Similarity object (or a name) used instead
        of ``config.embedder``; the result's config then names it.

    Returns
    -------
    ScoreResult; higher measures = more uncertain.

    Examples
    --------
    >>> from invent_core.config import ScoreConfig
    >>> res = score_responses(qs, rs, ScoreConfig(n_bootstrap=10))  # doctest: +SKIP
    """
    from ..embedders import get_embedder

    config = config or ScoreConfig()
    questions, responses = validate_responses(questions, responses)
    m = len(questions)
    sim = get_embedder(embedder if embedder is not None else config.embedder)
    if embedder is not None:
        config = dataclasses.replace(config, embedder=embedder_name(sim))
    # One call embeds every distinct input and response once.
    flat_responses = [t for reps in responses for t in reps]  # state-major, (m·r,)
    all_sim = sim.similarity_matrix(
        questions + flat_responses, kind=config.affinity, tau=config.kernel_tau
    )
    sim_x = all_sim[:m, :m]
    sim_y = all_sim[m:, m:]
    return score_from_similarity(
        questions, responses, sim_x, sim_y, embedder=sim.identity, config=config
    )


def embedder_name(embedder: Any) -> str:
    """Return the name a config records for ψ: the name given, or a Similarity object's ``name``."""
    if isinstance(embedder, str):
        return embedder
    return str(getattr(embedder, "name", type(embedder).__name__))


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

    See :func:`score_responses`; ``embedder`` is ψ's identity string.
    """
    m, r = len(questions), len(responses[0])
    rng = np.random.default_rng(config.seed)
    values = bootstrap_measures(sim_x, sim_y, r, config, rng=rng)
    first = np.arange(m) * r  # replication 0 of each state
    nr = measures_from_similarity(sim_x, sim_y[np.ix_(first, first)], config)
    for name, measure in INV_MEASURES.items():
        if not measure.resampled:  # NR: once, on the first replication's walk
            values[name] = np.array([float(measure.fn(nr.p_x, nr.p_y, config))])
    measures = {name: float(np.mean(values[name])) for name in INV_MEASURES}
    for name, v in measures.items():
        if not np.isfinite(v):  # pragma: no cover - guarded by transition_matrix
            raise ValueError(f"{name} is not finite; check the similarity inputs")
    return ScoreResult(
        questions=questions,
        responses=responses,
        measures=measures,
        values={name: values[name] for name in INV_MEASURES},
        walk=nr.walk,
        sim_x=sim_x,
        sim_y=sim_y,
        embedder=embedder,
        config=config,
    )
