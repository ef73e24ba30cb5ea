"""Re-ask only what changed: a finished run with edited perturbations, unchanged answers kept.

A researcher edits, deletes or adds perturbations of a run (the dashboard's
editable table). Every state whose text is unchanged keeps its r answers;
each changed or added state is asked r times with the run's own config,
task and choices, through the pipeline's request builder; then the whole
run is scored again (paper Algorithm 1, steps 2–3 on the new inputs). The
new run records which states the user edited (``extras["edited"]``, one
bool per state, the original question never) and what the re-ask cost
(``extras["reask"]``); its ``timings`` and ``usage`` are the re-ask's own.

Dependencies on the pipeline are kept to one function,
:func:`invent_core.engine.pipeline._answer` (the (m, r) requests of a list of
prompts), and the answer post-processing to :func:`_postprocess`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..llm import get_llm
from ..llm.names import describe_llm
from ..progress import CancelToken, ProgressCallback, ProgressReporter
from .pipeline import answer_prompts, answer_requests, postprocess_responses
from .placement import placement
from .scoring import loaded_embedder, score_with_embedder, validate_responses

__all__ = ["match_states", "edited_flags", "reask"]


def match_states(old_questions: Sequence[str], new_questions: Sequence[str]) -> list[int | None]:
    """For each new state, the old state whose answers it keeps (``None``: ask it).

    State 0 (the original question) always keeps its own. A perturbation
    keeps the answers of an old perturbation with the same text (surrounding
    spaces ignored); duplicates are matched one to one, in order, so a row
    moved by a deletion above it keeps its answers and a copied row is asked.

    Examples
    --------
    >>> match_states(["q", "a", "b", "c"], ["q", "a", "c", "d"])
    [0, 1, 3, None]
    """
    pool: dict[str, list[int]] = {}
    for i, text in enumerate(old_questions[1:], start=1):
        pool.setdefault(text.strip(), []).append(i)
    out: list[int | None] = [0]
    for text in new_questions[1:]:
        free = pool.get(text.strip())
        out.append(free.pop(0) if free else None)
    return out


def edited_flags(sources: Sequence[int | None], old_edited: Sequence[bool] | None) -> list[bool]:
    """One flag per new state: asked now, or kept from a state the user edited before."""
    old = list(old_edited or [])
    return [src is None or (src < len(old) and bool(old[src])) for src in sources]


def _checked_perturbations(texts: Sequence[Any]) -> list[str]:
    """Return the perturbations stripped; raise a ValueError naming the first empty row."""
    out = []
    for k, text in enumerate(texts, start=1):
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"perturbation {k} is empty: type a question or delete the row")
        out.append(text.strip())
    if not out:
        raise ValueError(
            "keep at least one perturbation: Inv-Entropy compares the question with them"
        )
    return out


def _check_same_llm(run: Any, model: Any) -> None:
    """Refuse to mix two LLMs' answers in one run (it would measure neither)."""
    made_by = (run.identities or {}).get("llm")
    if made_by and made_by != model.identity:
        raise ValueError(
            f"this run's answers came from {describe_llm(made_by)}; choose that LLM to re-ask "
            f"(now {describe_llm(model.identity)}): one run must not mix two models' answers"
        )


def _ask(model: Any, run: Any, questions: list[str], asked: list[int], report, cancel) -> tuple:
    """Raw answers (r each) of the states ``asked``, and the usage.

    The requests are the pipeline's own (:func:`~invent_core.engine.pipeline.answer_requests`):
    state j's replication k is seeded by ``state_seed(seed, j, k)``, so an edited
    state gets fresh, independent answers and an unchanged one would get its old ones.
    """
    if not asked:
        return [], {"prompt_tokens": 0, "completion_tokens": 0, "requests": 0, "cached": 0}
    r = run.config.n_replications
    requests = answer_requests(
        [(j, questions[j]) for j in asked], run.config, task=run.task, choices=run.choices
    )
    done = model.complete_many(requests, report.counter("generate"), cancel=cancel)
    raw = [[done[i * r + k].text for k in range(r)] for i in range(len(asked))]
    usage = {
        "prompt_tokens": sum(int(c.usage.get("prompt_tokens", 0)) for c in done),
        "completion_tokens": sum(int(c.usage.get("completion_tokens", 0)) for c in done),
        "requests": len(done),
        "cached": sum(1 for c in done if c.cached),
    }
    return raw, usage


