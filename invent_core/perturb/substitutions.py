"""GAAP's substitution sets SUB(t): WordNet neighbours of one token in its sentence.

Paper, Appendix "GAAP Implementation Details": SUB(t) is the token's synonyms,
hypernyms and hyponyms (and its deletion, added by GAAP's operators). The
WordNet reader, its lock and the part of speech in context are
:mod:`invent_core.text.wordnet`'s; this module turns them into the options GAAP
draws from, in the token's capitalisation and number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..serialize import JsonDataclass
from ..text.wordnet import guess_pos, load_wordnet, serialised

Relation = Literal["synonym", "hypernym", "hyponym", "deletion"]


@dataclass(frozen=True)
class Substitution(JsonDataclass):
    """One element of SUB(t): the replacement text ("" for deletion) and how it relates to t."""

    text: str
    relation: Relation


@dataclass(frozen=True)
class SubstitutionSet(JsonDataclass):
    """WordNet neighbours of one token in context.

    Attributes
    ----------
    token : the token as written in the question.
    pos : the part of speech used (``"n"``, ``"v"``, ``"a"``, ``"r"``), or None
        when WordNet does not know the word (then ``options`` is empty).
    lemma : WordNet's base form of the token under ``pos``.
    options : synonyms, hypernyms and hyponyms, de-duplicated, the token itself
        excluded, multi-word lemmas with spaces, in the token's capitalisation.
    """

    token: str
    pos: str | None
    lemma: str | None
    options: tuple[Substitution, ...]


@serialised
def substitution_set(
    tokens: Sequence[str],
    index: int,
    *,
    max_senses: int | None = None,
    inflect_plurals: bool = True,
) -> SubstitutionSet:
    """WordNet synonyms ∪ hypernyms ∪ hyponyms of ``tokens[index]`` (deletion not included).

    Parameters
    ----------
    tokens, index : the word and its sentence, as in :func:`guess_pos`.
    max_senses : use only the first ``max_senses`` senses (WordNet orders
        them by frequency); None uses all, as the paper does.
    inflect_plurals : when the token is a regular plural noun
        ("championships"), pluralise each replacement ("titles"). Ours; the
        paper substitutes base forms. Verbs are never re-inflected.

    Returns
    -------
    SubstitutionSet. Direct hypernyms and hyponyms only (nltk's ``hypernyms()``
    / ``hyponyms()``, so instance relations such as golfer → "Nicklaus" are
    not included). Multi-word lemmas use spaces ("golf player"); the token's
    capitalisation is kept ("Golfer" → "Linksman", "UK" → "UK"-style upper
    case) unless WordNet spells the replacement with capitals itself.

    References
    ----------
    Paper, Appendix "GAAP Implementation Details", definition of SUB(t).
    """
    word = tokens[index]
    pos, lemma = guess_pos(tokens, index)
    if pos is None or lemma is None:
        return SubstitutionSet(token=word, pos=None, lemma=None, options=())
    wn = load_wordnet()
    synsets = wn.synsets(lemma, pos)
    lemma = lemma.replace("_", " ")
    if max_senses is not None:
        synsets = synsets[:max_senses]
    plural = (
        inflect_plurals
        and pos == "n"
        and word.lower() != lemma
        and word.lower() == _pluralise(lemma).lower()
    )
    exclude = {word.lower(), lemma.lower()}
    seen: set[str] = set()
    options: list[Substitution] = []

    def add(names: Sequence[str], relation: Relation) -> None:
        for name in names:
            text = name.replace("_", " ")
            if text.lower() in exclude:
                continue
            if plural and not any(c.isupper() for c in text):
                text = _pluralise(text)
            text = match_case(word, text)
            key = text.lower()
            if key in seen or key in exclude:
                continue
            seen.add(key)
            options.append(Substitution(text, relation))

    for relation in ("synonym", "hypernym", "hyponym"):
        for syn in synsets:
            if relation == "synonym":
                add(syn.lemma_names(), "synonym")
            else:
                related = syn.hypernyms() if relation == "hypernym" else syn.hyponyms()
                # nltk keeps pointers in a set of (pos, offset): its order changes with
                # PYTHONHASHSEED, so sort into WordNet's file order for reproducible runs
                for rel in sorted(related, key=lambda s: (s.pos(), s.offset())):
                    add(rel.lemma_names(), relation)  # type: ignore[arg-type]
    return SubstitutionSet(token=word, pos=pos, lemma=lemma, options=tuple(options))


def match_case(original: str, replacement: str) -> str:
    """Give ``replacement`` the capitalisation of ``original`` (Title or UPPER).

    A replacement WordNet already spells with capitals ("United States") is
    kept as it is.
    """
    if not replacement or any(c.isupper() for c in replacement):
        return replacement
    if len(original) > 1 and original.isupper():
        return replacement.upper()
    if original[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


_ES = re.compile(r"(s|x|z|ch|sh)$")
_Y = re.compile(r"[^aeiou]y$")


def _pluralise(phrase: str) -> str:
    """Regular English plural of the last word of ``phrase`` ("triple crown" → "triple crowns")."""
    if _ES.search(phrase):
        return phrase + "es"
    if _Y.search(phrase):
        return phrase[:-1] + "ies"
    return phrase + "s"
