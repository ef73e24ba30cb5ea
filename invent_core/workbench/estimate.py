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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from ..config import RunConfig
from ..env import cache_dir
from ..llm.names import describe_llm, local_model
from ..progress import format_range, format_seconds
from .history import atomic_write
from .llm_calls import (
    calls_text,
    count_llm_calls,
    llm_call_bounds,
    paraphrase_requests,
    reworded_runs,
)

__all__ = [
    "PRIOR_SECONDS",
    "GAAP_KEY",
    "Rate",
    "Throughput",
    "ThroughputLog",
    "Estimate",
    "llm_key",
    "count_llm_calls",
    "llm_call_bounds",
    "estimate_run",
    "estimate_stages",
    "stage_key",
    "stage_measurements",
    "record_stages",
    "record_run",
    "record_artifact",
    "stage_units",
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
#: Measurements kept per key for the range (ours: about a working session's runs).
RECENT = 20
#: Measurements a range rests on before it is their spread.
MIN_SPREAD_SAMPLES = 3
#: Range of a rate with fewer measurements, or a prior, as factors of it (ours: the
#: one afternoon, one setting, 18.5-69.9 s against a 21 s prior: 0.9x-3.3x).
FEW_SAMPLES_SPAN = (0.5, 3.5)
#: A range this narrow (high / low) is said as one figure, "≈ 21 s".
POINT_RATIO = 1.3
#: Prior seconds of scoring one question (the Inv measures, bootstrap), per question.
PRIOR_SCORE_SECONDS = 0.5

Source = Literal["measured", "prior"]


def llm_key(identity: str) -> str:
    """Return the throughput key of an LLM: its cache identity (model file or URL + model)."""
    return f"llm:{identity}"


def stage_key(stage: str, identity: str | None = None, perturber: str | None = None) -> str:
    """Return the throughput key of one stage of a run (rates per stage).

    ``"perturb"``: seconds of the perturbation stage per paraphrase request the
    LLM served; ``"answers"``: seconds the answers took beyond the perturbation
    stage per answer served (they overlap it; with GAAP they follow it);
    ``"score"``: seconds of scoring per question (no LLM); ``"run"``: a whole
    paraphrase run's seconds (less scoring) per LLM call the estimate counts.
    """
    key = f"stage:{stage}"
    if perturber is not None:
        key += f":{perturber}"
    return key if identity is None else f"{key}|{llm_key(identity)}"


@dataclass(frozen=True)
class Rate:
    """Seconds per unit (an LLM request, or a GAAP run), and where it comes from.

    Attributes
    ----------
    seconds : the running average, seconds per unit.
    samples : runs it rests on (0 for a prior).
    source : ``"measured"`` on this machine, or ``"prior"``.
    recent : the last :data:`RECENT` measurements, oldest first (their spread is the range).
    """

    seconds: float
    samples: int
    source: Source
    recent: tuple[float, ...] = field(default=(), compare=False)

    @property
    def span(self) -> tuple[float, float]:
        """Seconds per unit, (low, high): what this machine did lately, not one average.

        The least and most of the recent measurements (and the average); with
        fewer than :data:`MIN_SPREAD_SAMPLES` of them, or a prior, the average
        times :data:`FEW_SAMPLES_SPAN` — the range a single figure is known to
        miss by on a shared machine (20-70 s for one setting).
        """
        if len(self.recent) >= MIN_SPREAD_SAMPLES:
            values = (*self.recent, self.seconds)
            return min(values), max(values)
        lo, hi = FEW_SAMPLES_SPAN
        return self.seconds * lo, self.seconds * hi


class Throughput(Protocol):
    """Anything that knows a rate per key (:class:`ThroughputLog`)."""

    def rate(self, key: str) -> Rate | None:
        """Return seconds per unit for ``key``, ``None`` when unknown."""
        ...


#: Throughput key of scoring (seconds per question; no LLM).
SCORE_KEY = stage_key("score")


def _prior(key: str) -> Rate | None:
    if key == GAAP_KEY:
        return Rate(PRIOR_SECONDS["gaap"], 0, "prior")
    if key == SCORE_KEY:
        return Rate(PRIOR_SCORE_SECONDS, 0, "prior")
    if key.startswith("llm:"):
        name = local_model(key[len("llm:") :])
        if name in PRIOR_SECONDS:
            return Rate(PRIOR_SECONDS[name], 0, "prior")
    return None


def _parse(item: Any) -> Rate | None:
    """Read a stored ``{"seconds", "samples", "recent"}`` record; ``None`` if unusable."""
    try:
        seconds, samples = float(item["seconds"]), int(item["samples"])
        recent = tuple(float(x) for x in item.get("recent", ()))
    except (TypeError, KeyError, ValueError, AttributeError):
        return None
    if not math.isfinite(seconds) or seconds <= 0 or samples < 1:
        return None
    recent = tuple(x for x in recent if math.isfinite(x) and x > 0)[-RECENT:]
    return Rate(seconds, samples, "measured", recent)


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
            recent = ((*old.recent, x) if old is not None else (x,))[-RECENT:]
            data[key] = {"seconds": new, "samples": samples, "recent": list(recent)}
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, json.dumps(data, indent=1, sort_keys=True).encode("utf-8"))
        return Rate(new, samples, "measured", recent)


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
    """Record a finished :class:`~invent_core.engine.artifact.RunArtifact`'s throughput (best effort).

    With the overlapped engine the paraphrase and answer requests
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
    try:
        log = log if log is not None else ThroughputLog()
        record_stages(log, run)
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


def stage_measurements(run: Any) -> dict[str, tuple[float, int]]:
    """A finished run's stages as ``{stage key: (seconds, units served)}``.

    Units served leave out cache hits; a stage that served none (or took no
    time) is left out: it says nothing of this machine's speed. A GAAP run's
    perturbation time leaves out the loading of WordNet, KeyBERT and the embedders.
    With a separate paraphrasing model (``--paraphrase-llm``) the perturbation
    stage is that model's, and no whole-run rate is kept (two models share it).
    """
    t, u = run.timings, run.usage
    identity = str(run.identities.get("llm") or "")
    perturber = run.config.perturber
    score = float(t.get("score", 0.0))
    perturb = float(t.get("perturb", 0.0))
    if perturber == "gaap":
        perturb -= float((run.gaap_trace or {}).get("load_seconds", 0.0))
    para = getattr(run, "paraphrase_identity", None) or identity
    total = float(t.get("total", perturb + float(t.get("generate", 0.0)) + score))
    out = {
        stage_key("answers", identity, perturber): (
            total - float(t.get("perturb", 0.0)) - score,
            int(u.get("requests", 0)) - int(u.get("cached", 0)),
        ),
        SCORE_KEY: (score, 1),
    }
    if perturber == "gaap":
        out[GAAP_KEY] = (perturb, 1)
    elif int(u.get("perturb_cached", 0)) == 0 and int(u.get("perturb_requests", 0)) > 0:
        # per request the estimate counts (n + 1, or one list): the gate's extra rounds
        # are part of the stage's time, as they will be of the next run's
        planned = paraphrase_requests(run.config, para)
        out[stage_key("perturb", para)] = (perturb, planned)
        if (
            int(u.get("cached", 0)) == 0 and para == identity
        ):  # a whole run, per call the estimate counts
            calls = count_llm_calls(run.config, llm_identity=identity)
            out[stage_key("run", identity, perturber)] = (total - score, calls)
    else:  # cached rewordings: every answer came after them, another regime
        del out[stage_key("answers", identity, perturber)]
    return {k: (sec, n) for k, (sec, n) in out.items() if n > 0 and sec > 0}


def record_stages(log: ThroughputLog, run: Any) -> None:
    """Fold a finished run's per-stage rates into ``log`` (:func:`stage_measurements`)."""
    for key, (seconds, units) in stage_measurements(run).items():
        if key != GAAP_KEY:  # GAAP's own key is kept by record_run
            log.record(key, seconds, units)


