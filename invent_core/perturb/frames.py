"""The question proper inside a polite frame, and what the frame makes of it.

"Can you tell me what the capital is?" asks what "what the capital is" asks;
"Do you know if …" turns a question into a yes/no one, "Tell me about …" and
"Can you describe …" into a request for an account. The meaning rules read the
kind of answer and the roles of a question after its frame.
"""

from __future__ import annotations

import re

from ..text.tokens import words_or_numbers as _words

__all__ = ["WH_WORDS", "final_sentence", "question_proper"]

WH_WORDS = frozenset("what which who whom whose where when why how".split())


#: a polite frame before the question proper ("Can you tell me", "Do you know", "Tell me,")
_FRAME = re.compile(
    r"^\W*(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?"
    r"(?:tell|say|show)(?:\s+to)?\s+me|do\s+you\s+(?:happen\s+to\s+)?know|"
    r"(?:please\s+)?tell\s+me|i\s+wonder|i\s*(?:'d|would)\s+like\s+to\s+know)\b[\s,:]*",
    re.IGNORECASE,
)
#: a frame that asks for an account rather than an answer, unless a wh-word follows
_ACCOUNT = re.compile(
    r"^\W*(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:describe|explain|discuss|summari[sz]e)\b\s*",
    re.IGNORECASE,
)
#: a yes/no question where the original asked for a thing ("Do you know if …", "Is it true that")
_POLAR = re.compile(r"^\W*(?:(if|whether)|is\s+it\s+true\s+that|is\s+it\s+the\s+case)\b", re.I)


#: a wh-clause after a condition: "Do you know if they have 165 together, how many …" asks how many
_WH_CLAUSE = re.compile(
    rf"[,;:]\s*(?:(?:in|on|at|for|from|to|by)\s+)?(?:{'|'.join(sorted(WH_WORDS))})\b"
    r"|\bhow\s+(?:many|much|long|far|old|often|big)\b|\b(?:what|which)\s+(?:is|are|was|were|do|does|did)\b",
    re.I,
)


def final_sentence(text: str) -> str:
    """The last sentence of a text: the question after its premises ("… is 5:6. If …, how many …?")."""
    parts = [p for p in re.split(r"(?<=[.!?])\s+(?=[A-Z\"'])", text.strip()) if _words(p)]
    return parts[-1] if parts else text


def question_proper(text: str) -> tuple[str, str | None]:
    """The question without its polite frame, and what the frame makes of it.

    ``("what the capital is", None)`` for "Can you tell me what the capital
    is?"; the second item is ``"polar"`` for a yes/no question ("Do you know
    if …", "Is it true that …") and ``"account"`` for a request to describe or
    tell about ("Tell me about …", "Can you describe …") where the original
    asks for an answer.
    """
    framed = _FRAME.match(text)
    rest = text[framed.end() :] if framed else text
    polar = _POLAR.match(rest)
    if polar and (framed or polar.group(1) is None) and not _WH_CLAUSE.search(rest):
        return rest, "polar"  # "If …" with no frame before it is a condition
    account = _ACCOUNT.match(rest)
    if account:
        rest = rest[account.end() :]
        return rest, (None if rest[:1] and _first_is_wh(rest) else "account")
    if framed and re.match(r"^\W*about\b", rest, re.I):
        return rest, "account"
    return rest, None


def _first_is_wh(text: str) -> bool:
    w = _words(text)
    return bool(w) and (w[0] in WH_WORDS or w[0] in ("to", "in", "on", "at", "from"))
