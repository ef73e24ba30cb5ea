"""Batch scoring of question files: streaming, resumable, robust to bad input, shardable.

``batch_score("questions.csv", "scores.csv", config)`` scores every row of a
CSV or JSON Lines file and appends one output row per question as soon as it
is done. The dashboard's batch page and ``python -m invent_core batch`` both
call it. The accepted input formats, encodings and limits are in
:mod:`invent_core.questions.files`, the layouts of pre-generated responses in
:mod:`invent_core.batch.input`; the run settings (n, r, temperature, ψ, B,
seed, affinity, perturber, GAAP and paraphrase options) are one
:class:`~invent_core.config.RunConfig`.

Plan → start → loop → finish
----------------------------
*Plan* (:mod:`~invent_core.batch.plan`) validates every option and inspects
the input before any file is touched (a bad ``-r``, ``--dataset`` or output
path never wipes an old output). The run then takes the output's lock
(:class:`~invent_core.batch.output.OutputLock`: a second run on the same
output is refused), and *starts* (:mod:`~invent_core.batch.session`): loads
the models, compares its configuration with the output's sidecar
(:mod:`~invent_core.batch.config_diff`) and opens the checkpoint. The *loop*
(:mod:`~invent_core.batch.loop`) reads rows one at a time and appends each
finished question with one write, flushed and fsynced. *Finish* (here) writes
the final format, the evaluation and the sidecar's summary.

Streaming and resuming
----------------------
The output file *is* the checkpoint: on start, the ids already in it are read
and skipped, a torn last row (a crash in the middle of a write) is cut off,
and a corrupt row in the middle is removed and scored again (the rows after
it are kept). After ``kill -9`` the same command resumes where it stopped,
with no duplicate and no lost row. A resumed run must use the same
configuration: it is compared with the sidecar ``OUTPUT.meta.json`` and a
difference is refused with the differing options. ``resume=False``
(``--no-resume``) starts the output over.

Output
------
``.csv`` or ``.jsonl``: the checkpoint is the output. ``.json`` or
``.parquet``: the checkpoint is ``OUTPUT.checkpoint.jsonl`` (kept, so a
re-run resumes) and the final file is written from it at the end. Columns:
``id, row, question, [answer], response, n_perturbations, distinct_states, n_replications``,
the five Inv measures, the chosen baselines, ``inv_entropy_percentile``,
``inv_entropy_p_correct`` and ``inv_entropy_placed_among`` (among the shipped
reference questions like the row's, for these settings and this LLM,
:func:`invent_core.evaluation.reference.place`; empty when none matches or none is like it,
and for pre-generated responses, whose LLM is unknown), ``[correct]`` (when the input
has answers: the response to the original question, replication 0, judged
with :func:`invent_core.evaluation.correctness.judge_correct`),
``[perturbations, responses]`` (JSON, when the LLM generated them, so the
output can be re-scored without an LLM), ``degenerate`` (why the row's scores
say nothing: every perturbation a copy of the question, as
:attr:`~invent_core.engine.artifact.RunArtifact.degenerate`; empty otherwise),
``method_errors`` (JSON: why a baseline has no value) and ``seconds``. Rows are in input order.

Sidecars: ``OUTPUT.meta.json`` (the batch settings and ``config.to_dict()``,
package versions, embedder and LLM identities with their sha256, and the
summary when finished), ``OUTPUT.errors.jsonl`` (one JSON object per failed
row: file, row, line, column, error; rewritten as a run passes over the
file) and, while a run holds it, ``OUTPUT.lock``.

Failures
--------
Whole-file problems (missing, empty, binary, undecodable, no question
column or one named twice, an unclosed quote, an oversized cell, an
unwritable output, an output that is the input, a configuration, a header or
a question that differs from the output's) raise :class:`BatchInputError`
before any file is written; rows scored before stay in the output.
Per-row problems (a blank question, a repeated id, a question over the
length limit, a value of the wrong type, a ragged or malformed pre-generated
response set, invalid JSON on one line, a scoring failure — including an
LLM failure, unless the first :data:`ABORT_AFTER_LLM_ERRORS` rows all fail
that way) are recorded in the errors sidecar and the run continues;
:attr:`BatchSummary.ok` is False.

Sharding
--------
``shard="i/N"`` (1 ≤ i ≤ N) keeps the rows whose id hashes to part i:
``int(sha256(id)[:8]) % N == i - 1``. The id (not the row position) decides,
so the split is stable when rows are appended, and each machine can point at
the same OpenAI-compatible server (e.g. vLLM). :func:`~invent_core.batch.merge_outputs`
joins the parts.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from typing import Any

from ..config import RunConfig
from ..evaluation.correctness import DEFAULT_JUDGE
from ..progress import ProgressCallback
from ..questions import schema as qs
from .loop import score_rows
from .output import (
    OutputLock,
    evaluate_output,
    export_results,
    output_notes,
    write_json_atomic,
)
from .plan import plan_batch
from .session import BatchRun, BatchSummary, now, start_run

__all__ = ["batch_score"]


def _finish(run: BatchRun) -> BatchSummary:
    """Put the rows in order, write the final format, the evaluation and the sidecar's summary."""
    plan, summary, meta = run.plan, run.summary, run.meta
    run.checkpoint.put_in_order()
    if plan.paths["checkpoint"] != plan.output:
        export_results(plan.paths["checkpoint"], plan.output)
    if plan.info.has_answers:
        ev = evaluate_output(plan.paths["checkpoint"], plan.method_names)
        summary.evaluation, summary.accuracy, summary.n_judged = (
            ev["methods"],
            ev["accuracy"],
            ev["n_judged"],
        )
    summary.n_degenerate, summary.method_gaps = output_notes(plan.paths["checkpoint"])
    summary.seconds = time.perf_counter() - run.t_start
    meta["status"] = "finished" if summary.ok else "finished with errors"
    meta["finished"] = now()
    meta["summary"] = {k: v for k, v in summary.to_dict().items() if k not in ("config", "errors")}
    write_json_atomic(plan.paths["meta"], meta)
    return summary


