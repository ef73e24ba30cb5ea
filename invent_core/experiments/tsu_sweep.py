"""TSU per method: the Temperature Sensitivity of Uncertainty over a sweep of temperatures.

TSU is the paper's §3 "Evaluation metrics" TSU: the share of questions whose
uncertainty rises with the temperature. :func:`tsu` runs every question at
each temperature (runs saved and reused as :func:`~invent_core.experiments.evaluate`
does), scores every method, and writes ``uq.csv`` (question × temperature ×
method) and ``tsu.{csv,md,tex,json}``. No correctness labels are needed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..batch.output import output_folder
from ..config import check_temperatures
from ..csv_safe import write_csv
from ..engine.inflight import in_order
from ..errors import Cancelled, InventError, LLMError, ModelLoadError
from ..evaluation.metrics import tsu_table
from ..evaluation.sample_size import judgeable
from ..evaluation.tables import tsu_results_table
from ..llm import LazyLLM
from ..progress import CancelToken, ProgressCallback, ProgressReporter
from ..provenance import provenance
from .config import ExperimentConfig
from .result import (
    TSU_FILES,
    ExperimentResult,
    check_folder,
    input_files,
    method_labels,
    write_config,
    write_text,
)
from .runs import (
    check_perturber,
    example_run_path,
    failed_row,
    get_run,
    in_flight_width,
    requested_methods,
    saved_run,
    score_run,
)
from .sample import draw_examples

__all__ = ["default_tsu_columns", "tsu"]


def default_tsu_columns(
    temperatures: Sequence[float],
) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """Pairs (T_i, T_max) for every lower T_i and chains T_i … T_max spanning ≥ 3 temperatures.

    For the paper's 0.3, 0.7, 1.0, 1.4 this gives its four columns (and TSU(0.3,1.4)).
    """
    ts = list(temperatures)
    top = ts[-1]
    pairs = [(t, top) for t in ts[:-1]][::-1]
    chains = [(t, top) for t in ts[:-2]][::-1]
    return pairs, chains


def _write_tsu(out: Path, rt, table: dict, temps: list[float], extra: dict[str, Any]) -> dict:
    """``tsu.{csv,md,tex,json}`` of a TSU table; returns name → path (``uq`` included)."""
    write_text(out / "tsu.csv", rt.to_csv())
    write_text(out / "tsu.md", rt.to_markdown() + "\n")
    write_text(out / "tsu.tex", rt.to_latex(caption="TSU (%)") + "\n")
    write_text(
        out / "tsu.json",
        json.dumps(
            {"temperatures": temps, "tsu": table, **extra, "provenance": provenance()}, indent=2
        ),
    )
    files = {k: str(out / f"tsu.{k}") for k in ("csv", "md", "tex", "json")}
    return files | {"uq": str(out / "uq.csv")}


def _tsu_run(ex, t: float, cfg, out: Path, methods, llm, cancel) -> dict[str, Any]:
    """One (question, temperature) run scored: its uq row, or its failed row (``error``)."""
    try:
        run = get_run(ex, cfg, out / "runs", llm, temperature=t, cancel=cancel)
        values = score_run(run, methods, llm)
        run.save(example_run_path(out / "runs", ex, t))
    except ModelLoadError:
        raise  # the model cannot load: every run would fail alike
    except LLMError as err:  # this run only; the sweep goes on
        return {**failed_row(ex, err), "temperature": t}
    # why the run's scores say nothing (every perturbation a copy), else empty
    degenerate = run.degenerate or ""
    return {
        "id": ex.id,
        "question": ex.question,
        "temperature": t,
        **values,
        "degenerate": degenerate,
    }


def _tsu_runs(examples, temps, cfg, out: Path, methods, llm, report, cancel):
    """Every (question, temperature) run scored, several in flight; (rows, failed rows, uq arrays)."""
    uq = {m: np.full((len(examples), len(temps)), np.nan) for m in methods}
    rows: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    units = [(i, ex, j, t) for i, ex in enumerate(examples) for j, t in enumerate(temps)]
    total = len(units)
    width = in_flight_width(
        llm, (saved_run(ex, cfg, out / "runs", t) is None for _, ex, _, t in units)
    )

    def one(unit) -> dict[str, Any]:
        _, ex, _, t = unit
        return _tsu_run(ex, t, cfg, out, methods, llm, cancel)

    generated = in_order(one, units, width, name="invent-tsu")
    report("runs", 0, total)
    try:
        for done, (i, ex, j, t) in enumerate(units):
            if cancel is not None and cancel.cancelled:
                raise _cancelled_runs(done, total, out)
            try:
                row = next(generated).result()
            except (Cancelled, KeyboardInterrupt) as err:
                raise _cancelled_runs(done, total, out) from err
            if row.get("error"):
                failed.append(row)
            else:
                for m in methods:
                    uq[m][i, j] = row[m]
                rows.append(row)
            report("runs", done + 1, total, f"T={t:g} {ex.question}")
    finally:
        generated.close()
    return rows, failed, uq


def _cancelled_runs(done: int, total: int, out: Path) -> Cancelled:
    return Cancelled(
        f"cancelled after {done} of {total} runs; the {done} finished are kept in "
        f"{out / 'runs'} and the LLM cache (the same command resumes from them)"
    )


def tsu(
    cfg: ExperimentConfig,
    temperatures: Sequence[float],
    out: str | Path,
    *,
    llm_factory: Callable[[], Any],
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    fresh: bool = False,
) -> ExperimentResult:
    """TSU per method over ``temperatures`` on the config's questions.

    TSU is the paper's Temperature Sensitivity of Uncertainty (§3 "Evaluation
    metrics", the TSU definition): the share of questions whose uncertainty
    rises with the temperature. Writes ``uq.csv`` (question × temperature ×
    method), ``tsu.{csv,md,tex,json}``. No correctness labels are needed: a
    ``--data`` file may have questions only. A run whose generation fails is
    left out (its question counts for the other temperatures' pairs only) and
    listed in ``failed``; fewer than 20 questions grey the table.

    Parameters
    ----------
    cfg : the experiment; ``cfg.run.temperature`` is replaced by each temperature.
    temperatures : at least two, strictly increasing, each in [0, 2].
    progress : a :class:`~invent_core.progress.Progress` event (stage ``"runs"``)
        after each (question, temperature).
    cancel : stop before the next run; finished runs are kept (see :func:`evaluate`).
    fresh : use a folder made with another LLM (see :func:`evaluate`).
    """
    t0 = time.perf_counter()
    temps = check_temperatures(temperatures)
    check_perturber(cfg)
    out = Path(out)
    examples, sample = draw_examples(cfg, require_answers=False)
    methods = requested_methods(cfg)
    with output_folder(out, TSU_FILES, input_files(cfg)):
        check_folder(out, cfg, fresh=fresh)
        (out / "runs").mkdir(exist_ok=True)
        write_config(out, cfg, {"status": "running", "temperatures": temps})
        llm = LazyLLM(llm_factory)
        report = ProgressReporter(progress)
        rows, failed, uq = _tsu_runs(examples, temps, cfg, out, methods, llm, report, cancel)
        return _finish_tsu(out, cfg, temps, rows, failed, uq, sample, methods, llm, t0)


def _finish_tsu(
    out: Path, cfg, temps, rows, failed, uq, sample, methods, llm, t0
) -> ExperimentResult:
    """Write ``uq.csv``, ``tsu.*`` and ``config.json``; the :class:`ExperimentResult`."""
    write_csv(out / "uq.csv", rows, ["id", "question", "temperature", *methods, "degenerate"])
    available = {m: v for m, v in uq.items() if not np.isnan(v).all()}
    if not available:
        raise InventError(
            f"no run gave a score ({len(failed)} failed; first: "
            f"{failed[0]['error'] if failed else 'every method unavailable'})"
        )
    pairs, chains = default_tsu_columns(temps)
    table = tsu_table(available, temps, pairs=pairs, chains=chains, nan_policy="omit")
    judgement = judgeable(len({r["id"] for r in rows}), None)
    rt = tsu_results_table(table, labels=method_labels(list(table)))
    rt = rt if judgement.ok else rt.greyed(judgement.reason)
    extra = {
        "unavailable": sorted(set(uq) - set(available)),
        "judgement": {"ok": judgement.ok, "reason": judgement.reason},
        "failed": [
            {"id": r["id"], "temperature": r["temperature"], "error": r["error"]} for r in failed
        ],
        "sample": sample,
        "degenerate": [
            {"id": r["id"], "temperature": r["temperature"], "reason": r["degenerate"]}
            for r in rows
            if r["degenerate"]
        ],
    }
    files = _write_tsu(out, rt, table, temps, extra)
    wall = time.perf_counter() - t0
    write_config(out, cfg, {"temperatures": temps, "sample": sample, "wall_seconds": wall})
    return ExperimentResult(
        rows,
        methods,
        tsu=table,
        files=files,
        llm_started=llm.started,
        judgement=judgement,
        table=rt,
        failed=failed,
        sample=sample,
    )
