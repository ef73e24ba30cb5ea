"""LLM paraphrasing: the paper's "ChatGPT-based paraphrasing" perturbation.

Prompt: ``Please Provide {n} paraphrases for this sentence: {sentence}`` at
temperature 0.7 (paper, Appendix app:setting). Models answer in many shapes
(numbered ``1.`` / ``1)`` lists, bullets, quotes, a preamble line, an echo of
the original, repeats); ``parse_paraphrases`` turns any of them into a clean
list. ``paraphrase`` returns exactly n: "When fewer than nine are generated,
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

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..config import GateConfig, ParaphraseConfig, RunConfig
from ..errors import LLMError
from ..llm import Request, get_llm, user
from ..llm.base import StreamingLLM, prefers_single_paraphrase
from ..prompts import (
    PARAPHRASE_SYSTEM,
    PARAPHRASE_TEMPERATURE,
    paraphrase_one_messages,
    paraphrase_prompt,
)
from .gate import GateVerdict, gate_candidates, summarize
from .text import duplicate_key

_ITEM = re.compile(
    r"""^\s*(?:
        \(?\d{1,2}\s*[.):\]]        # 1.  1)  (1)  1:  1]
      | [-*•·–—+]                  # bullets
      | (?:paraphrase|option|version|sentence|variant)\s*\#?\d{1,2}\s*[.:)\-–]  # Paraphrase 1:
    )\s*(?P<body>.+?)\s*$""",
    re.IGNORECASE | re.VERBOSE,
)
_QUOTED = re.compile(r'"([^"]{3,})"|“([^”]{3,})”')
_WS = re.compile(r"\s+")
_PREAMBLE = re.compile(
    r"^(?:sure|certainly|of course|okay|ok|here\s+(?:are|is)|below\s+are|the\s+following)\b",
    re.IGNORECASE,
)
_TRAILING_NOTE = re.compile(r"\s*\((?:[^()]*)\)\s*$")


def _key(text: str) -> str:
    """Comparison key: case- and whitespace-insensitive, trailing punctuation ignored."""
    return _WS.sub(" ", text).strip().strip(" .?!;:,").casefold()


def _unwrap(text: str) -> str:
    out = text.strip()
    for _ in range(3):
        before = out
        out = re.sub(r"^\*\*(.+)\*\*$", r"\1", out).strip()
        out = re.sub(r"^\*\*[^*]{0,40}\*\*\s*[:\-–]?\s*", "", out).strip()  # **Formal:** …
        for left, right in (('"', '"'), ("“", "”"), ("'", "'"), ("‘", "’"), ("`", "`")):
            if (
                len(out) >= 2
                and out.startswith(left)
                and (out.endswith(right) or out.endswith(right + ","))
            ):
                out = out[len(left) :].rstrip(",")[: -len(right)].strip()
        if out == before:
            break
    return out


def _clean_item(body: str, original: str) -> str:
    out = _unwrap(body)
    # notes after the paraphrase: "… May? This paraphrase conveys …", "… (more formal)"
    if original.rstrip().endswith("?") and "?" in out and not out.endswith("?"):
        out = out[: out.rfind("?") + 1]
    out = _TRAILING_NOTE.sub("", out).strip() if not out.startswith("(") else out
    out = _unwrap(out)
    return _WS.sub(" ", out).strip()


def parse_paraphrases(text: str, original: str) -> list[str]:
    """Paraphrases listed in a model's reply, in order.

    Parameters
    ----------
    text
        The reply to the paraphrase prompt.
    original
        The sentence that was paraphrased (dropped wherever it reappears).

    Returns
    -------
    Distinct paraphrases (case/whitespace-insensitive), without the original,
    empties, preamble lines ("Here are 9 paraphrases:") or numbering,
    bullets and quotes. May be empty.
    """
    if not text:
        return []
    lines = [ln.replace("**", "").replace("__", "") for ln in str(text).splitlines() if ln.strip()]
    items: list[str] = []
    listed = [m.group("body") for ln in lines if (m := _ITEM.match(ln))]
    if listed:
        items = listed
    else:
        for ln in lines:
            s = ln.strip()
            if s.endswith(":") or _PREAMBLE.match(s):
                continue
            quoted = [a or b for a, b in _QUOTED.findall(s)]
            if len(quoted) >= 2:
                items.extend(quoted)
            else:
                items.append(s)
    # one item holding several quoted sentences: "A?", "B?", "C?"
    expanded: list[str] = []
    for it in items:
        quoted = [a or b for a, b in _QUOTED.findall(it)]
        if len(quoted) >= 2 and sum(len(q) for q in quoted) >= 0.6 * len(it):
            expanded.extend(quoted)
        else:
            expanded.append(it)
    seen = {_key(original)}
    out: list[str] = []
    for it in expanded:
        cleaned = _clean_item(it, original)
        k = _key(cleaned)
        if not k or k in seen or cleaned.endswith(":"):
            continue
        seen.add(k)
        out.append(cleaned)
    return out


def _line_keys(text: str) -> list[str]:
    keys = []
    for ln in text.splitlines():
        if not ln.strip():
            continue
        m = _ITEM.match(ln.replace("**", ""))
        keys.append(_key(m.group("body") if m else ln))
    return keys


def enough_or_looping(text: str, original: str, n: int, *, repeats: int = 3) -> bool:
    """Stop rule for a streamed paraphrase reply (complete lines only).

    True once ``n`` distinct paraphrases are parsed, or when the last
    ``repeats`` lines all repeat the original or an earlier line (small models
    loop on one sentence until ``max_tokens``).
    """
    cut = text.rfind("\n")
    if cut < 0:
        return False
    complete = text[:cut]
    if len(parse_paraphrases(complete, original)) >= n:
        return True
    keys = _line_keys(complete)
    if len(keys) < repeats + 1:
        return False
    orig = _key(original)
    tail_start = len(keys) - repeats
    return all(k == orig or k in keys[:i] for i, k in enumerate(keys) if i >= tail_start)


def fit_to_n(items: list[str], n: int, rng: np.random.Generator) -> list[str]:
    """Exactly ``n`` items: sample ``n`` (order kept) when more, duplicate at random when fewer.

    Paper, "Perturbation Configuration".
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if not items:
        raise ValueError("no items to choose from")
    if len(items) >= n:
        keep = np.sort(rng.choice(len(items), size=n, replace=False))
        return [items[int(i)] for i in keep]
    extra = rng.choice(len(items), size=n - len(items), replace=True)
    return list(items) + [items[int(i)] for i in extra]


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
        :data:`SINGLE_TEMPERATURE` (1.0, ours) for ``"single"``, where the
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
        (:func:`enough_or_looping`), saving the rest of ``max_tokens``.
    system : system message before the paper's prompt (``None``: none; not in the paper).
    style : ``"list"``: the paper's one request for ``n`` paraphrases;
        ``"single"``: one per request (``prompts.paraphrase_one_messages``),
        ``n + 1`` concurrent requests, then more for repeats; ``"auto"``:
        ``"single"`` for backends declaring ``prefers_single_paraphrase``
        (the packaged local models), else ``"list"``.
    constructions : single style: request k asks for construction k of
        :data:`~invent_core.prompts.PARAPHRASE_CONSTRUCTIONS` (ours).
    premises_kept : single style: reword only the last sentence (:func:`split_premises`).
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
) -> tuple[_Asker, str]:
    """The asker for ``question`` and the premises kept out of the rewording ("" when none)."""
    asker = _Asker.build(question, llm, style=style, **opts)
    if asker.style != "single" or not premises_kept:
        return asker, ""
    premises, ask = split_premises(question)
    if not premises:
        return asker, ""
    return _Asker.build(ask, asker.model, style="single", **opts), premises


