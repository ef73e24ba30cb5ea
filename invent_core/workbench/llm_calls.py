"""How many LLM requests a run makes, said before it starts (exact bounds, not "≈").

Per question: the perturber's requests to the paraphrasing model (paraphrase: n + 1
single requests for the embedded models, one list request for a server; the gate
may re-ask up to ``max_extra_requests`` times; GAAP: none), then (n + 1)·r answers.
"""

from __future__ import annotations

from ..config import RunConfig
from ..llm.names import local_model


def _is_local(identity: str) -> bool:
    """A model on the embedded llama.cpp (packaged, or a user's GGUF file)."""
    return local_model(identity) is not None or identity.startswith("local:sha256=")


def paraphrase_requests(config: RunConfig, llm_identity: str) -> int:
    """Count the requests of one paraphrase call: n + 1 one at a time, or one list request."""
    style = config.paraphrase.style
    if style == "auto":  # as perturb.paraphrase: single for the packaged models, list for servers
        style = "single" if _is_local(llm_identity) else "list"
    return config.n_perturbations + 1 if style == "single" else 1


def count_llm_calls(
    config: RunConfig,
    *,
    llm_identity: str,
    n_questions: int = 1,
    paraphrase_identity: str | None = None,
    reworded: int | None = None,
) -> int:
    """Count the LLM requests of ``n_questions`` runs of ``config`` (none from the cache).

    ``reworded``: how many of the runs ask for their own rewordings (default all; a
    TSU sweep rewords each question once, its other temperatures read the cache).

    Per question: the perturber's requests (paraphrase: n + 1 single requests
    for the embedded models, one list request for servers, before any retry
    for repeats; GAAP: none) to the paraphrasing model (``paraphrase_identity``,
    default the answering one), then (n + 1)·r answers.
    """
    if n_questions < 0:
        raise ValueError(f"n_questions must be >= 0, got {n_questions}")
    para = paraphrase_identity or llm_identity
    perturb = 0 if config.perturber == "gaap" else paraphrase_requests(config, para)
    answers = (config.n_perturbations + 1) * config.n_replications
    return reworded_runs(n_questions, reworded) * perturb + n_questions * answers


def reworded_runs(n_questions: int, reworded: int | None) -> int:
    """The runs that ask for rewordings: ``reworded``, at most ``n_questions``."""
    return n_questions if reworded is None else max(0, min(int(reworded), n_questions))


def llm_call_bounds(
    config: RunConfig,
    *,
    llm_identity: str,
    n_questions: int = 1,
    paraphrase_identity: str | None = None,
    reworded: int | None = None,
) -> tuple[int, int]:
    """The fewest and most LLM requests of ``n_questions`` runs of ``config`` (none cached).

    The fewest is :func:`count_llm_calls`. The most adds what the perturber may
    ask again: with the gate, ``max_extra_requests`` re-asks for rejected
    rewordings; without it, up to ``max_requests`` list requests or ``2n + 2``
    single ones (``perturb.paraphrase``). GAAP asks nothing, so both are equal.
    """
    low = count_llm_calls(
        config,
        llm_identity=llm_identity,
        n_questions=n_questions,
        paraphrase_identity=paraphrase_identity,
        reworded=reworded,
    )
    if config.perturber == "gaap":
        return low, low
    p = config.paraphrase
    first = paraphrase_requests(config, paraphrase_identity or llm_identity)
    if p.gate.enabled:
        most = first + p.gate.max_extra_requests
    else:
        most = p.max_requests if first == 1 else 2 * config.n_perturbations + 2
    return low, low + reworded_runs(n_questions, reworded) * max(0, most - first)


def calls_text(
    config: RunConfig, bounds: tuple[int, int], n_questions: int, reworded: int | None = None
) -> str:
    """``"60–78 LLM calls"``; ``"at most 78"`` with the adaptive budget; ``"60"`` when exact.

    ``n_questions`` counts runs; a TSU sweep's runs are its ``reworded`` questions at several
    temperatures, and the text says so ("for 20 questions × 4 temperatures (80 runs)"),
    not "for 80 questions".
    """
    low, high = bounds
    if config.adaptive.enabled:
        said = f"at most {high}"
    else:
        said = f"{low}–{high}" if high > low else f"{low}"
    text = f"{said} LLM call{'s' if high != 1 else ''}"
    if reworded is not None and 0 < reworded < n_questions and n_questions % reworded == 0:
        temps = n_questions // reworded
        asked = f"{reworded} question{'s' if reworded != 1 else ''}"
        return text + f" for {asked} × {temps} temperatures ({n_questions} runs)"
    return text + (f" for {n_questions} questions" if n_questions != 1 else "")