@dataclass(frozen=True)
class Estimate:
    """The cost of a run, said before it starts.

    Attributes
    ----------
    llm_calls : requests the LLM will get (fewer when some are cached).
    seconds : expected wall time (the stages' averages), ``None`` when no rate is known.
    text : ``"60–78 LLM calls, 14–61 s with … on this machine (measured)"`` (the gate may
        re-ask for rejected rewordings: :func:`llm_call_bounds`).
    source : ``"measured"``, ``"prior"``, ``"partly measured"``, or ``None``.
    low, high : the range of the wall time, from the spread of the stages' recent
        rates on this machine (``None`` with ``seconds``).
    """

    llm_calls: int
    seconds: float | None
    text: str
    source: str | None
    low: float | None = None
    high: float | None = None

    @property
    def when(self) -> str | None:
        """``"≈ 21 s"`` when the range is narrow, else ``"14–61 s"``; ``None`` when unknown."""
        if self.seconds is None or self.low is None or self.high is None:
            return None if self.seconds is None else f"≈ {format_seconds(self.seconds)}"
        if self.high <= POINT_RATIO * max(self.low, 1e-9):
            return f"≈ {format_seconds(self.seconds)}"
        return format_range(self.low, self.high)


def stage_units(
    config: RunConfig,
    identity: str,
    n_questions: int,
    para: str | None = None,
    reworded: int | None = None,
) -> list[tuple[str, int]]:
    """``(throughput key, units)`` of each stage of ``n_questions`` runs (none cached).

    ``para``: a separate paraphrasing model, whose own rate the perturbation stage takes.
    """
    para = para or identity
    answers = n_questions * (config.n_perturbations + 1) * config.n_replications
    out = [
        (stage_key("answers", identity, config.perturber), answers),
        (SCORE_KEY, n_questions),
    ]
    perturbed = reworded_runs(n_questions, reworded)
    if config.perturber == "gaap":
        out.append((GAAP_KEY, perturbed))
    else:
        out.append((stage_key("perturb", para), perturbed * paraphrase_requests(config, para)))
    return out


