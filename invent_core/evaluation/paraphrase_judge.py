"""The ``paraphrase`` correctness judge: right when the answer says what the reference says.

The rule judges of :mod:`invent_core.evaluation.correctness` need the reference's
own words; a model that answers "People with osteoporosis are at increased risk of
fractures" to a reference "bone fractures", or "Grasses" to "plants", is scored
wrong. The paper judges such answers with an LLM. This judge is offline and
explains itself: every call returns a :class:`Verdict` with its reason. For one
reference (each alias in turn; the first that accepts wins):

1. **Contained**: the normalised reference occurs in the answer (the SciQ rule).
2. **Numbers**: a reference that is a number ("four", "206", "forty-five") or a
   year range ("1547-1616") is matched by the answer's numbers, leaving out the
   numbers the question itself holds: "Mitosis occurs in 4 phases" is right for
   "four", "7 seasons" wrong for "6". An answer with no number goes on to 3.
3. **Words**: the reference's content words (no stop words) that the question does
   not already give ("ventral" of "ventral cavity" when the question says "body
   cavities") must each be matched by an answer word that is not an echo of the
   question: the same word after WordNet's morphology ("ovary" / "ovaries"), a
   synonym, derivation or pertainym ("sunlight" / "sun", "solar" → "sun",
   "slow" / "slowly"), or a kind of it ("grasses" / "plants", "dioxide" /
   "oxides"). A reference word the definition of a matched word names is implied
   ("fracture": "breaking of hard tissue such as bone" implies "bone").
   An answer word that abbreviates the reference ("G2" for "growth phase 2") matches.
4. Some words matched, others missing ("energy" for "activation energy"): the
   **undecided band** — wrong offline, or asked of an LLM judge
   (``paraphrase-llm`` in :func:`~invent_core.evaluation.correctness.judge_verdict`).
   No word matched: wrong.

Measured against hand labels (``tests/data/judge_labels/``, agreement in
``docs/results/judge_agreement.md``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from invent_core.responses.canonical import contains_span, normalize_answer

from ..text.function_words import ARTICLES, JUDGE_STOP_WORDS
from ..text.numbers import CARDINALS, SCALES, TENS
from .lexicon import Lexicon, default_lexicon

__all__ = ["Verdict", "paraphrase_verdict", "answer_tokens", "parse_number_phrase"]


@dataclass(frozen=True)
class Verdict:
    """A correctness judgement and why.

    ``decided`` is False in the paraphrase judge's undecided band (some words of the
    reference matched, not all): ``correct`` is then False unless an LLM judge decides.
    """

    correct: bool
    reason: str
    decided: bool = True


#: the scales the judge reads in a number written in words (up to "million")
_SCALES = {w: SCALES[w] for w in ("hundred", "thousand", "million")}
_YEARS = re.compile(r"^\s*(\d{3,4})\s*[-–]\s*(\d{3,4})\s*$")


def answer_tokens(text: str) -> list[str]:
    """Lower-case words and numbers of ``text``; articles and punctuation dropped.

    NFKC first ("r²" → "r2"), "π" read as "pi", a thousands comma kept inside a number,
    hyphens split words ("light-dependent" → "light", "dependent").
    """
    s = unicodedata.normalize("NFKC", str(text)).replace("π", " pi ").lower()
    s = re.sub(r"(?<=\d),(?=\d{3})", "", s)
    s = re.sub(r"[^\w.]+|_|(?<!\d)\.|\.(?!\d)", " ", s)
    return [t for t in s.split() if t not in ARTICLES]


def _content(tokens: Sequence[str]) -> list[str]:
    return [t for t in tokens if t not in JUDGE_STOP_WORDS]


def _word_numbers(words: Sequence[str]) -> list[float]:
    """Numbers written in words: "forty five" → 45, "one hundred and twenty" → 120."""
    out: list[float] = []
    total, current, inside = 0, 0, False
    for w in [*words, ""]:
        if w in CARDINALS or w in TENS:
            current += CARDINALS.get(w, 0) + TENS.get(w, 0)
            inside = True
        elif w in _SCALES and inside:
            total += max(current, 1) * _SCALES[w]
            current = 0
        elif w == "and" and inside:
            continue
        elif inside:
            out.append(float(total + current))
            total, current, inside = 0, 0, False
    return out


def numbers_in(tokens: Sequence[str]) -> list[float]:
    """The numbers of a token list, in digits or in words."""
    digits = [float(t) for t in tokens if re.fullmatch(r"\d+(?:\.\d+)?", t)]
    return digits + _word_numbers(tokens)


def parse_number_phrase(text: str) -> tuple[float, float] | None:
    """``(lo, hi)`` when ``text`` is only a number ("four", "206") or a year range, else None."""
    m = _YEARS.match(str(text))
    if m and int(m.group(1)) < int(m.group(2)):
        return float(m.group(1)), float(m.group(2))
    tokens = answer_tokens(text)
    words = [t for t in tokens if t != "and"]
    nums = numbers_in(tokens)
    is_number = all(
        re.fullmatch(r"\d+(?:\.\d+)?", t) or t in CARDINALS or t in TENS or t in _SCALES
        for t in words
    )
    if words and is_number and len(nums) == 1:
        return nums[0], nums[0]
    return None


def _fmt(x: float) -> str:
    return f"{x:g}"


def _number_verdict(
    response: list[str], span: tuple[float, float], question: list[str], ref: str
) -> Verdict | None:
    """Rule 2: the answer's own numbers against a numeric reference; None when it has none."""
    asked = set(numbers_in(question))
    got = [x for x in numbers_in(response) if x not in asked]
    if not got:
        return None
    lo, hi = span
    if all(lo <= x <= hi for x in got):
        return Verdict(True, f"the number {_fmt(got[0])} matches the reference {ref!r}")
    wrong = ", ".join(_fmt(x) for x in got if not lo <= x <= hi)
    return Verdict(False, f"the answer's number {wrong} is not the reference {ref!r}")