def batch_score(
    input: str | os.PathLike,
    output: str | os.PathLike,
    config: RunConfig | None = None,
    *,
    llm: Any = None,
    embedder: Any = None,
    methods: str | Iterable[str] | None = "inv",
    shard: str | tuple[int, int] | None = None,
    progress: ProgressCallback | None = None,
    resume: bool = True,
    dataset: str | None = None,
    encoding: str | None = None,
    max_question_chars: int = qs.MAX_QUESTION_CHARS,
    judge: str = DEFAULT_JUDGE,
    reference_path: str | os.PathLike | None = None,
) -> BatchSummary:
    """Score every question of a CSV/JSON Lines file into ``output``, resumably.

    Parameters
    ----------
    input : CSV or JSON Lines file (columns: :mod:`invent_core.batch.input`).
    output : ``.csv``, ``.jsonl``, ``.json`` or ``.parquet``; sidecars
        ``OUTPUT.meta.json`` and ``OUTPUT.errors.jsonl`` are written next to it.
    config : the run settings (default ``RunConfig()``, the paper's). For
        pre-generated responses only its scoring part (ψ, B, seed, affinity,
        WD ground, MAX variant) is used.
    llm : for rows without pre-generated responses: ``None`` (the local
        packaged model), a spec for :func:`invent_core.llm.get_llm` or an LLM
        object (its own bounded concurrency is used). Ignored — and never
        called — when the file carries pre-generated responses.
    embedder : an already-loaded Similarity object to use instead of
        ``config.embedder`` (e.g. the test suite's MiniLM).
    methods : baselines to add to the five Inv measures (always computed):
        ``"inv"`` (none), ``"all"``, ``"baselines"`` or names
        (see :func:`invent_core.methods.registry.resolve_methods`).
    shard : ``"i/N"``: score only the rows whose id hashes to part i (1 … N).
    progress : called with a :class:`~invent_core.progress.Progress` (stage ``"rows"``,
        ``done``, ``total``, ``eta_seconds``) after each row.
    resume : skip the rows already in ``output`` (default); False starts over.
    dataset, judge : correctness rule (default: each row's task) and ``"paraphrase"`` or
        ``"match"`` (``evaluation.correctness.judge_verdict``); reason in ``judge_reason``.
    encoding : force an input encoding (``"latin-1"``); default UTF-8 or the byte-order mark's.
    max_question_chars : longer questions are per-row errors.
    reference_path : where rows are placed (percentile, P(correct)): a folder of reference
        files, or one file of one's own (it places pre-generated responses too).

    Returns
    -------
    BatchSummary (``ok`` is False when some rows failed; see ``errors_path``).

    Raises
    ------
    ValueError
        An invalid option (before any file is touched).
    BatchInputError
        A whole-file problem, naming the file, row, line and column;
        :class:`~invent_core.batch.output.OutputBusyError` when another run
        holds the output.
    OSError
        The disk failed (full, read-only); the rows written so far stay.
    """
    options = {"methods": methods, "shard": shard, "dataset": dataset, "judge": judge}
    options["reference_path"] = reference_path
    plan = plan_batch(
        input, output, config, encoding=encoding, max_question_chars=max_question_chars, **options
    )
    with OutputLock(plan.paths["lock"], plan.output):
        run = start_run(plan, llm=llm, embedder=embedder, resume=resume, progress=progress)
        try:
            fatal = score_rows(run)
        finally:
            run.close()
        if fatal is not None:
            run.meta["status"] = f"stopped: {fatal}"
            write_json_atomic(plan.paths["meta"], run.meta)
            raise fatal
        return _finish(run)
