"""A number as an answer writes it: digits, words, fractions, percentages, with a unit.

:func:`quantity` reads an answer that *is* a number ("81", "eighty-one", "2,000 metres",
"3 x 10^5 km/s", "1/6", "one in six", "24 percent", "$18.00", "32°F") and
:func:`same_quantity` compares two of them by value, converting units of one
dimension ("100 °C" / "212 °F", "18 dollars" / "18 cents"). Pure: the tables live in
:mod:`invent_core.responses.answer_tables`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .answer_tables import (
    FRACTION_WORDS,
    HEDGES,
    SCALES,
    SMALL_NUMBERS,
    TENS,
    UNITS,
    VAGUE_UNITS,
)

__all__ = ["Quantity", "quantity", "same_quantity"]

#: at most this many words after a number are read as its unit ("degrees Fahrenheit");
#: more make the answer a sentence, not a number
_UNIT_WORDS = 3
_SUBSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹−–×", "0123456789--x")
_DIGITS = re.compile(
    r"^(?P<sign>-)?(?P<cur>[$£€¥])?\s?(?P<int>\d{1,3}(?:[, ]\d{3})+|\d+)(?:\.(?P<dec>\d+))?"
    r"(?:\s?/\s?(?P<den>\d+)|\s?x\s?10\s?\^\s?(?P<exp>-?\d+)|e(?P<exp2>-?\d+))?"
)
_WORD = re.compile(r"[a-z]+")
_MAX_EXPONENT = 300


@dataclass(frozen=True)
class Quantity:
    """A number read from an answer.

    ``value`` in the written unit; ``tolerance``: half a unit of the last decimal
    written (0 for integers, fractions and words: exact); ``unit``: the unit as
    written, lowercase (``None`` without one).
    """

    value: float
    tolerance: float
    unit: str | None


def _decimals_tolerance(dec: str | None) -> float:
    return 0.5 * 10.0 ** -len(dec) if dec else 0.0


def _digit_number(text: str) -> tuple[float, float, str | None, str] | None:
    """(value, tolerance, currency sign, rest) of a number written in digits at the start."""
    m = _DIGITS.match(text)
    if not m:
        return None
    whole = float(re.sub(r"[, ]", "", m.group("int")) + "." + (m.group("dec") or "0"))
    tol = _decimals_tolerance(m.group("dec"))
    if m.group("den"):
        den = float(m.group("den"))
        if den == 0 or m.group("dec"):
            return None
        whole, tol = whole / den, 0.0
    exp = m.group("exp") or m.group("exp2")
    if exp and abs(int(exp)) > _MAX_EXPONENT:
        return None  # beyond a float: no number an answer means
    if exp:
        whole, tol = whole * 10.0 ** int(exp), tol * 10.0 ** int(exp)
    if m.group("sign"):
        whole = -whole
    return whole, tol, m.group("cur"), text[m.end() :]


def _word_tokens(text: str) -> list[str]:
    return text.replace("-", " ").split()


def _word_number(tokens: list[str]) -> tuple[float, float, int] | None:
    """(value, tolerance, tokens read) of a number written in words at the start of ``tokens``."""
    total, current, read, seen = 0.0, 0.0, 0, False
    decimals: str | None = None
    while read < len(tokens):
        tok = tokens[read]
        nxt = tokens[read + 1] if read + 1 < len(tokens) else ""
        if decimals is not None:
            if tok in SMALL_NUMBERS and SMALL_NUMBERS[tok] < 10 and tok not in ("a", "an"):
                decimals += str(SMALL_NUMBERS[tok])
                read += 1
                continue
            break
        if tok in ("a", "an") and not (nxt in SCALES or nxt in FRACTION_WORDS):
            break
        if tok in SMALL_NUMBERS or tok in TENS:
            units_after_units = current % 10 or current % 100 < 20
            if tok not in ("a", "an") and current % 100 and (tok in TENS or units_after_units):
                break  # "one two", "twenty thirty": two numbers, not one
            current += SMALL_NUMBERS.get(tok, 0) + TENS.get(tok, 0)
        elif tok == "hundred" and seen:
            current = (current or 1) * 100
        elif tok in SCALES and seen:
            total, current = total + (current or 1) * SCALES[tok], 0.0
        elif tok in FRACTION_WORDS and seen:
            if tok in ("half", "halves") and tokens[read - 1] in ("a", "an"):
                current = current - 1 + 0.5 if current >= 1 else 0.5
            else:
                current = current / FRACTION_WORDS[tok]
        elif tok == "and" and seen and (nxt in SMALL_NUMBERS or nxt in TENS):
            pass
        elif tok == "point" and seen and nxt in SMALL_NUMBERS:
            decimals = ""
        else:
            break
        seen, read = True, read + 1
    if not seen:
        return None
    value = total + current
    if decimals:
        value += float("0." + decimals)
    return value, _decimals_tolerance(decimals), read


def _scale(rest: str, value: float, tol: float) -> tuple[float, float, str]:
    """A scale word after digits: "650 thousand", "6.5 million"."""
    words = rest.split()
    if words and words[0] in SCALES:
        factor = SCALES[words[0]]
        return value * factor, tol * factor, " ".join(words[1:])
    return value, tol, rest


def _unit(rest: str) -> str | None | bool:
    """The unit after a number: a known unit, a few plain words, None (nothing) or False (a sentence)."""
    rest = rest.strip(" .,;:!?()")
    if not rest:
        return None
    if rest in UNITS or rest in VAGUE_UNITS:
        return rest
    words = rest.split()
    if words[0] in SMALL_NUMBERS or words[0] in TENS:
        return False  # "one two": two numbers
    if len(words) <= _UNIT_WORDS and all(_WORD.fullmatch(w) for w in words):
        return rest
    return False


def _strip_hedges(text: str) -> str:
    words = text.split()
    while words and words[0] in HEDGES:
        words = words[1:]
    return " ".join(words)


def quantity(text: str) -> Quantity | None:
    """The number an answer is, with its unit; None when the answer is not a number.

    Examples
    --------
    >>> quantity("eighty-one"), quantity("2,000 metres")
    (Quantity(value=81.0, tolerance=0.0, unit=None), Quantity(value=2000.0, tolerance=0.0, unit='metres'))
    >>> quantity("32°F").unit, quantity("one in six").value == 1 / 6
    ('°f', True)
    """
    low = _strip_hedges(str(text).translate(_SUBSCRIPTS).lower().strip().rstrip(".!"))
    low = re.sub(r"(\d)\s*(%|°)", r"\1 \2", low)
    digits = _digit_number(low)
    if digits is not None:
        value, tol, currency, rest = digits
        value, tol, rest = _scale(rest, value, tol)
        unit = _unit(rest)
        if currency and unit is None:
            unit = currency
    else:
        parsed = _per(low) or _words_quantity(low)
        if parsed is None:
            return None
        value, tol, unit = parsed
    if unit is False:
        return None
    return Quantity(value, tol, unit)


def _words_quantity(low: str) -> tuple[float, float, str | None | bool] | None:
    tokens = _word_tokens(low)
    words = _word_number(tokens)
    if words is None:
        return None
    value, tol, read = words
    return value, tol, _unit(" ".join(tokens[read:]))


def _per(low: str) -> tuple[float, float, None] | None:
    """A fraction written "one in six", "1 in 6" or "one out of six"."""
    m = re.fullmatch(r"(.+?) (?:in|out of) (.+)", low)
    if not m:
        return None
    parts = [_digit_number(p) or _word_number(_word_tokens(p)) for p in m.groups()]
    if any(p is None for p in parts):
        return None
    (num, *_), (den, *_) = parts
    complete = all(
        (p[3] == "" if len(p) == 4 else p[2] == len(_word_tokens(g)))
        for p, g in zip(parts, m.groups())
    )
    return (num / den, 0.0, None) if complete and den else None


def _base(q: Quantity) -> tuple[str, float, float] | None:
    """(dimension, value in the base unit, tolerance in the base unit) for a known unit."""
    if q.unit not in UNITS:
        return None
    dimension, factor, offset = UNITS[q.unit]
    return dimension, q.value * factor + offset, q.tolerance * factor


def _close(x: float, y: float, tol: float) -> bool:
    return abs(x - y) < tol or abs(x - y) <= 1e-9 * max(abs(x), abs(y), 1.0)


def same_quantity(a: Quantity, b: Quantity) -> bool | None:
    """Same value? Units of one dimension converted; a bare number matches any unit.

    A percentage matches a bare number equal to it or to its hundredth ("24%" / "0.24");
    two plain-word units that differ ("3 apples" / "3 pears") leave equal values undecided.
    """
    ba, bb = _base(a), _base(b)
    if ba and bb:
        if ba[0] != bb[0]:
            return False
        converted = a.unit != b.unit
        tol = max(ba[2], bb[2], 0.5 * min(UNITS[a.unit][1], UNITS[b.unit][1]) if converted else 0.0)
        return _close(ba[1], bb[1], tol)
    tol = max(a.tolerance, b.tolerance)
    if _close(a.value, b.value, tol):
        return None if _other_nouns(a, b) else True
    percent = [q for q in (a, b) if q.unit in ("%", "percent", "per cent", "percentage")]
    if len(percent) == 1 and None in (a.unit, b.unit):
        p, bare = (a, b) if percent[0] is a else (b, a)
        return _close(p.value / 100, bare.value, max(p.tolerance / 100, bare.tolerance))
    return False


def _other_nouns(a: Quantity, b: Quantity) -> bool:
    """Both carry a unit, not a known one, and not the same: "3 apples" / "3 pears"."""
    if a.unit is None or b.unit is None or a.unit == b.unit:
        return False
    known = set(UNITS) | set(VAGUE_UNITS)
    return not (a.unit in known or b.unit in known)