def _abbreviates(token: str, ref_tokens: Sequence[str]) -> bool:
    """``token`` is an abbreviation of the reference: "g2" for "growth phase 2".

    Its first letter is the reference's first initial, and what follows is a
    subsequence of the other initials holding every number of the reference.
    """
    if len(ref_tokens) < 2 or not re.fullmatch(r"[a-z]+\d*", token) or len(token) < 2:
        return False
    units = [t if t.isdigit() else t[0] for t in ref_tokens]
    if not token.startswith(units[0]):
        return False
    rest, i = token[len(units[0]) :], 0
    for u in units[1:]:
        if rest[i : i + len(u)] == u:
            i += len(u)
        elif u.isdigit():
            return False
    return i == len(rest)


def _word_match(ref_word: str, words: Sequence[str], lex: Lexicon) -> tuple[str, str] | None:
    """The answer word that matches ``ref_word`` and how, or None (rule 3)."""
    ref_forms = lex.lemmas(ref_word)
    for w in words:
        if lex.lemmas(w) & ref_forms:
            return w, "the same word"
    for w in words:
        if lex.lemmas(w) & lex.related(ref_word) or ref_forms & lex.related(w):
            return w, "a synonym or derived form (WordNet)"
    for w in words:
        if lex.is_kind_of(w, ref_word):
            return w, "a kind of it (WordNet)"
    return None


def _choice_verdict(response: str, ref: str, ref_words: list[str], lex: Lexicon) -> Verdict:
    """A reference made of the question's words ("quickly or slowly?"): the answer says only it.

    Every content word of the answer must match a reference word, so an answer that
    repeats the question ("song have told you lately i love you") is not enough.
    """
    said = _content(answer_tokens(response))
    if ref_words and said and all(_word_match(w, ref_words, lex) for w in said):
        return Verdict(True, f"names the reference {ref!r}, which the question offers")
    return Verdict(False, f"the reference {ref!r} (words of the question) is not the answer")


def _words_verdict(response: str, ref: str, question: str, lex: Lexicon) -> Verdict:
    """Rules 3 and 4 for one reference."""
    asked = {f for t in _content(answer_tokens(question)) for f in lex.lemmas(t)}
    ref_words = _content(answer_tokens(ref))
    needed = [r for r in ref_words if not lex.lemmas(r) & asked]
    if not ref_words or not needed:
        return _choice_verdict(response, ref, ref_words, lex)
    said = [w for w in _content(answer_tokens(response)) if not lex.lemmas(w) & asked]
    short = [w for w in said if _abbreviates(w, ref_words)]
    if short:
        return Verdict(True, f"{short[0]!r} abbreviates the reference {ref!r}")
    found = {r: m for r in needed if (m := _word_match(r, said, lex))}
    glosses = {f for w, _ in found.values() for f in lex.gloss_words(w)}
    missing = [r for r in needed if r not in found and not lex.lemmas(r) & glosses]
    how = "; ".join(f"{w!r} for {r!r}: {kind}" for r, (w, kind) in found.items())
    if found and not missing:
        implied = [r for r in needed if r not in found]
        more = f"; {', '.join(map(repr, implied))} implied by the definition" if implied else ""
        return Verdict(True, f"says the reference {ref!r} in other words ({how}{more})")
    if found:
        return Verdict(
            False,
            f"undecided: {how}, but nothing for {', '.join(map(repr, missing))} of {ref!r}",
            decided=False,
        )
    return Verdict(False, f"no word of the reference {ref!r} (nor a synonym or kind) in the answer")


def _one_reference(response: str, ref: str, question: str, lex: Lexicon) -> Verdict:
    """Rules 1-4 for one reference."""
    norm = normalize_answer(ref).split()
    echoed = contains_span(normalize_answer(question).split(), norm)  # no evidence then
    if norm and not echoed and contains_span(normalize_answer(response).split(), norm):
        return Verdict(True, f"the reference {ref!r} occurs in the answer")
    span = parse_number_phrase(ref)
    if span is not None:
        got = _number_verdict(answer_tokens(response), span, answer_tokens(question), ref)
        if got is not None:
            return got
    return _words_verdict(response, ref, question, lex)


def paraphrase_verdict(
    response: str,
    references: str | Sequence[str],
    *,
    question: str = "",
    lexicon: Lexicon | None = None,
) -> Verdict:
    """Judge ``response`` against every reference alias (the first acceptance wins).

    Parameters
    ----------
    response : the answer judged (the canonical answer to the original question).
    references : the reference answer or its aliases; text in brackets is dropped
        ("(John) CONSTABLE" → "CONSTABLE").
    question : the question, whose own words and numbers count neither for nor against.
    lexicon : WordNet by default (:func:`~invent_core.evaluation.lexicon.default_lexicon`).

    Returns
    -------
    Verdict. When no alias accepts: an undecided one if any alias was undecided,
    else the first alias's rejection.
    """
    lex = lexicon or default_lexicon()
    refs = [references] if isinstance(references, str) else list(references)
    refs = [r for r in (re.sub(r"\([^)]*\)", " ", str(x)).strip() for x in refs) if r]
    if not refs:
        raise ValueError("no reference answer given")
    verdicts = []
    for ref in refs:
        v = _one_reference(response, ref, question, lex)
        if v.correct:
            return v
        verdicts.append(v)
    return next((v for v in verdicts if not v.decided), verdicts[0])
