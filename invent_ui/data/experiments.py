"""Evaluation and TSU results as JSON payloads the dashboard shows (and ships as demos).

A payload is what :func:`invent_core.experiments.evaluate` or
:func:`~invent_core.experiments.tsu` returned, flattened to JSON: the config,
the method names and labels, one row per question (per temperature for TSU)
with every method's uncertainty, and the evaluation or TSU table the core
computed. Pages show it as it is; nothing here computes a metric.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from invent_core.config import check_temperatures
from invent_core.csv_safe import read_csv
from invent_core.engine.artifact import RunArtifact
from invent_core.evaluation.metrics import Evaluation
from invent_core.experiments import ExperimentConfig
from invent_core.experiments.made_with import replay_agrees
from invent_core.methods.registry import get_method, list_methods

# /2: the config nests its RunConfig, and the core's evaluation / TSU table travels along
EVAL_FORMAT = "invent.dashboard-eval/2"
TSU_FORMAT = "invent.dashboard-tsu/2"


def _num(value: Any) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return math.nan
    return v


def _labels(methods: Sequence[str]) -> dict[str, str]:
    return {m: get_method(m).label for m in methods}


def _eval_row(r: Mapping[str, Any], methods: Sequence[str]) -> dict[str, Any]:
    return {
        "id": r["id"],
        "question": r["question"],
        "response": r["response"],
        "reference": r["reference"],
        "correct": int(_num(r["correct"])),
        "judge_reason": str(r.get("judge_reason") or ""),  # none in evaluations made before it
        **{m: _num(r.get(m)) for m in methods},
        **_hand_label(r),
        **_degenerate(r),
    }


def _degenerate(r: Mapping[str, Any]) -> dict[str, str]:
    """Why the row's scores say nothing ("" when they do); nothing when the row never recorded it."""
    return {"degenerate": str(r.get("degenerate") or "")} if "degenerate" in r else {}


def _hand_label(r: Mapping[str, Any]) -> dict[str, Any]:
    """The judge's label and the reviewer's reason of a row the relabel layer was applied to."""
    if "judge_correct" not in r:
        return {}
    return {"judge_correct": int(_num(r["judge_correct"])), "relabel_reason": r["relabel_reason"]}


def eval_payload(
    result: Any,
    cfg: Any,
    *,
    llm: str | None = None,
    out: Path | None = None,
    paraphrase_llm: str | None = None,
) -> dict[str, Any]:
    """JSON payload of an ``invent_core.experiments.evaluate`` result (its evaluation included).

    ``llm`` is the identity of the LLM that answered (for the model advice and the history),
    ``paraphrase_llm`` that of the model that reworded when it is another one;
    ``out`` is the evaluation folder, whose saved runs give each row its r answers.
    """
    evaluation = getattr(result, "evaluation", None)
    return {
        "format": EVAL_FORMAT,
        "config": cfg.to_dict(),
        "llm": llm,
        **_rewording_model(llm, paraphrase_llm),
        "methods": list(result.methods),
        "labels": _labels(result.methods),
        "rows": _rows_with_answers(result.rows, result.methods, out),
        "evaluation": evaluation.to_dict() if evaluation is not None else None,
        **({"folder": str(out)} if out is not None else {}),  # where its relabels are kept
        **_rewording_rules(out),
    }


def _runs_by_question(runs_dir: Path) -> dict[str, tuple[list[str], str]]:
    """Question → (the r answers to it, why its run is degenerate or ""), from the saved runs."""
    out: dict[str, tuple[list[str], str]] = {}
    for path in sorted(runs_dir.glob("*.json")) if runs_dir.is_dir() else []:
        try:
            run = RunArtifact.load(path)
            out[str(run.question).strip()] = (
                [str(a) for a in run.responses[0]],
                run.degenerate or "",
            )
        except (OSError, ValueError, KeyError, IndexError, TypeError):
            continue  # a run cut short: its question has no answers to show
    return out


def _rows_with_answers(
    saved: Sequence[Mapping[str, Any]], methods: Sequence[str], out: Path | None
) -> list[dict[str, Any]]:
    """Payload rows, each with the r answers to its question (``" | "``-joined) when known.

    A row saved before degenerate runs were named takes the reason from its run.
    """
    runs = _runs_by_question(Path(out) / "runs") if out is not None else {}
    rows = []
    for r in saved:
        row = _eval_row(r, methods)
        answers, degenerate = runs.get(str(r["question"]).strip(), ([], None))
        row["answers"] = " | ".join(answers)
        if "degenerate" not in row and degenerate is not None:
            row["degenerate"] = degenerate
        rows.append(row)
    return rows


