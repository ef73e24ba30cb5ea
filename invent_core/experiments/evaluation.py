"""Table 1 for one dataset: every method on the same responses, judged, then AUROC/PRR/Brier.

:func:`evaluate` generates a run per question (or reads the saved one,
:mod:`~invent_core.experiments.runs`), scores every method on it, judges the
response the scores were computed from on its canonical answer
(:mod:`invent_core.responses.canonical`), and writes a row of ``scores.csv``
after each question. Re-running with the same settings reuses the saved rows
and runs and makes no LLM call.

Nothing is thrown away: a question whose generation fails (an LLM error or
timeout) is kept in ``scores.csv`` with its ``error`` and the loop goes on; a
cancel (``cancel=``, or Ctrl-C) keeps every finished question, and the same
call resumes from them. With one class of answers only, or too few questions
(:func:`invent_core.evaluation.sample_size.judgeable`), the table is still
written: accuracy, and each metric "n/a — all answers wrong" or greyed "too
few to judge", never a best value.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..batch.output import output_folder
from ..config import RunConfig
from ..csv_safe import cut_short, is_number, read_csv, write_csv
from ..engine.inflight import in_order
from ..errors import Cancelled, LLMError, ModelLoadError
from ..evaluation.correctness import LLM_JUDGES, judge_verdict
from ..evaluation.metrics import DEFAULT_METRICS, Evaluation, evaluate_scores, undefined_reason
from ..evaluation.sample_size import judgeable
from ..evaluation.tables import results_table
from ..llm import LazyLLM
from ..progress import CancelToken, ProgressCallback, ProgressReporter
from ..provenance import provenance
from ..responses.canonical import canonical_answer
from .config import ExperimentConfig
from .folder import SCORE_COLUMNS
from .reading import measured, measured_notes, sample_guess_rate, with_paired_block
from .relabel import noted, with_layer
from .result import (
    EVALUATE_FILES,
    ExperimentResult,
    check_folder,
    degenerate_line,
    input_files,
    method_labels,
    write_config,
    write_text,
)
from .runs import (
    base_row,
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

__all__ = [
    "MIN_CROSS_FIT",
    "SCORE_COLUMNS",
    "accuracy_line",
    "evaluate",
    "evaluation_table",
    "finish_evaluation",
    "judged_evaluation",
    "judged_row",
    "write_evaluation",
]


def _damaged_cell(row: dict[str, Any], methods: Sequence[str]) -> str | None:
    """The first cell of a saved row that no evaluation writes: ``"column 'x': 'y' is …"``."""
    short = cut_short(row)
    if short is not None:  # torn mid-write: its last scores are gone, not NaN
        return short
    if row.get("error"):
        return None  # a failed question: generated again anyway
    if row.get("correct") not in ("0", "1"):
        return f"column 'correct': {row.get('correct')!r} is not 0 or 1"
    for m in methods:
        cell = row.get(m)
        if cell and not is_number(cell) and cell.lower() not in ("nan", "inf", "-inf"):
            return f"column {m!r}: {cell[:40]!r} is not a number"
    return None


def _read_scores(path: Path, methods: Sequence[str]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Rows of an earlier ``scores.csv`` by id (cells restored), and a note per damaged row.

    A damaged row (a cell no evaluation writes) is left out, so its question is
    scored again from its saved run (no LLM call); the note names the file, the
    row, its id and the cell. A file that cannot be read at all is one note.
    """
    if not path.is_file():
        return {}, []
    rows, notes = {}, []
    try:
        for i, row in enumerate(read_csv(path), start=1):
            if not row.get("id"):
                continue
            damage = _damaged_cell(row, methods)
            if damage is None:
                rows[row["id"]] = row
            else:
                notes.append(f"{path}: row {i} (id {row['id']}): {damage}; scored again")
    except (ValueError, csv.Error, UnicodeDecodeError) as err:
        return {}, [f"{path}: not a readable CSV ({err}); every question scored again"]
    return rows, notes


