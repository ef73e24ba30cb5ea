r"""Response cleaning (pure functions).

The paper, Appendix "LLM Configuration" (app:setting): "(i) remove the echoed
question if present, (ii) delete formatting tokens (e.g. [INST], [/INST], #)
and any trailing text, and (iii) retain only the first non-empty line after
trimming whitespace." Example: ``"What is the capital of France? \\n Paris
[/INST]# \\nIt is a major European city"`` → ``"Paris"``.

Added here for short-answer prompts: a leading ``Answer:`` / ``A:`` / ``The
answer is`` is dropped, as are Markdown bold/italics, wrapping quotes and a
trailing period (kept on abbreviations such as ``Washington D.C.``).
"""

from __future__ import annotations

import re

from ..llm.thinking import split_thinking
from ..prompts import GSM8K_SUFFIX, QA_SUFFIX
from ..text.function_words import ECHO_FUNCTION_WORDS
from ..text.stems import s_stem
from ..text.tokens import LETTERS, NUMBER

#: chat-template and formatting tokens; the text from the first one on is dropped.
FORMAT_TOKENS: tuple[str, ...] = (
    "[INST]",
    "[/INST]",
    "<|im_end|>",
    "<|im_start|>",
    "<|eot_id|>",
    "<|end_of_text|>",
    "<|endoftext|>",
    "<|assistant|>",
    "<|user|>",
    "</s>",
    "<s>",
    "```",
)

_WS = re.compile(r"\s+")
# '#' that starts a Markdown heading or follows a token ("[/INST]#"), not C# / F#.
_HASH = re.compile(r"(?<![A-Za-z0-9+])#")
_PREFIX = re.compile(
    r"^(?:(?:final\s+)?answer|a|a2|response|result|output)\s*[:：]\s*|^the\s+(?:final\s+|correct\s+)?answer\s+is\s*[:：]?\s*",
    re.IGNORECASE,
)
_QUOTES = [('"', '"'), ("'", "'"), ("“", "”"), ("‘", "’"), ("`", "`"), ("«", "»")]
_ABBREV_END = re.compile(r"(?:\b[A-Za-z]\.){2,}$|\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Inc|Ltd|Co|vs|etc)\.$")


def _norm(text: str) -> str:
    return _WS.sub(" ", text).strip().casefold()


def remove_echo(text: str, question: str | None) -> str:
    """Drop an echoed question (and echoed answer-prompt suffixes) from the start of ``text``.

    Matching ignores case and whitespace differences; the echo may also be a
    whole line anywhere before the answer.
    """
    if not text:
        return text
    candidates = [s for s in (question, QA_SUFFIX, GSM8K_SUFFIX) if s and s.strip()]
    changed = True
    out = text.lstrip()
    while changed:
        changed = False
        for cand in candidates:
            pattern = r"\s+".join(re.escape(tok) for tok in cand.split())
            m = re.match(pattern, out, flags=re.IGNORECASE)
            if m:
                out = out[m.end() :].lstrip()
                changed = True
    if question and question.strip():
        qn = _norm(question)
        lines = [ln for ln in out.splitlines() if _norm(ln) != qn]
        out = "\n".join(lines)
    return out


def cut_format_tokens(text: str) -> str:
    """Remove formatting tokens: leading ones are stripped, the text from the first inner one on is dropped."""
    out = text
    # strip tokens / '#' marks that only open the text
    while True:
        s = out.lstrip()
        for tok in FORMAT_TOKENS:
            if s.startswith(tok):
                s = s[len(tok) :]
                break
        else:
            if s.startswith("#"):
                s = s.lstrip("#")
            else:
                break
        out = s
    cut = len(out)
    for tok in FORMAT_TOKENS:
        i = out.find(tok)
        if i != -1:
            cut = min(cut, i)
    m = _HASH.search(out)
    if m is not None:
        cut = min(cut, m.start())
    return out[:cut]


