"""LLM paraphrasing: the paper's "ChatGPT-based paraphrasing" perturbation.

Prompt: ``Please Provide {n} paraphrases for this sentence: {sentence}`` at
temperature 0.7 (paper, Appendix app:setting). Models answer in many shapes
(numbered ``1.`` / ``1)`` lists, bullets, quotes, a preamble line, an echo of
the original, repeats); ``parse_paraphrases`` turns any of them into a clean
list. ``paraphrase`` returns exactly n: "When fewer than nine are generated,
we randomly duplicate existing perturbations; when more than nine are
produced, we randomly sample nine" (paper, "Perturbation Configuration").
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..errors import LLMError
from ..prompts import PARAPHRASE_SYSTEM, PARAPHRASE_TEMPERATURE, paraphrase_prompt

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


def paraphrase(
    question: str,
    *,
    llm: Any = None,
    n: int = 9,
    temperature: float | None = None,
    seed: int = 0,
    max_tokens: int = 400,
    max_requests: int = 3,
    frequency_penalty: float = 0.5,
    rng: np.random.Generator | None = None,
    stream: bool = True,
    system: str | None = PARAPHRASE_SYSTEM,
    style: str = "auto",
) -> list[str]:
    """``n`` paraphrases of ``question`` by the LLM.

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
    max_requests : when a reply yields fewer than ``n`` distinct paraphrases,
        ask again (another seed) up to this many requests (rounds for
        ``"single"``), then pad.
    frequency_penalty : 0.5, not in the paper (small models otherwise repeat one line).
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

    Returns
    -------
    Exactly ``n`` strings, none equal to ``question``; :class:`LLMError` if
    no request gave a usable paraphrase.
    """
    from ..llm import get_llm
    from ..llm.base import prefers_single_paraphrase

    if not question or not question.strip():
        raise ValueError("question is empty: nothing to paraphrase")
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if max_requests < 1:
        raise ValueError(f"max_requests must be >= 1, got {max_requests}")
    model = get_llm("local") if llm is None else get_llm(llm)
    rng = rng if rng is not None else np.random.default_rng(seed)
    if style == "auto":
        style = "single" if prefers_single_paraphrase(model) else "list"
    if style == "single":
        t = SINGLE_TEMPERATURE if temperature is None else temperature
        return _paraphrase_single(
            question, model, n=n, temperature=t, seed=seed, max_requests=max_requests, rng=rng
        )
    if style != "list":
        raise ValueError(f"unknown paraphrase style {style!r}: use 'auto', 'list' or 'single'")
    request = _list_request(
        question,
        n=n,
        temperature=PARAPHRASE_TEMPERATURE if temperature is None else temperature,
        seed=seed,
        max_tokens=max_tokens,
        frequency_penalty=frequency_penalty,
        system=system,
    )
    return _paraphrase_list(
        question, model, request, n=n, max_requests=max_requests, stream=stream, rng=rng
    )


def _list_request(
    question: str,
    *,
    n: int,
    temperature: float,
    seed: int,
    max_tokens: int,
    frequency_penalty: float,
    system: str | None,
) -> Any:
    """The paper's list request (replication 0); re-asks change only ``replication``."""
    from ..llm import Request, user

    messages = ([{"role": "system", "content": system}] if system else []) + user(
        paraphrase_prompt(question, n)
    )
    return Request(
        messages=messages,
        temperature=temperature,
        seed=seed,
        max_tokens=max_tokens,
        frequency_penalty=frequency_penalty,
    )


def _paraphrase_list(
    question: str,
    model: Any,
    request: Any,
    *,
    n: int,
    max_requests: int,
    stream: bool,
    rng: np.random.Generator,
) -> list[str]:
    """The paper's style: ask for a list, again (new seed) until ``n`` distinct, then pad."""
    from dataclasses import replace

    from ..llm.base import StreamingLLM

    found: list[str] = []
    seen: set[str] = set()
    replies: list[str] = []
    for k in range(max_requests):
        req = replace(request, replication=k)
        if stream and isinstance(model, StreamingLLM):
            reply = model.complete_until(
                req,
                lambda text: enough_or_looping(text, question, n),
                tag=f"paraphrase-enough-or-looping:n={n}",
            ).text
        else:
            reply = model.complete_many([req])[0].text
        replies.append(reply)
        for p in parse_paraphrases(reply, question):
            if _key(p) not in seen:
                seen.add(_key(p))
                found.append(p)
        if len(found) >= n:
            break
    return _finish(question, found, replies, n, rng)


#: Sampling temperature of ``style="single"`` (ours; see :func:`paraphrase`).
SINGLE_TEMPERATURE = 1.0


def _finish(
    question: str, found: list[str], replies: list[str], n: int, rng: np.random.Generator
) -> list[str]:
    """Exactly ``n`` from the distinct paraphrases found, or a clear error if there are none."""
    if not found:
        shown = " | ".join(r.strip().replace("\n", " ")[:120] for r in replies[:5])
        raise LLMError(
            f"the LLM gave no usable paraphrase of {question!r} in {len(replies)} request(s) "
            f"(replies: {shown!r}); try another --llm or the gaap perturber"
        )
    if question.rstrip().endswith("?"):
        # answers ("The capital of France is Paris.") are not paraphrases of a question
        asked = [p for p in found if p.endswith("?")]
        found = asked or found
    return fit_to_n(found, n, rng)


def _paraphrase_single(
    question: str,
    model: Any,
    *,
    n: int,
    temperature: float,
    seed: int,
    max_requests: int,
    rng: np.random.Generator,
) -> list[str]:
    """One paraphrase per request; rounds of requests until ``n`` distinct or ``max_requests`` rounds."""
    from ..llm import Request
    from ..prompts import paraphrase_one_messages

    messages = paraphrase_one_messages(question)
    max_tokens = min(
        256, 16 + 2 * len(question.split()) * 2
    )  # a rewording is about as long as the question
    found: list[str] = []
    seen: set[str] = {_key(question)}
    replies: list[str] = []
    replication = 0
    budget = (
        2 * n + 2
    )  # requests in all: a question with few rewordings is padded, not re-asked forever
    for _round in range(max_requests):
        missing = n - len(found)
        if missing <= 0 or replication >= budget:
            break
        count = min(missing + 1, budget - replication)  # one spare, for an echo or a repeat
        reqs = [
            Request(
                messages=messages,
                temperature=temperature,
                seed=seed,
                max_tokens=max_tokens,
                replication=replication + k,
                tag="paraphrase-one",
            )
            for k in range(count)
        ]
        replication += count
        for completion in model.complete_many(reqs):
            replies.append(completion.text)
            items = parse_paraphrases(completion.text, question)
            if items and _key(items[0]) not in seen:
                seen.add(_key(items[0]))
                found.append(items[0])
    return _finish(question, found, replies, n, rng)