def _scores_reusable(out: Path, cfg: ExperimentConfig) -> bool:
    """Whether ``out/scores.csv`` was made with this run config and judge (its rows may be reused).

    A folder evaluated before with another kernel, embedder, B, n … keeps its
    saved runs (re-scored without an LLM call) but not its scores: reusing them
    would mix settings under the new ``config.json``. A folder with no
    ``config.json`` (an evaluation cut short before this check existed) is reused.
    Scores made with another LLM, or with one not recorded, are not.
    """
    path = out / "config.json"
    if not path.is_file():
        return True
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))["config"]
        before = RunConfig.from_dict(saved["run"])
    except (OSError, ValueError, KeyError, TypeError):
        return False
    same_llm = cfg.llm is None or saved.get("llm") == cfg.llm  # unknown before: scored again
    same_judge = saved.get("judge", "match") == cfg.judge  # saved before the judge was: rules
    return before == cfg.run and same_judge and same_llm


def _answer_of(run, ex) -> tuple[str, str]:
    """Return (cleaned response, canonical answer) of the original question's replication 0.

    The scores were computed from this response; a run that stores its cleaned
    responses separately (``cleaned_responses``) embeds the canonical ones, so the
    canonical step is idempotent here.
    """
    cleaned = getattr(run, "cleaned_responses", None) or run.responses
    response = cleaned[0][0]
    choices = list(ex.choices) if ex.choices else None
    return response, canonical_answer(response, task=ex.task, choices=choices).text


def judged_row(ex, run, values: dict[str, float], cfg: ExperimentConfig, llm: Any) -> dict:
    """One row of ``scores.csv``: the response the scores were computed from, judged on its canonical form."""
    response, canonical = _answer_of(run, ex)
    verdict = judge_verdict(
        canonical,
        list(ex.answers),
        dataset=ex.dataset if ex.dataset != "custom" else ex.task,
        question=ex.question,
        choices=list(ex.choices) if ex.choices else None,
        method=cfg.judge,
        llm=llm if cfg.judge in LLM_JUDGES else None,
    )
    return {
        **base_row(ex),
        "response": response,
        "canonical": canonical,
        "correct": int(verdict.correct),
        "judge_reason": verdict.reason,
        "degenerate": run.degenerate or "",  # why the scores say nothing, else empty
        "error": "",
        **values,
    }


def _saved_row(ex, prev: dict[str, Any] | None, methods, columns: list[str]) -> dict | None:
    """Return the row saved by an earlier call for ``ex``: the same question, every method, judged."""
    if prev is None or prev.get("correct") in ("", None) or prev.get("error"):
        return None
    if not prev.get("judge_reason"):  # judged before the reason was kept: judge it again
        return None
    if "degenerate" not in prev:  # saved before degenerate runs were named: read its run again
        return None
    if prev.get("question") != ex.question:  # the id now names another question: score it again
        return None
    if not all(m in prev for m in methods):  # "" is a saved NaN (the method had no value)
        return None
    return {k: prev.get(k, "") for k in columns}


def _question_row(ex, cfg, out: Path, methods, llm, progress, cancel) -> dict[str, Any]:
    """Generate (or read), score and judge one question; a failed generation gives a failed row."""
    try:
        run = get_run(ex, cfg, out / "runs", llm, progress=progress, cancel=cancel)
        values = score_run(run, methods, llm)
        run.save(
            example_run_path(out / "runs", ex, cfg.run.temperature)
        )  # keeps extras (VU, P(True))
        return judged_row(ex, run, values, cfg, llm)
    except ModelLoadError:
        raise  # the model cannot load: every question would fail (and retry the load) alike
    except LLMError as err:  # LLMTimeout included: this question only
        return failed_row(ex, err)


def _cancelled(done: int, total: int, where: Path) -> Cancelled:
    return Cancelled(
        f"cancelled after {done} of {total} questions; the {done} finished are kept in "
        f"{where} and the LLM cache (the same command resumes from them)"
    )


