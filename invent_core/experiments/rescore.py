"""A saved evaluation scored and judged again by today's code, from its saved runs: no LLM call.

:func:`rescore_evaluation` reads ``config.json`` and the runs under ``runs/`` of
an ``evaluate`` folder, scores every run again from its stored replies (the
walk, every baseline; P(True) and VU read the model's answers the run keeps in
its extras), judges the scored answer again (``judge=`` may name another
offline judge) and rewrites ``scores.csv``, ``results.*`` and ``config.json``.
The scores are then made by this commit, so an evaluation made before
provenance was recorded stops being "possibly stale" without a new generation.

Nothing here may start a model: the LLM handed to the methods refuses every
call, so a method that would need one gets no value (NaN) on that question and
the reason is returned, never a silent generation.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

from ..csv_safe import write_csv
from ..engine.artifact import RunArtifact
from ..errors import LLMError
from ..evaluation.correctness import LLM_JUDGES
from ..evaluation.metrics import N_BOOTSTRAP
from .config import ExperimentConfig
from .evaluation import SCORE_COLUMNS, finish_evaluation, judged_row
from .folder import read_evaluation
from .recompute import blind_guess
from .result import ExperimentResult, write_text
from .runs import run_path, score_run
from .sample import draw_examples

__all__ = [
    "RESCORED_FROM",
    "NoLLM",
    "RescoreReport",
    "rescore_evaluation",
    "check_rescore_folder",
    "rescore_config",
    "rescored_rows",
]

#: ``from`` of the ``results_recomputed`` block a rescore writes.
RESCORED_FROM = "runs/ (scored and judged again, no LLM call)"


class NoLLM:
    """An LLM that refuses every call: what a rescore hands to methods and judges."""

    started = False
    identity = "no LLM (rescored from saved runs)"

    def __getattr__(self, name: str) -> Any:
        raise LLMError(f"a rescore from saved runs makes no LLM call (asked for {name!r})")


@dataclasses.dataclass(frozen=True)
class RescoreReport:
    """What a rescore did: the new result and, per method, why it lost values."""

    result: ExperimentResult
    unavailable: dict[str, str]  # method -> "k of n questions: <first error>"
    relabelled: int  # answers whose verdict changed under today's judge


def _examples_by_id(cfg: ExperimentConfig) -> dict[str, Any]:
    examples, _ = draw_examples(cfg)
    return {str(ex.id): ex for ex in examples}


def _saved(folder: Path, row: dict[str, Any], ex: Any, temperature: float) -> RunArtifact:
    """The saved run of one row, checked to hold the row's question."""
    path = run_path(folder / "runs", str(row["id"]), temperature)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: the saved run of {row['id']!r} is missing")
    run = RunArtifact.load(path)
    if run.question.strip() != ex.question.strip():
        raise ValueError(f"{path}: holds another question than {row['id']!r} of the sample")
    return run


def check_rescore_folder(out: Path, judge: str | None) -> dict[str, Any]:
    """config.json of ``out``, after checking the folder can be rescored at all."""
    if judge is not None and judge in LLM_JUDGES:
        raise ValueError(f"--judge {judge}: asks an LLM; a rescore uses an offline judge")
    for name in ("config.json", "scores.csv", "runs"):
        if not (out / name).exists():
            raise FileNotFoundError(f"{out / name}: not found (a rescore needs the saved runs)")
    return json.loads((out / "config.json").read_text(encoding="utf-8"))


def rescore_config(meta: dict[str, Any], judge: str | None, n_bootstrap: int) -> ExperimentConfig:
    """The folder's config with the rescore's judge and bootstrap size; an LLM judge refused."""
    cfg = ExperimentConfig.from_dict(meta["config"])
    cfg = dataclasses.replace(cfg, n_bootstrap_metrics=n_bootstrap)
    if judge is not None:
        cfg = dataclasses.replace(cfg, judge=judge)
    if cfg.judge in LLM_JUDGES:
        raise ValueError(
            f"{cfg.judge!r} judge asks an LLM: rescore with --judge paraphrase or match"
        )
    return cfg


def rescored_rows(out: Path, cfg: ExperimentConfig, rows: list[dict], methods: list[str]):
    """Every judged row scored and judged again; (rows, errors per method)."""
    examples = _examples_by_id(cfg)
    missing = [str(r["id"]) for r in rows if str(r["id"]) not in examples]
    if missing:
        raise ValueError(f"{out / 'scores.csv'}: ids not in the sample: {', '.join(missing[:5])}")
    llm, errors, new = NoLLM(), {}, []
    for row in rows:
        ex = examples[str(row["id"])]
        run = _saved(out, row, ex, cfg.run.temperature).rescore(cfg.run.score)
        values = score_run(run, methods, llm)
        for m, v in values.items():
            if v != v:  # NaN: the method could not run offline on this question
                errors.setdefault(m, []).append(str(row["id"]))
        new.append(judged_row(ex, run, values, cfg, llm))
    return new, errors


def rescore_evaluation(
    folder: str | Path, *, judge: str | None = None, n_bootstrap: int = N_BOOTSTRAP
) -> RescoreReport:
    """Score and judge every saved run of an evaluate ``folder`` again, and rewrite its results.

    Raises
    ------
    FileNotFoundError
        Naming ``config.json``, ``scores.csv``, ``runs`` or a run the folder lacks
        (checked before anything is written).
    ValueError
        For a judge that asks an LLM, or a run that holds another question.
    """
    t0 = time.perf_counter()
    out = Path(folder)
    meta = check_rescore_folder(out, judge)
    cfg = rescore_config(meta, judge, n_bootstrap)
    saved = read_evaluation(out, relabels=False)  # the one reader: refused before any write
    old, methods = [r for r in saved.rows if not r.get("error")], list(saved.methods)
    rows, errors = rescored_rows(out, cfg, old, methods)
    write_csv(out / "scores.csv", rows, [*SCORE_COLUMNS, *methods])
    drawn = (meta.get("sample", ""), blind_guess(cfg, rows))
    result = finish_evaluation(out, cfg, rows, methods, drawn, NoLLM(), t0)
    _keep_generation_facts(out, meta, n_bootstrap)
    before = {str(r["id"]): str(r["correct"]) for r in old}
    changed = sum(before[str(r["id"])] != str(r["correct"]) for r in rows)
    n = len(rows)
    unavailable = {m: f"{len(ids)} of {n} questions need the LLM" for m, ids in errors.items()}
    return RescoreReport(result, unavailable, changed)


def _keep_generation_facts(out: Path, before: dict[str, Any], n_bootstrap: int) -> None:
    """config.json: the versions and provenance of the generation kept beside the rescore's.

    ``results_recomputed`` is the block a metrics-only recompute writes too, so a
    reader (RESULTS, the HTML report) names the code behind the metrics alike.
    """
    meta = json.loads((out / "config.json").read_text(encoding="utf-8"))
    meta["results_recomputed"] = {
        **meta["provenance"],
        "from": RESCORED_FROM,
        "n_bootstrap": n_bootstrap,
        "seconds": meta.get("wall_seconds"),
    }
    meta["generated_by"] = {
        "versions": before.get("versions"),
        "provenance": before.get("provenance"),
    }
    # the rewordings are the generation's: re-scoring does not choose them again
    meta["rewording_rules"] = before.get("rewording_rules")
    write_text(out / "config.json", json.dumps(meta, indent=2, default=str))
