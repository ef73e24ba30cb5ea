"""Do two answers say the same thing? The rules that decide without a model.

Two answers to one question are compared cheapest first; each step either decides
(same / different) or passes the pair on:

1. **Surface**: equal up to blanks, case and a final full stop → same.
2. **Option letters** (:func:`answer_form`): with the MMLU options, an option's text
   counts as its letter and two letters are the same exactly when equal (``B`` and
   ``C`` are never merged); two texts that name no option are two non-answers.
3. **The kind of answer** (:func:`~invent_core.responses.kinds.kind_verdict`): yes/no
   by polarity ("Yes" / "Yes, botanically it is a fruit"), dates by containment
   ("November 1989" / "1989"), numbers by value in digits, words, fractions and
   percentages with units converted ("81" / "eighty-one", "100 °C" / "212 °F"),
   substances by symbol, formula or name ("CO2" / "carbon dioxide"), currencies by
   base and country ("Pound" / "Pound sterling" for the UK).
4. **Numbers in free text** (:func:`answer_form`): a worked line's result ("6 times 9
   equals 54.") against a number.
5. **Words**: the answer's words less the question's own words and filler; equal
   sets or one the initials of the other ("US" / "United States") are the same,
   different numbers different; then names and phrases
   (:func:`~invent_core.responses.phrases.phrase_verdict`: a surname and the full name,
   a head with and without its qualifier, a place with and without its region; a
   conflicting given name, two qualifiers of one head or two names sharing no word
   are different).
6. Everything else — two descriptions sharing no word ("Paris" / "The French
   capital"), a partial overlap of two sentences — is **undecided** (None) and goes
   to a model: the embedder's cosine, the user's NLI folder or an LLM judge
   (:mod:`invent_core.responses.same`).

Measured per kind of answer on ``tests/data/meaning/answer_pairs.json`` and on the
older ``tests/data/answer_pairs.json`` (``scripts/same_answer_score.py``). Pure: no
model, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..text.numbers import small_number_words
from ..text.stems import plural_stem
from ..text.tokens import word_tokens
from .canonical import format_number, option_letter, parse_option_letter
from .cleaning import strip_answer_decorations
from .kinds import kind_verdict
from .lexical import lexical_verdict
from .phrases import FILLER, name_like, phrase_verdict

__all__ = [
    "AnswerForm",
    "answer_form",
    "answer_words",
    "rule_verdict",
    "rouge_l",
]


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token lists (O(|a|·|b|) DP, O(|b|) memory)."""
    if not a or not b:
        return 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, start=1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def rouge_l(a: str, b: str) -> float:
    """ROUGE-L F-measure (β = 1) on lowercase word tokens.

    ``P = LCS / |b|``, ``R = LCS / |a|``, ``F = 2PR / (P + R)`` (Lin 2004);
    symmetric in a and b. Two empty token lists → 1.0; one empty → 0.0.

    Examples
    --------
    >>> round(rouge_l("the cat sat on the mat", "the cat lay on a mat"), 4)  # LCS 4 of 6 and 6
    0.6667
    """
    ta, tb = word_tokens(a), word_tokens(b)
    if not ta and not tb:
        return 1.0
    lcs = lcs_length(ta, tb)
    if lcs == 0:
        return 0.0
    p, r = lcs / len(tb), lcs / len(ta)
    return 2 * p * r / (p + r)


# --- canonical forms -----------------------------------------------------------------


@dataclass(frozen=True)
class AnswerForm:
    """What an answer says, where it has a form: ``kind`` and the canonical ``value``.

    ``kind`` is ``"number"`` (value: the number written plainly), ``"letter"``
    (an option letter), ``"yesno"`` (``"yes"`` / ``"no"``) or ``"text"`` (value:
    the cleaned answer).
    """

    kind: str
    value: str

    @property
    def structured(self) -> bool:
        """True for a number, a letter or yes/no: compared by value alone."""
        return self.kind != "text"