def _evaluate_rows(examples, cfg, out: Path, methods, llm, report, cancel):
    """Run the per-question loop: saved rows reused, the rest generated; checkpoint after each.

    Returns the rows and a note per damaged row of the earlier ``scores.csv``.
    Questions to generate run :func:`~invent_core.engine.inflight.units_in_flight` at
    a time (several against a served model, so that its slots stay full) and
    are written in input order. With one in flight, the pipeline's own stages
    (perturbations, answers) are reported too; with several, only questions.
    """
    scores = out / "scores.csv"
    saved, notes = _read_scores(scores, methods) if _scores_reusable(out, cfg) else ({}, [])
    write_config(out, cfg, {"status": "running"})  # what the rows below are made with
    columns = [*SCORE_COLUMNS, *methods]
    known = [_saved_row(ex, saved.get(ex.id), methods, columns) for ex in examples]
    todo = [ex for ex, row in zip(examples, known, strict=True) if row is None]
    runs = out / "runs"
    t = cfg.run.temperature
    width = in_flight_width(llm, (saved_run(ex, cfg, runs, t) is None for ex in todo))
    inner = report.callback if width == 1 else None

    def one(ex) -> dict[str, Any]:
        return _question_row(ex, cfg, out, methods, llm, inner, cancel)

    generated = in_order(one, todo, width, name="invent-question")
    rows: list[dict[str, Any]] = []
    total = len(examples)
    report("questions", 0, total)
    try:
        for i, (ex, row) in enumerate(zip(examples, known, strict=True)):
            if cancel is not None and cancel.cancelled:
                raise _cancelled(i, total, scores)
            if row is None:
                try:
                    row = next(generated).result()
                except (Cancelled, KeyboardInterrupt) as err:
                    raise _cancelled(i, total, scores) from err
            rows.append(row)
            write_csv(scores, rows, columns)  # checkpoint after every question
            report("questions", i + 1, total, ex.question)
    finally:
        generated.close()
    return rows, notes


#: Metrics cross-fitted over 5 folds: left out (shown "–") below this many questions.
MIN_CROSS_FIT = 10


def judged_evaluation(
    rows: list[dict[str, Any]],
    methods: list[str],
    cfg: ExperimentConfig,
    guess: float | None = None,
):
    """Return (Evaluation, Judgement) of the judged rows: every metric, paired bootstrap.

    With one class (or no row), no metric exists: the evaluation has no
    results and every method is ``skipped`` with the reason. A method with no
    value on some questions (it failed there) is skipped with that reason.
    ``guess``: a blind guess's accuracy (multiple choice), which the accuracy
    must clearly beat for the ranking to be read. Inv-Entropy and the best
    baseline get their paired differences to every other method.
    """
    correct = np.array([int(r["correct"]) for r in rows], dtype=np.int64)
    n, n_pos = int(correct.size), int(correct.sum())
    judgement = judgeable(n, n_pos, guess=guess)
    boot = {"n_bootstrap": cfg.n_bootstrap_metrics, "seed": cfg.run.seed, "centre": cfg.centre}
    if undefined_reason(correct) is not None:  # no row, or every answer judged the same
        skipped = {m: judgement.reason for m in methods}
        return Evaluation({}, DEFAULT_METRICS, n, n_pos, skipped=skipped, **boot), judgement
    table, skipped = {}, {}
    for m in methods:
        u = np.array([_number(r.get(m)) for r in rows])
        missing = int(np.isnan(u).sum())
        if 0 < missing < n:
            skipped[m] = f"no value on {missing} of {n} questions (see scores.csv)"
        else:
            table[m] = u  # all-NaN: evaluate_scores lists it as unavailable
    metrics = [k for k in DEFAULT_METRICS if n >= MIN_CROSS_FIT or k not in ("brier_cv", "ece")]
    ev = evaluate_scores(table, correct, metrics=metrics, **boot)
    ev = dataclasses.replace(ev, metrics=DEFAULT_METRICS, skipped={**ev.skipped, **skipped})
    return with_paired_block(ev), judgement


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def evaluation_table(evaluation, judgement, methods: Sequence[str], block=None, degenerate=0):
    """Build the :class:`~invent_core.evaluation.tables.ResultsTable` of an evaluation, honest about its sample.

    Not judgeable: greyed with the reason (or every cell "n/a — all answers
    wrong" when a class is missing), nothing marked best. Cross-fitted
    metrics left out on a small sample show "–" with a note. ``block``, a
    :func:`~invent_core.experiments.reading.measured` dict, puts what the table
    measured under it. ``degenerate``: how many of the questions are degenerate
    (a note says so under the table).
    """
    rt = results_table(evaluation, labels=method_labels(methods))
    notes = measured_notes(block, method_labels(methods)) if block and evaluation.results else []
    if evaluation.results and evaluation.n_questions < MIN_CROSS_FIT:
        notes.append(f"Brier (cross-fit) and ECE need at least {MIN_CROSS_FIT} questions.")
    notes += [f"{method_labels([m])[m]}: {why}" for m, why in evaluation.skipped.items()]
    if degenerate:
        notes.append(degenerate_line(degenerate, evaluation.n_questions) + ".")
    if not evaluation.results:
        rt = dataclasses.replace(rt, missing=judgement.reason)
    rt = dataclasses.replace(rt, notes=tuple(notes))
    return rt if judgement.ok else rt.greyed(judgement.reason)


