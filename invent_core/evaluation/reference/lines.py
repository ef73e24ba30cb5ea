"""What the shells show and keep of a value among reference questions.

:func:`placement_record` is the dict a run artefact keeps; :func:`record_line` the
sentence the CLI prints of it (:func:`reference_line` of a set and a value),
:func:`record_columns` the batch output's cells (:func:`columns` of a set).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .calibration import MIN_NEAR
from .reference_set import ReferenceSet


def _describe_settings(settings: Mapping[str, Any]) -> str:
    """``"paraphrase, n = 9, r = 5, T = 0.7, minilm, shifted_cosine, qwen0.5b; triviaqa, mmlu"``."""
    parts = [
        str(settings.get("perturber", "?")),
        f"n = {settings.get('n_perturbations', '?')}",
        f"r = {settings.get('n_replications', '?')}",
        f"T = {settings.get('temperature', '?')}",
        str(settings.get("embedder", "?")),
        str(settings.get("affinity", "?")),
        str(settings.get("llm", "?")),
    ]
    datasets = settings.get("datasets") or [settings.get("dataset")]
    return ", ".join(parts) + "; " + ", ".join(str(d) for d in datasets if d)


def reference_line(value: float, ref: ReferenceSet | None, *, measure: str = "inv_entropy") -> str:
    """Return the line shown next to a measure's value: :func:`record_line` of its placement.

    Without a matching reference, or without a finite value, a line says so.
    """
    if ref is None:
        return f"{measure}: no shipped reference for these settings (scripts/make_reference.py)"
    if not math.isfinite(value):
        return f"{measure}: no value, so no percentile"
    return record_line(placement_record(value, ref, measure), measure=measure)


def record_line(record: Mapping[str, Any], *, measure: str = "inv_entropy") -> str:
    """The line of a :func:`placement_record`: what ``run`` prints of the placement it stored.

    Placed (:func:`place`): ``"inv_entropy: P(correct) ≈ 0.02 [0.01, 0.08] among 30
    TriviaQA-like reference questions (k = 30, similarity ≥ 0.21); percentile 83
    among them; …"``; none like it: ``"inv_entropy: no reference questions like
    this one — … — so no percentile or P(correct)"``. A set not placed (or
    pooled: old files) reads ``"percentile 83 among 120 reference questions
    (settings: …); P(correct) ≈ 0.31 …"``.
    """
    placement = record.get("placement")
    if placement is not None and placement["mode"] == "none_like":
        return (
            f"{measure}: no reference questions like this one — {placement['reason']} — "
            "so no percentile or P(correct)"
        )
    if placement is not None and placement["mode"] == "nearest":
        return _placed_line(record, measure)
    line = f"{measure}: percentile {record['percentile']:.0f} among {record_source(record)}"
    if record["p_correct"] is not None:
        lo, hi = record["p_interval"]
        line += (
            f"; P(correct) ≈ {record['p_correct']:.2f} [90 %: {lo:.2f}–{hi:.2f}], "
            f"{record['n_near']} reference questions near this value ({calibration_note(record)})"
        )
    elif record["n_near"] is not None:
        line += (
            f"; P(correct): not enough reference questions near this value "
            f"({record['n_near']} < {MIN_NEAR})"
        )
    if placement is not None:  # pooled: old reference files
        line += f" [not placed among questions like this one: {placement['reason']}]"
    return line


def _placed_line(d: Mapping[str, Any], measure: str) -> str:
    """The line of a question placed among its nearest reference questions (a record ``d``)."""
    size = d["n_reference"]
    where = _placed_where(d["placement"], size)
    if d["p_correct"] is not None:
        lo, hi = d["p_interval"]
        head = f"{measure}: P(correct) ≈ {d['p_correct']:.2f} [{lo:.2f}, {hi:.2f}] among {where}"
        tail = (
            f"; percentile {d['percentile']:.0f} among them; {d['n_near']} near this value; "
            f"{100 * d['base_rate']:.0f} % of the {size} answered right"
        )
    else:
        head = f"{measure}: percentile {d['percentile']:.0f} among {where}"
        tail = (
            "; P(correct): no labels"
            if d["n_near"] is None
            else f"; P(correct): not enough of them near this value ({d['n_near']} < {MIN_NEAR})"
        )
    return head + tail + f" (settings: {d.get('settings_line', '?')})"


def _placed_where(p: Mapping[str, Any], size: int) -> str:
    """``"30 TriviaQA-like reference questions (k = 30, similarity ≥ 0.21)"``."""
    return f"{size} {p['like']} (k = {p['k']}, similarity ≥ {p['similarity_min']:.2f})"


def record_source(record: Mapping[str, Any]) -> str:
    """``"30 TriviaQA-like reference questions (k = 30, …) (settings: …)"`` of a placement record.

    ``"110 reference questions (settings: paraphrase, n = 9, …; arithmetic, mmlu)"``
    for a set not placed by question.
    """
    p, size = record.get("placement"), record["n_reference"]
    settings = f"(settings: {record.get('settings_line', '?')})"
    if p is not None and p["mode"] == "nearest":
        return f"{_placed_where(p, size)} {settings}"
    return f"{size} reference questions {settings}"


def calibration_note(described: Mapping[str, Any]) -> str:
    """``"calibrated on arithmetic, mmlu: right on 48 % of them"`` for :meth:`ReferenceSet.describe`'s dict."""
    where = ", ".join(described["datasets"]) or "the reference questions"
    return f"calibrated on {where}: right on {100 * described['base_rate']:.0f} % of them"