#: A sentence end: . ! or ? (a closing quote or bracket may follow), blanks, then a
#: capital, digit or opening quote. Decimals ("3.5") have no blank after the point.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[\"'“‘(]?[A-Z0-9])")
#: A point that ends an abbreviation, not a sentence ("U.S.", "Mr.", "etc." before a capital).
_ABBREVIATION = re.compile(
    r"(?:\b(?:[A-Za-z]\.){1,4}|\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|vs|No|Mt|Ft|Gen|Col|Lt|Sgt|Capt|"
    r"Prof|Inc|Ltd|Co|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.)$"
)


def split_premises(question: str) -> tuple[str, str]:
    """``(premises, ask)``: the sentences before the last one, and the last one.

    Ours, for the single style (small models). The paper rewords the whole
    question with GPT-3.5; asked to, the 0.5B returns the last sentence alone
    and drops the data before it (125 of 152 GSM8K candidates lost a number;
    ``scripts/measure_rewordings.py``). So the sentences before the last one (a
    word problem's data, a trivia question's setting) are kept word for word in
    every perturbation and only the last one is reworded and gated.

    Only a question whose last sentence ends with "?" and has at least three
    words is split; otherwise ``("", question)``. ``premises + " " + ask`` is
    the question with its blanks normalised at the one boundary.

    >>> split_premises("Amber ran 8 miles. Micah ran 3.5 times that. How far did Micah run?")
    ('Amber ran 8 miles. Micah ran 3.5 times that.', 'How far did Micah run?')
    >>> split_premises("Who was the U.S. President in 1901?")
    ('', 'Who was the U.S. President in 1901?')
    """
    text = question.strip()
    if not text.endswith("?"):
        return "", question
    cuts = [m for m in _SENTENCE_END.finditer(text) if not _ABBREVIATION.search(text[: m.start()])]
    if not cuts:
        return "", question
    premises, ask = text[: cuts[-1].start()].rstrip(), text[cuts[-1].end() :].strip()
    premises += text[cuts[-1].start() : cuts[-1].end()].strip()  # a closing quote or bracket
    if len(ask.split()) < 3 or not premises:
        return "", question
    return premises, ask