def first_line(text: str) -> str:
    """The first non-empty line, whitespace-trimmed ("" if none)."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def strip_answer_decorations(text: str) -> str:
    """Drop ``Answer:``-style prefixes, Markdown emphasis, wrapping quotes and a trailing period."""
    out = text.strip()
    for _ in range(3):
        before = out
        out = _PREFIX.sub("", out).strip()
        for mark in ("**", "__", "*"):
            if len(out) > 2 * len(mark) and out.startswith(mark) and out.endswith(mark):
                out = out[len(mark) : -len(mark)].strip()
        out = re.sub(r"\*\*(.+?)\*\*", r"\1", out)
        for left, right in _QUOTES:
            if len(out) >= 2 and out.startswith(left) and out.endswith(right):
                out = out[len(left) : -len(right)].strip()
        # quoted answer followed by a period: "Paris".
        for left, right in _QUOTES:
            if len(out) >= 3 and out.startswith(left) and out.endswith(right + "."):
                out = out[len(left) : -len(right) - 1].strip()
        if out.endswith(".") and not out.endswith("..") and not _ABBREV_END.search(out):
            out = out[:-1].rstrip()
        if out == before:
            break
    return out


def clean_response(text: str | None, question: str | None = None) -> str:
    r"""Clean one raw LLM answer (paper, app:setting, "LLM Configuration").

    Parameters
    ----------
    text
        Raw completion text.
    question
        The question that was asked (to remove an echo of it).

    Returns
    -------
    The answer: first non-empty line with echo, formatting tokens, trailing
    text and decorations removed; ``""`` when nothing is left.

    Examples
    --------
    >>> clean_response("What is the capital of France?\n Paris [/INST]#\nIt is a major city",
    ...                "What is the capital of France?")
    'Paris'
    """
    if not text:
        return ""
    # a reasoning model's trace is not the answer (also in answers read from a file)
    out = remove_echo(split_thinking(str(text))[0], question)
    out = cut_format_tokens(out)
    out = first_line(out)
    return strip_answer_decorations(out)


# --- non-answers -------------------------------------------------------

#: words an echo may add without answering ("the city of Ljubljana", "a person")
_GENERIC = frozenset(
    "city town country place river person people man woman name one thing answer question "
    "known called located through flows flow also".split()
)
_OPERATION = re.compile(
    r"[+\-×*/÷]|\b(?:sum|add|adding|addition|plus|minus|subtract\w*|difference|times|"
    r"multipl\w*|product|divid\w*|quotient)\b",
    re.IGNORECASE,
)


#: words a bare calculation may hold besides numbers and operations ("How much is 6 times 9?"),
#: its rewordings' polite wrappers included ("Can you tell me what 17 plus 25 is?")
_CALCULATION = frozenset(
    "calculate compute work out result total equal equals much many value "
    "tell me know please give find answer".split()
)


def bare_calculation(question: str) -> bool:
    """True for a question that is only a calculation: two numbers or more, no other topic.

    >>> bare_calculation("Can you tell me what 17 plus 25 is?")
    True
    >>> bare_calculation("How many legs do 3 spiders have?")
    False
    """
    if len(NUMBER.findall(question)) < 2:
        return False
    words = [w for w in LETTERS.findall(question.casefold()) if w not in ECHO_FUNCTION_WORDS]
    return bool(words) and all(w in _CALCULATION or _OPERATION.fullmatch(w) for w in words)


_OFFERS_CHOICE = re.compile(r"\bor\b|\bwhich of\b|\bbetween\b|[:;]", re.IGNORECASE)


def _stems(text: str) -> set[str]:
    out = set()
    for w in LETTERS.findall(text.casefold()):
        if w not in ECHO_FUNCTION_WORDS:
            out.add(s_stem(w))
    return out


def non_answer(cleaned: str, question: str | None, *, task: str = "qa") -> str | None:
    """Why a cleaned reply is not an answer, or None when it is one.

    ``"echo"``: every content word of the reply is in the question (or is a
    generic word such as "city"): "The river flows through the city of
    Ljubljana" to "Which river flows through Ljubljana?", "Dracula" to "Who wrote
    Dracula?". ``"operation"``
    (numeric tasks, and a free-answer question that is only a calculation,
    :func:`bare_calculation`): the reply names the operation but gives no number
    beyond the question's ("Sum 18 and 25", "18 + 25", "Addition"). An empty reply is
    not flagged here (the canonical step leaves it unmapped), nor is a one-word
    reply taken from a question that offers a choice ("Venus" to "Which is
    larger, Mars or Venus?").

    Examples
    --------
    >>> non_answer("The river flows through the city of Ljubljana", "Which river flows through Ljubljana?")
    'echo'
    >>> non_answer("18 + 25", "What is 18 plus 25?", task="gsm8k")
    'operation'
    >>> non_answer("43", "What is 18 plus 25?", task="gsm8k") is None
    True
    >>> non_answer("Addition", "What is 18 plus 25?")  # a question typed in: task qa
    'operation'
    """
    if not cleaned or not cleaned.strip() or not question:
        return None
    if task == "gsm8k" or (task == "qa" and bare_calculation(question)):
        own = {n.replace(",", "") for n in NUMBER.findall(question)}
        if "=" in cleaned:  # "6 - 3 = 3": a worked result, even one equal to an operand
            return None
        new = [n for n in NUMBER.findall(cleaned) if n.replace(",", "") not in own]
        if not new and _OPERATION.search(cleaned):
            return "operation"
        return None
    if task != "qa":
        return None
    words = _stems(cleaned)
    if not words or not words <= _stems(question) | _GENERIC:
        return None
    # one word of the question answers it where the question offers a choice ("Mars or Venus")
    return "echo" if len(words) >= 2 or not _OFFERS_CHOICE.search(question) else None
