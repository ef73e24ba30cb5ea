"""The stemmers: a plural one for answers, a cruder one that also strips verb endings, a final s.

None is a linguist's stemmer; each is what its rules were measured with, and
swapping one for another moves their verdicts (the echo check with
:func:`plural_stem` instead of :func:`s_stem` calls "Freeze" no echo of "What
happens to water when it freezes?"). :func:`plural_stem` keeps a word's meaning
(answers compare names and nouns: "arteries" / "artery", but "gas" and "glass"
stay); :func:`inflection_stem` also strips "-ed" and "-ing", enough to tell that a
rewording kept a question's word ("championships" ~ "championship", "discovered" ~
"discover"); :func:`s_stem` only drops a final s, so a verb and its third person
meet ("freezes" ~ "freeze").
"""

from __future__ import annotations

__all__ = ["inflection_stem", "plural_stem", "s_stem"]

#: (suffix, replacement) tried in order by :func:`inflection_stem`
_INFLECTIONS = (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ing", ""))


def plural_stem(word: str) -> str:
    """A light plural stem: ``arteries`` → ``artery``, ``ions`` → ``ion``, ``gas`` stays.

    >>> [plural_stem(w) for w in ("arteries", "boxes", "ions", "gas", "glass")]
    ['artery', 'box', 'ion', 'gas', 'glass']
    """
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es") and word[-3] in "sxz":
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def inflection_stem(word: str) -> str:
    """Crude inflection stripping: the first of -ies, -es, -s, -ed, -ing that leaves three letters.

    >>> [inflection_stem(w) for w in ("championships", "discovered", "flying", "gas")]
    ['championship', 'discover', 'fly', 'gas']
    """
    for suffix, repl in _INFLECTIONS:
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)] + repl
    return word


def s_stem(word: str) -> str:
    """A final s dropped from a word of four letters or more: the echo check's stem.

    >>> [s_stem(w) for w in ("freezes", "freeze", "rivers", "gas")]
    ['freeze', 'freeze', 'river', 'gas']
    """
    return word[:-1] if len(word) > 3 and word.endswith("s") else word
