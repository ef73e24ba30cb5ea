"""Clause rules: a second question, a comparison, a blank filled or moved, a phrase added.

Also a repeated noun said once and "whose" lost. They read words (only
:func:`repeat_lost` asks WordNet whether a word is a noun): :func:`second_question` finds the question's wh-phrase kept inside the sentence with
another wh-word fronted ("… in which cavity?" → "How do … in which cavity?");
:func:`comparison_changed` a "than" on one side only; :func:`blank_filled` a word the
alignment left unmatched standing where the question's closing wh-word stood ("… and
what?" → "… and the stomach?").
"""

from __future__ import annotations

import re
from collections import Counter

from ..text.function_words import content_words
from ..text.stems import inflection_stem
from ..text.tokens import words_or_numbers as _words
from ..text.wordnet import pos_candidates
from .frames import WH_WORDS, final_sentence, question_proper
from .text import DETERMINERS

__all__ = [
    "blank_filled",
    "blank_moved",
    "comparison_changed",
    "constraint_added",
    "repeat_lost",
    "second_question",
    "whose_lost",
    "without_bare_subject",
]


def second_question(candidate: str, original: str) -> str | None:
    """The question's wh-phrase kept where it stood, another wh-word put before it: two questions.

    "Collateral ganglia controls organs in which cavity?" → "*How* do
    collateral ganglia control organs in which cavity?"; "… possess what from
    a different species?" → "Do you know *how* often … possess what from …".
    Only for a question whose wh-word stands inside it (not first), and only
    a wh-word the question does not have at all; a "what" put before it is
    read as filler, as the labelled draws read it.
    """
    o, c = _words(final_sentence(original)), _words(final_sentence(candidate))
    if not o or o[0] in WH_WORDS:
        return None
    for i, w in enumerate(o[1:], start=1):
        if w not in ("what", "which", "whom"):
            continue
        nxt = o[i + 1 : i + 2]
        for j, x in enumerate(c):
            if x == w and c[j + 1 : j + 2] == nxt:
                # a "what" after a frame is filler ("Can you tell me what … in which cavity")
                fronted = [v for v in c[:j] if v in WH_WORDS - {"what"} and v not in o]
                if fronted:
                    return f"asks {fronted[0]!r} besides the question's {w!r}: two questions"
    return None


def comparison_changed(candidate: str, original: str) -> str | None:
    """A comparison ("thicker than the muscular layer") on one side only.

    "The muscular layer is much thicker in which ventricle?" compares the
    ventricles; "Which ventricle is thicker than the muscular layer?" compares
    a ventricle with the layer.
    """
    n_o, n_c = _words(original).count("than"), _words(candidate).count("than")
    if (n_o == 0) == (n_c == 0):
        return None
    return "a comparison added ('than')" if n_c else "the comparison dropped ('than')"


def blank_filled(candidate: str, original: str, added: tuple[str, ...]) -> str | None:
    """The question ends on its wh-word ("…, jejunum, and what?"); the rewording ends on a new word.

    "… the duodenum, jejunum, and what?" → "Can you tell me what … are the
    duodenum, jejunum, and the stomach?" answers itself and asks whether it is
    so. ``added``: the rewording's words no word of the question matched
    (:func:`~invent_core.perturb.align.alignment`).
    """
    o, c = _words(final_sentence(original)), _words(final_sentence(candidate))
    if not o or not c or o[-1] not in WH_WORDS or c[-1] in WH_WORDS:
        return None
    # a noun phrase closing the sentence ("and the stomach"), not a verb ("… together form")
    if c[-1] not in added or len(c) < 2 or c[-2] not in ("the", "a", "an", "and", "or"):
        return None
    last = c[-1]
    return f"fills the blank the question leaves ({o[-1]!r} → {last!r})"


#: a blank closing the question after a preposition: "… nourishment of a what?"
_BLANK_AFTER = re.compile(
    r"\b(of|to|in|on|at|for|from|by|with|into|about|as)\s+(?:(?:a|an|the)\s+)?"
    r"(?:what|which|whom)\W*$",
    re.I,
)


