"""What the paraphrase judge knows about words: WordNet 3.0 behind one small Protocol.

The judge (:mod:`invent_core.evaluation.paraphrase_judge`) asks four questions of a
word; :class:`WordNetLexicon` answers them from the packaged WordNet that GAAP uses
(:func:`invent_core.text.wordnet.load_wordnet`, offline, loaded on first use):

- :meth:`~Lexicon.lemmas`: its base forms ("fractures" → "fracture", "bonding" → "bond");
- :meth:`~Lexicon.related`: the words of every sense's synset, its derivations and
  pertainyms ("sun" ↔ "sunlight", "solar" → "sun", "slowly" → "slow", "electric" ↔
  "electrical", "organism" ↔ "organic");
- :meth:`~Lexicon.is_kind_of`: whether a noun sense lies under a sense of another noun
  ("grass" under "plant", "dioxide" under "oxide");
- :meth:`~Lexicon.gloss_words`: the words of its definitions ("fracture": "breaking of
  hard tissue such as bone").

Lookups are cached per word and go through WordNet's one lock (nltk's reader shares
file handles with GAAP's threads).
"""

from __future__ import annotations

import functools
from typing import Any, Protocol

from ..text.tokens import LOWER_ALNUM
from ..text.wordnet import load_wordnet, serialised

__all__ = ["Lexicon", "WordNetLexicon", "default_lexicon"]

#: A kind must sit at least this deep under WordNet's root to take its kinds as answers:
#: "grass" counts as "plants" (depth 6), "nectar" as "food" (4), "waste" not as "matter" (2).
MIN_KIND_DEPTH = 4


class Lexicon(Protocol):
    """What the paraphrase judge asks about a (lower-case) word."""

    def lemmas(self, word: str) -> frozenset[str]:
        """The word and its base forms."""

    def related(self, word: str) -> frozenset[str]:
        """Synonyms, derivations and pertainyms of every sense (multi-word ones with spaces)."""

    def is_kind_of(self, word: str, general: str) -> bool:
        """Whether a noun sense of ``word`` lies under a (specific enough) noun sense of ``general``."""

    def gloss_words(self, word: str) -> frozenset[str]:
        """The words of the definitions of ``word``'s senses."""


def _name(lemma: Any) -> str:
    return lemma.name().lower().replace("_", " ")


class WordNetLexicon:
    """:class:`Lexicon` over the packaged WordNet 3.0; the reader loads on the first lookup."""

    @functools.cached_property
    def _wn(self) -> Any:
        return load_wordnet()

    @functools.cache  # noqa: B019 - one instance per process (default_lexicon)
    @serialised
    def lemmas(self, word: str) -> frozenset[str]:
        """``word`` with its base forms under every part of speech WordNet knows it as."""
        forms = {word}
        for pos in "nvar":
            base = self._wn.morphy(word, pos)
            if base:
                forms.add(base)
        return frozenset(forms)

    @functools.cache  # noqa: B019
    def related(self, word: str) -> frozenset[str]:
        """Synset mates, derivationally related forms and pertainyms of ``word``'s senses."""
        return frozenset(self._related(self.lemmas(word)))

    @serialised
    def _related(self, forms: frozenset[str]) -> set[str]:
        out: set[str] = set()
        for form in forms:
            for synset in self._wn.synsets(form):
                for lemma in synset.lemmas():
                    out.add(_name(lemma))
                    if _name(lemma) == form:
                        out.update(_name(x) for x in lemma.derivationally_related_forms())
                        out.update(_name(x) for x in lemma.pertainyms())
        return out

    @functools.cache  # noqa: B019
    @serialised
    def is_kind_of(self, word: str, general: str) -> bool:
        """A noun sense of ``word`` has a noun sense of ``general`` among its ancestors.

        ``general``'s senses shallower than :data:`MIN_KIND_DEPTH` are left out: nearly
        everything is a kind of "matter" or "object".
        """
        tops = {
            s
            for g in self.lemmas(general)
            for s in self._wn.synsets(g, pos="n")
            if s.min_depth() >= MIN_KIND_DEPTH
        }
        if not tops:
            return False
        for w in self.lemmas(word):
            for s in self._wn.synsets(w, pos="n"):
                up = s.closure(lambda x: x.hypernyms() + x.instance_hypernyms())
                if tops.intersection(up):
                    return True
        return False

    @functools.cache  # noqa: B019
    @serialised
    def gloss_words(self, word: str) -> frozenset[str]:
        """Lower-case words of the definitions of every sense of ``word``'s base forms."""
        words: set[str] = set()
        for form in self.lemmas(word):
            for synset in self._wn.synsets(form):
                words.update(LOWER_ALNUM.findall(synset.definition().lower()))
        return frozenset(words)


@functools.lru_cache(maxsize=1)
def default_lexicon() -> WordNetLexicon:
    """The process's one :class:`WordNetLexicon` (its caches are shared by every judge call)."""
    return WordNetLexicon()
