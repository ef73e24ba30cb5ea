"""Answers compared within their kind: yes/no, date, number, substance, currency.

Each ``*_verdict`` reads two answers of one kind and says True (the same answer),
False (different) or None (this kind has nothing to say: not both of the kind, or
the kind cannot tell). :func:`kind_verdict` asks them in turn; the first that
decides wins. Pure; the tables are :mod:`invent_core.responses.answer_tables`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..text.tokens import WORD_AND_APOSTROPHES as _WORDS
from .answer_tables import (
    COMPOUNDS,
    COUNTRY_WORDS,
    CURRENCY_CODES,
    CURRENCY_NAMES,
    DIATOMIC,
    ELEMENT_SPELLINGS,
    ELEMENTS,
    HEDGES,
    MONTHS,
    NO_WORDS,
    ORDINALS,
    SUBSTANCE_FILLER,
    UNITS,
    YES_NO_OPENERS,
    YES_WORDS,
)
from .quantities import quantity, same_quantity

__all__ = [
    "When",
    "currency",
    "date_verdict",
    "kind_verdict",
    "polarity",
    "substance",
    "when",
    "written_substance",
]

_NEGATION = re.compile(r"\b(?:not|no|never|cannot|none)\b|n['’]t\b")
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


# --- yes / no --------------------------------------------------------------------------


def _asks_yes_no(question: str) -> bool:
    words = _WORDS.findall(question.lower())
    return bool(words) and words[0] in YES_NO_OPENERS


def polarity(question: str, text: str) -> tuple[str, bool] | None:
    """("yes" | "no", said outright) of a reply to a yes/no question; None without one.

    A leading "Yes"/"No" (or "True", "Nope", "Correct", …) says it outright; to a
    yes/no question a negation inside the reply ("They cannot fly") says "no", not
    outright. To any other question only a bare "yes"/"no"/"true"/"false" counts.
    """
    words = _WORDS.findall(text.lower())
    if not words:
        return None
    if not _asks_yes_no(question):
        bare = {"yes": "yes", "true": "yes", "no": "no", "false": "no"}
        return (bare[words[0]], True) if len(words) == 1 and words[0] in bare else None
    if words[0] in YES_WORDS:
        return "yes", True
    if words[0] in NO_WORDS:
        return "no", True
    return ("no", False) if _NEGATION.search(text.lower()) else None


def yes_no_verdict(question: str, a: str, b: str) -> bool | None:
    """Two replies that both say yes or no agree exactly when the polarity does.

    At least one must say it outright: two elaborations that merely contain a
    negation ("Paris, not Lyon" / "Lyon, not Paris") are left to the other rules.
    """
    pa, pb = polarity(question, a), polarity(question, b)
    if pa is None or pb is None or not (pa[1] or pb[1]):
        return None
    return pa[0] == pb[0]


# --- dates -----------------------------------------------------------------------------


@dataclass(frozen=True)
class When:
    """A date as precise as it was written: a century, or a year with a month and a day."""

    century: int | None = None
    year: int | None = None
    month: int | None = None
    day: int | None = None


_CENTURY = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)(?: century)?(?: (?:ad|ce))?$")
_DAY = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)?$")
_YEAR = re.compile(r"^\d{3,4}$")


def _century(low: str) -> When | None:
    m = _CENTURY.match(low)
    if m:
        return When(century=int(m.group(1)))
    head = low.removesuffix(" century")
    if head != low and head in ORDINALS:
        return When(century=ORDINALS[head])
    return None


def when(text: str) -> When | None:
    """The date an answer is, as precise as written; None when it is anything else.

    Read: "November 1989", "9 Nov 1989", "July 4, 1776", "1603", "the 16th century".

    >>> when("4th of July 1776")
    When(century=None, year=1776, month=7, day=4)
    """
    low = re.sub(r"(?<=[a-z0-9]),(?= )|\.$", "", text.lower().strip())
    words = [w for w in low.replace("-", " ").split() if w != "of"]
    while words and words[0] in HEDGES:
        words = words[1:]
    low = " ".join(words)
    century = _century(low)
    if century or not words:
        return century
    year = month = day = None
    for w in words:
        if w.rstrip(".") in MONTHS and month is None:
            month = MONTHS[w.rstrip(".")]
        elif _YEAR.match(w) and year is None:
            year = int(w)
        elif _DAY.match(w) and day is None and 1 <= int(_DAY.match(w).group(1)) <= 31:
            day = int(_DAY.match(w).group(1))
        else:
            return None
    if year is None and month is None or day is not None and month is None:
        return None
    return When(year=year, month=month, day=day)


def _century_of(year: int) -> int:
    return (year - 1) // 100 + 1


def date_verdict(a: str, b: str) -> bool | None:
    """Two dates agree when the coarser one contains the finer ("November 1989" / "1989").

    Two bare years are left to the numbers (a year is also a count).
    """
    wa, wb = when(a), when(b)
    if wa is None or wb is None or wa.month is wb.month is wa.century is wb.century is None:
        return None
    if wa.century or wb.century:
        ca = wa.century or (wa.year and _century_of(wa.year))
        cb = wb.century or (wb.year and _century_of(wb.year))
        return None if not (ca and cb) else ca == cb
    return all(
        x is None or y is None or x == y
        for x, y in ((wa.year, wb.year), (wa.month, wb.month), (wa.day, wb.day))
    )


# --- numbers ---------------------------------------------------------------------------


def _asked_units(question: str) -> set[tuple[str, float, float]]:
    """The units a question names ("How many seconds …?"): written out, not one letter."""
    low = " " + " ".join(question.lower().replace("?", " ").split()) + " "
    return {UNITS[u] for u in UNITS if len(u) > 2 and f" {u} " in low}


def number_verdict(question: str, a: str, b: str) -> bool | None:
    """Two answers that are numbers compare by value (:func:`~.quantities.same_quantity`).

    Where the question names the unit ("How many seconds are in 3 minutes?"), an equal
    value in another unit ("3 minutes" / "180 seconds") does not answer it: different.
    """
    qa, qb = quantity(a), quantity(b)
    if qa is None or qb is None:
        return None
    same = same_quantity(qa, qb)
    units = {UNITS.get(qa.unit), UNITS.get(qb.unit)}
    if same and None not in units and len(units) == 2 and units & _asked_units(question):
        return False
    return same


# --- substances ------------------------------------------------------------------------

_ELEMENT_NAMES = frozenset(ELEMENTS.values())
_COMPOUND_NAMES = {name: formula for formula, names in COMPOUNDS.items() for name in names}


def _symbol(word: str) -> str | None:
    """The substance a symbol, formula or abbreviation writes ("Fe", "O2", "CO2", "DNA")."""
    if word in ELEMENTS:
        return ELEMENTS[word]
    if word.endswith("2") and word[:-1] in DIATOMIC:
        return ELEMENTS[word[:-1]]
    return word if word in COMPOUNDS else None


def _one_substance(part: str) -> tuple[str, str] | None:
    """(substance, "symbol" or "name") of one part of an answer."""
    words = [w for w in part.split() if w.lower() not in SUBSTANCE_FILLER]
    if not words:
        return None
    if len(words) == 1 and _symbol(words[0]):
        return _symbol(words[0]), "symbol"
    name = " ".join(words).lower()
    name = ELEMENT_SPELLINGS.get(name, name)
    found = name if name in _ELEMENT_NAMES else None
    found = found or _COMPOUND_NAMES.get(name) or _COMPOUND_NAMES.get(name.rstrip("s"))
    return (found, "name") if found else None


def written_substance(text: str) -> tuple[str, frozenset[str]] | None:
    """(substance, how it is written: {"symbol"}, {"name"} or both) of an answer, or None.

    Elements by symbol (case-sensitive, "O2" for a diatomic one) or name; compounds
    and common abbreviations by formula or name; "gold (Au)" writes both. Every part
    must name the same substance.
    """
    t = text.translate(_SUBSCRIPTS).strip().rstrip(".")
    if t in COMPOUNDS:
        return t, frozenset({"symbol"})  # a formula with brackets of its own: "Ca(OH)2"
    parts = [_one_substance(p.strip()) for p in re.split(r"[()]", t) if p.strip()]
    if not parts or None in parts or len({p[0] for p in parts}) != 1:
        return None
    return parts[0][0], frozenset(p[1] for p in parts)


def substance(text: str) -> str | None:
    """The element or compound an answer names ("CO₂", "carbon dioxide", "gold (Au)"), or None."""
    written = written_substance(text)
    return written[0] if written else None


_ASKS_FORM = re.compile(r"\b(?:symbols?|formulas?|formulae|abbreviations?|stands? for)\b")


def substance_verdict(question: str, a: str, b: str) -> bool | None:
    """Two answers that both name a substance are the same exactly when it is one substance.

    Where the question asks for a symbol or formula, or names one ("What is the chemical
    symbol for gold?", "Which element has the symbol Fe?"), the way it is written counts
    too: the name and the symbol alone are then two different answers.
    """
    wa, wb = written_substance(a), written_substance(b)
    if wa is None or wb is None:
        return None
    if wa[0] != wb[0]:
        return False
    return not (_ASKS_FORM.search(question.lower()) and not wa[1] & wb[1])


# --- currencies ------------------------------------------------------------------------


def _countries(text: str) -> set[str]:
    low = " " + " ".join(_WORDS.findall(text.lower())) + " "
    return {country for word, country in COUNTRY_WORDS.items() if f" {word} " in low}


def currency(text: str) -> tuple[str, str] | None:
    """(country or "", base name) of a currency answer ("GBP", "£", "Swiss franc"), or None."""
    low = text.lower().strip().rstrip(".")
    if low in CURRENCY_CODES:
        return CURRENCY_CODES[low]
    words = _WORDS.findall(low)
    if not words or len(words) > 4:
        return None
    last = words[-1]
    base = CURRENCY_NAMES.get(last) or CURRENCY_NAMES.get(last.rstrip("s"))
    if base is None:
        return None
    qualifier = "sterling" if last == "sterling" else " ".join(words[:-1])
    if not qualifier:
        return "", base
    countries = _countries(qualifier)
    return (countries.pop(), base) if len(countries) == 1 else ("?" + qualifier, base)


def currency_verdict(question: str, a: str, b: str) -> bool | None:
    """Same base currency and no other country: "Pound" / "Pound sterling" for the UK.

    A bare name against a qualified one ("Pound" / "Egyptian pound") is the same when
    the qualifier names the country the question asks about, or the question names none.
    """
    ca, cb = currency(a), currency(b)
    if ca is None or cb is None:
        return None
    if ca[1] != cb[1]:
        return False
    if ca[0] and cb[0]:
        return ca[0] == cb[0]
    named = ca[0] or cb[0]
    asked = _countries(question)
    return not named or not asked or named in asked


# --- all kinds -------------------------------------------------------------------------


def kind_verdict(question: str, a: str, b: str) -> bool | None:
    """The first kind's verdict that decides, in the order yes/no, date, number, substance, currency."""
    steps: tuple[Callable[[], bool | None], ...] = (
        lambda: yes_no_verdict(question, a, b),
        lambda: date_verdict(a, b),
        lambda: number_verdict(question, a, b),
        lambda: substance_verdict(question, a, b),
        lambda: currency_verdict(question, a, b),
    )
    for step in steps:
        verdict = step()
        if verdict is not None:
            return verdict
    return None