def _merged_answers(run: Any, questions: list[str], sources, asked, new_raw) -> tuple:
    """Raw, cleaned, canonical and unmapped m × r lists: kept states' old ones, asked states' new."""
    fresh = {j: k for k, j in enumerate(asked)}
    raw = [
        run.raw_responses[s] if s is not None else new_raw[fresh[j]] for j, s in enumerate(sources)
    ]
    cleaned, canonical, unmapped = postprocess_responses(
        questions, raw, task=run.task, choices=run.choices
    )
    return raw, cleaned, canonical, unmapped


def reask(
    run: Any,
    new_perturbations: Sequence[str],
    *,
    llm: Any,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
    embedder: Any = None,
    reference_path: str | Path | None = None,
) -> Any:
    """Return ``run`` with ``new_perturbations``, asking only the changed or added ones.

    Parameters
    ----------
    run : a scored :class:`~invent_core.engine.artifact.RunArtifact`.
    new_perturbations : the whole new list of perturbations, in order (the
        original question is kept as state 0).
    llm : the LLM (object or spec); it must be the one that made the run.
    progress : :class:`~invent_core.progress.Progress` events ("generate", "score").
    cancel : stops further requests; a cancelled re-ask raises
        :class:`~invent_core.errors.Cancelled` (answers already received are
        in the LLM cache).
    embedder : a loaded Similarity object to score with (default: the run's ψ by name);
        resolved once, for the score and the placement.
    reference_path : the reference questions the new score is placed among (a folder
        or one file); default the shipped ones.

    Returns
    -------
    RunArtifact
        Unchanged states keep their raw answers; every state is cleaned and
        made canonical as the pipeline does, and the whole run is scored again
        with the run's ScoreConfig. ``extras["edited"]`` flags the states whose
        text the user set; ``extras["reask"]`` says how many states were asked.

    Raises
    ------
    ValueError
        An empty perturbation, none at all, or an LLM other than the run's.
    """
    questions = [run.question, *_checked_perturbations(new_perturbations)]
    sources = match_states(run.questions, questions)
    asked = [j for j, src in enumerate(sources) if src is None]
    model = get_llm(llm)
    if asked:
        _check_same_llm(run, model)
    if cancel is not None:
        cancel.raise_if_cancelled(0, len(asked) * run.config.n_replications)
    report = ProgressReporter(progress)
    t0 = time.perf_counter()
    new_raw, usage = _ask(model, run, questions, asked, report, cancel)
    t_generate = time.perf_counter() - t0
    raw, cleaned, canonical, unmapped = _merged_answers(run, questions, sources, asked, new_raw)
    report("score", 0, 1)
    similarity, score_config = loaded_embedder(embedder, run.config.score)  # score, placement
    checked = validate_responses(questions, canonical)  # the run's kept answers: a file's
    score = score_with_embedder(*checked, score_config, similarity)
    report("score", 1, 1)
    timings = {"generate": t_generate, "total": time.perf_counter() - t0}
    timings["score"] = timings["total"] - t_generate
    out = _reasked_run(
        run,
        model,
        questions,
        (raw, cleaned, canonical, unmapped),
        score,
        timings,
        usage,
        sources,
        asked,
    )
    # the placement belongs to the new score, not the one the run came with
    out.reference = placement(out, embedder=similarity, reference_path=reference_path)
    return out


def _reasked_run(run, model, questions, answers, score, timings, usage, sources, asked) -> Any:
    """The new RunArtifact of :func:`reask` (texts, answers, config, identities, edit flags)."""
    raw, cleaned, canonical, unmapped = answers
    config = run.config.replace(n_perturbations=len(questions) - 1)
    return dataclasses.replace(
        run,
        perturbations=questions[1:],
        questions=questions,
        prompts=answer_prompts(questions, run.task, run.choices),
        raw_responses=raw,
        cleaned_responses=cleaned,
        responses=canonical,
        unmapped=unmapped,
        config=dataclasses.replace(config, score=score.config),
        identities={
            **run.identities,
            "llm": run.identities.get("llm") or model.identity,
            "embedder": score.embedder,
        },
        score=score,
        timings=timings,
        usage=usage,
        extras={
            **run.extras,
            "edited": edited_flags(sources, run.extras.get("edited")),
            "reask": {"asked": asked, "kept": len(questions) - len(asked)},
        },
    )