_NUM = r"-?\$?\s?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
#: a number alone, with a unit word or % after it ("224 hours", "25%", "$18")
_NUMBER_ALONE = re.compile(rf"^({_NUM})\s*(?:%|[a-zA-Z]+)?$")
#: the result of a worked line: "... = 54", "... equals 54", "... is 54", "Sum: 54" (the
#: last one; a colon not after a digit, so "3:16" is no result), a unit word and closing
#: LaTeX or brackets allowed after it ("= 336\\) hours")
_RESULT = re.compile(
    rf"(?:=|\bequals?\b|\bis\b|(?<![\d:]):)\s*({_NUM})\s*(?:\\?[)\]]\s*)?(?:%|[a-zA-Z]+)?\s*$"
)
_YES_NO = {"yes": "yes", "no": "no", "true": "yes", "false": "no"}
_SPELLED = small_number_words()  # "zero" … "twenty"
_LETTERS = 10  # option letters A–J: MMLU and its larger variants


def _number(text: str) -> str:
    value = float(re.sub(r"[$,\s]", "", text))
    return format_number(value)


_INITIAL_NAME = re.compile(r"^[A-Z]\.\s?[A-Z]")


def _letter_alone(short: str) -> str | None:
    """An option letter without the options; a name with initials ("G. Orwell") is no letter."""
    if _INITIAL_NAME.match(short) and name_like(short):
        return None
    return parse_option_letter(short, _LETTERS)


def answer_form(text: str, *, choices: Sequence[str] | None = None) -> AnswerForm:
    """The canonical form of one answer (see the module docstring).

    Examples
    --------
    >>> answer_form("1,001"), answer_form("6 times 9 equals 54.")
    (AnswerForm(kind='number', value='1001'), AnswerForm(kind='number', value='54'))
    >>> answer_form("(B) Venus"), answer_form("Venus", choices=["Mars", "Venus"])
    (AnswerForm(kind='letter', value='B'), AnswerForm(kind='letter', value='B'))
    """
    short = strip_answer_decorations(" ".join(str(text).split()))
    letter = option_letter(short, choices) if choices else _letter_alone(short)
    if letter is not None:
        return AnswerForm("letter", letter)
    low = short.lower().rstrip("!.")
    if low in _YES_NO:
        return AnswerForm("yesno", _YES_NO[low])
    if low in _SPELLED:
        return AnswerForm("number", str(_SPELLED[low]))
    m = _NUMBER_ALONE.match(short) or _RESULT.search(short)
    if m:
        return AnswerForm("number", _number(m.group(1)))
    return AnswerForm("text", short)


# --- words ---------------------------------------------------------------------------


def answer_words(text: str, question: str = "") -> frozenset[str]:
    """The answer's own words: stemmed, less filler and the question's words.

    Not :func:`invent_core.text.function_words.content_words` (what a question asks
    about): an answer keeps short words ("US", "Li") and drops what its question says.

    When nothing is left (the answer only restates the question), the answer's
    words less filler are returned instead, so an echo still has a content.
    """
    mine = {plural_stem(w) for w in word_tokens(text)} - FILLER
    asked = {plural_stem(w) for w in word_tokens(question)}
    return frozenset(mine - asked) or frozenset(mine)


def _numbers(words: frozenset[str]) -> frozenset[str]:
    return frozenset(w for w in words if w.isdigit())


def _initials(words: Sequence[str]) -> str:
    return "".join(w[0] for w in words if w)


def _acronym(a: str, b: str) -> bool:
    """True when one answer is the initials of the other ("US" / "United States")."""
    ta, tb = word_tokens(a), word_tokens(b)
    if len(ta) == 1 and len(tb) > 1:
        return ta[0] == _initials(tb)
    if len(tb) == 1 and len(ta) > 1:
        return tb[0] == _initials(ta)
    return False


def _forms_verdict(fa: AnswerForm, fb: AnswerForm) -> bool | None:
    """Step 1: two structured forms decide; a structured and a textual one, mostly too."""
    if fa.structured and fb.structured:
        return fa == fb
    if fa.structured or fb.structured:
        form, text = (fa, fb) if fa.structured else (fb, fa)
        if form.kind == "number":
            said = _numbers(frozenset(word_tokens(text.value.replace(",", ""))))
            return None if form.value in said else False
        return None  # a letter beside text the options did not map: a model decides
    return None


