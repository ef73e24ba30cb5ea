"""What the dashboard keeps in the run history, and where an entry reopens.

Every run, GAAP trace, evaluation, TSU sweep and side-by-side comparison
made in the dashboard becomes one :class:`invent_core.workbench.history.HistoryStore`
entry (on disk under the cache dir, so it survives a browser refresh and a
server restart). The payloads are the artefacts' own JSON forms: a run's
``to_json``, a :class:`~invent_core.perturb.gaap.GaapResult`'s ``to_dict``,
the evaluation and TSU payloads of :mod:`invent_ui.data.experiments`.

Pure: no Streamlit.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from invent_core.engine.artifact import RunArtifact
from invent_core.perturb.gaap import GaapResult
from invent_core.workbench.history import HistoryStore, summarize_settings

from . import state

__all__ = [
    "RECENT",
    "Reopen",
    "store",
    "keep_run",
    "keep_gaap",
    "keep_payload",
    "gaap_payload_of_run",
    "reopen",
]

#: Entries listed in the sidebar (newest first); the History page lists all.
RECENT = 5

#: Page file and session key each kind reopens in.
_OPENS_IN: dict[str, tuple[str, str]] = {
    "run": ("pages/1_Explore_a_question.py", state.EXPLORE_RUN),
    "gaap": ("pages/3_GAAP_evolution.py", state.GAAP_RESULT),
    "tsu": ("pages/4_TSU.py", state.TSU_PAYLOAD),
    "evaluation": ("pages/6_Evaluation.py", state.EVAL_PAYLOAD),
    "comparison": ("pages/8_Side_by_side.py", state.SIDE_BY_SIDE),
}
#: How the lists name each kind.
KIND_LABELS = {
    "run": "run",
    "gaap": "GAAP trace",
    "evaluation": "evaluation",
    "tsu": "TSU sweep",
    "comparison": "side by side",
}


def store() -> HistoryStore:
    """Return the history under the cache dir (``$INVENT_CACHE/history``), read at each call."""
    return HistoryStore()


def run_payload(run: Any) -> dict[str, Any]:
    """Return a run's JSON form (arrays as lists), as ``run --save`` writes it."""
    return json.loads(run.to_json(indent=None))


def gaap_payload_of_run(run: Any) -> dict[str, Any] | None:
    """Return the GaapResult JSON of a run made with GAAP (``None`` for other perturbers)."""
    if not run.gaap_trace:
        return None
    return {
        "perturbations": list(run.perturbations),
        "trace": run.gaap_trace,
        "seconds": float(run.timings.get("perturb", 0.0)),
    }


def keep_run(history: HistoryStore, run: Any, *, title: str | None = None) -> str:
    """Add a run (and its GAAP trace, when it has one) to the history; return the run's id."""
    payload = run_payload(run)
    ids = run.identities
    summary = _summary(
        {
            **payload,
            "settings": {"llm": ids.get("llm"), "paraphrase_llm": ids.get("paraphrase_llm")},
        }
    )
    edited = sum(bool(f) for f in run.extras.get("edited") or [])
    if edited:
        summary += f" · {edited} edited"
    trace = gaap_payload_of_run(run)
    if trace is not None:
        history.add("gaap", trace, title=run.question, settings_summary=summary)
    return history.add("run", payload, title=title or run.question, settings_summary=summary)


def keep_gaap(history: HistoryStore, result: Any, *, settings: Mapping[str, Any]) -> str:
    """Add a GAAP evolution (``GaapResult``) with the settings it ran with; return its id."""
    payload = result.to_dict()
    return history.add(
        "gaap", payload, title=result.trace.question, settings_summary=_summary(settings)
    )


def keep_payload(history: HistoryStore, kind: str, payload: Mapping[str, Any], title: str) -> str:
    """Add an evaluation, TSU or comparison payload; return its id."""
    return history.add(kind, dict(payload), title=title)


def _summary(settings: Mapping[str, Any]) -> str:
    return summarize_settings(
        {"settings": dict(settings)} if "config" not in settings else settings
    )


@dataclass(frozen=True)
class Reopen:
    """Where an entry opens: the page file, the session key and the object to put there."""

    page: str
    key: str
    value: Any


def reopen(history: HistoryStore, entry_id: str) -> Reopen:
    """Load an entry into the object its page shows (a RunArtifact, a GaapResult, a payload)."""
    entry = history.get(entry_id)
    payload = history.load(entry_id)
    page, key = _OPENS_IN[entry.kind]
    if entry.kind == "run":
        value: Any = RunArtifact.from_dict(payload)
    elif entry.kind == "gaap":
        value = GaapResult.from_dict(payload)
    else:
        value = payload
    return Reopen(page, key, value)