def blank_moved(candidate: str, original: str) -> str | None:
    """The question's closing "of what?" left its preposition: the blank now asks something else.

    "Vivipary refers to the development and nourishment of a what?" → "What
    are the development and nourishment of vivipary?" asks what they are, not
    of what. Kept: "… nourishment of what?", "From what do …", "… what
    Vivipary refers to the nourishment of?" (the preposition left at the end).
    """
    m = _BLANK_AFTER.search(final_sentence(original).strip())
    if m is None:
        return None
    prep, text = m.group(1).lower(), candidate.casefold()
    kept = re.search(rf"\b{prep}\s+(?:(?:a|an|the)\s+)?(?:what|which|whom)\b", text)
    if kept or re.sub(r"\W+$", "", text).endswith(" " + prep):
        return None
    return f"the blank after {prep!r} moved: asks another thing"


#: "What are people with …", "What do children …": the subject right after the auxiliary
_BARE_SUBJECT = re.compile(
    r"^(\W*(?:what|which)\s+(?:is|are|was|were|do|does|did|can|could|should|will|would)\s+)"
    r"(?!(?:the|a|an|this|that|these|those|his|her|their|its|our|your|my)\b)[a-z]+\b",
    re.I,
)


def without_bare_subject(text: str) -> str:
    """The question less a subject without a determiner right after "what + auxiliary".

    In "What are people with osteoporosis at increased risk of?" the people are
    who is asked about, not the kind of answer: "Who has osteoporosis …" asks
    another thing. "What is the name of the person …" keeps its person.
    """
    return _BARE_SUBJECT.sub(r"\1", question_proper(final_sentence(text))[0], count=1)


def whose_lost(candidate: str, original: str) -> bool:
    """Whether "whose" is lost: "Whose first appearance …" → "Who was … first appearance"."""
    owner = ("whose", "who's")
    return "whose" in _words(original) and not any(w in owner for w in _words(candidate))


#: prepositions that put a place, a time or a purpose on the question ("… spend *on food*")
_CONSTRAINING = frozenset("on in at for during inside near under within".split())


def constraint_added(candidate: str, original: str, added: tuple[str, ...]) -> str | None:
    """The rewording ends on a phrase the question has not: "… spend *on food*?", "*in the ocean*".

    "How much money did he spend?" → "How much money did he spend on a holiday?"
    asks about a part of it; "What happens when water freezes?" → "… freezes in
    the ocean?" about one place. Only a place, time or purpose phrase closing the
    sentence whose noun the alignment left unmatched (``added``); "of the meiosis
    cycle" names the same thing.
    """
    c = _words(final_sentence(candidate))
    if len(c) < 3 or c[-1] not in added:
        return None
    at = max(
        (i for i in range(len(c) - 4, len(c) - 1) if i >= 0 and c[i] in _CONSTRAINING), default=None
    )
    if at is None or any(w not in DETERMINERS and w not in added for w in c[at + 1 : -1]):
        return None
    if " ".join(c[at:]) in " ".join(_words(original)):
        return None
    return f"adds {' '.join(c[at:])!r}: asks about a part of it"


def repeat_lost(candidate: str, original: str) -> str | None:
    """A content word the question says twice said once: "big momma in big mommas house".

    "Who plays big momma in big mommas house?" → "Who plays in the House of Big
    Mommas?" lost the role and kept the title; alignment, which matches words
    not their counts, cannot see it. One-sentence questions only, nouns of four
    letters or more not written as a name, by stem.
    """
    if final_sentence(original).strip() != original.strip():
        return None  # a problem's premises repeat their nouns on purpose
    names = {w.casefold() for w in re.findall(r"\b[A-Z][a-z]+", original)}

    def counts(text: str) -> Counter[str]:
        w = _words(text)
        # the noun of "how many jellyfish" may be left out: "how many would 5 springs create"
        skip = names | {w[i] for i in range(1, len(w)) if w[i - 1] in ("many", "much")}
        words = [x for x in w if len(x) > 3 and x not in skip and _noun_only(x)]
        content = content_words(text)
        return Counter(s for s in map(inflection_stem, words) if s in content)

    q, c = counts(original), counts(candidate)
    lost = sorted(w for w, k in q.items() if k > 1 and 0 < c[w] < k)
    return f"said once, twice in the question: {', '.join(lost)}" if lost else None


def _noun_only(word: str) -> bool:
    """Whether WordNet knows the word (or its singular) as a noun and nothing else."""
    return set(pos_candidates(word)) == {"n"}
