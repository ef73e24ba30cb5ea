"""Names and phrases compared by their words: a part of a name, a head with a qualifier.

:func:`phrase_verdict` decides what the words support and nothing more:

- one answer's words inside the other's are the same answer: a surname and the full
  name ("Einstein" / "Albert Einstein", titles dropped), the bare head and the head
  with a qualifier ("Pacific" / "Pacific Ocean"), a place and its region
  ("Canberra" / "Canberra, ACT");
- one person's name against another with the same surname compares the given names:
  an initial matches the name it begins ("C. R. Darwin" / "Charles Robert Darwin"), a
  conflicting given name or initial is another person ("Neil" / "Louis Armstrong",
  "George H. W." / "George W. Bush");
- two qualifiers of one head are two answers ("Pacific Ocean" / "Atlantic Ocean",
  "sexual" / "asexual reproduction"); two names sharing no word are two answers
  ("Lagos" / "Abuja");
- everything else — above all two descriptions sharing no word ("Paris" / "The
  French capital") — is undecided (None): a model decides.

Pure: the word lists are :mod:`invent_core.responses.answer_tables`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from ..text.stems import plural_stem as stem  # answers' light plural stem
from ..text.tokens import WORD as _TOKEN
from .answer_tables import PARTICLES, TITLES

__all__ = ["name_like", "phrase_verdict", "phrase_words", "stem"]

#: words that say nothing about which answer is given: articles, copulas, filler verbs
FILLER = frozenset(
    "a an the of is are was were be been it its this that these those which who what "
    "called known named referred to as and or in on at by for from with into than "
    "answer answers term process type kind form there here have has had".split()
)
#: difflib ratio at or above which two words are one word misspelt ("Hidrogen" / "Hydrogen"
#: 0.88; "Paris" / "Parma" 0.6): such a pair is left to a model instead of called different
NEAR_SPELLING = 0.8
#: an answer longer than this many words is a sentence, not a name
_NAME_WORDS = 6


def name_like(text: str) -> bool:
    """Every word capitalised (particles like "da", "van" aside), or all in capitals: a name."""
    words = _TOKEN.findall(text)
    if not words or len(words) > _NAME_WORDS:
        return False
    return all(w[0].isupper() or w[0].isdigit() or w.lower() in PARTICLES for w in words)


def _initials_split(words: list[str], name: bool) -> list[str]:
    """In a name, a block of capitals before the surname is initials: "JRR Tolkien" → J R R."""
    if not name or len(words) < 2:
        return words
    out: list[str] = []
    for w in words[:-1]:
        out.extend(list(w) if 2 <= len(w) <= 3 and w.isupper() and w.isalpha() else [w])
    return [*out, words[-1]]


def phrase_words(text: str) -> list[str]:
    """The answer's words in order: lowercase, stemmed, less filler and (in a name) titles."""
    name = name_like(text)
    words = _initials_split(_TOKEN.findall(text), name)
    initial = re.compile(r"[A-Z]") if name else re.compile(r"(?!)")  # "A. Einstein": no article
    out = [stem(w.lower()) for w in words if w.lower() not in FILLER or initial.fullmatch(w)]
    if name:
        kept = [w for w in out if w not in TITLES]
        out = kept or out
    return out


def _strict_content(text: str, question: str) -> set[str]:
    asked = {stem(w) for w in _TOKEN.findall(question.lower())}
    return {stem(w) for w in _TOKEN.findall(text.lower())} - FILLER - asked


def _is_list(text: str) -> bool:
    """A list ("Water, carbon and nitrogen"): several answers, whose parts are not qualifiers."""
    return text.count(",") >= 2 or ("," in text and " and " in text)


def _compatible(x: str, y: str) -> bool:
    """Two given names of one person.

    Equal, an initial and its name, or a short form inside the long one ("Alex" / "Alexander").
    """
    if x == y:
        return True
    if min(len(x), len(y)) == 1:
        return x[0] == y[0]
    short, long_ = sorted((x, y), key=len)
    return len(short) >= 3 and short in long_


def _given_names_verdict(ga: Sequence[str], gb: Sequence[str]) -> bool:
    """Same surname: are the given names one person's? A single name may be any of the other's."""
    ga = [g for g in ga if g not in PARTICLES]
    gb = [g for g in gb if g not in PARTICLES]
    if not ga or not gb:
        return True
    if len(ga) == 1 or len(gb) == 1:
        one, other = (ga, gb) if len(ga) == 1 else (gb, ga)
        return any(_compatible(one[0], g) for g in other)
    return len(ga) == len(gb) and all(_compatible(x, y) for x, y in zip(ga, gb))


