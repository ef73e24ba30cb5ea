"""Numbers written as words: the tables every rule that reads "seven" or "forty-five" uses.

The tables are English and small on purpose: each rule reads the part it needs
(the rewording checks read "seven" and "third" as digits, the answer rules and the
judge read "forty-five" and "one hundred and twenty", a confidence reads
"eighty-five percent").
"""

from __future__ import annotations

__all__ = ["CARDINALS", "ORDINALS", "SCALES", "TENS", "small_number_words"]

#: "zero" … "nineteen" → 0 … 19, in that order
CARDINALS: dict[str, int] = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen".split()
    )
}
#: "twenty" … "ninety" → 20 … 90, in that order
TENS: dict[str, int] = {
    w: 10 * i
    for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)
}
#: "hundred" … "trillion" → 10² … 10¹², in that order
SCALES: dict[str, int] = {
    "hundred": 10**2,
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
}
#: "zeroth" … "twentieth" → 0 … 20, in that order
ORDINALS: dict[str, int] = {
    w: i
    for i, w in enumerate(
        "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh "
        "twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth "
        "nineteenth twentieth".split()
    )
}


def small_number_words(top: int = 20) -> dict[str, int]:
    """Every cardinal word from "zero" to ``top`` (at most 20) with its value.

    >>> small_number_words(12)["twelve"], "thirteen" in small_number_words(12)
    (12, False)
    >>> small_number_words()["twenty"]
    20
    """
    return {w: i for w, i in (CARDINALS | {"twenty": 20}).items() if i <= top}