def degenerate_count(payload: Mapping[str, Any]) -> int | None:
    """How many questions of an evaluation payload are degenerate; None: not recorded.

    A payload made before degenerate runs were named (and without its runs) has no
    ``degenerate`` in its rows: its count is unknown, not zero.
    """
    rows = payload.get("rows") or []
    if not rows or not all("degenerate" in r for r in rows):
        return None
    return sum(1 for r in rows if r["degenerate"])


def _rewording_model(llm: str | None, paraphrase_llm: str | None) -> dict[str, str]:
    """``{"paraphrase_llm": …}`` when another model reworded, else nothing (older payloads: none)."""
    return {"paraphrase_llm": paraphrase_llm} if paraphrase_llm and paraphrase_llm != llm else {}


def _rewording_rules(out: Path | None) -> dict[str, Any]:
    """The round of rewording rules ``out/config.json`` records, with its replay verdict.

    See :func:`_round_keys`; nothing without a folder.
    """
    if out is None:
        return {}
    return _round_keys(_json_file(Path(out) / "config.json"), Path(out))


def _round_keys(meta: Mapping[str, Any], out: Path) -> dict[str, Any]:
    """``rewording_rules`` as ``meta`` (the folder's config.json) records it.

    With ``rewording_rules_replayed`` when its ``stale_check.json`` says today's round,
    replayed on the saved candidates, chose the same perturbations; the page says from
    both whether the evaluation is older than today's rules. Nothing when none is recorded.
    """
    rules = meta.get("rewording_rules")
    if not isinstance(rules, int):
        return {}
    same = replay_agrees(_json_file(out / "stale_check.json"), rules)
    return {"rewording_rules": rules, **({"rewording_rules_replayed": same} if same else {})}


def folder_meta(out: Path) -> dict[str, Any]:
    """What :func:`~invent_core.experiments.made_with.made_with` reads of an evaluation folder.

    Its ``config.json``, with ``rewording_rules_replayed`` when today's round, replayed on
    its saved candidates, chose the same perturbations.
    """
    meta = _json_file(Path(out) / "config.json")
    return {**meta, **_round_keys(meta, Path(out))}


