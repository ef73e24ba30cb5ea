"""Names that mean one thing: aliases, abbreviations and demonyms, written as one token.

WordNet links "speed" to "fast" but not "US" to "United States", "WWII" to
"Second World War" or "Scottish" to "Scotland". :func:`with_aliases_joined`
writes every name of one group as the group's token ("the first US
president" → "the first UnitedStates president") so the rewording checks see
one word where a rewording uses another name for the same thing. A demonym
joins its country's group: "the French national dish" and "the national dish
of France" share "France".

The table is data, not a list of examples: a group is added when a name has
another common spelling. Each group's token is its first name without spaces.
"""

from __future__ import annotations

import functools
import re

__all__ = ["ALIAS_GROUPS", "with_aliases_joined"]

#: Names of one thing, the first the group's token (spaces dropped), case-insensitive,
#: except those in :data:`_CASED` (a common word in lower case: "us", "who").
ALIAS_GROUPS: tuple[tuple[str, ...], ...] = (
    (
        "United States",
        "United States of America",
        "USA",
        "U.S.A.",
        "U.S.",
        "US",
        "America",
        "American",
        "the States",
    ),
    ("United Kingdom", "UK", "U.K.", "Britain", "Great Britain", "British"),
    ("Soviet Union", "USSR", "U.S.S.R.", "Soviet"),
    ("European Union", "EU", "E.U."),
    ("United Nations", "UN", "U.N."),
    ("Second World War", "World War II", "World War 2", "World War Two", "WWII", "WW2", "WW II"),
    ("First World War", "World War I", "World War 1", "World War One", "WWI", "WW1", "Great War"),
    ("Netherlands", "Holland", "Dutch"),
    ("NASA", "National Aeronautics and Space Administration"),
    ("DNA", "deoxyribonucleic acid"),
    ("RNA", "ribonucleic acid"),
    ("TV", "television"),
    ("UAE", "United Arab Emirates", "Emirati"),
    ("NATO", "North Atlantic Treaty Organization", "North Atlantic Treaty Organisation"),
    ("WHO", "World Health Organization", "World Health Organisation"),
    ("NBA", "National Basketball Association"),
    ("NFL", "National Football League"),
    ("FBI", "Federal Bureau of Investigation"),
    ("CIA", "Central Intelligence Agency"),
    ("AIDS", "acquired immune deficiency syndrome", "acquired immunodeficiency syndrome"),
    ("New York City", "NYC", "New York"),
    ("Los Angeles", "LA", "L.A."),
    ("Washington DC", "Washington D.C.", "DC", "D.C."),
    # temperature units: "in degrees Celsius" and "in °C" name one scale
    (
        "degrees Celsius",
        "degree Celsius",
        "°C",
        "ºC",
        "degrees centigrade",
        "Celsius",
        "centigrade",
    ),
    ("degrees Fahrenheit", "degree Fahrenheit", "°F", "ºF", "Fahrenheit"),
    ("France", "French"),
    ("Germany", "German"),
    ("Italy", "Italian"),
    ("Spain", "Spanish"),
    ("Portugal", "Portuguese"),
    ("China", "Chinese"),
    ("Japan", "Japanese"),
    ("Korea", "Korean"),
    ("India", "Indian"),
    ("Russia", "Russian"),
    ("Mexico", "Mexican"),
    ("Canada", "Canadian"),
    ("Brazil", "Brazilian"),
    ("Argentina", "Argentine", "Argentinian"),
    ("Australia", "Australian"),
    ("Egypt", "Egyptian"),
    ("Greece", "Greek"),
    ("Ireland", "Irish"),
    ("Scotland", "Scottish", "Scots"),
    ("Wales", "Welsh"),
    ("England", "English"),
    ("Norway", "Norwegian"),
    ("Sweden", "Swedish", "Swede"),
    ("Denmark", "Danish", "Dane"),
    ("Finland", "Finnish"),
    ("Poland", "Polish"),
    ("Switzerland", "Swiss"),
    ("Austria", "Austrian"),
    ("Belgium", "Belgian"),
    ("Turkey", "Turkish"),
    ("Thailand", "Thai"),
    ("Vietnam", "Vietnamese"),
    ("Israel", "Israeli"),
    ("Iran", "Iranian", "Persia", "Persian"),
    ("Iraq", "Iraqi"),
    ("Pakistan", "Pakistani"),
    ("Nigeria", "Nigerian"),
    ("Kenya", "Kenyan"),
    ("Peru", "Peruvian"),
    ("Chile", "Chilean"),
    ("Cuba", "Cuban"),
    ("Rome", "Roman"),
    ("Paris", "Parisian"),
    ("London", "Londoner"),
    ("Europe", "European"),
    ("Africa", "African"),
    ("Asia", "Asian"),
)

#: names matched only as written (in lower case they are common words)
_CASED = frozenset({"US", "UN", "WHO", "LA", "DC", "AIDS", "Dane", "Thai"})
#: "us" in all-lower-case text (NQ-open) is the country unless a verb takes it as a pronoun
_PRONOUN_US = re.compile(r"\b(?:tell|give|show|let|help|for|to|with|of|about|among) us\b")


def _token(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", name)


@functools.cache
def _patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """(pattern, group token) for every name, longest first ("World War II" before "World War")."""
    names = [(name, group[0]) for group in ALIAS_GROUPS for name in group]
    out = []
    for name, head in sorted(names, key=lambda n: -len(n[0])):
        body = r"\s+".join(re.escape(part) for part in name.split())
        flags = 0 if name in _CASED else re.IGNORECASE
        tail = r"(?![\w])" if name.endswith(".") else r"\b"
        # a unit symbol may follow digits ("100°C"): no boundary before it, a space in its place
        head_ok, sep = (r"(?<![\w.])", "") if name[0].isalnum() else ("", " ")
        out.append((re.compile(rf"{head_ok}{body}{tail}(?:['’]s\b)?", flags), sep + _token(head)))
    return tuple(out)


def with_aliases_joined(text: str) -> str:
    """``text`` with every name of :data:`ALIAS_GROUPS` written as its group's token.

    A possessive goes with the name ("America's" → "UnitedStates"). In a text
    with no capital letter (NQ-open's "who did us fight in world war 1") "us"
    is the country unless "tell us", "for us" … make it a pronoun.

    Examples
    --------
    >>> with_aliases_joined("When did World War II end in the U.S.?")
    'When did SecondWorldWar end in the UnitedStates?'
    """
    out = text.replace("’", "'")
    if not any(ch.isupper() for ch in out) and not _PRONOUN_US.search(out):
        out = re.sub(r"\bus\b", "US", out)
    for pattern, token in _patterns():
        out = pattern.sub(token, out)
    return out
