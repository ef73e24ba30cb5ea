"""Two common-noun answers compared through WordNet: one sense, sister kinds, or a definition.

The words of "oxidants" and "oxidizing agents", or "joey" and "young
kangaroo", share nothing, so the word rules leave them to the embedder. WordNet
knows more:

* **one sense**: a synset among the first two senses of both ("mitochondrion" /
  "mitochondria", "oxidant" / "oxidizing agent", "marsupial" / "pouched
  mammal") → the same answer;
* **sister kinds**: the first senses differ and share a parent within two levels
  ("herbivore" / "carnivore", "mitochondrion" / "chloroplast", "biology" /
  "geology") → different answers;
* **a definition**: every content word of a short answer is in the definition
  of the other's first sense ("young kangaroo" for "joey": "the young of a
  kangaroo"; "solid water" for "ice") → the same answer.

Names are left alone (a capitalised answer is the name rules'), and so is
anything longer than :data:`MAX_WORDS` words: a sentence is no lemma.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from ..text.stems import plural_stem
from ..text.wordnet import load_wordnet, serialised

__all__ = ["lexical_verdict"]

#: longest answer (in words) looked up as one WordNet lemma
MAX_WORDS = 3
#: senses of each answer read for a shared synset
SENSES = 2
#: how far up the two first senses may meet to be sister kinds
PARENT_LEVELS = 2
_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.IGNORECASE)
_WORD = re.compile(r"[a-z]+")
_GLOSS_STOP = frozenset(
    "a an the of in on at to for from by with and or is are was were that which who its it "
    "as be one any some".split()
)


def _lemma(text: str) -> str | None:
    """An answer as one WordNet lemma ("the oxidizing agents" → "oxidizing_agents"), or None."""
    bare = _ARTICLE.sub("", text.strip().rstrip(".")).strip()
    words = bare.split()
    if not words or len(words) > MAX_WORDS or any(w[:1].isupper() for w in words):
        return None  # a name (or a sentence) is not the lexicon's
    if not all(_WORD.fullmatch(w) or "-" in w for w in words):
        return None
    return "_".join(w.replace("-", "_") for w in words)


@functools.cache
@serialised
def _senses(lemma: str) -> tuple[Any, ...]:
    """The noun senses of a lemma, in WordNet's order (plural forms reduced)."""
    wn = load_wordnet()
    found = wn.synsets(lemma, "n")
    if not found:
        base = wn.morphy(lemma, "n")
        found = wn.synsets(base, "n") if base else []
    return tuple(found)


@functools.cache
@serialised
def _parents(synset: Any, levels: int) -> frozenset[str]:
    """The names of a synset's hypernyms up to ``levels`` above it."""
    out: set[str] = set()
    frontier = [synset]
    for _ in range(levels):
        frontier = [h for s in frontier for h in s.hypernyms() + s.instance_hypernyms()]
        out |= {h.name() for h in frontier}
    return frozenset(out)


def _gloss_words(synset: Any) -> frozenset[str]:
    return frozenset(plural_stem(w) for w in _WORD.findall(synset.definition().lower()))


def _defined_by(lemma: str, senses: tuple[Any, ...], other: str) -> bool:
    """Whether every content word of ``other`` (two or more) is in the first sense's definition."""
    words = [w for w in _WORD.findall(other.lower()) if w not in _GLOSS_STOP]
    if len(words) < 2 or not senses:
        return False
    return {plural_stem(w) for w in words} <= _gloss_words(senses[0])


def lexical_verdict(a: str, b: str) -> bool | None:
    """True / False where WordNet decides (see the module docstring), else None.

    Examples
    --------
    >>> lexical_verdict("oxidants", "oxidizing agents"), lexical_verdict("oxidants", "reductants")
    (True, False)
    >>> lexical_verdict("Paris", "the French capital") is None
    True
    """
    la, lb = _lemma(a), _lemma(b)
    sa = _senses(la) if la else ()
    sb = _senses(lb) if lb else ()
    if sa and sb:
        if {s.name() for s in sa[:SENSES]} & {s.name() for s in sb[:SENSES]}:
            return True
        if _parents(sa[0], PARENT_LEVELS) & _parents(sb[0], PARENT_LEVELS):
            if not (_defined_by(la, sa, b) or _defined_by(lb, sb, a)):
                return False
    if (la and _defined_by(la, sa, b)) or (lb and _defined_by(lb, sb, a)):
        return True
    return None