def _join_premises(premises: str, text: str) -> str:
    return f"{premises} {text}" if premises else text


def _with_premises(premises: str, on_accept: OnAccept | None) -> OnAccept | None:
    """``on_accept`` that is told the whole perturbation (premises + reworded last sentence)."""
    if not premises or on_accept is None:
        return on_accept
    return lambda index, text: on_accept(index, _join_premises(premises, text))


def _attach_premises(result: ParaphraseResult, premises: str) -> ParaphraseResult:
    """Put the kept premises back in front of every perturbation and candidate."""
    if not premises:
        return result
    result.perturbations = [_join_premises(premises, p) for p in result.perturbations]
    for rec in result.candidates:
        if rec.get("text"):
            rec["text"] = _join_premises(premises, rec["text"])
    result.acceptance["premises_kept"] = len(premises.split())
    return result


#: Sampling temperature of ``style="single"`` (ours; see :func:`paraphrase`).
SINGLE_TEMPERATURE = 1.0


@dataclass
class _Asker:
    """Sends paraphrase requests; every request gets the next replication index.

    ``ask(missing, limit)`` sends one round and returns, per reply, the
    paraphrases parsed from it (list style: all; single style: the reply's
    items, of which the first counts) with the raw reply.
    """

    question: str
    model: Any
    style: str
    n: int
    template: Any  # the Request of replication 0; rounds change only ``replication``
    stream: bool
    requests: int = 0
    constructions: bool = False  # single style: request k asks for construction k
    replies: list[str] = field(default_factory=list)
    on_reply: Callable[[int, int], None] | None = None  # progress(done, total) of a round

    @classmethod
    def build(cls, question: str, llm: Any, *, n: int, style: str, **opts: Any) -> _Asker:
        """Check the arguments, resolve ``style="auto"`` and build the request template."""
        if not question or not question.strip():
            raise ValueError("question is empty: nothing to paraphrase")
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        model = get_llm("local") if llm is None else get_llm(llm)
        if style == "auto":
            style = "single" if prefers_single_paraphrase(model) else "list"
        if style not in ("list", "single"):
            raise ValueError(f"unknown paraphrase style {style!r}: use 'auto', 'list' or 'single'")
        stream = opts.pop("stream")
        template = (_list_request if style == "list" else _single_request)(question, n=n, **opts)
        return cls(question, model, style, n, template, stream)

    @property
    def first_round(self) -> int:
        """Requests of the first round: one list, or ``n + 1`` single rewordings (one spare)."""
        return 1 if self.style == "list" else self.n + 1

    def _request(self, index: int) -> Any:
        """Request ``index``: the template with its replication (and construction) set."""
        from dataclasses import replace

        if not self.constructions:
            return replace(self.template, replication=index)
        messages = paraphrase_one_messages(self.question, construction=index)
        return replace(self.template, replication=index, messages=messages)

    def ask(self, missing: int, limit: int) -> list[tuple[list[str], str]]:
        """One round: (parsed paraphrases, raw reply) per reply, at most ``limit`` requests."""
        count = 1 if self.style == "list" else max(1, min(missing + 1, limit))
        reqs = [self._request(self.requests + k) for k in range(count)]
        self.requests += count
        if self.style == "list" and self.stream and isinstance(self.model, StreamingLLM):
            q, n = self.question, self.n
            texts = [
                self.model.complete_until(
                    reqs[0],
                    lambda text: enough_or_looping(text, q, n),
                    tag=f"paraphrase-enough-or-looping:n={n}",
                ).text
            ]
        else:
            texts = [c.text for c in self.model.complete_many(reqs, self.on_reply)]
        self.replies += texts
        return [(parse_paraphrases(t, self.question), t) for t in texts]


