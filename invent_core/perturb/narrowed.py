"""Narrower questions: a kind of answer named where the question named none, or a kind of person.

"What provides clear evidence of evolution?" → "Which *method* provides …"
asks for a method where the question asked for anything; "Who had a hit with
…" → "Which *singer* had …" asks for a singer where it asked for anyone. Both
read the kind slot of the rewording's last sentence (the noun after
"what"/"which") and the words :func:`~invent_core.perturb.align.alignment`
left unmatched.
"""

from __future__ import annotations

from ..text.wordnet import guess_pos, pos_candidates
from .align import ASKS_NOTHING, content_tokens, lower_words, words_match
from .frames import WH_WORDS, final_sentence, question_proper
from .meaning import ANSWER_KINDS, is_person_noun
from .meaning import names_amount as _names_amount
from .text import DETERMINERS

__all__ = ["kind_narrowed", "person_narrowed"]


#: words between "what"/"which" and the noun that names the kind of answer ("what is the type of")
_BEFORE_KIND = frozenset("is are was were the a an type types kind kinds sort sorts of".split())
#: words that name no kind after "what" (the kinds of answer do: "What city …")
_ASKS_NOTHING_BUT_KINDS = ASKS_NOTHING - ANSWER_KINDS
#: an indefinite person, narrowed like "who" ("someone won" → "a player won")
_ANYONE = frozenset("someone somebody anyone anybody".split())
#: kinds of answer that narrow nothing: a name, a number or amount asked for anyway
_ANY_KIND = frozenset("name names answer term word amount number total value".split())


def _kind_slot(text: str) -> tuple[list[str], int] | None:
    """The words of the last sentence and where its "what"/"which" names its kind, else None."""
    words = lower_words(final_sentence(text))
    at = next((i for i, w in enumerate(words) if w in ("what", "which")), None)
    if at is None:
        return None
    i = at + 1
    while i < len(words) and words[i] in _BEFORE_KIND:
        i += 1
    return words, i


def _names_kind(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` is a noun naming the kind asked for ("What *compounds* form …")."""
    if i >= len(words) or words[i] in _ASKS_NOTHING_BUT_KINDS:
        return False
    if _verb_after_what(words, i):
        return False
    return guess_pos(words, i)[0] in ("n", "a")


def _verb_after_what(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` after "what" is a verb: "What causes the tides?", "What makes crystals?".

    A word that is a noun and a verb in -s or -ed is the verb when a noun
    phrase follows it (a :data:`~invent_core.perturb.text.DETERMINERS` word or a plural), the
    noun when a verb follows
    it ("What compounds form crystals?").
    """
    word = words[i]
    inflected = word.endswith("ed") or (word.endswith("s") and not word.endswith("ss"))
    if not inflected or "v" not in pos_candidates(word):
        return False
    nxt = words[i + 1] if i + 1 < len(words) else ""
    return not nxt or nxt in DETERMINERS or nxt.endswith("s")


def kind_narrowed(question: str, rewording: str, added: tuple[str, ...]) -> str | None:
    """An added noun naming the kind of answer where the question named none: a narrower question.

    "What provides clear evidence of evolution?" → "Which *method* provides …",
    "What is the *principle* that provides …": the rewording asks for a method
    or a principle where the question asked for anything that provides it. A
    kind the question named ("What compounds …" → "Which materials …") is the
    alignment's to judge; people, places, times and amounts are the wh-rule's.
    """
    slot_q, slot_r = _kind_slot(question), _kind_slot(rewording)
    if slot_r is None or (slot_q is not None and _names_kind(*slot_q)):
        return None
    words, i = slot_r
    if not _names_kind(words, i):
        return None  # "What makes crystals …": a verb, no kind named
    window = set(words[i : i + 2])
    narrow = [
        w
        for w in added
        if set(w.split("_")) & window
        and w not in _ANY_KIND
        and w not in ANSWER_KINDS
        and not _names_amount(w)
    ]
    return f"{', '.join(map(repr, narrow))} narrows the kind of answer" if narrow else None


#: nouns for a person that narrow nothing: "Which person …" asks what "Who …" asks
_ANY_PERSON = frozenset("person persons people individual one someone somebody".split())


def person_narrowed(question: str, rewording: str, added: tuple[str, ...]) -> str | None:
    """A kind of person named where the question asks "who": a narrower question.

    "Who had a 70s No 1 hit with Kiss You All Over?" → "Which *singer* had …"
    (it was a band), "What did the *rapper* who had …": the rewording asks for
    a singer or a rapper where the question asked for anyone. A person noun
    that a word of the question matches ("Who wrote …" → "Which writer …") or
    the question names itself narrows nothing. "someone" is narrowed alike ("the
    last time *someone* won" → "… a *player* won").
    """
    words = lower_words(question_proper(final_sentence(question))[0])
    asks_who = next((w for w in words if w in WH_WORDS), None) in ("who", "whom", "whose")
    anyone = next((w for w in lower_words(question) if w in _ANYONE), None)
    if not (asks_who or anyone):
        return None
    slot = _kind_slot(rewording) if asks_who else None
    named = [slot[0][slot[1]]] if slot is not None and slot[1] < len(slot[0]) else []
    if anyone and anyone not in lower_words(rewording):  # "someone" gave way to a noun:
        named += lower_words(final_sentence(rewording))  # (hidden from ``added`` as a kind)
    q = content_tokens(question) + lower_words(question)
    narrow = [
        w
        for w in dict.fromkeys(named + list(added))
        if w not in _ANY_PERSON
        and "_" not in w
        and is_person_noun(w)
        and not any(words_match(w, x) for x in q)
    ]
    whom = "who" if asks_who else anyone
    return f"{', '.join(map(repr, narrow))} narrows {whom!r}" if narrow else None
