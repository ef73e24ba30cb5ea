"""What a run will cost, said before Run: LLM calls, and seconds from measured throughput.

The count follows the pipeline (paper Algorithm 1): the perturber's requests,
then r answers for each of the n + 1 questions, for every question of an
evaluation. The time is that count times the seconds per request this
machine measured for this LLM (:class:`ThroughputLog`, an exponentially
weighted average over recent runs, kept as JSON in the cache dir), plus
GAAP's own time when it perturbs. Before any measurement, the packaged
models have a prior, and the text says "(prior)"; a server never measured
gets no time at all rather than a guess.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from ._env import cache_dir
from .config import RunConfig
from .history import atomic_write
from .llm.names import describe_llm, local_model
from .progress import format_seconds

__all__ = [
    "PRIOR_SECONDS",
    "GAAP_KEY",
    "Rate",
    "Throughput",
    "ThroughputLog",
    "Estimate",
    "llm_key",
    "count_llm_calls",
    "estimate_run",
    "record_run",
    "record_artifact",
]

#: Priors, seconds per unit, used until this machine measured one (ours):
#: - the packaged 0.5B: README "Two commands", n = 9, r = 5 (10 paraphrase + 50
#:   answer requests) in about 20 s on two CPU cores → ≈ 0.35 s per request;
#: - the optional 1.5B: three times the weights, so three times that;
#: - GAAP: benchmarks/bench_gaap.py's target, ≤ 5 s per question on 2 cores.
PRIOR_SECONDS: dict[str, float] = {"qwen0.5b": 0.35, "qwen1.5b": 1.05, "gaap": 5.0}
#: Weight of the newest measurement in the running average (ours: about the
#: last three runs count).
EWMA_ALPHA = 0.3
#: Throughput key of GAAP's own work (seconds per perturbed question; no LLM).
GAAP_KEY = "perturb:gaap"

Source = Literal["measured", "prior"]


def llm_key(identity: str) -> str:
    """Return the throughput key of an LLM: its cache identity (model file or URL + model)."""
    return f"llm:{identity}"


@dataclass(frozen=True)
class Rate:
    """Seconds per unit (an LLM request, or a GAAP run), and where it comes from.

    Attributes
    ----------
    seconds : the running average, seconds per unit.
    samples : runs it rests on (0 for a prior).
    source : ``"measured"`` on this machine, or ``"prior"``.
    """

    seconds: float
    samples: int
    source: Source


class Throughput(Protocol):
    """Anything that knows a rate per key (:class:`ThroughputLog`)."""

    def rate(self, key: str) -> Rate | None:
        """Return seconds per unit for ``key``, ``None`` when unknown."""
        ...


def _prior(key: str) -> Rate | None:
    if key == GAAP_KEY:
        return Rate(PRIOR_SECONDS["gaap"], 0, "prior")
    if key.startswith("llm:"):
        name = local_model(key[len("llm:") :])
        if name in PRIOR_SECONDS:
            return Rate(PRIOR_SECONDS[name], 0, "prior")
    return None


def _parse(item: Any) -> Rate | None:
    """Read a stored ``{"seconds", "samples"}`` record; ``None`` if unusable."""
    try:
        seconds, samples = float(item["seconds"]), int(item["samples"])
    except (TypeError, KeyError, ValueError):
        return None
    if not math.isfinite(seconds) or seconds <= 0 or samples < 1:
        return None
    return Rate(seconds, samples, "measured")


class ThroughputLog:
    """Measured seconds per unit, per key, as JSON (default ``<cache_dir>/throughput.json``).

    Parameters
    ----------
    path : the JSON file; a missing or unreadable file is an empty log.
    alpha : weight of the newest measurement (EWMA), in (0, 1].
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, alpha: float = EWMA_ALPHA):
        if not 0.0 < alpha <= 1.0:
            raise ValueError(f"alpha must be in (0, 1], got {alpha!r}")
        self.path = Path(path) if path is not None else cache_dir() / "throughput.json"
        self.alpha = alpha
        self._lock = threading.Lock()

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def measured(self, key: str) -> Rate | None:
        """Return the measured rate of ``key``, ``None`` if it was never measured here."""
        return _parse(self._read().get(key))

    def rate(self, key: str) -> Rate | None:
        """Return the measured rate, else the packaged models' / GAAP's prior, else ``None``."""
        return self.measured(key) or _prior(key)

    def record(self, key: str, seconds: float, count: int) -> Rate | None:
        """Fold one measurement (``count`` units in ``seconds`` of wall time) into the average.

        Nothing is recorded when ``count`` < 1 or ``seconds`` is not positive
        (everything came from the cache). Returns the new rate, or ``None``.
        """
        if count < 1 or not math.isfinite(seconds) or seconds <= 0:
            return None
        x = seconds / count
        with self._lock:
            data = self._read()
            old = _parse(data.get(key))
            new = x if old is None else self.alpha * x + (1.0 - self.alpha) * old.seconds
            samples = 1 if old is None else old.samples + 1
            data[key] = {"seconds": new, "samples": samples}
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, json.dumps(data, indent=1, sort_keys=True).encode("utf-8"))
        return Rate(new, samples, "measured")