def accuracy_line(evaluation) -> str:
    """``"12 questions, accuracy 0.250 (3 correct)"``; never a bare NaN."""
    n, k = evaluation.n_questions, evaluation.n_correct
    if n == 0:
        return "no question could be judged"
    return f"{n} questions, accuracy {k / n:.3f} ({k} correct)"


def write_evaluation(out: Path, cfg: ExperimentConfig, result: ExperimentResult) -> dict:
    """``results.{csv,md,tex,json}`` of an evaluation; returns name → path."""
    ev, rt, judgement = result.evaluation, result.table, result.judgement
    files = {
        "scores": str(out / "scores.csv"),
        "csv": str(out / "results.csv"),
        "markdown": str(out / "results.md"),
        "latex": str(out / "results.tex"),
        "json": str(out / "results.json"),
    }
    write_text(out / "results.csv", rt.to_csv())
    write_text(out / "results.md", f"{accuracy_line(ev)}\n\n{rt.to_markdown()}")
    caption = f"{cfg.dataset or cfg.data}: {accuracy_line(ev)}"
    write_text(out / "results.tex", rt.to_latex(caption=caption) + "\n")
    payload = {
        "labels": method_labels(result.methods),
        **_rounded_values(ev.to_dict()),
        "judgement": {"ok": judgement.ok, "reason": judgement.reason},
        "failed": [{"id": r["id"], "error": r["error"]} for r in result.failed],
        "degenerate": result.degenerate,  # per question: why its scores say nothing
        "sample": result.sample,
        "profile": cfg.profile,
        "measured": measured(cfg, ev),
        "provenance": provenance(),
    }
    if result.relabels is not None:
        payload["relabels"] = result.relabels.to_dict()
    write_text(out / "results.json", json.dumps(payload, indent=2))
    return files


#: Decimals of the per-resample values in ``results.json`` (ours: 1,000 resamples × every
#: method × metric at full precision is 2.4 MB a file; 1e-6 is far below any reported digit).
VALUE_DECIMALS = 6


def _rounded_values(data: dict[str, Any]) -> dict[str, Any]:
    """The evaluation dict with each cell's resample values rounded to :data:`VALUE_DECIMALS`."""
    for row in data.get("results", {}).values():
        for cell in row.values():
            cell["values"] = [round(v, VALUE_DECIMALS) for v in cell["values"]]
    return data


