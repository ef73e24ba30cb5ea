"""What an experiment returns and writes: :class:`ExperimentResult` and the files of its folder.

``evaluate`` writes :data:`EVALUATE_FILES`, ``tsu`` writes :data:`TSU_FILES`,
both beside ``runs/``; every file is replaced atomically (a crash leaves the
old one), CSVs go through the one formula-safe writer, and ``config.json``
records the experiment with the package versions and the code's provenance.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config.paraphrase import REWORDING_RULES
from ..csv_safe import atomic_file
from ..engine.artifact import RunArtifact
from ..errors import BatchInputError, FolderMismatch
from ..methods.registry import get_method
from ..provenance import package_versions, provenance
from .config import ExperimentConfig

__all__ = [
    "EVALUATE_FILES",
    "FolderMismatch",
    "check_folder",
    "degenerate_line",
    "TSU_FILES",
    "ExperimentResult",
    "input_files",
    "method_labels",
    "write_config",
    "write_text",
]

#: What ``evaluate`` and ``tsu`` write in their folder (an input may be none of them).
EVALUATE_FILES = (
    "scores.csv",
    "config.json",
    *(f"results.{x}" for x in ("csv", "md", "tex", "json")),
)
TSU_FILES = ("uq.csv", "config.json", *(f"tsu.{x}" for x in ("csv", "md", "tex", "json")))


@dataclass
class ExperimentResult:
    """What ``evaluate`` / ``tsu`` return: the rows, and the evaluation or TSU table.

    Attributes
    ----------
    rows : one per judged question (evaluate) or per (question, temperature)
        run (tsu): id, question, response, canonical, correct, <method>…
    methods : the method names, in column order.
    evaluation : the :class:`~invent_core.evaluation.metrics.Evaluation` (evaluate).
    tsu : method → {column label: fraction} (tsu).
    files : name → path of every file written.
    llm_started : whether the LLM had to be started (False: all from saved runs).
    judgement : :func:`~invent_core.evaluation.sample_size.judgeable` of the sample:
        ``(ok, reason)``; when not ok the tables are greyed / "n/a" and nothing is best.
    table : the :class:`~invent_core.evaluation.tables.ResultsTable` written.
    failed : rows of questions (runs) whose generation failed, with their ``error``.
    sample : how the questions were drawn ("15 of 300 questions, drawn with seed 0").
    notes : what was found damaged in the folder and done about it (file, row, cell).
    degenerate : (property) the judged questions whose run is degenerate, with why.
    relabels : the :class:`~invent_core.experiments.relabel.RelabelSummary` of the
        reviewer's layer the metrics applied (None: no layer).
    """

    rows: list[dict[str, Any]]
    methods: list[str]
    evaluation: Any = None  # invent_core.evaluation.metrics.Evaluation
    tsu: dict[str, dict[str, float]] | None = None
    files: dict[str, str] = field(default_factory=dict)
    llm_started: bool = False
    judgement: Any = None  # invent_core.evaluation.sample_size.Judgement
    table: Any = None  # invent_core.evaluation.tables.ResultsTable
    failed: list[dict[str, Any]] = field(default_factory=list)
    sample: str = ""
    notes: list[str] = field(default_factory=list)
    relabels: Any = None  # invent_core.experiments.relabel.RelabelSummary

    @property
    def degenerate(self) -> list[dict[str, str]]:
        """``[{"id", "reason"}]`` of the rows whose run measures nothing (every perturbation a copy)."""
        return [
            {"id": r["id"], "reason": r["degenerate"]} for r in self.rows if r.get("degenerate")
        ]

    @property
    def warnings(self) -> list[str]:
        """One line per thing a reader must know: damaged, failed or degenerate rows, unjudged metrics."""
        out = list(self.notes)
        if self.degenerate:
            where = TSU_WHERE if self.tsu is not None else {}  # a sweep counts runs, not questions
            out.append(degenerate_line(len(self.degenerate), len(self.rows), **where))
        if self.failed:
            first = self.failed[0].get("error", "")
            out.append(
                f"{len(self.failed)} question(s) failed and are left out (first: {first}); "
                "they are listed with their error in scores.csv and retried on the next run"
            )
        if self.judgement is not None and not self.judgement.ok:
            out.append(f"metrics not judged: {self.judgement.reason}")
        return out


#: Where a TSU sweep lists its degenerate runs (one per question and temperature).
TSU_WHERE = {"what": "runs", "files": "uq.csv and tsu.json"}


def degenerate_line(
    n: int, total: int, *, what: str = "questions", files: str = "scores.csv and results.json"
) -> str:
    """The sentence under an evaluation's table and among its warnings when ``n`` runs are degenerate."""
    return (
        f"{n} of {total} {what} are degenerate (every perturbation a copy of the question): "
        "their Inv-Entropy is ln(n + 1) whatever the answers; they are counted as they are, "
        f"listed with the reason under 'degenerate' in {files}"
    )