def _stage_rate(throughput: Throughput, key: str, identity: str) -> Rate | None:
    """The stage's rate; an LLM stage never measured falls back on the LLM's per-call rate."""
    rate = throughput.rate(key)
    if rate is None and "|llm:" in key:  # the key's own model (a paraphraser may be another)
        rate = throughput.rate(llm_key(key.split("|llm:", 1)[1] or identity))
    return rate


def _combine(
    parts: list[tuple[int, Rate | None]],
) -> tuple[float | None, float | None, float | None, str | None]:
    """Sum ``units × rate`` into (seconds, low, high, source); unknown when a needed rate is."""
    needed = [(units, rate) for units, rate in parts if units > 0]
    if not needed or any(rate is None for _, rate in needed):
        return None, None, None, None
    seconds = sum(units * rate.seconds for units, rate in needed)
    low = sum(units * rate.span[0] for units, rate in needed)
    high = sum(units * rate.span[1] for units, rate in needed)
    sources = {rate.source for _, rate in needed}
    return seconds, low, high, sources.pop() if len(sources) == 1 else "partly measured"


def estimate_stages(
    units: list[tuple[str, int]], *, llm_identity: str, throughput: Throughput
) -> tuple[float | None, float | None, float | None, str | None]:
    """(seconds, low, high, source) of work counted per stage key (:func:`stage_key`).

    The range adds up each stage's low and high rate (they rise and fall together
    with the machine's load, so the sum of the extremes is the honest extreme).
    """
    rates = [(n, _stage_rate(throughput, key, llm_identity)) for key, n in units]
    seconds, low, high, source = _combine(rates)
    # the source is the LLM's and GAAP's: scoring, under a second, does not make it "partly"
    main = [(n, r) for (key, _), (n, r) in zip(units, rates, strict=True) if key != SCORE_KEY]
    source = _combine(main)[3] or source
    span = _overlapped_span(units, llm_identity, throughput)
    if seconds is not None and span is not None:
        low, high = min(span[0], seconds), max(span[1], seconds)
    return seconds, low, high, source