def columns(value: float, ref: ReferenceSet | None, *, measure: str = "inv_entropy") -> dict:
    """Return the batch-output columns of one value: percentile, P(correct), placed among.

    ``{"<measure>_percentile": 0–100 or None, "<measure>_p_correct": 0–1 or None,
    "<measure>_placed_among": "30 TriviaQA-like (k = 30, similarity ≥ 0.21)" or a
    note or None}``. Percentile and P(correct) are None (an empty cell) without a
    matching reference, a finite value, labels, or reference questions like the
    row's (a :func:`place`-d set of mode ``"none_like"``). A placed set gives the
    value among the neighbours only.
    """
    ok = ref is not None and value is not None and math.isfinite(value)
    if ok and ref.placement is not None and ref.placement.mode == "none_like":
        ok = False
    pct = float(ref.percentile(value)) if ok else None
    p = ref.calibration(value)["p_correct"] if ok and ref.has_labels else None
    return {
        f"{measure}_percentile": pct,
        f"{measure}_p_correct": p,
        f"{measure}_placed_among": placed_among(ref),
    }


def record_columns(record: Mapping[str, Any] | None, *, measure: str = "inv_entropy") -> dict:
    """:func:`columns` read back from a run's :func:`placement_record` (the same cells).

    What a batch writes for a generated row: the pipeline placed the run once; the
    batch output shows that placement, not one of its own.
    """
    if record is None:
        return {f"{measure}_{c}": None for c in ("percentile", "p_correct", "placed_among")}
    return {
        f"{measure}_percentile": record.get("percentile"),
        f"{measure}_p_correct": record.get("p_correct"),
        f"{measure}_placed_among": _placed_text(record.get("placement"), record["n_reference"]),
    }


def _placed_text(p: Mapping[str, Any] | None, size: int) -> str:
    """:func:`placed_among`'s cell from a :meth:`Placement.to_dict`."""
    if p is None:
        return f"{size} reference questions"
    if p["mode"] == "nearest":
        like = p["like"].removesuffix(" reference questions")
        return f"{size} {like} (k = {p['k']}, similarity ≥ {p['similarity_min']:.2f})"
    if p["mode"] == "none_like":
        return f"none like this one ({p['reason']})"
    return f"{size} reference questions, pooled (no question embeddings)"


def placed_among(ref: ReferenceSet | None) -> str | None:
    """A short cell: which reference questions a value was placed among (None: no reference)."""
    if ref is None:
        return None
    placed = ref.placement.to_dict() if ref.placement is not None else None
    return _placed_text(placed, ref.size)


def placement_record(value: float | None, ref: ReferenceSet | None, measure: str) -> dict | None:
    """What a run artefact keeps of its placement; None without a reference.

    ``{"measure", "value", "percentile", "p_correct", "p_interval", "n_near",
    "base_rate", "n_reference", "datasets", "files", "settings_line", "placement"}``:
    :meth:`ReferenceSet.describe` with the settings as :func:`record_line` names them,
    plus the reference files' names; a set not placed by question (no question
    embeddings) adds its ``values`` and ``correct``, which the placement's rows hold
    otherwise (:func:`record_values`). Every printer reads this record (:func:`record_line`,
    :func:`record_columns`, the dashboard's panel) instead of placing the run again.
    """
    if ref is None or value is None or not math.isfinite(value):
        return None
    d = ref.describe(float(value))
    settings = d.pop("settings", None) or {}
    out = {
        "measure": measure,
        **d,
        "files": list(ref.settings.get("files") or []),
        "settings_line": _describe_settings(settings),
    }
    if ref.placement is None or ref.placement.mode == "pooled":  # no rows: the values drawn
        out["values"] = [float(v) for v in ref.values]
        out["correct"] = None if ref.correct is None else [int(c) for c in ref.correct]
    return out


def record_values(record: Mapping[str, Any]) -> tuple[list[float], list[int] | None]:
    """(values, labels or None) of the reference questions a record was placed among.

    The neighbours' rows of a placed run; the whole set's values of one placed
    without question embeddings (``"pooled"``); none for ``"none_like"``.
    """
    p = record.get("placement")
    if p is not None and p["mode"] == "none_like":
        return [], None
    if p is not None and p["mode"] == "nearest":
        rows = p["rows"]
        labelled = all(r["correct"] is not None for r in rows)
        return [r["value"] for r in rows], [r["correct"] for r in rows] if labelled else None
    return list(record.get("values") or []), record.get("correct")
