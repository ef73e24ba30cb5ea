"""Scoring one batch row with one :class:`~invent_core.config.RunConfig`.

A row with pre-generated responses is scored without an LLM; a row with its own
perturbations but no responses has the LLM answer them (never reword); a row
with a question only runs the whole pipeline (perturb → answer → score). All end
in the same :class:`~invent_core.methods.registry.ScoringContext`, so the Inv
measures and the baselines are the ones ``run`` and ``score`` compute.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..config import RunConfig
from ..engine.pipeline import answer_requests, postprocess_responses, run_question
from ..errors import scrub
from ..evaluation.correctness import DEFAULT_JUDGE, judge_verdict
from ..evaluation.reference import own_placement, record_columns
from ..methods.context import ScoringContext
from ..methods.registry import compute_methods
from ..perturb.gate import copies_warning
from ..perturb.paraphrase import distinct_states
from .rows import InputRow

__all__ = ["BATCH_JUDGES", "REFERENCE_MEASURE", "RowScorer", "output_columns"]

#: The correctness judges a batch offers: the offline ones (a file of pre-generated
#: responses has no LLM to ask).
BATCH_JUDGES: tuple[str, ...] = ("paraphrase", "match")

#: Why a row of pre-generated responses measures nothing (its ``degenerate`` cell).
FILE_COPIES_HINT = "the file's perturbations: give rewordings that differ from the question"

#: The measure given a percentile and P(correct) against the shipped reference set.
REFERENCE_MEASURE = "inv_entropy"


def output_columns(method_names: Sequence[str], *, has_answers: bool, generated: bool) -> list[str]:
    """The output's columns, in order (see :mod:`invent_core.batch`)."""
    cols = ["id", "row", "question"]
    if has_answers:
        cols.append("answer")
    cols += ["response", "n_perturbations", "distinct_states", "n_replications", *method_names]
    if REFERENCE_MEASURE in method_names:  # the value against a shipped reference
        cols += [f"{REFERENCE_MEASURE}_{c}" for c in ("percentile", "p_correct", "placed_among")]
    if has_answers:
        cols += ["correct", "judge_reason"]
    if generated:
        cols += ["perturbations", "responses"]
    cols += ["degenerate", "method_errors", "seconds"]
    return cols