def _choice_verdict(fa: AnswerForm, fb: AnswerForm, choices: Sequence[str] | None) -> bool | None:
    """With options, only a letter answers: two texts that name none are two non-answers."""
    if choices and not fa.structured and not fb.structured:
        return False
    return None


def _words_verdict(question: str, a: str, b: str) -> bool | None:
    """Step 3: the words (equal, initials, other numbers), then names and phrases.

    Equal content words or initials → same; other numbers → different; the rest is
    :func:`~invent_core.responses.phrases.phrase_verdict`'s.
    """
    wa, wb = answer_words(a, question), answer_words(b, question)
    na, nb = _numbers(wa), _numbers(wb)
    if na and nb and na != nb:
        return False
    if _NEGATED.search(f"{a} {b}".lower()) and word_tokens(a) != word_tokens(b):
        return None  # "Paris, not Lyon" / "Lyon, not Paris": one bag of words, two answers
    if wa == wb or _acronym(a, b):
        return True
    decided = phrase_verdict(question, a, b)
    ca, cb = _named(a), _named(b)
    if decided is None and (ca, cb) != (a, b):
        decided = phrase_verdict(question, ca, cb)
    return lexical_verdict(a, b) if decided is None else decided


_NEGATED = re.compile(r"\b(?:not|never|no|cannot)\b|n't\b")
#: the name a sentence ends in after its verb: "Nigeria's capital is Lagos" → "Lagos"
_SAID_NAME = re.compile(r"\b(?:is|are|was|were)\s+([A-Z][\w'’-]*(?:\s[A-Z][\w'’-]*){0,3})$")
#: a reply longer than this is no short sentence naming its answer
_SENTENCE_CHARS = 200


def _named(text: str) -> str:
    """The name a short sentence gives as its answer, or the text itself."""
    if len(text) > _SENTENCE_CHARS:
        return text
    m = _SAID_NAME.search(text.strip())
    return m.group(1).strip() if m and name_like(m.group(1)) else text


def _surface(text: str) -> str:
    """Blanks collapsed, case folded, trailing full stops and blanks dropped.

    Two replies that differ only there are one reply (a cut reply lost its final ".").
    """
    return " ".join(text.split()).casefold().rstrip(". ")


def rule_verdict(
    question: str, a: str, b: str, *, choices: Sequence[str] | None = None
) -> bool | None:
    """True (same answer), False (different) or None (undecided: a model's turn).

    Parameters
    ----------
    question : the question both answer (its words are not evidence of sameness).
    a, b : the two answers (raw, cleaned or canonical).
    choices : the MMLU options in letter order, when there are any.

    Examples
    --------
    >>> rule_verdict("What is 2 plus 6?", "8", "The answer is 8.")
    True
    >>> rule_verdict("What is 2 plus 6?", "8", "10"), rule_verdict("Q?", "B", "C")
    (False, False)
    >>> rule_verdict("Capital of Nigeria?", "Lagos", "Abuja")
    False
    >>> rule_verdict("How many continents are there?", "7", "seven continents")
    True
    """
    if _surface(a) == _surface(b):
        return True
    fa, fb = answer_form(a, choices=choices), answer_form(b, choices=choices)
    if choices:
        decided = _forms_verdict(fa, fb)
        return decided if decided is not None else _choice_verdict(fa, fb, choices)
    ka, kb = strip_answer_decorations(a.strip()), strip_answer_decorations(b.strip())
    decided = kind_verdict(question, ka, kb)  # before letters: "C" may be carbon
    if decided is not None or "letter" in (fa.kind, fb.kind):
        return decided if decided is not None else _forms_verdict(fa, fb)
    decided = _forms_verdict(fa, fb)
    if decided is None:
        decided = _words_verdict(question, fa.value, fb.value)
    return decided
