"""Canonical answers: one form per task before anything is embedded or judged.

A cleaned response (:func:`invent_core.responses.cleaning.clean_response`) still comes in
many forms for one meaning: ``A``, ``A.``, ``(A)``, ``The answer is A``,
``A. Wrong, Wrong`` and ``Wrong, Wrong`` all choose option A; ``$1,000``,
``1000.0`` and ``The total is 1000.`` are one number. The random walk would
measure that formatting, not disagreement, so every method, the walk and the
correctness judge read :func:`canonical_answer` instead:

- MMLU → the option letter (``"A"``), from a letter in any of the forms above
  or from the text of exactly one option;
- GSM8K → the final number, written plainly (``"1000"``, ``"2.5"``, ``"-3"``);
- open QA → the cleaned short answer with decorations and a trailing period
  removed; case and articles are kept (the embedders are uncased, and dropping
  "The" would change "The Who").

A response that cannot be mapped keeps its cleaned text and has
``mapped=False``. The raw and cleaned texts stay in the run artefact.

The parsing helpers here (:func:`normalize_answer`, :func:`parse_option_letter`,
:func:`option_letter`, :func:`parse_last_number`) are also what the rule-based
correctness judge (:mod:`invent_core.evaluation.correctness`) uses, so the judge
and the walk can never read an answer differently.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..prompts import TASKS
from .cleaning import strip_answer_decorations

__all__ = [
    "Canonical",
    "canonical_answer",
    "canonical_answers",
    "normalize_answer",
    "parse_option_letter",
    "option_letter",
    "parse_last_number",
    "format_number",
]


@dataclass(frozen=True)
class Canonical:
    """The canonical form of one response.

    Attributes
    ----------
    text : the canonical answer (MMLU letter, GSM8K number, QA short answer), or
        the cleaned text itself when it could not be mapped.
    mapped : False when the response names no option (MMLU), holds no number
        (GSM8K) or is empty.
    """

    text: str
    mapped: bool


# --- text normalisation ------------------------------------------------------------

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = set(string.punctuation)
_EDGE_PUNCT = '.,;:!?()[]"“”'


def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lowercase, drop punctuation and articles, collapse spaces.

    >>> normalize_answer("The  Eiffel-Tower!")
    'eiffeltower'
    """
    s = str(text).lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def light_normalize(text: str) -> str:
    """Casefold, collapse whitespace, strip sentence punctuation at token edges.

    The fallback when SQuAD normalisation erases the answer ("A+" -> "", "~P" -> "p")
    or merges different MMLU options ("15.6" and "156", "ΔG < 0" and "ΔG > 0").
    """
    tokens = (t.strip(_EDGE_PUNCT) for t in str(text).casefold().split())
    return " ".join(t for t in tokens if t)


def contains_span(haystack: list[str], needle: list[str]) -> bool:
    """Tell whether ``needle`` occurs as a contiguous run of tokens in ``haystack``."""
    n = len(needle)
    if n == 0:
        return False
    return any(haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))


# --- MMLU --------------------------------------------------------------------------

_LETTER_ALONE = re.compile(r"^\s*[\(\[]?([A-Z])[\)\]]?\s*[.:]?\s*$")
_LETTER_LEAD = re.compile(r"^\s*[\(\[]?([A-Z])(?:[\)\]]|[.:])\s")
_LETTER_SAID = re.compile(
    r"\b(?i:answer|option|choice)\s*(?i:is)?\s*[:\-]?\s*[\(\[]?([A-Z])\b[\)\]]?"
)  # the letter itself is case-sensitive: "the answer is a bird" names no option


def parse_option_letter(response: str, n_choices: int) -> str | None:
    """Return the option letter a response gives, or None.

    Recognised: a bare letter ("C", "(C)", "C."), a leading letter with ")" "." or ":"
    ("C) Paris", "C. Paris") and "answer/option/choice (is) C". A capital "A" followed
    by a plain space ("A cell …") is the article, not an option. Letters beyond the
    number of choices are ignored.
    """
    valid = {chr(ord("A") + i) for i in range(n_choices)}
    for pattern in (_LETTER_ALONE, _LETTER_LEAD, _LETTER_SAID):
        m = pattern.search(response)
        if m and m.group(1).upper() in valid:
            return m.group(1).upper()
    return None


def choice_normalizer(choices: Sequence[str]) -> Callable[[str], str]:
    """SQuAD normalisation if it keeps the options distinct and non-empty, else light."""
    squad = [normalize_answer(c) for c in choices]
    if all(squad) and len(set(squad)) == len(squad):
        return normalize_answer
    return light_normalize