def _list_request(
    question: str,
    *,
    n: int,
    temperature: float | None,
    seed: int,
    max_tokens: int,
    frequency_penalty: float,
    system: str | None,
) -> Any:
    """Build the paper's list request (replication 0); re-asks change only ``replication``."""
    messages = ([{"role": "system", "content": system}] if system else []) + user(
        paraphrase_prompt(question, n)
    )
    return Request(
        messages=messages,
        temperature=PARAPHRASE_TEMPERATURE if temperature is None else temperature,
        seed=seed,
        max_tokens=max_tokens,
        frequency_penalty=frequency_penalty,
    )


def _single_request(
    question: str, *, n: int, temperature: float | None, seed: int, **_: Any
) -> Any:
    """One-rewording request (replication 0); its reply is about as long as the question."""
    return Request(
        messages=paraphrase_one_messages(question),
        temperature=SINGLE_TEMPERATURE if temperature is None else temperature,
        seed=seed,
        max_tokens=min(256, 16 + 4 * len(question.split())),
        tag="paraphrase-one",
    )


def _no_paraphrase(question: str, replies: list[str], why: str = "") -> LLMError:
    shown = " | ".join(r.strip().replace("\n", " ")[:120] for r in replies[:5])
    return LLMError(
        f"the LLM gave no usable paraphrase of {question!r} in {len(replies)} request(s)"
        f"{why} (replies: {shown!r}); try another --llm or the gaap perturber"
    )


def _ungated(
    question: str,
    asker: _Asker,
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
    seen = {_key(question)}
    for _round in range(max_requests):
        missing = n - len(found)
        if missing <= 0 or asker.requests >= budget:
            break
        for items, _raw in asker.ask(missing, budget - asker.requests):
            for item in items if asker.style == "list" else items[:1]:
                if _key(item) not in seen:
                    seen.add(_key(item))
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
    asker: _Asker,
    *,
    n: int,
    gate: GateConfig,
    similarity: Any,
    rng: np.random.Generator,
    on_accept: OnAccept | None,
) -> ParaphraseResult:
    """Pass rounds of candidates through the gate until ``n`` are accepted or the budget is spent."""
    budget = asker.first_round + gate.max_extra_requests
    accepted: list[str] = []
    verdicts: list[GateVerdict] = []
    records: list[dict[str, Any]] = []
    round_ = 0
    while len(accepted) < n and asker.requests < budget:
        missing = n - len(accepted)
        texts = _round_candidates(asker.ask(missing, budget - asker.requests), asker.style)
        judged = gate_candidates(
            texts, question, similarity=similarity, accepted=accepted, config=gate
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


def _round_candidates(replies: list[tuple[list[str], str]], style: str) -> list[str]:
    """Return one round's candidates: every listed paraphrase (list) or each reply (single).

    A single-style reply goes to the gate as it came (its
    :func:`~invent_core.perturb.gate.strip_wrappers` removes labels, quotes and
    notes, and records an echo as a duplicate); a list reply from which nothing
    parses is kept as one candidate, so the gate records why it was unusable
    instead of it vanishing.
    """
    out: list[str] = []
    for items, raw in replies:
        if style == "single" or not items:
            out.append(raw)
        else:
            out += items
    return out


def _choose(indices: list[int], k: int, rng: np.random.Generator) -> set[int]:
    """All of ``indices`` when at most ``k``, else ``k`` of them drawn at random."""
    if len(indices) <= k:
        return set(indices)
    return {int(i) for i in rng.choice(indices, size=k, replace=False)}