def _recorded_llms(out: Path) -> tuple[str | None, str | None, str]:
    """(answering, rewording) LLM identities the folder was made with, and where they were read.

    From ``config.json``; a folder written before it recorded them: from a saved run.
    """
    try:
        saved = json.loads((out / "config.json").read_text(encoding="utf-8"))["config"]
        if saved.get("llm"):
            return saved["llm"], saved.get("paraphrase_llm"), "config.json"
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    for path in sorted((out / "runs").glob("*.json"))[:20]:
        try:
            run = RunArtifact.load(path)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
        llm = run.identities.get("llm")
        para = run.paraphrase_identity
        return llm, para if para != llm else None, f"runs/{path.name}"
    return None, None, ""


def check_folder(out: Path, cfg: ExperimentConfig, *, fresh: bool = False) -> None:
    """Refuse a folder whose ``runs`` is not a folder, or that another LLM made (before any work).

    With ``fresh`` a folder made with another LLM is used all the same: none of
    its runs or scores is reused (each is made again and replaced).
    """
    runs = out / "runs"
    if runs.exists() and not runs.is_dir():
        raise BatchInputError(
            "is not a folder; the saved runs go there: move it away or choose another -o",
            file=runs,
        )
    if fresh or cfg.llm is None:
        return
    llm, para, where = _recorded_llms(out)
    want_para = cfg.paraphrase_llm if cfg.paraphrase_llm != cfg.llm else None
    for role, before, now in (("LLM", llm, cfg.llm), ("paraphrase LLM", para, want_para)):
        if before is not None and before != now:
            raise FolderMismatch(
                f"this folder was made with {role} {before} ({where}), this run asks "
                f"{now or 'none'}; choose another -o, or pass --fresh to start over here "
                "(its runs and scores are made again with the new model)",
                file=out,
            )


def input_files(cfg: ExperimentConfig) -> list[Path]:
    """The files an experiment reads (``--data``), which its outputs must not overwrite."""
    return [Path(cfg.data)] if cfg.data else []


def write_config(out: Path, cfg: ExperimentConfig, extra: dict[str, Any]) -> None:
    """Write ``config.json``: the experiment, ``extra``, and the package versions.

    The versions are the same package list the batch sidecar records; ``provenance``
    the code (version, git commit, uncommitted changes); ``rewording_rules`` the round
    of meaning checks the gate chose the rewordings with.
    """
    meta = {
        "config": cfg.to_dict(),
        **extra,
        "rewording_rules": REWORDING_RULES,
        "versions": package_versions(),
        "provenance": provenance(),
    }
    write_text(out / "config.json", json.dumps(meta, indent=2, default=str))


def write_text(path: Path, text: str) -> None:
    """Replace ``path`` atomically (a symbolic link there is replaced, never followed).

    A crash or a full disk leaves the old file and no temporary file.
    """
    with atomic_file(path) as f:
        f.write(text)


def method_labels(methods: Sequence[str]) -> dict[str, str]:
    """Method name → the label its table column shows."""
    return {m: get_method(m).label for m in methods}