def _overlapped_span(
    units: list[tuple[str, int]], identity: str, throughput: Throughput
) -> tuple[float, float] | None:
    """The range of a paraphrase run from whole runs' seconds per LLM call, or None.

    Paraphrase and answer requests overlap, so the stages trade time: a slow
    perturbation stage leaves few answers after it. Adding each stage's worst
    case then gives a range far wider than runs ever spread (the recorded
    MMLU runs: 28 x); the spread of whole runs per call (plus scoring) is the
    honest one (``tests/workbench/test_estimate.py`` checks it on the recorded runs).
    """
    if any(key == GAAP_KEY for key, _ in units):
        return None  # GAAP's stages follow one another: their sum is the run's
    own = stage_key("perturb", identity)
    if any(key.startswith("stage:perturb|") and key != own for key, _ in units):
        return None  # a separate paraphrasing model: no whole-run rate covers two models
    whole = throughput.rate(stage_key("run", identity, "paraphrase")) or throughput.rate(
        llm_key(identity)
    )
    score = throughput.rate(SCORE_KEY)
    if whole is None or whole.source != "measured" or score is None:
        return None
    calls = sum(n for key, n in units if key != SCORE_KEY)
    n_score = sum(n for key, n in units if key == SCORE_KEY)
    return (
        calls * whole.span[0] + n_score * score.span[0],
        calls * whole.span[1] + n_score * score.span[1],
    )


def _narrowed(
    seconds: float | None, low: float | None, high: float | None, n_runs: int
) -> tuple[float | None, float | None]:
    """The range of ``n_runs`` runs: the single runs' spread around the mean, shrunk by √n.

    The recent runs spread mostly question by question (the question's length, the
    gate's rounds): over n questions that averages out as 1/√n, so scaling one run's
    extremes by n (an evaluation read "2:02–14:49") overstates the range. A change
    of load for the whole run is not covered; the live estimate corrects it.
    """
    if seconds is None or low is None or high is None or n_runs <= 1:
        return low, high
    shrink = math.sqrt(n_runs)
    return seconds - (seconds - low) / shrink, seconds + (high - seconds) / shrink


def estimate_run(
    config: RunConfig,
    *,
    llm_identity: str,
    throughput: Throughput,
    n_questions: int = 1,
    paraphrase_identity: str | None = None,
    reworded: int | None = None,
) -> Estimate:
    """Estimate the LLM calls and seconds of ``n_questions`` runs of ``config``.

    Parameters
    ----------
    config : the run configuration (n, r, perturber, paraphrase style).
    llm_identity : the LLM's ``identity`` (or a ``get_llm`` spec such as ``"local"``).
    throughput : where rates come from (:class:`ThroughputLog`).
    n_questions : questions of an evaluation / sweep (1 for one run).
    paraphrase_identity : a separate paraphrasing model (``--paraphrase-llm``),
        whose requests are counted at its own rate.
    reworded : runs that ask for their own rewordings (default all; a TSU sweep:
        its questions, since the other temperatures read the rewordings from the cache).

    Returns
    -------
    Estimate
        Per stage (perturbation, answers, scoring) from this machine's recent
        rates for this LLM, as a range where they spread. With the adaptive
        budget, the count is an upper bound (said "at most").

    Examples
    --------
    >>> estimate_run(RunConfig(), llm_identity="local", throughput=ThroughputLog(p)).text  # doctest: +SKIP
    '60–78 LLM calls, 11–74 s with Qwen2.5-Coder-0.5B-Instruct on this machine (prior)'
    """
    para = paraphrase_identity if paraphrase_identity != llm_identity else None
    kw = {"n_questions": n_questions, "paraphrase_identity": para, "reworded": reworded}
    calls = count_llm_calls(config, llm_identity=llm_identity, **kw)
    perturb = 0
    if para is not None and config.perturber != "gaap":
        perturb = reworded_runs(n_questions, reworded) * paraphrase_requests(config, para)
    units = stage_units(config, llm_identity, n_questions, para, reworded)
    seconds, low, high, source = estimate_stages(
        units, llm_identity=llm_identity, throughput=throughput
    )
    low, high = _narrowed(seconds, low, high, n_questions)
    name = describe_llm(llm_identity)
    if para and perturb:
        plural = "s" if perturb != 1 else ""
        name = f"{name} (answers) and {describe_llm(para)} ({perturb} paraphrase call{plural})"
    where = " on this machine" if local_model(llm_identity) is not None else ""
    bounds = llm_call_bounds(config, llm_identity=llm_identity, **kw)
    count = calls_text(config, bounds, n_questions, reworded)
    est = Estimate(calls, seconds, "", source, low, high)
    if seconds is None:
        text = f"{count} with {name}; time unknown until a first run with it is measured"
    else:
        text = f"{count}, {est.when} with {name}{where} ({source})"
    return Estimate(calls, seconds, text, source, low, high)
