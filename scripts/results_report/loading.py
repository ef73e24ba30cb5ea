"""Saved runs as read from disk: one :class:`Folder` per ``evaluate`` or ``tsu`` output folder.

A folder holds ``config.json`` (the experiment's config, the sample, the wall
time), ``results.json`` (an evaluation) or ``tsu.json``, the per-question
``runs/*.json`` (their timings and LLM identity are summed and named here, and
whether each is degenerate) and, for ``evaluate``, ``scores.csv`` (one row per
question) and ``stale_check.json`` (whether re-scoring at a commit changed a number);
for ``tsu``, ``uq.csv`` (one row per question and temperature).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from invent_core.engine.artifact import RunArtifact
from invent_core.experiments.staleness import STALE_FILE
from invent_core.llm.names import describe_llm


@dataclass
class Folder:
    """One saved ``evaluate`` or ``tsu`` output folder, as read from disk."""

    path: Path
    kind: str  # "evaluate" or "tsu"
    dataset: str
    meta: dict[str, Any]  # config.json
    results: dict[str, Any]  # results.json or tsu.json
    llm: str = "unknown LLM"
    run_seconds: float = 0.0  # generation + scoring, summed over the saved runs
    n_runs: int = 0
    llm_calls: int = 0  # LLM requests the saved runs made (answers and rewordings)
    llm_cached: int = 0  # of them answered from the LLM cache: their time is not the model's
    scores: list[dict[str, str]] = field(default_factory=list)  # scores.csv, or a sweep's uq.csv
    # (question, why its saved run is degenerate: "" when it is not, None: a run that cannot tell)
    run_degenerate: list[tuple[str, str | None]] = field(default_factory=list)
    stale_check: dict[str, Any] | None = None  # stale_check.json (recompute_results --check-stale)


def _degenerate(run: dict[str, Any]) -> str | None:
    """Why a saved run measures nothing ("" when it measures something); None: not a full run."""
    try:
        return RunArtifact.from_dict(run).degenerate or ""
    except (ValueError, KeyError, TypeError, IndexError):
        return None


def load_folder(path: Path) -> Folder | None:
    """Read one output folder; None when it is neither an evaluate nor a tsu folder."""
    kind = "evaluate" if (path / "results.json").is_file() else None
    kind = kind or ("tsu" if (path / "tsu.json").is_file() else None)
    if kind is None or not (path / "config.json").is_file():
        return None
    meta = json.loads((path / "config.json").read_text(encoding="utf-8"))
    results = json.loads((path / f"{'results' if kind == 'evaluate' else 'tsu'}.json").read_text())
    cfg = meta.get("config", {})
    dataset = cfg.get("dataset") or Path(str(cfg.get("data") or path.name)).stem
    folder = Folder(path, kind, dataset, meta, results)
    if (path / STALE_FILE).is_file():
        folder.stale_check = json.loads((path / STALE_FILE).read_text(encoding="utf-8"))
    for run_path in sorted((path / "runs").glob("*.json")):
        run = json.loads(run_path.read_text(encoding="utf-8"))
        folder.run_seconds += float((run.get("timings") or {}).get("total", 0.0))
        folder.n_runs += 1
        usage = run.get("usage") or {}
        folder.llm_calls += int(usage.get("requests", 0)) + int(usage.get("perturb_requests", 0))
        folder.llm_cached += int(usage.get("cached", 0)) + int(usage.get("perturb_cached", 0))
        folder.llm = describe_llm((run.get("identities") or {}).get("llm") or "") or folder.llm
        folder.run_degenerate.append((str(run.get("question", "")).strip(), _degenerate(run)))
    if not folder.n_runs:  # shipped without its runs: the model config.json records
        folder.llm = describe_llm(str(cfg.get("llm") or "")) or folder.llm
    table = path / ("scores.csv" if kind == "evaluate" else "uq.csv")
    if table.is_file():
        with open(table, newline="", encoding="utf-8") as fh:
            folder.scores = list(csv.DictReader(fh))
    return folder


def load_folders(root: Path) -> list[Folder]:
    """Every evaluate / tsu folder directly under ``root``, evaluate first, by dataset."""
    found = [f for p in sorted(root.iterdir()) if p.is_dir() and (f := load_folder(p))]
    return sorted(found, key=lambda f: (f.kind != "evaluate", f.dataset, f.path.name))
