"""Word tokens: the patterns every word rule splits a text with, each named for what it keeps.

Which pattern a rule uses is part of the rule (an apostrophe kept or not, digits
kept or not), so there is one pattern per kind of token, not one for all.
"""

from __future__ import annotations

import re

__all__ = [
    "ASCII_WORD",
    "JOINED_WORD",
    "LETTERS",
    "LETTER_WORD",
    "LOWER_ALNUM",
    "NAME_TOKEN",
    "NUMBER",
    "WORD",
    "WORD_AND_APOSTROPHES",
    "WORD_OR_NUMBER",
    "words_or_numbers",
    "word_tokens",
]

#: letters, digits and underscores, any script: the plainest word ("it's" → "it", "s")
WORD = re.compile(r"\w+")
#: a run of letters, any script, no digits ("B12" → "B")
LETTERS = re.compile(r"[^\W\d_]+")
#: word characters and apostrophes in any number ("isn't", "o'clock's", "B12")
WORD_AND_APOSTROPHES = re.compile(r"[\w'’]+")
#: letters with one inner apostrophe part ("don't", "Janet’s"), any script, no digits
LETTER_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
#: a run of ASCII letters ("naïve" → "na", "ve")
ASCII_WORD = re.compile(r"[A-Za-z]+")
#: on lowercased text: ASCII letters and digits, an underscore splitting ("comic_strip")
LOWER_ALNUM = re.compile(r"[a-z0-9]+")
#: a word starting with a letter that keeps inner dots, hyphens and apostrophes ("U.S.", "sou-wester")
NAME_TOKEN = re.compile(r"[A-Za-z][\w'’.\-]*")
#: words joined by inner apostrophes or hyphens ("light-dependent", "o'clock"): KeyBERT's tokens
JOINED_WORD = re.compile(r"\w+(?:['’-]\w+)*")
#: a number in digits with its separators ("1,982", "3.5")
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
#: on casefolded text: a word with one apostrophe part, or a number
WORD_OR_NUMBER = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*")


def word_tokens(text: str) -> list[str]:
    r"""Lowercase word tokens (:data:`WORD`, ``\w+``, Unicode-aware; punctuation dropped).

    >>> word_tokens("The U.S. won 3-1!")
    ['the', 'u', 's', 'won', '3', '1']
    """
    return WORD.findall(text.lower())


def words_or_numbers(text: str) -> list[str]:
    """:data:`WORD_OR_NUMBER` tokens of the casefolded text, a curly apostrophe made straight.

    >>> words_or_numbers("Who’s won 1,982 times?")
    ["who's", 'won', '1,982', 'times']
    """
    return WORD_OR_NUMBER.findall(text.casefold().replace("’", "'"))