class RowScorer:
    """Scores rows with one configuration; holds the embedder and the LLM.

    Parameters
    ----------
    config : n, r, temperature, perturber, ψ, B, seed, affinity, GAAP and
        paraphrase settings of every row.
    method_names : the Inv measures and the chosen baselines.
    sim : the loaded similarity (embedder or NLI) object.
    llm : the LLM for rows without responses (None for pre-generated files).
    dataset : correctness rule (``judge_verdict``'s ``dataset``); None: each row's task.
    judge : one of :data:`BATCH_JUDGES` (``judge_verdict``'s ``method``).
    reference_path : the reference questions rows are placed among: a folder of
        reference files or one file of one's own (``--reference``, which places
        pre-generated responses too); None, the shipped ones.
    """

    def __init__(
        self,
        config: RunConfig,
        *,
        method_names: list[str],
        sim: Any,
        llm: Any = None,
        dataset: str | None = None,
        judge: str = DEFAULT_JUDGE,
        reference_path: str | Path | None = None,
    ) -> None:
        self.config = config
        self.reference_path = None if reference_path is None else Path(reference_path)
        self.judge = judge
        self.method_names = method_names
        self.sim = sim
        self.llm = llm
        self.dataset = dataset

    def prefetch(self, rows: Sequence[InputRow]) -> None:
        """Embed the texts of several pre-generated rows in one model call (fills the cache)."""
        if not hasattr(self.sim, "encode"):
            return
        texts: list[str] = []
        for row in rows:
            if row.error is None and row.responses is not None:
                texts.append(row.question)
                texts.extend(row.perturbations or [])
                texts.extend(t for reps in row.responses for t in reps)
        if texts:
            self.sim.encode(list(dict.fromkeys(texts)))

    def _context(self, row: InputRow, responses=None, llm: Any = None):
        """The ScoringContext of a row's texts and ``responses`` (default: the file's; no LLM)."""
        cfg = self.config
        return ScoringContext(
            [row.question, *(row.perturbations or [])],
            row.responses if responses is None else responses,
            cfg.score,
            llm=llm,
            embedder=self.sim,
            task=row.task,
            choices=row.choices,
            temperature=cfg.temperature,
        )

    def _generate(self, row: InputRow):
        """Run the pipeline on a question-only row: its ScoringContext and the run.

        The pipeline placed the run among the reference questions like it
        (the artefact's ``reference``); the row's columns show that placement, and
        the run's ``degenerate`` reason. Pre-generated responses have no known LLM,
        so only a reference file of one's own applies to them.
        """
        run = run_question(
            row.question,
            self.config,
            llm=self.llm,
            task=row.task,
            choices=row.choices,
            embedder=self.sim,
            reference_path=self.reference_path,
        )
        # the batch's ψ object (resolved once for the whole batch), and the run's score kept
        ctx = ScoringContext.from_run(run, llm=self.llm, embedder=self.sim, score=run.score)
        return ctx, run

    def _answer(self, row: InputRow):
        """Ask the LLM the row's own perturbations (r answers to each state, no rewording).

        The requests are a run's own (:func:`~invent_core.engine.pipeline.answer_requests`:
        seeds, stop, token budget), cleaned and made canonical as a run's answers are.
        """
        cfg = self.config
        questions = [row.question, *(row.perturbations or [])]
        states = list(enumerate(questions))
        done = self.llm.complete_many(
            answer_requests(states, cfg, task=row.task, choices=row.choices)
        )
        r = cfg.n_replications
        raw = [[c.text for c in done[i * r : (i + 1) * r]] for i in range(len(questions))]
        _, canonical, _ = postprocess_responses(questions, raw, task=row.task, choices=row.choices)
        return self._context(row, canonical, self.llm), None  # no run: the file's rewordings

    def score(self, row: InputRow) -> dict[str, Any]:
        """The output record of one row (raises when the Inv measures cannot be computed)."""
        t0 = time.perf_counter()
        record: dict[str, Any] = {"id": row.id, "row": row.index, "question": row.question}
        run = None
        if row.responses is not None:
            ctx = self._context(row)
        else:  # the LLM answers the file's rewordings, or rewords the question too
            ctx, run = self._answer(row) if row.perturbations else self._generate(row)
            record["perturbations"] = json.dumps(list(ctx.questions[1:]), ensure_ascii=False)
            record["responses"] = json.dumps(ctx.responses, ensure_ascii=False)
        results = compute_methods(ctx, self.method_names)
        inv = results.get("inv_entropy")
        if inv is not None and not inv.ok:
            raise ValueError(inv.error)
        record.update(
            response=ctx.responses[0][0],
            n_perturbations=len(ctx.questions) - 1,
            distinct_states=distinct_states(ctx.questions[1:]),
            n_replications=len(ctx.responses[0]),
        )
        for name, res in results.items():
            record[name] = res.value if res.ok else None
        placed = run.reference if run is not None else None  # stored by the pipeline
        own = self.reference_path is not None and self.reference_path.is_file()
        if inv is not None and run is None and own:
            # --reference: the user's own set places answers from an unknown model too
            placed = own_placement(
                inv.value,
                row.question,
                self.sim,
                task=row.task,
                measure=REFERENCE_MEASURE,
                path=self.reference_path,
            )
        if inv is not None and (run is not None or placed is not None):
            record.update(record_columns(placed, measure=REFERENCE_MEASURE))
        if run is None:  # a file's rewordings: the same rule as a run's
            degenerate = copies_warning(row.question, row.perturbations or [], FILE_COPIES_HINT)
        else:
            degenerate = run.degenerate
        record["degenerate"] = degenerate or ""  # every perturbation a copy: the scores say nothing
        errors = {name: scrub(res.error) for name, res in results.items() if not res.ok}
        record["method_errors"] = json.dumps(errors, ensure_ascii=False) if errors else ""
        if row.answers:
            record["answer"] = row.answers[0]
            verdict = self._judge(row, record["response"])
            record["correct"], record["judge_reason"] = int(verdict.correct), verdict.reason
        record["seconds"] = round(time.perf_counter() - t0, 4)
        return record

    def _judge(self, row: InputRow, response: str):
        return judge_verdict(
            response,
            list(row.answers),
            dataset=self.dataset or row.task,
            question=row.question,
            choices=row.choices,
            method=self.judge,
        )
