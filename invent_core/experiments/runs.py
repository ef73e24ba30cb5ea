"""The saved run of each question: found, or generated and saved; then scored by every method.

Runs live in ``<out>/runs/<safe id>_T<temperature>.json``
(:class:`~invent_core.engine.artifact.RunArtifact`). :func:`get_run` reuses a
saved run made with the same generation options (:func:`generation_key`),
rescoring it when only scoring options differ, and otherwise generates it
(LLM calls go through the persistent cache). :func:`score_run` computes every
requested method on one run; methods that ask the LLM extra questions (VU,
P(True)) keep their answers in the run's ``extras``, so the run is saved again.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from itertools import islice
from pathlib import Path
from typing import Any

from ..config import RunConfig
from ..engine.artifact import RunArtifact
from ..engine.inflight import units_in_flight
from ..engine.pipeline import run_question
from ..errors import scrub
from ..methods.registry import ScoringContext, compute_methods, resolve_methods
from ..perturb.base import get_perturber
from ..progress import CancelToken, ProgressCallback
from ..workbench.estimate import record_artifact
from .config import ExperimentConfig, generation_key

__all__ = [
    "base_row",
    "check_perturber",
    "failed_row",
    "get_run",
    "in_flight_width",
    "requested_methods",
    "run_path",
    "saved_run",
    "score_run",
    "example_run_path",
    "safe_name",
]


def safe_name(name: str) -> str:
    """A file name made of ``name``: unsafe characters replaced, a hash keeping it unique."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name))[:60]
    return f"{slug}-{hashlib.sha1(str(name).encode()).hexdigest()[:8]}"


def run_path(runs_dir: Path, example_id: str, temperature: float) -> Path:
    """Where an evaluation keeps the run of one question at one temperature."""
    return runs_dir / f"{safe_name(example_id)}_T{temperature:g}.json"


def example_run_path(runs_dir: Path, example: Any, temperature: float) -> Path:
    """:func:`run_path` of a sampled example (anything with an ``id``)."""
    return run_path(runs_dir, example.id, temperature)


def get_run(
    example,
    cfg: ExperimentConfig,
    runs_dir: Path,
    llm: Any,
    *,
    temperature: float | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
):
    """Return the run of one example: the saved one when it has the same generation options.

    A saved run whose scoring options differ is rescored (no LLM call); else
    the run is generated (its throughput recorded for :mod:`invent_core.workbench.estimate`)
    and saved under ``runs_dir``.
    """
    config = cfg.run if temperature is None else cfg.run.replace(temperature=temperature)
    run = saved_run(example, cfg, runs_dir, config.temperature)
    if run is not None:
        return run if run.config.score == config.score else run.rescore(config.score)
    run = _generate(example, config, llm, progress, cancel)
    run.save(example_run_path(runs_dir, example, config.temperature))

    record_artifact(run)
    return run


def saved_run(example, cfg: ExperimentConfig, runs_dir: Path, temperature: float):
    """The saved run of ``example`` at ``temperature`` made with the same options and LLMs, or None."""
    path = example_run_path(runs_dir, example, temperature)
    if not path.is_file():
        return None
    try:
        run = RunArtifact.load(path)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # a torn or foreign file (``[]`` included): generated again
    same_question = run.question == example.question.strip() and cfg.made_by(run)
    if same_question and generation_key(run.config) == cfg.run_key(temperature):
        return run
    return None


def _generate(example, config: RunConfig, llm: Any, progress, cancel):
    """``run_question`` for one example (its task and choices), with the caller's cancel."""
    return run_question(
        example.question,
        config,
        llm=llm,
        task=example.task,
        choices=list(example.choices) if example.choices else None,
        progress=progress,
        cancel=cancel,
    )


def score_run(run, method_names: Sequence[str], llm: Any) -> dict[str, float]:
    """Every requested method on one run (NaN where a method is unavailable)."""
    ctx = ScoringContext.from_run(run, llm=llm)
    results = compute_methods(ctx, method_names)
    return {name: res.value for name, res in results.items()}


def check_perturber(cfg: ExperimentConfig) -> None:
    """Raise ValueError for an unregistered perturber before any file is touched.

    Checked here, where runs are generated, not in the config: a saved experiment
    reopens and rescores without the plug-in that perturbed it.
    """
    get_perturber(cfg.run.perturber)


def requested_methods(cfg: ExperimentConfig) -> list[str]:
    """The names of the methods the config asks for (``"all"``, groups and names resolved)."""
    return [m.name for m in resolve_methods(list(cfg.methods))]


def base_row(ex) -> dict[str, Any]:
    """The columns every row of an example has: id, dataset, question, reference answers."""
    return {
        "id": ex.id,
        "dataset": ex.dataset,
        "question": ex.question,
        "reference": " | ".join(ex.answers),
    }


def failed_row(ex, err: Exception) -> dict[str, Any]:
    """Return the row of a question whose generation failed: its error, no judgement or scores."""
    message = " ".join(scrub(err).split())[:300]  # a server may have echoed a key
    return {**base_row(ex), "correct": "", "error": f"{type(err).__name__}: {message}"}


def in_flight_width(llm: Any, needs_generation: Iterable[bool]) -> int:
    """Units to keep in flight: 1 unless at least two runs must be generated.

    ``needs_generation`` is read lazily and only up to the second True, so a
    fresh folder costs a file check per unit, and the LLM (possibly a
    :class:`~invent_core.llm.LazyLLM`) is not touched when nothing is generated.
    """
    return units_in_flight(llm) if sum(islice(filter(None, needs_generation), 2)) > 1 else 1