def _modifiers_differ(a: str, b: str) -> bool:
    """Same head, other qualifier right before it: "Pacific Ocean" / "Atlantic Ocean".

    The head is the common tail of the two answers' words; a qualifier stands right
    before it (no "of" / "on" between), so "bombing of Pearl Harbor" / "attack on Pearl
    Harbor" name one event by two heads and are not called different here.
    """
    ta = [stem(w) for w in _TOKEN.findall(a.lower())]
    tb = [stem(w) for w in _TOKEN.findall(b.lower())]
    n = 0
    while n < min(len(ta), len(tb)) and ta[-1 - n] == tb[-1 - n]:
        n += 1
    if max(len(ta), len(tb)) > _NAME_WORDS or n == 0 or n == len(ta) or n == len(tb):
        return False  # a sentence, or one answer inside the other
    if any(w in FILLER for w in ta[len(ta) - n :]):
        return False  # "… centre is Lagos" / "… capital is Lagos": a shared verb is no head
    before_a, before_b = ta[-1 - n], tb[-1 - n]
    return before_a not in FILLER and before_b not in FILLER


def _near_spelling(wa: set[str], wb: set[str]) -> bool:
    """True when some word of one is a near spelling of a word of the other ("Brasil" / "Brazil")."""
    return any(
        len(x) > 3 and SequenceMatcher(None, x, y).ratio() >= NEAR_SPELLING for x in wa for y in wb
    )


def _place_parts(text: str) -> tuple[str, str] | None:
    """("Canberra", "ACT") of a name with one comma; None otherwise."""
    if text.count(",") != 1:
        return None
    head, region = (p.strip() for p in text.split(","))
    return (head, region) if head and region and name_like(head) and name_like(region) else None


def _place_verdict(question: str, a: str, b: str) -> bool | None:
    """Place and region ("Canberra, ACT"): places first; two regions that differ, two places."""
    pa, pb = _place_parts(a), _place_parts(b)
    if pa is None and pb is None:
        return None
    head = phrase_verdict(question, pa[0] if pa else a, pb[0] if pb else b)
    if head is not True or pa is None or pb is None:
        return head
    return phrase_verdict(question, pa[1], pb[1])


def _overlap_verdict(a: str, b: str, fa: list[str], fb: list[str]) -> bool | None:
    """Both answers have words the other lacks, and share some (not a person's surname)."""
    if _modifiers_differ(a, b) or _heads_differ(fa, fb):
        return False
    return False if name_like(a) and name_like(b) else None  # "Emma Watson" / "Emma Stone"


def _heads_differ(fa: Sequence[str], fb: Sequence[str]) -> bool:
    """Same qualifier, other head: "water pressure" / "water temperature".

    Short phrases that open alike and end in different last words, neither the
    other's stem ("hydrogen bond" / "hydrogen bonding" is one head).
    """
    if max(len(fa), len(fb)) > _NAME_WORDS or fa[0] != fb[0]:
        return False
    x, y = fa[-1], fb[-1]
    return x != y and not (x.startswith(y) or y.startswith(x))


#: prefixes that turn a word into its opposite ("sexual" / "asexual", "toxic" / "nontoxic")
_NEGATING_PREFIXES = ("a", "an", "un", "non", "in", "im", "il", "ir", "dis", "anti")


def _opposites(sa: set[str], sb: set[str]) -> bool:
    """One word is the other with a negating prefix: two opposite answers."""
    return any(
        len(y) > 3 and x == p + y or len(x) > 3 and y == p + x
        for x in sa
        for y in sb
        for p in _NEGATING_PREFIXES
    )


def phrase_verdict(question: str, a: str, b: str) -> bool | None:
    """True / False where the words decide (see the module docstring), else None.

    Examples
    --------
    >>> q = "Who was the first person to walk on the Moon?"
    >>> phrase_verdict(q, "Armstrong", "Neil Armstrong"), phrase_verdict(q, "Neil Armstrong", "Louis Armstrong")
    (True, False)
    >>> phrase_verdict("Where is the Eiffel Tower?", "Paris", "The French capital") is None
    True
    """
    placed = _place_verdict(question, a, b)
    if placed is not None:
        return placed
    fa, fb = phrase_words(a), phrase_words(b)
    sa, sb = set(fa), set(fb)
    if not sa or not sb:
        return None
    if sa == sb:
        return True
    if name_like(a) and name_like(b) and fa[-1] == fb[-1]:
        return _given_names_verdict(fa[:-1], fb[:-1])  # "George W." / "George H. W. Bush"
    small = a if len(sa) < len(sb) else b
    short_enough = max(len(fa), len(fb)) <= _NAME_WORDS  # a word of a sentence is no qualifier
    if (sa < sb or sb < sa) and short_enough and not (_is_list(a) or _is_list(b)):
        return True if _strict_content(small, question) else None
    if sa & sb:
        return _overlap_verdict(a, b, fa, fb)
    if _opposites(sa, sb):
        return False
    if name_like(a) and name_like(b):
        return None if _near_spelling(sa, sb) or _abbreviation(a, b) else False
    return None


def _abbreviation(a: str, b: str) -> bool:
    """One answer a block of capitals that starts with the other's initials ("NYC" / "New York")."""
    for short, long_ in ((a, b), (b, a)):
        words = _TOKEN.findall(long_)
        if short.isupper() and " " not in short.strip() and len(words) > 1:
            letters = "".join(w[0] for w in words).upper()
            if short.strip(" .").startswith(letters):
                return True
    return False
