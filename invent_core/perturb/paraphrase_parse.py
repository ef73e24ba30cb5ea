"""A paraphrase reply read as a list, and a list fitted to exactly n.

Models answer the paper's list prompt in many shapes (numbered ``1.`` / ``1)``
lists, bullets, quotes, a preamble line, an echo of the original, repeats);
:func:`parse_paraphrases` turns any of them into a list of distinct strings.
:func:`enough_or_looping` stops a streamed reply early; :func:`fit_to_n` samples
or duplicates to exactly n (paper, "Perturbation Configuration");
:func:`round_candidates` is what one round of replies hands the gate.
"""

from __future__ import annotations

import re

import numpy as np

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


def item_key(text: str) -> str:
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
    seen = {item_key(original)}
    out: list[str] = []
    for it in expanded:
        cleaned = _clean_item(it, original)
        k = item_key(cleaned)
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
        keys.append(item_key(m.group("body") if m else ln))
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
    orig = item_key(original)
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


def round_candidates(replies: list[tuple[list[str], str]], style: str) -> list[str]:
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