def record_run(
    log: ThroughputLog,
    *,
    llm_identity: str,
    perturber: str,
    timings: Mapping[str, float],
    usage: Mapping[str, int],
) -> None:
    """Record a finished run's throughput from its ``timings`` and ``usage`` dicts.

    Answers: ``timings["generate"]`` over the requests the LLM actually served
    (``usage["requests"] - usage["cached"]``). GAAP: ``timings["perturb"]`` per
    question. Paraphrase time is not recorded separately: its requests are
    LLM requests of the same kind.
    """
    sent = int(usage.get("requests", 0)) - int(usage.get("cached", 0))
    log.record(llm_key(llm_identity), float(timings.get("generate", 0.0)), sent)
    if perturber == "gaap":
        log.record(GAAP_KEY, float(timings.get("perturb", 0.0)), 1)


def record_artifact(run: Any, log: ThroughputLog | None = None) -> None:
    """Record a finished :class:`~invent_core.pipeline.RunArtifact`'s throughput (best effort).

    With the overlapped engine (issue #11) the paraphrase and answer requests
    share the same wall time, so a paraphrase run's rate is its wall time
    (``timings["total"]`` less scoring) over every request the LLM served
    (``usage["llm_calls"]`` less the cached ones): the unit
    :func:`count_llm_calls` counts. GAAP runs, and runs saved before
    ``total`` was recorded, use :func:`record_run`; a GAAP run's time leaves out
    the loading of WordNet, KeyBERT and the embedders (``gaap_trace["load_seconds"]``).
    A cache folder that cannot be written costs the estimate a measurement, nothing more.
    """
    t, u = run.timings, run.usage
    identity = str(run.identities.get("llm") or "")
    para = getattr(run, "paraphrase_identity", None)
    try:
        log = log if log is not None else ThroughputLog()
        if para is not None and para != identity and "perturb_requests" in u:
            _record_two(log, identity, para, t, u)
            return
        if run.config.perturber == "gaap" or "total" not in t or "llm_calls" not in u:
            loading = float((run.gaap_trace or {}).get("load_seconds", 0.0))
            t = {**t, "perturb": float(t.get("perturb", 0.0)) - loading}
            record_run(
                log, llm_identity=identity, perturber=run.config.perturber, timings=t, usage=u
            )
            return
        cached = int(u.get("cached", 0)) + int(u.get("perturb_cached", 0))
        seconds = float(t["total"]) - float(t.get("score", 0.0))
        log.record(llm_key(identity), seconds, int(u["llm_calls"]) - cached)
    except OSError:
        pass


def _record_two(log: ThroughputLog, answerer: str, paraphraser: str, t, u) -> None:
    """A run with a separate paraphrasing model: each model's seconds over its own requests.

    The rewordings' wall time (``timings["perturb"]``) over the paraphraser's
    requests, the answers' (``timings["generate"]``) over the answerer's.
    """
    sent = int(u.get("perturb_requests", 0)) - int(u.get("perturb_cached", 0))
    log.record(llm_key(paraphraser), float(t.get("perturb", 0.0)), sent)
    sent = int(u.get("requests", 0)) - int(u.get("cached", 0))
    log.record(llm_key(answerer), float(t.get("generate", 0.0)), sent)


def _is_local(identity: str) -> bool:
    """A model on the embedded llama.cpp (packaged, or a user's GGUF file)."""
    return local_model(identity) is not None or identity.startswith("local:sha256=")


def _paraphrase_requests(config: RunConfig, llm_identity: str) -> int:
    """Count the requests of one paraphrase call: n + 1 one at a time, or one list request."""
    style = config.paraphrase.style
    if style == "auto":  # as perturb.paraphrase: single for the embedded models, list for servers
        style = "single" if _is_local(llm_identity) else "list"
    return config.n_perturbations + 1 if style == "single" else 1