def evaluate(
    cfg: ExperimentConfig,
    out: str | Path,
    *,
    llm_factory: Callable[[], Any],
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    fresh: bool = False,
    labels: str | Path | None = None,
) -> ExperimentResult:
    """Table 1 for one dataset: per-question scores, correctness, and metric means ± std.

    Parameters
    ----------
    cfg : the experiment.
    out : folder for ``runs/``, ``scores.csv``, ``results.{csv,md,tex,json}``, ``config.json``.
    llm_factory : builds the LLM backend; called only if something must be generated.
    progress : called with :class:`~invent_core.progress.Progress` events: stage
        ``"questions"`` (the question as note) after each question, and the
        pipeline's ``"perturb"`` / ``"generate"`` / ``"score"`` within one.
    cancel : a :class:`~invent_core.progress.CancelToken`; once cancelled no new
        question starts and :class:`~invent_core.errors.Cancelled` says how many
        finished (they are kept in ``scores.csv``; the same call resumes).
    fresh : use a folder made with another LLM than ``cfg.llm`` (else refused with
        :class:`~invent_core.experiments.result.FolderMismatch`); none of its runs is reused.
    labels : a relabel file (:mod:`~invent_core.experiments.relabel`) added to the
        folder's layer ``relabels.jsonl``; the metrics are computed with the layer
        applied (``scores.csv`` keeps the judge's labels).

    Returns
    -------
    ExperimentResult whose ``evaluation`` and ``table`` are what the result files
    show; ``judgement`` says whether the metrics can be judged, ``failed`` lists
    questions whose generation failed.
    """
    t0 = time.perf_counter()
    check_perturber(cfg)
    out = Path(out)
    examples, sample = draw_examples(cfg)
    methods = requested_methods(cfg)
    with output_folder(out, EVALUATE_FILES, input_files(cfg)):
        check_folder(out, cfg, fresh=fresh)
        (out / "runs").mkdir(exist_ok=True)
        llm = LazyLLM(llm_factory)
        report = ProgressReporter(progress)
        rows, notes = _evaluate_rows(examples, cfg, out, methods, llm, report, cancel)
        guess = sample_guess_rate(examples)
        drawn = (sample, guess)
        result = finish_evaluation(out, cfg, rows, methods, drawn, llm, t0, labels=labels)
        result.notes = notes
        return result


def finish_evaluation(
    out: Path, cfg, rows, methods, drawn, llm, t0, *, labels=None
) -> ExperimentResult:
    """Judge the rows, write ``results.*`` and ``config.json``; the :class:`ExperimentResult`.

    ``drawn``: (how the sample was drawn, a blind guess's accuracy or None);
    ``labels``: a relabel file added to the folder's layer, which the metrics apply.
    """
    sample, guess = drawn
    judged, layer = with_layer(out, [r for r in rows if not r.get("error")], labels)
    evaluation, judgement = judged_evaluation(judged, methods, cfg, guess)
    result = ExperimentResult(
        judged,
        methods,
        evaluation=evaluation,
        llm_started=llm.started,
        judgement=judgement,
        failed=[r for r in rows if r.get("error")],
        sample=sample,
        relabels=layer,
    )
    block = measured(cfg, evaluation)
    result.table = noted(
        evaluation_table(evaluation, judgement, methods, block, len(result.degenerate)), layer
    )
    result.files = write_evaluation(out, cfg, result)
    accuracy = evaluation.accuracy if evaluation.n_questions else None
    wall = time.perf_counter() - t0  # this call only: a resumed evaluation reads saved rows fast
    meta = {"n_questions": len(judged), "accuracy": accuracy, "sample": sample}
    if layer is not None:
        meta["relabels"] = {"file": layer.source, "changed": len(layer.changed)}
    write_config(out, cfg, meta | {"wall_seconds": wall})
    return result
