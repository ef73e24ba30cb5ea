"""Evaluation and TSU results as JSON payloads the dashboard shows (and ships as demos).

A payload is what :mod:`invent_core.experiment` produced, flattened to JSON:
the config, the method names and labels, and one row per question (per
temperature for TSU) with every method's uncertainty. Pages rebuild arrays
from it with :func:`eval_arrays` / :func:`tsu_arrays` and hand them to
``invent_core.evaluation``; nothing here computes a metric.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

EVAL_FORMAT = "invent.dashboard-eval/1"
TSU_FORMAT = "invent.dashboard-tsu/1"


def _num(value: Any) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return math.nan
    return v


def _labels(methods: Sequence[str]) -> dict[str, str]:
    from invent_core.registry import get_method

    return {m: get_method(m).label for m in methods}


def eval_payload(result: Any, cfg: Any) -> dict[str, Any]:
    """JSON payload of an ``invent_core.experiment.evaluate`` result."""
    rows = [
        {
            "id": r["id"],
            "question": r["question"],
            "response": r["response"],
            "reference": r["reference"],
            "correct": int(_num(r["correct"])),
            **{m: _num(r[m]) for m in result.methods},
        }
        for r in result.rows
    ]
    return {
        "format": EVAL_FORMAT,
        "config": asdict(cfg),
        "methods": list(result.methods),
        "labels": _labels(result.methods),
        "rows": rows,
    }


def eval_arrays(payload: Mapping[str, Any]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(correct (n,), method → uncertainty (n,)) from an evaluation payload.

    Methods with no finite value on any question (unavailable on this run, e.g.
    a method needing logprobs) are left out.
    """
    if payload.get("format") != EVAL_FORMAT:
        raise ValueError(
            f"not a dashboard evaluation file (format {payload.get('format')!r}, expected {EVAL_FORMAT!r})"
        )
    rows = payload["rows"]
    if not rows:
        raise ValueError("the evaluation has no questions")
    correct = np.array([int(r["correct"]) for r in rows])
    table = {}
    for m in payload["methods"]:
        u = np.array([_num(r.get(m)) for r in rows], dtype=np.float64)
        if np.isfinite(u).any():
            table[m] = u
    return correct, table


def tsu_payload(
    rows: Sequence[Mapping[str, Any]],
    methods: Sequence[str],
    temperatures: Sequence[float],
    cfg: Any,
) -> dict[str, Any]:
    """JSON payload of a temperature sweep: rows of (id, question, temperature, method values)."""
    return {
        "format": TSU_FORMAT,
        "config": asdict(cfg),
        "temperatures": [float(t) for t in temperatures],
        "methods": list(methods),
        "labels": _labels(methods),
        "rows": [
            {
                "id": r["id"],
                "question": r["question"],
                "temperature": float(r["temperature"]),
                **{m: _num(r.get(m)) for m in methods},
            }
            for r in rows
        ],
    }


def tsu_arrays(payload: Mapping[str, Any]) -> tuple[list[float], list[str], dict[str, np.ndarray]]:
    """(temperatures, question texts, method → (n_questions, n_temperatures) array).

    Methods whose values are all NaN (unavailable) are left out.
    """
    if payload.get("format") != TSU_FORMAT:
        raise ValueError(
            f"not a dashboard TSU file (format {payload.get('format')!r}, expected {TSU_FORMAT!r})"
        )
    temps = [float(t) for t in payload["temperatures"]]
    ids: list[str] = []
    questions: dict[str, str] = {}
    for r in payload["rows"]:
        if r["id"] not in questions:
            ids.append(r["id"])
            questions[r["id"]] = r["question"]
    col = {t: j for j, t in enumerate(temps)}
    row = {i: k for k, i in enumerate(ids)}
    out = {}
    for m in payload["methods"]:
        a = np.full((len(ids), len(temps)), np.nan)
        for r in payload["rows"]:
            a[row[r["id"]], col[float(r["temperature"])]] = _num(r.get(m))
        if np.isfinite(a).any():
            out[m] = a
    return temps, [questions[i] for i in ids], out


def parse_temperatures(text: str) -> list[float]:
    """``"0.3, 0.7, 1.0, 1.4"`` → [0.3, 0.7, 1.0, 1.4]; at least two, strictly increasing."""
    try:
        temps = [float(t) for t in text.replace(";", ",").split(",") if t.strip()]
    except ValueError as err:
        raise ValueError(f"temperatures must be numbers separated by commas, got {text!r}") from err
    if len(temps) < 2 or any(b <= a for a, b in zip(temps, temps[1:])):
        raise ValueError(
            f"temperatures must be at least two strictly increasing values, got {temps}"
        )
    if temps[0] < 0 or temps[-1] > 2:
        raise ValueError(f"temperatures must lie in [0, 2], got {temps}")
    return temps


def question_sweep(
    question: str,
    temperatures: Sequence[float],
    cfg: Any,
    runs_dir: Path,
    llm: Any,
    *,
    task: str = "qa",
    choices: Sequence[str] | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> dict[str, Any]:
    """One typed question at every temperature: a TSU payload with one question.

    Uses ``invent_core.experiment.get_run`` (runs saved under ``runs_dir``, so a
    refresh resumes) and ``score_run`` — the same steps as ``experiment.tsu``.
    """
    import hashlib

    from invent_core.datasets import Example
    from invent_core.experiment import get_run, score_run
    from invent_core.registry import resolve_methods

    qid = "dashboard:" + hashlib.sha256(question.encode()).hexdigest()[:12]
    ex = Example(
        id=qid,
        question=question,
        answers=(),
        task=task,
        choices=tuple(choices) if choices else None,
    )
    methods = [m.name for m in resolve_methods(list(cfg.methods))]
    rows = []
    for j, t in enumerate(temperatures):
        run = get_run(ex, cfg, runs_dir, llm, temperature=float(t))
        rows.append(
            {
                "id": qid,
                "question": question,
                "temperature": float(t),
                **score_run(run, methods, llm),
            }
        )
        if progress:
            progress(j + 1, len(temperatures), f"T = {t:g}")
    return tsu_payload(rows, methods, temperatures, cfg)