def option_letter(response: str, choices: Sequence[str]) -> str | None:
    """Return the option a response chooses: its letter, else the text of exactly one option.

    Parameters
    ----------
    response : the (cleaned) answer.
    choices : the option texts, in letter order A, B, C, …

    Returns
    -------
    The letter ("A" …) or None. A letter, when one is found
    (:func:`parse_option_letter`), decides. Otherwise the options whose normalised
    text occurs in the response are collected; an option contained in another found
    option ("wrong wrong" in "not wrong wrong") is dropped; exactly one must remain.

    Examples
    --------
    >>> opts = ["Wrong, Wrong", "Wrong, Not wrong", "Not wrong, Wrong", "Not wrong, Not wrong"]
    >>> option_letter("B. Wrong, Not wrong", opts), option_letter("Not wrong, Wrong", opts)
    ('B', 'C')
    """
    letter = parse_option_letter(response, len(choices))
    if letter is not None:
        return letter
    normalize = choice_normalizer(choices)
    resp = normalize(response)
    norm = [normalize(c) for c in choices]
    if resp in norm:
        return chr(ord("A") + norm.index(resp))
    tokens = resp.split()
    found = [i for i, c in enumerate(norm) if c and contains_span(tokens, c.split())]
    found = [
        i
        for i in found
        if not any(j != i and contains_span(norm[j].split(), norm[i].split()) for j in found)
    ]
    return chr(ord("A") + found[0]) if len(found) == 1 else None


# --- numbers -----------------------------------------------------------------------

# thousands groups ("1,234,567") or plain digits, optional decimals; sign kept
_NUMBER = re.compile(r"(?<![\w.])-?\$?\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?")


def parse_last_number(text: str) -> float | None:
    """Return the last number in ``text`` as a float, or None.

    Handles "1,000", "$18", "18.0", "18." (sentence end), "-5", "25%", "18 dollars".
    A "####" marker, if present, restricts the search to the text after it.
    """
    if "####" in text:
        text = text.rsplit("####", 1)[1]
    matches = list(_NUMBER.finditer(text))
    if not matches:
        return None
    m = matches[-1]
    whole = m.group(1).replace(",", "")
    value = float(whole + (m.group(2) or ""))
    return -value if m.group(0).lstrip().startswith("-") else value


def format_number(value: float) -> str:
    """Write a number plainly: ``18.0`` → ``"18"``, ``2.50`` → ``"2.5"``, ``-0.0`` → ``"0"``."""
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))


# --- one step per task ---------------------------------------------------------------

_WS = re.compile(r"\s+")


def canonical_answer(cleaned: str, *, task: str, choices: Sequence[str] | None = None) -> Canonical:
    """Return the canonical form of one cleaned response for ``task``.

    Parameters
    ----------
    cleaned : the response after :func:`invent_core.responses.cleaning.clean_response`
        (a raw reply works too: the parsers look for the answer inside it).
    task : ``"mmlu"``, ``"gsm8k"`` or ``"qa"`` (:data:`invent_core.prompts.TASKS`).
    choices : the MMLU options in letter order; required for ``"mmlu"``.

    Returns
    -------
    Canonical(text, mapped). Unmappable responses keep their (whitespace-collapsed)
    text with ``mapped=False``.

    Examples
    --------
    >>> canonical_answer("The answer is (B).", task="mmlu", choices=["x", "y"])
    Canonical(text='B', mapped=True)
    >>> canonical_answer("$1,000.00", task="gsm8k")
    Canonical(text='1000', mapped=True)
    >>> canonical_answer("Canberra.", task="qa")
    Canonical(text='Canberra', mapped=True)
    """
    text = _WS.sub(" ", str(cleaned or "")).strip()
    if task == "mmlu":
        if not choices:
            raise ValueError("task 'mmlu' needs choices (the answer options)")
        letter = option_letter(text, choices) if text else None
        return Canonical(letter, True) if letter else Canonical(text, False)
    if task == "gsm8k":
        value = parse_last_number(text)
        return (
            Canonical(format_number(value), True) if value is not None else Canonical(text, False)
        )
    if task == "qa":
        short = strip_answer_decorations(text)
        return Canonical(short, True) if short else Canonical(text, False)
    raise ValueError(f"unknown task {task!r}: choose one of {', '.join(TASKS)}")


def canonical_answers(
    cleaned: Sequence[str], *, task: str, choices: Sequence[str] | None = None
) -> list[Canonical]:
    """:func:`canonical_answer` of each response (one state's r replications, say)."""
    return [canonical_answer(t, task=task, choices=choices) for t in cleaned]
