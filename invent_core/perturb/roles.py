"""Who does what to whom: the subject and object of a question's one verb, and of a comparison.

"Who did Brutus kill?" and "Who killed Brutus?" have the same words; the
subject of "kill" is Brutus in one and the asked-for person in the other.
:func:`roles_swapped` reads the subject and object of the one verb both texts
share (its part of speech guessed in context, WordNet's base form) and the two
sides of one "than", and names a word that changed role.
"""

from __future__ import annotations

import functools
import re

from ..text.wordnet import guess_pos, load_wordnet, serialised
from .frames import WH_WORDS, question_proper
from .text import DETERMINERS

__all__ = ["roles_swapped"]


_ROLE_AUX = frozenset(
    "do does did can could will would must should may might shall is are was were has have had "
    "be been being".split()
)
_BE = frozenset("is are was were be been being".split())
_NOT_ROLES = frozenset(
    "the a an of in on at to for from by with into onto under over about than that which who "
    "whom whose what where when why how this these those it its their his her there most many "
    "much some any all times".split()
)


@functools.cache
@serialised
def _verb_lemma(word: str) -> str | None:
    """The verb a word is a form of ("killed" → "kill"), None for a word with no verb sense."""
    if word in _ROLE_AUX or not word.isalpha():
        return None
    return load_wordnet().morphy(word, "v")


def _roles(words: list[str], pivot: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """(subject, object) words of the first form of verb ``pivot``; None when it is absent.

    The subject is what stands before the verb after the wh-phrase ("Who did
    [Brutus] kill", "what [the cat] chased"; "Which team beat Liverpool" has
    the wh-phrase for subject), the object what follows it within four words
    ("turn into [a caterpillar]"). A passive ("Hamlet was written by whom")
    swaps them: its subject is the agent after "by". Words after a
    preposition before the verb, or before a comma, are adjuncts and left out.
    """
    at = next((i for i, w in enumerate(words) if _verb_lemma(w) == pivot), None)
    if at is None:
        return None
    before = words[:at]
    if "," in before:
        before = before[len(before) - before[::-1].index(",") :]
    if before and before[0] in WH_WORDS | {"from", "to", "in", "on", "by", "of"}:
        k = next((i for i, w in enumerate(before) if w in _ROLE_AUX), len(before))
        before = before[k:]  # the wh-phrase is not the subject
    after = words[at + 1 : at + 5]
    if "," in after:
        after = after[: after.index(",")]
    subject, obj = _noun_words(before), _noun_words(after, keep_pp=True)
    if "by" in words[at + 1 :] and any(w in _BE for w in words[:at]):
        by = words.index("by", at + 1)
        return _noun_words(words[by + 1 : by + 4], keep_pp=True), subject
    return subject, obj


def _noun_words(words: list[str], keep_pp: bool = False) -> frozenset[str]:
    """Content words, less those after a preposition unless ``keep_pp``."""
    out, in_pp = set(), False
    for w in words:
        if w in ("in", "on", "at", "from", "to", "into", "under", "over", "with", "during"):
            in_pp = not keep_pp
        elif w not in _NOT_ROLES and w not in _ROLE_AUX and w != "," and not in_pp:
            out.add(w)
    return frozenset(out)


def roles_swapped(candidate: str, original: str) -> str | None:
    """Who does what to whom swapped: the subject of the shared verb is another one.

    "Who did Brutus kill?" → "Who killed Brutus?", "What does a caterpillar
    turn into?" → "What turns into a caterpillar?", "How much bigger is the
    Sun than the Earth?" → "… the Earth than the Sun?". A passive keeps the
    roles ("Who wrote Hamlet?" ~ "Hamlet was written by whom?").
    """
    o = _WORD_COMMA.findall(question_proper(original)[0].casefold().replace("’", "'"))
    c = _WORD_COMMA.findall(question_proper(candidate)[0].casefold().replace("’", "'"))
    note = _than_swapped(o, c)
    if note is not None:
        return note
    verbs_o, verbs_c = _verbs(o), _verbs(c)
    shared = [v for v in verbs_o if v in verbs_c]
    if len(verbs_o) != 1 or len(shared) != 1 or verbs_c.count(shared[0]) != 1:
        return None  # one verb in the question, once in the rewording: whose subject is clear
    pivot = shared[0]
    ro, rc = _roles(o, pivot), _roles(c, pivot)
    if ro is None or rc is None:
        return None
    moved = (ro[0] & rc[1]) | (ro[1] & rc[0])
    if moved:
        return f"{', '.join(sorted(map(repr, moved)))} moved to or from the subject of '{pivot}'"
    return None


def _verbs(words: list[str]) -> list[str]:
    """The verbs of a sentence as WordNet's base forms, by each word's part of speech in context."""
    out = []
    for i, w in enumerate(words):
        if w == "," or w in _ROLE_AUX or w in _NOT_ROLES or not w.isalpha():
            continue
        lemma = _verb_lemma(w)
        if lemma is None:
            continue
        pos, _ = guess_pos([x for x in words if x != ","], i - words[:i].count(","))
        if _wh_determined(words, i):
            continue  # "Which team did …": the noun the wh-word asks about, not a verb
        # right after a wh-word ("What eats …") or after "did X" ("did Beethoven study"),
        # a word that can be a verb is one, whatever its commoner sense
        if pos == "v" or (i and words[i - 1] in WH_WORDS) or _after_do(words, i):
            out.append(lemma)
    return out


def _wh_determined(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` is the noun of a wh-phrase: "which team", "what team did …".

    After "which" or "whose" the next word is a noun unless an auxiliary
    follows the wh-word; after "what" it is one when an auxiliary follows it
    ("What team did Liverpool beat?"), a verb otherwise ("What eats …").
    """
    if not i or words[i - 1] not in ("which", "whose", "what"):
        return False
    nxt = words[i + 1] if i + 1 < len(words) else ""
    return words[i - 1] != "what" or nxt in _ROLE_AUX


def _after_do(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` is the first word that can be a verb after "do/does/did" + subject."""
    do = [k for k in range(max(0, i - 4), i) if words[k] in ("do", "does", "did")]
    if not do:
        return False
    start = do[-1] + (3 if do[-1] + 1 < len(words) and words[do[-1] + 1] in DETERMINERS else 2)
    return i >= start and not any(_verb_lemma(w) for w in words[start:i])


def _than_swapped(o: list[str], c: list[str]) -> str | None:
    """The two sides of one comparison swapped ("bigger is the Sun than the Earth")."""
    if o.count("than") != 1 or c.count("than") != 1:
        return None
    lo, ro = _sides_of_than(o)
    lc, rc = _sides_of_than(c)
    if lo & rc and ro & lc:
        return f"{', '.join(sorted(map(repr, lo & rc)))} changed sides of 'than'"
    return None


def _sides_of_than(words: list[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The noun words just before "than" (after the last auxiliary) and just after it."""
    at = words.index("than")
    before = words[:at]
    aux = [i for i, w in enumerate(before) if w in _ROLE_AUX]
    left = before[aux[-1] + 1 :] if aux else before[-3:]
    return _noun_words(left), _noun_words(words[at + 1 : at + 4])


_WORD_COMMA = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*|,")
