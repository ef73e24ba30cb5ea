"""LLM paraphrasing: the paper's "ChatGPT-based paraphrasing" perturbation.

Prompt: ``Please Provide {n} paraphrases for this sentence: {sentence}`` at
temperature 0.7 (paper, Appendix app:setting). Models answer in many shapes
(numbered ``1.`` / ``1)`` lists, bullets, quotes, a preamble line, an echo of
the original, repeats); :func:`~.paraphrase_parse.parse_paraphrases` turns any of
them into a clean list (requests are sent by :mod:`.paraphrase_ask`; a word
problem's premises are kept out of the rewording by :mod:`.premises`).
``paraphrase`` returns exactly n: "When fewer than nine are generated,
we randomly duplicate existing perturbations; when more than nine are
produced, we randomly sample nine" (paper, "Perturbation Configuration").

With a :class:`~invent_core.config.GateConfig` (what the ``paraphrase``
perturber passes), every candidate goes through the validity
gate (:mod:`invent_core.perturb.gate`) under the run's embedder before it is
kept: rejected ones are re-asked, each re-ask with a new replication index (so
a new seed and cache key), within ``max_extra_requests``; then the accepted
ones are padded by duplication as the paper says. The first round is one list
request (``"list"``) or ``n + 1`` single requests (``"single"``); when a round
yields more acceptances than are missing, that many are drawn at random
(order kept), as the paper samples nine of a longer list. When no candidate
passes, ``GateConfig.if_none_pass`` decides: ``"original"`` pads every state
with the question itself (flagged ``fallback`` in the acceptance summary),
``"fail"`` raises. :func:`gated_paraphrase` returns every candidate with its
verdict; ``on_accept(index, text)`` is called as soon as a perturbation is
final, so answers can be asked while the rest is still being reworded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..config import GateConfig, ParaphraseConfig, RunConfig
from ..errors import LLMError
from ..prompts import PARAPHRASE_SYSTEM
from .asks_same import verify_with_llm
from .gate import GateVerdict, gate_candidates, summarize
from .paraphrase_ask import ParaphraseAsker
from .paraphrase_parse import fit_to_n, item_key, round_candidates
from .premises import join_premises, split_premises
from .text import duplicate_key

OnAccept = Callable[[int, str], None]


def paraphrase(question: str, **kwargs: Any) -> list[str]:
    """``n`` paraphrases of ``question`` by the LLM: :func:`gated_paraphrase`'s perturbations.

    Takes the keywords of :func:`gated_paraphrase`. Returns exactly ``n``
    strings, none equal to ``question`` unless no candidate passed the gate
    and ``GateConfig.if_none_pass`` is ``"original"``; :class:`LLMError` if
    no request gave a usable paraphrase.
    """
    return gated_paraphrase(question, **kwargs).perturbations


@dataclass
class ParaphraseResult:
    """What :func:`gated_paraphrase` returns.

    Attributes
    ----------
    perturbations : exactly ``n`` texts (accepted ones first, then duplicates; with none
        accepted and ``GateConfig.if_none_pass = "original"``, n copies of the question).
    candidates : one dict per candidate the gate judged:
        :meth:`~invent_core.perturb.gate.GateVerdict.to_dict` plus ``round``
        (0-based ask round) and ``index`` (its position in ``perturbations``,
        or None when rejected or not needed).
    acceptance : :func:`invent_core.perturb.gate.summarize` of the verdicts,
        plus ``padded`` (duplicates added), ``requests`` (paraphrase requests
        sent) and ``gate`` (whether the gate was on).
    """

    perturbations: list[str]
    candidates: list[dict[str, Any]] = field(default_factory=list)
    acceptance: dict[str, Any] = field(default_factory=dict)


#: Defaults of the keywords below: written once, in ParaphraseConfig.
_DEFAULTS = ParaphraseConfig()


def gated_paraphrase(
    question: str,
    *,
    llm: Any = None,
    n: int = RunConfig.n_perturbations,
    temperature: float | None = None,
    seed: int = 0,
    max_tokens: int = _DEFAULTS.max_tokens,
    max_requests: int = _DEFAULTS.max_requests,
    frequency_penalty: float = _DEFAULTS.frequency_penalty,
    rng: np.random.Generator | None = None,
    stream: bool = True,
    system: str | None = PARAPHRASE_SYSTEM,
    style: str = _DEFAULTS.style,
    constructions: bool = _DEFAULTS.constructions,
    premises_kept: bool = _DEFAULTS.premises_kept,
    gate: GateConfig | None = None,
    similarity: Any = None,
    on_accept: OnAccept | None = None,
    on_reply: Callable[[int, int], None] | None = None,
) -> ParaphraseResult:
    """``n`` paraphrases with every candidate and the acceptance summary (see the module doc).

    Parameters
    ----------
    question : the sentence to paraphrase.
    llm : an LLM object or spec (``None``: the local default).
    n : paraphrases wanted (paper: 9).
    temperature : ``None``: the paper's 0.7 for ``style="list"``,
        :data:`~.paraphrase_ask.SINGLE_TEMPERATURE` (1.0, ours) for ``"single"``, where the
        variety the paper gets within one list has to come from sampling.
    seed : seed of the first request (request k uses the k-th replication
        seed); also seeds the sampling/duplication rng unless ``rng`` is given.
    max_tokens : token budget of one reply (list style).
    max_requests : without the gate, when a reply yields fewer than ``n``
        distinct paraphrases, ask again (another seed) up to this many
        requests (rounds for ``"single"``), then pad.
    frequency_penalty : not in the paper (small models otherwise repeat one line).
    rng : generator for sampling / duplicating to exactly ``n``.
    stream : when the backend streams (:class:`~invent_core.llm.base.StreamingLLM`),
        stop a reply once ``n`` distinct paraphrases are in or the model loops
        (:func:`~.paraphrase_parse.enough_or_looping`), saving the rest of ``max_tokens``.
    system : system message before the paper's prompt (``None``: none; not in the paper).
    style : ``"list"``: the paper's one request for ``n`` paraphrases;
        ``"single"``: one per request (``prompts.paraphrase_one_messages``),
        ``n + 1`` concurrent requests, then more for repeats; ``"auto"``:
        ``"single"`` for backends declaring ``prefers_single_paraphrase``
        (the packaged local models), else ``"list"``.
    constructions : single style: request k asks for construction k of
        :data:`~invent_core.prompts.PARAPHRASE_CONSTRUCTIONS` (ours).
    premises_kept : single style: reword only the last sentence (:func:`~.premises.split_premises`).
    gate : the validity gate; ``None`` or ``enabled=False``: the paper's behaviour.
    similarity : the run's embedder for the gate's affinity checks (``None``:
        text checks only).
    on_accept : ``on_accept(index, text)`` for each of the ``n`` perturbations,
        in index order, as soon as it is final.
    on_reply : ``on_reply(done, total)`` as a round's single rewordings arrive.

    Returns
    -------
    ParaphraseResult; :class:`LLMError` when no reply was usable at all.
    """
    opts = dict(n=n, temperature=temperature, seed=seed, max_tokens=max_tokens, stream=stream)
    opts |= dict(frequency_penalty=frequency_penalty, system=system)
    asker, premises = _asker_for(question, llm, style, premises_kept, opts)
    asker.on_reply, asker.constructions = on_reply, asker.style == "single" and constructions
    if max_requests < 1:
        raise ValueError(f"max_requests must be >= 1, got {max_requests}")
    rng = rng if rng is not None else np.random.default_rng(seed)
    told = _with_premises(premises, on_accept)
    if gate is None or not gate.enabled:
        result = _ungated(
            asker.question, asker, n=n, max_requests=max_requests, rng=rng, on_accept=told
        )
    else:
        result = _gated(
            asker.question, asker, n=n, gate=gate, similarity=similarity, rng=rng, on_accept=told
        )
    return _attach_premises(result, premises)


def _asker_for(
    question: str, llm: Any, style: str, premises_kept: bool, opts: dict[str, Any]
) -> tuple[ParaphraseAsker, str]:
    """The asker for ``question`` and the premises kept out of the rewording ("" when none)."""
    asker = ParaphraseAsker.build(question, llm, style=style, **opts)
    if asker.style != "single" or not premises_kept:
        return asker, ""
    premises, ask = split_premises(question)
    if not premises:
        return asker, ""
    return ParaphraseAsker.build(ask, asker.model, style="single", **opts), premises


def _with_premises(premises: str, on_accept: OnAccept | None) -> OnAccept | None:
    """``on_accept`` that is told the whole perturbation (premises + reworded last sentence)."""
    if not premises or on_accept is None:
        return on_accept
    return lambda index, text: on_accept(index, join_premises(premises, text))


def _attach_premises(result: ParaphraseResult, premises: str) -> ParaphraseResult:
    """Put the kept premises back in front of every perturbation and candidate."""
    if not premises:
        return result
    result.perturbations = [join_premises(premises, p) for p in result.perturbations]
    for rec in result.candidates:
        if rec.get("text"):
            rec["text"] = join_premises(premises, rec["text"])
    result.acceptance["premises_kept"] = len(premises.split())
    return result


def _no_paraphrase(question: str, replies: list[str], why: str = "") -> LLMError:
    shown = " | ".join(r.strip().replace("\n", " ")[:120] for r in replies[:5])
    return LLMError(
        f"the LLM gave no usable paraphrase of {question!r} in {len(replies)} request(s)"
        f"{why} (replies: {shown!r}); try another --llm or the gaap perturber"
    )


def _ungated(
    question: str,
    asker: ParaphraseAsker,
    *,
    n: int,
    max_requests: int,
    rng: np.random.Generator,
    on_accept: OnAccept | None,
) -> ParaphraseResult:
    """Keep distinct replies as they are, ask again until ``n``, then pad (the paper's way).

    ``max_requests`` rounds; in all at most ``max_requests`` list requests, or
    ``2n + 2`` single ones (a question with few rewordings is padded, not re-asked forever).
    """
    budget = max_requests if asker.style == "list" else 2 * n + 2
    found: list[str] = []
    seen = {item_key(question)}
    for _round in range(max_requests):
        missing = n - len(found)
        if missing <= 0 or asker.requests >= budget:
            break
        for items, _raw in asker.ask(missing, budget - asker.requests):
            for item in items if asker.style == "list" else items[:1]:
                if item_key(item) not in seen:
                    seen.add(item_key(item))
                    found.append(item)
    if not found:
        raise _no_paraphrase(question, asker.replies)
    if question.rstrip().endswith("?"):
        # answers ("The capital of France is Paris.") are not paraphrases of a question
        found = [p for p in found if p.endswith("?")] or found
    out = fit_to_n(found, n, rng)
    for i, text in enumerate(out):
        if on_accept is not None:
            on_accept(i, text)
    candidates = [
        {"text": p, "accepted": True, "reason": None, "detail": "gate off", "round": None}
        | {"index": out.index(p) if p in out else None}
        for p in found
    ]
    acceptance = {"candidates": len(found), "accepted": len(found), "acceptance_rate": 1.0}
    acceptance |= {"rejected": {}, "padded": max(0, n - len(found))}
    return ParaphraseResult(
        out, candidates, acceptance | {"requests": asker.requests, "gate": False}
    )


def _gated(
    question: str,
    asker: ParaphraseAsker,
    *,
    n: int,
    gate: GateConfig,
    similarity: Any,
    rng: np.random.Generator,
    on_accept: OnAccept | None,
) -> ParaphraseResult:
    """Pass rounds of candidates through the gate until ``n`` are accepted or the budget is spent."""
    budget = asker.first_round + gate.max_extra_requests
    seed = asker.template.seed

    checks = [0]  # meaning checks sent so far: bounded like the re-asks (max_verify_requests)

    def verify(pairs: list[tuple[str, str]]) -> list[bool]:  # the rewording model decides
        asked = pairs[: max(gate.max_verify_requests - checks[0], 0)]
        checks[0] += len(asked)
        said = verify_with_llm(asker.model, asked, seed=seed, p_yes=gate.verify_p_yes)
        return [*said, *[False] * (len(pairs) - len(asked))]  # unasked: not kept

    accepted: list[str] = []
    verdicts: list[GateVerdict] = []
    records: list[dict[str, Any]] = []
    round_ = 0
    while len(accepted) < n and asker.requests < budget:
        missing = n - len(accepted)
        texts = round_candidates(asker.ask(missing, budget - asker.requests), asker.style)
        judged = gate_candidates(
            texts, question, similarity=similarity, accepted=accepted, config=gate, verify=verify
        )
        chosen = _choose([i for i, v in enumerate(judged) if v.accepted], missing, rng)
        for i, verdict in enumerate(judged):
            index = None
            if i in chosen:
                index = len(accepted)
                accepted.append(verdict.text)
                if on_accept is not None:
                    on_accept(index, verdict.text)
            records.append({**verdict.to_dict(), "round": round_, "index": index})
        verdicts += judged
        round_ += 1
    summary = summarize(verdicts)
    stand_ins = _near_duplicate_stand_ins(accepted, records, n)
    for i in stand_ins:
        records[i]["index"] = len(accepted)
        accepted.append(records[i]["text"])
        if on_accept is not None:
            on_accept(records[i]["index"], records[i]["text"])
    summary["near_duplicates"] = len(stand_ins)
    if not accepted:
        reasons = ", ".join(f"{k} ×{v}" for k, v in summary["rejected"].items())
        if gate.if_none_pass == "fail":
            why = f"; every candidate was rejected ({reasons})"
            raise _no_paraphrase(question, asker.replies, why)
        # the paper pads by duplication; with no valid rewording, the one valid wording is
        # the question itself (each copy still gets its own r answers and seeds)
        accepted, summary["fallback"] = [question.strip()], "original"
        if on_accept is not None:
            on_accept(0, accepted[0])
    out = fit_to_n(accepted, n, rng)  # len(accepted) <= n: duplicates appended at random
    for i in range(len(accepted), n):
        if on_accept is not None:
            on_accept(i, out[i])
    padded = n if summary.get("fallback") else n - len(accepted)
    summary |= {"padded": padded, "requests": asker.requests, "gate": True}
    summary |= {"distinct": distinct_states(out), "states": n}
    return ParaphraseResult(out, records, summary)


def _near_duplicate_stand_ins(
    accepted: list[str], records: list[dict[str, Any]], n: int
) -> list[int]:
    """Records of distinct near-duplicates to fill states before any exact copy.

    A candidate rejected only as a near-duplicate passed every meaning check; a
    state holding it adds a wording an exact copy would not. Returns indices
    into ``records``, at most ``n - len(accepted)``, in the order they came.
    """
    seen = {duplicate_key(a) for a in accepted}
    out: list[int] = []
    for i, rec in enumerate(records):
        if len(accepted) + len(out) >= n:
            break
        key = duplicate_key(rec.get("text") or "")
        if rec.get("reason") == "near_duplicate" and rec.get("index") is None and key not in seen:
            seen.add(key)
            out.append(i)
    return out


def distinct_states(perturbations: list[str]) -> int:
    """How many of the perturbed questions differ in wording (casefold, punctuation dropped)."""
    return len({duplicate_key(p) for p in perturbations})


def _choose(indices: list[int], k: int, rng: np.random.Generator) -> set[int]:
    """All of ``indices`` when at most ``k``, else ``k`` of them drawn at random."""
    if len(indices) <= k:
        return set(indices)
    return {int(i) for i in rng.choice(indices, size=k, replace=False)}