def count_llm_calls(
    config: RunConfig,
    *,
    llm_identity: str,
    n_questions: int = 1,
    paraphrase_identity: str | None = None,
) -> int:
    """Count the LLM requests of ``n_questions`` runs of ``config`` (none from the cache).

    Per question: the perturber's requests (paraphrase: n + 1 single requests
    for the packaged models, one list request for servers, before any retry
    for repeats; GAAP: none), then (n + 1)·r answers. The paraphrase style
    follows the paraphrasing model (``paraphrase_identity``, default the LLM).
    """
    return sum(_calls(config, llm_identity, n_questions, paraphrase_identity))


def _calls(
    config: RunConfig, llm_identity: str, n_questions: int, paraphrase_identity: str | None
) -> tuple[int, int]:
    """(paraphrase requests, answer requests) of ``n_questions`` runs."""
    if n_questions < 0:
        raise ValueError(f"n_questions must be >= 0, got {n_questions}")
    para = paraphrase_identity or llm_identity
    perturb = 0 if config.perturber == "gaap" else _paraphrase_requests(config, para)
    answers = (config.n_perturbations + 1) * config.n_replications
    return n_questions * perturb, n_questions * answers


@dataclass(frozen=True)
class Estimate:
    """The cost of a run, said before it starts.

    Attributes
    ----------
    llm_calls : requests the LLM will get (fewer when some are cached).
    seconds : expected wall time, ``None`` when no rate is known.
    text : ``"≈ 60 LLM calls, ≈ 21 s with … on this machine (prior)"``.
    source : ``"measured"``, ``"prior"``, ``"partly measured"``, or ``None``.
    """

    llm_calls: int
    seconds: float | None
    text: str
    source: str | None


def _combine(parts: list[tuple[int, Rate | None]]) -> tuple[float | None, str | None]:
    """Sum ``units × rate`` into (seconds, source); unknown when a needed rate is."""
    needed = [(units, rate) for units, rate in parts if units > 0]
    if not needed or any(rate is None for _, rate in needed):
        return None, None
    seconds = sum(units * rate.seconds for units, rate in needed)
    sources = {rate.source for _, rate in needed}
    return seconds, sources.pop() if len(sources) == 1 else "partly measured"


def estimate_run(
    config: RunConfig,
    *,
    llm_identity: str,
    throughput: Throughput,
    n_questions: int = 1,
    paraphrase_identity: str | None = None,
) -> Estimate:
    """Estimate the LLM calls and seconds of ``n_questions`` runs of ``config``.

    Parameters
    ----------
    config : the run configuration (n, r, perturber, paraphrase style).
    llm_identity : the LLM's ``identity`` (or a ``get_llm`` spec such as ``"local"``).
    throughput : where rates come from (:class:`ThroughputLog`).
    n_questions : questions of an evaluation / sweep (1 for one run).
    paraphrase_identity : a separate paraphrasing model's identity (``--paraphrase-llm``):
        its requests are counted and timed at its own rate, and both models are named.

    Returns
    -------
    Estimate
        With the adaptive budget, the count is an upper bound (said "at most").

    Examples
    --------
    >>> estimate_run(RunConfig(), llm_identity="local", throughput=ThroughputLog(p)).text  # doctest: +SKIP
    '≈ 60 LLM calls, ≈ 21 s with Qwen2.5-Coder-0.5B-Instruct on this machine (prior)'
    """
    para = paraphrase_identity if paraphrase_identity != llm_identity else None
    perturb, answers = _calls(config, llm_identity, n_questions, para)
    calls = perturb + answers
    gaap_runs = n_questions if config.perturber == "gaap" else 0
    by_model = [(answers, llm_identity), (perturb, para)] if para else [(calls, llm_identity)]
    seconds, source = _combine(
        [(units, throughput.rate(llm_key(ident))) for units, ident in by_model]
        + [(gaap_runs, throughput.rate(GAAP_KEY))]
    )
    name = describe_llm(llm_identity)
    if para and perturb:
        plural = "s" if perturb != 1 else ""
        name = f"{name} (answers) and {describe_llm(para)} ({perturb} paraphrase call{plural})"
    where = " on this machine" if local_model(llm_identity) is not None else ""
    approx = "at most" if config.adaptive.enabled else "≈"
    count = f"{approx} {calls} LLM call{'s' if calls != 1 else ''}"
    if n_questions != 1:
        count += f" for {n_questions} questions"
    if seconds is None:
        text = f"{count} with {name}; time unknown until a first run with it is measured"
    else:
        text = f"{count}, ≈ {format_seconds(seconds)} with {name}{where} ({source})"
    return Estimate(calls, seconds, text, source)
