"""Word tokens and key tokens k(S, r) for GAAP (paper, Appendix "Key words selection").

Tokens come from one regular expression (nltk's punkt data is not available
offline): a word is a run of letters/digits, optionally joined by inner
apostrophes or hyphens ("US", "1982", "self-made", "O'Neill"). Everything
between words (spaces, punctuation) is kept as the *gaps* of a
:class:`Template`, so a sentence can be rebuilt from any sequence of words.

Key tokens are KeyBERT's keywords over single words, with the packaged MiniLM
model passed in as an object (its vectors come through the embedder's cache) (KeyBERT's own default is the same family,
all-MiniLM-L6-v2; a hub name would be fetched) and scikit-learn's English stop
words (nltk's stopword list is not available offline). KeyBERT is given a
``CountVectorizer`` with the same regular expression, so each keyword is
exactly one of our tokens (lower-cased) and maps back to a position.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..embedders import KEYWORD_EMBEDDER, get_embedder
from ..serialize import JsonDataclass
from ..text.tokens import JOINED_WORD

_lock = threading.Lock()
_keybert: dict[int, Any] = {}


def stop_words() -> frozenset[str]:
    """scikit-learn's English stop words (the list KeyBERT uses by default)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return ENGLISH_STOP_WORDS


@dataclass(frozen=True)
class Template:
    """A sentence split into word tokens and the text around them.

    Attributes
    ----------
    text : the sentence.
    words : its p word tokens, t_1 … t_p in the paper's notation.
    gaps : p + 1 strings; ``gaps[0]`` precedes the first word and
        ``gaps[i + 1]`` follows word i, so ``text == gaps[0] + words[0] + gaps[1] + …``.
    """

    text: str
    words: tuple[str, ...]
    gaps: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> Template:
        """Split ``text`` into word slots and the text between them."""
        words: list[str] = []
        gaps: list[str] = []
        end = 0
        for m in JOINED_WORD.finditer(text):
            gaps.append(text[end : m.start()])
            words.append(m.group())
            end = m.end()
        gaps.append(text[end:])
        return cls(text=text, words=tuple(words), gaps=tuple(gaps))

    def render(self, slots: Sequence[str]) -> str:
        """The sentence with word i replaced by ``slots[i]`` ("" deletes it).

        ``slots`` must have one entry per word. A deleted word takes the
        whitespace before it along, so "US Open championships in" without its
        third word reads "US Open in", and "in 1982?" without "1982" reads "in?".
        """
        if len(slots) != len(self.words):
            raise ValueError(f"expected {len(self.words)} slots, got {len(slots)}")
        pieces: list[str] = []
        gap = self.gaps[0]
        for word, after in zip(slots, self.gaps[1:]):
            if word:
                pieces += [gap, word]
                gap = after
            else:
                gap = gap.rstrip() + after
        pieces.append(gap)
        out = "".join(pieces)
        if not self.text[:1].isspace():
            out = out.lstrip()
        if not self.text[-1:].isspace():
            out = out.rstrip()
        return out


@dataclass(frozen=True)
class KeyToken(JsonDataclass):
    """One key token: its position among the word tokens, its text, its KeyBERT score."""

    position: int
    token: str
    score: float


def n_key_tokens(p: int, ratio: float) -> int:
    """The number of key tokens, q = int(r · p), at least 1 (paper, Appendix "Key words selection")."""
    return max(1, int(ratio * p))


def keybert_for(model: Any) -> Any:
    """One KeyBERT per sentence-embedding model, made on first use (thread-safe)."""
    with _lock:
        kb = _keybert.get(id(model))
        if kb is None:
            from keybert import KeyBERT

            kb = KeyBERT(model=model)
            _keybert[id(model)] = kb
        return kb


def key_tokens(text: str, ratio: float, *, embedder: Any = None) -> tuple[KeyToken, ...]:
    """k(S, r): the q = int(r · p) most key word tokens of ``text``, by KeyBERT.

    Parameters
    ----------
    text : the sentence S.
    ratio : r, the share of word tokens to return (0 < r ≤ 1).
    embedder : the packaged MiniLM embedder (default ``get_embedder("minilm")``).
        KeyBERT is built on its ``SentenceTransformer`` (``KeyBERT(model=
        embedder.model)``) and is handed the sentence and candidate-word
        vectors from ``embedder.encode``, so they go through the embedder's
        text → vector cache like every other text of a run.

    Returns
    -------
    Key tokens, best first. A keyword occurring several times maps to its
    first occurrence. Stop words are never key tokens, unless the sentence
    has nothing else (then all words are candidates). Fewer than q are
    returned when the sentence has fewer distinct candidates.

    References
    ----------
    Paper, Appendix "GAAP Implementation Details", k(S_x0, r).
    """
    if not 0 < ratio <= 1:
        raise ValueError(f"ratio must be in (0, 1], got {ratio}")
    words = Template.parse(text).words
    if not words:
        raise ValueError(f"no word tokens in {text!r}")
    q = n_key_tokens(len(words), ratio)
    if embedder is None:
        embedder = get_embedder(KEYWORD_EMBEDDER)
    from sklearn.feature_extraction.text import CountVectorizer

    kb = keybert_for(embedder.model)
    lowered = [w.lower() for w in words]
    found: list[tuple[str, float]] = []
    for stops in (sorted(stop_words()), None):
        vec = CountVectorizer(token_pattern=JOINED_WORD.pattern, stop_words=stops, lowercase=True)
        try:
            candidates = list(vec.fit([text]).get_feature_names_out())
        except ValueError:  # empty vocabulary: only stop words
            continue
        found = kb.extract_keywords(
            text,
            vectorizer=vec,
            top_n=q,
            doc_embeddings=embedder.encode([text]),
            word_embeddings=embedder.encode(candidates),
        )
        if found:
            break
    out: list[KeyToken] = []
    used: set[int] = set()
    for kw, score in found:
        pos = next((i for i, w in enumerate(lowered) if w == kw and i not in used), None)
        if pos is not None:
            used.add(pos)
            out.append(KeyToken(position=pos, token=words[pos], score=round(float(score), 4)))
    return tuple(out)