def _json_file(path: Path) -> dict[str, Any]:
    """A JSON object from ``path``; ``{}`` when it is missing or unreadable (then: not recorded)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def folder_payload(
    out: Path, cfg: Any, *, reason: str, llm: str | None = None, paraphrase_llm: str | None = None
) -> dict | None:
    """The per-question payload of an evaluation folder, without summary metrics.

    Reads ``scores.csv`` (one judged row per finished question) through the core's
    formula-safe reader (:func:`invent_core.csv_safe.read_csv`, which takes off the
    apostrophe that protects a cell starting with ``=``) and the saved runs; ``reason`` says why there is no summary (every answer wrong, cancelled
    …). ``None`` when no question finished.
    """
    path = Path(out) / "scores.csv"
    if not path.is_file():
        return None
    saved = list(read_csv(path))
    if not saved:
        return None
    known = {m.name for m in list_methods()}
    methods = [c for c in saved[0] if c in known]
    rows = _rows_with_answers(saved, methods, Path(out))
    return {
        "format": EVAL_FORMAT,
        "config": cfg.to_dict(),
        "llm": llm,
        **_rewording_model(llm, paraphrase_llm),
        "methods": methods,
        "labels": _labels(methods),
        "rows": rows,
        "evaluation": None,
        "reason": reason,
        "folder": str(out),
        **_rewording_rules(out),
    }


def per_question_table(payload: Mapping[str, Any]) -> Any:
    """One row per question: question, answers, canonical answer, reference, correct, every score.

    When the evaluation kept the judge's reasons, "why (judge)" follows "correct": which
    reference the answer matched, or why it was judged wrong. When it recorded them, the
    last column, "degenerate", says why a question's scores say nothing (empty otherwise).

    Each column keeps one meaning: "correct" is always the judge's label; once a
    reviewer relabelled answers, "correct after review" (what the metrics then use)
    and "why (reviewer)" follow it, so a download made before a relabel and one made
    after read the same under the same header.
    """
    import pandas as pd

    labels = payload.get("labels", {})
    reasons = any(r.get("judge_reason") for r in payload["rows"])
    recorded = degenerate_count(payload) is not None
    rows = []
    for r in payload["rows"]:
        row = {
            "question": r["question"],
            "answers": r.get("answers", ""),
            "canonical answer": r["response"],
            "reference": r["reference"],
            "correct": bool(r.get("judge_correct", r["correct"])),  # the judge's, always
        }
        if reasons:
            row["why (judge)"] = r.get("judge_reason", "")
        if "judge_correct" in r:  # the reviewer's layer applied: the label the metrics use
            row["correct after review"] = bool(r["correct"])
            row["why (reviewer)"] = r.get("relabel_reason", "")
        row.update({labels.get(m, m): _num(r.get(m)) for m in payload["methods"]})
        if recorded:  # why the scores say nothing about this question (every rewording a copy)
            row["degenerate"] = r["degenerate"]
        rows.append(row)
    return pd.DataFrame(rows)


def payload_config(payload: Mapping[str, Any]) -> Any:
    """The :class:`~invent_core.experiments.ExperimentConfig` a payload was made with."""
    return ExperimentConfig.from_dict(payload["config"])


def payload_evaluation(payload: Mapping[str, Any]) -> Any:
    """The :class:`~invent_core.evaluation.metrics.Evaluation` that ``evaluate`` returned."""
    _check_format(payload, EVAL_FORMAT, "evaluation")
    return Evaluation.from_dict(payload["evaluation"])


def _check_format(payload: Mapping[str, Any], expected: str, what: str) -> None:
    if payload.get("format") != expected:
        raise ValueError(
            f"not a dashboard {what} file (format {payload.get('format')!r}, expected {expected!r})"
        )


def eval_arrays(payload: Mapping[str, Any]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(correct (n,), method → uncertainty (n,)) from an evaluation payload.

    Methods with no finite value on any question (unavailable on this run, e.g.
    a method needing logprobs) are left out.
    """
    _check_format(payload, EVAL_FORMAT, "evaluation")
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
    result: Any,
    temperatures: Sequence[float],
    cfg: Any,
    *,
    llm: str | None = None,
    paraphrase_llm: str | None = None,
) -> dict[str, Any]:
    """JSON payload of an ``invent_core.experiments.tsu`` result (its TSU table included).

    ``llm`` / ``paraphrase_llm``: the answering and (when another) the rewording model.
    """
    methods = list(result.methods)
    return {
        "format": TSU_FORMAT,
        "config": cfg.to_dict(),
        **({"llm": llm} if llm else {}),
        **_rewording_model(llm, paraphrase_llm),
        "temperatures": [float(t) for t in temperatures],
        "methods": methods,
        "labels": _labels(methods),
        "rows": [
            {
                "id": r["id"],
                "question": r["question"],
                "temperature": float(r["temperature"]),
                **{m: _num(r.get(m)) for m in methods},
            }
            for r in result.rows
        ],
        "tsu": result.tsu,
    }


def tsu_arrays(payload: Mapping[str, Any]) -> tuple[list[float], list[str], dict[str, np.ndarray]]:
    """(temperatures, question texts, method → (n_questions, n_temperatures) array).

    Methods whose values are all NaN (unavailable) are left out.
    """
    _check_format(payload, TSU_FORMAT, "TSU")
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
    """``"0.3, 0.7, 1.0, 1.4"`` → [0.3, 0.7, 1.0, 1.4], checked by invent_core.config."""
    try:
        temps = [float(t) for t in text.replace(";", ",").split(",") if t.strip()]
    except ValueError as err:
        raise ValueError(f"temperatures must be numbers separated by commas, got {text!r}") from err
    return check_temperatures(temps)


def question_file(question: str, folder: Path) -> Path:
    """A one-question CSV (``--data`` format) in ``folder``, so a typed question is a dataset."""
    import hashlib

    qid = "typed-" + hashlib.sha256(question.encode()).hexdigest()[:12]
    path = folder / "question.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([["id", "question"], [qid, question]])
    return path


def per_run_table(payload: Mapping[str, Any]) -> Any:
    """One row per (question, temperature) of a TSU payload, every method's uncertainty."""
    import pandas as pd

    labels = payload.get("labels", {})
    return pd.DataFrame(
        [
            {
                "question": r["question"],
                "temperature": float(r["temperature"]),
                **{labels.get(m, m): _num(r.get(m)) for m in payload["methods"]},
            }
            for r in payload["rows"]
        ]
    )
