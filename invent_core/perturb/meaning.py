"""Does a rewording ask for the same thing: structural checks of the wh-word, operands and qualifiers.

The embedder cannot tell "What is the capital of France?" from "Which
country's capital is France?" (affinity ≈ 0.9), nor "What is 48 times 7?"
from "How many times 7 is 48?". These pure text rules catch
the meaning flips a small paraphraser makes most often:

* **question word** — the kind of thing asked for changes: "Which river flows
  through Ljubljana?" → "Where does the river flow …"; "how many" → "what";
* **arithmetic** — the operation changes (times → "how many times … is", i.e.
  division; plus → minus) or a factor appears ("twice", a new number);
* **qualifier** — an ordinal, a superlative or a negation of the original is
  dropped ("the first woman to win" → "won");
* **role swap** — "capital of France" becomes "country's capital is France";
  "owned by Eddy Shah" becomes "owned Eddy Shah"; "a magnet exerts on
  materials" becomes "materials exert on a magnet";
* **added entity** — a number or a name the original does not have ("How many
  times did the alarm ring in Paris?"; a worked example leaking in).

:func:`changed_meaning` returns a note for the first rule that fires, else
None. It is used by the gate (reason ``changed_meaning``) and by GAAP's final
set (``invent_core.perturb.gaap``).
"""

from __future__ import annotations

import functools
import re

from ..text.numbers import small_number_words
from ..text.stems import inflection_stem as stem
from ..text.wordnet import load_wordnet, pos_candidates, same_adjective_sense, serialised
from .clauses import (
    blank_moved,
    comparison_changed,
    second_question,
    whose_lost,
    without_bare_subject,
)
from .frames import WH_WORDS as _WH_WORDS
from .frames import final_sentence, question_proper
from .roles import roles_swapped
from .text import PREPOSITIONS, candidate_vocabulary, entity_kept, is_question, key_entities

__all__ = [
    "ANSWER_KINDS",
    "OPERATION_WORDS",
    "changed_meaning",
    "names_amount",
    "wh_class",
    "operations",
    "qualifiers",
]

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*|[+\-×*/÷]")

_PLACE = frozenset("place city country town location state region continent capital".split())
_TIME = frozenset("year date time century month day decade era age period".split())
_PERSON = frozenset(
    "person man woman people player author writer actor actress singer king queen president "
    "footballer golfer scientist artist painter poet composer leader character team band "
    "someone individual".split()
)

#: nouns that name the kind of answer ("What city", "In which year", "Which footballer")
ANSWER_KINDS = _PLACE | _TIME | _PERSON


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold().replace("’", "'"))


_AUX = frozenset("is are was were did does do has have had can could will would".split())

#: a question ending on a verb of naming: "how" there asks what the thing is called
_NAMING_END = re.compile(
    r"\b(?:called|named|termed|known\s+as|described\s+as|referred\s+to\s+as|said\s+to\s+be)"
    r"\W*$",
    re.I,
)
_HOW_MUCH = frozenset("many much long old far big tall often".split())


#: numbers written as words, "zero" to "ten"
_COUNT_WORDS = frozenset(small_number_words(10))


def _count(word: str) -> bool:
    """A number in digits or words: "how two main types …" is garbled, not "how many"."""
    return word[:1].isdigit() or word in _COUNT_WORDS


def _degree_adjective(word: str) -> bool:
    """Whether "how" + ``word`` asks for a degree: WordNet knows the word as an adjective.

    "how fast", "how deep", "how populous" ask for a quantity; "how does",
    "how did" (no adjective sense) ask for a manner.
    """
    return word.isalpha() and "a" in pos_candidates(word) and word not in _AUX


def wh_class(text: str) -> str | None:
    """The kind of thing a question asks for: person, place, time, reason, quantity, manner, thing.

    From its first wh-word after a polite frame ("Can you tell me …" is left
    out); "what/which" followed within two words by a place, time or person
    noun counts as that kind ("In what year" = time). ``"polar"`` or
    ``"account"`` for a frame that makes a yes/no question or a request to
    describe (:func:`question_proper`). None when there is no wh-word (a
    yes/no or imperative question).
    """
    text, frame = question_proper(final_sentence(text))
    if frame is not None:
        return frame
    w = _words(text)
    starts = _clause_starts(text)
    for i, word in enumerate(w):
        word = word.removesuffix("'s")  # "who's first appearance" (for "whose")
        if 3 <= i < len(w) - 2 and i not in starts and not _asks_which_noun(w, i):
            continue  # a wh-word mid-sentence is a conjunction ("… when dissolved in water")
        nxt = w[i + 1 : i + 3]
        if word in ("who", "whom", "whose"):
            return "person"
        if word == "where":
            return "place"
        if word == "when":
            return "time"
        if word == "why":
            return "reason"
        if word == "how":
            if nxt and (nxt[0] in _HOW_MUCH or _degree_adjective(nxt[0])) and not _count(nxt[0]):
                return "quantity"  # "how fast" asks for a speed, as "what is the speed" does
            if _NAMING_END.search(text):
                return "thing"  # "How is it called?" asks what it is called
            return "manner"
        if word in ("what", "which"):
            return _what_kind(nxt)
    return None


def _what_kind(nxt: list[str]) -> str:
    """The kind "what"/"which" asks for, from the two words after it ("In what year" = time)."""
    if nxt and nxt[0] in _AUX:
        nxt = nxt[:1]  # "What are people with …": the subject, not the kind asked
    if any(x in _PLACE for x in nxt):
        return "place"
    if any(x in _TIME for x in nxt):
        return "time"
    if any(x in _PERSON for x in nxt):
        return "person"
    return "thing"


def _asks_which_noun(words: list[str], i: int) -> bool:
    """Whether "which"/"what" mid-sentence asks: a noun and nothing else follows it.

    "… is much thicker in which ventricle of the heart?" asks which ventricle;
    "… the cell which divides" and "… in which the …" are relative clauses.
    """
    nxt = words[i + 1] if i + 1 < len(words) else ""
    pos = pos_candidates(nxt)
    return words[i] in ("which", "what") and "n" in pos and "v" not in pos


def _clause_starts(text: str) -> set[int]:
    """Indices (in :func:`_words`) where a clause starts: after "," ";" ":" or a sentence end.

    A wh-word there opens the question proper ("In relation to electrical
    current, what property …", "If Lily made 50 friends, how many …"), unlike
    one inside a clause ("… when dissolved in water"). A preposition before it
    moves the start on by one ("…, in which year").
    """
    starts: set[int] = set()
    at = 0
    for clause in re.split(r"[,;:]\s+|(?<=[.!?])\s+", text):
        words = _words(clause)
        if words:
            starts.add(at)
            if words[0] in PREPOSITIONS:
                starts.add(at + 1)
        at += len(words)
    return starts


#: a blank to fill in: "the concentration of ___", "was called 'Music… ?"
_BLANK = re.compile(r"_{2,}|…|\.\.\.")


def _asked_kind(original: str) -> str | None:
    """:func:`wh_class` of the original; a blank or a phrase to complete asks for a thing.

    "… the concentration of ___ it produces", "was called 'Music... ?", "an object that moves around an
    external axis is said to be", "two main types of research methods used in
    psychology" name no wh-word but ask for a thing, so "How are … used?" or
    "Do you know if …" ask another thing. A yes/no or imperative question
    ("Is …", "Name …") stays without a kind.
    """
    kind = wh_class(original)
    if kind is None and (_BLANK.search(original) or not is_question(original)):
        return "thing"
    return kind


#: an order to name the answer, or a frame before the thing asked for: "Name the …",
#: "Can you tell me the capital …", "Do you know the price …" (not "Tell me, the … is …")
_ORDER = re.compile(
    r"^\W*(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:(?:tell|give|show)\s+me\s+(?:the|a|an|\d)|do\s+you\s+(?:happen\s+to\s+)?know\s+"
    r"(?:the|a|an|\d)|(?:name|list|give|identify|state|find|calculate|compute|determine|solve|"
    r"complete|fill|define|estimate|choose|select|pick)\b)",
    re.I,
)
#: a last word that leaves the sentence to be completed ("… used in psychology are?")
_DANGLING = _AUX | frozenset("of to be as by for the a an with from in on at called named".split())


def _last_word(text: str) -> str | None:
    words = _words(text)
    return words[-1] if words else None


def _leaves_open(candidate: str, original: str) -> bool:
    """Whether ``candidate`` still leaves the answer open: a wh-word, a blank, an order to name.

    For an original to complete ("… is said to be"), ending on the same word
    leaves it open too; words after it fill the answer in ("… said to be in
    motion").
    """
    if wh_class(candidate) is not None or _BLANK.search(candidate):
        return True
    if _ORDER.match(final_sentence(candidate)) or _last_word(candidate) in _DANGLING:
        return True
    return not is_question(original) and _last_word(candidate) == _last_word(original)


def _answer_closed(candidate: str, original: str) -> str | None:
    """The original asks for a thing and the candidate leaves nothing open (see :func:`_leaves_open`).

    "Tell me, … is said to be in motion.", "Can you provide clear evidence of
    evolution?", "Do you know Vivipary refers to … of a living being?": a
    statement with an answer filled in, or a yes/no question about one.
    """
    if _asked_kind(original) in (None, "polar", "account") or _leaves_open(candidate, original):
        return None
    return "leaves no answer open (a statement or a yes/no question)"


# what/which → thing may become any concrete kind ("What footballer" → "Who");
# a concrete kind may become "thing" ("Who" → "Which person" is caught above)
_COMPATIBLE = {
    ("thing", "person"),
    ("person", "thing"),
    ("thing", "quantity"),
    ("quantity", "thing"),
}


def _wh_changed(candidate: str, original: str) -> str | None:
    if whose_lost(candidate, original):
        return "asks who a thing is, not whose it is"
    a, b = _asked_kind(original), wh_class(candidate)
    if b in ("polar", "account") and a not in (b, None):
        return "asks whether it is so" if b == "polar" else "asks for an account, not an answer"
    if _what_which(question_proper(original)[0]) and _what_which(question_proper(candidate)[0]):
        if a in ("place", "time") and b == "thing" and not _has_noun(candidate, _PLACE | _TIME):
            return f"asks for a thing instead of a {a}"  # "… from which country?" → "what … from?"
        return None  # "What is the capital" ~ "Which city is the capital": both name the kind
    if (a, b) == ("person", "thing") and not _names_person(candidate):
        return "asks for a thing instead of a person"  # "Who voiced Simba" → "What voice …"
    if (a, b) == ("thing", "person") and not _names_person(without_bare_subject(original)):
        return "asks for a person instead of a thing"  # "What disease …" → "Who said …"
    if {a, b} == {"thing", "quantity"} and not (names_amount(original + " " + candidate)):
        return f"asks for a {b} instead of a {a}"  # "… are called what?" → "how many …"
    if a is None or b is None or a == b or (a, b) in _COMPATIBLE:
        return None
    if a == "thing" and b in ("place", "time") and _has_noun(original, _PLACE | _TIME):
        return None  # "What city …" may become "Where …"
    if b == "thing" and a in ("place", "time") and _has_noun(candidate, _PLACE | _TIME):
        return None  # "When was …" may become "What is the last time …"
    return f"asks for a {b} instead of a {a}"


#: nouns of an amount that WordNet files elsewhere ("population" is a group of people)
_QUANTITY_NOUNS = frozenset("population area percentage percent proportion share".split())
_QUANTITY_KINDS = frozenset(
    "magnitude.n.01 measure.n.02 quantity.n.03 number.n.02 rate.n.01 value.n.02".split()
)


def _names_person(text: str) -> bool:
    """Whether a text names a person by a common noun (first sense) or asks for a name."""
    w = _words(text)
    common = re.findall(r"\b[a-z]+\b", text)  # a capitalised word is a name ("James" an apostle)
    return bool({"name", "named", "called", "whom", "who"} & set(w)) or any(
        x not in _AUX and "a" not in pos_candidates(x) and _is_kind(x, "person.n.01", senses=1)
        for x in common
    )  # WordNet's "have" ("the haves") and "sensitive" (a psychic) are persons too


def is_person_noun(word: str) -> bool:
    """Whether a word's first noun sense is a kind of person ("singer", "rapper", "author")."""
    return _is_kind(word, "person.n.01", senses=1)


def names_amount(text: str) -> bool:
    """Whether a text has a number or a noun of an amount (speed, length, total, cost …)."""
    w = _words(text)
    return any(x[0].isdigit() for x in w) or any(
        x in _QUANTITY_NOUNS or (x not in _AUX and _is_kind(x, _QUANTITY_KINDS, senses=3))
        for x in w
    )


@functools.cache
@serialised
def _is_kind(word: str, kinds: str | frozenset[str], senses: int) -> bool:
    """Whether one of the first ``senses`` noun senses of ``word`` has a hypernym in ``kinds``."""
    kinds = frozenset((kinds,)) if isinstance(kinds, str) else kinds
    if len(word) < 3 or not word.isalpha():
        return False
    frontier = list(load_wordnet().synsets(word, "n")[:senses])
    seen: set[str] = set()
    while frontier:
        s = frontier.pop()
        if s.name() in kinds:
            return True
        if s.name() not in seen:
            seen.add(s.name())
            frontier += s.hypernyms() + s.instance_hypernyms()
    return False


def _what_which(text: str) -> bool:
    """Whether the first wh-word of a text is "what" or "which"."""
    first = next((w for w in _words(text) if w in _WH_WORDS), None)
    return first in ("what", "which")


def _has_noun(text: str, nouns: frozenset[str]) -> bool:
    return any(w in nouns for w in _words(text))


_OPS = {
    "add": "plus add added adding sum total + more".split(),
    "sub": "minus subtract subtracted subtracting difference less - fewer".split(),
    "mul": "times multiplied multiply multiplying product × *".split(),
    "div": "divided divide dividing quotient ÷ / split per".split(),
}
#: every word :func:`operations` reads as an operation
OPERATION_WORDS = frozenset(w for words in _OPS.values() for w in words)
_FACTORS = {"twice": "2", "double": "2", "doubled": "2", "triple": "3", "thrice": "3", "half": "2"}


def operations(text: str) -> set[str]:
    """Arithmetic operations named in a text: subset of {add, sub, mul, div}.

    "How many times does 7 go into 48" and "how many times 7 is 48" are
    division, not multiplication.
    """
    s = text.casefold()
    ops = {op for op, words in _OPS.items() for w in _words(s) if w in words}
    if re.search(r"how many times\b", s):
        ops.discard("mul")
        ops.add("div")
    return ops


def _numbers(text: str) -> list[str]:
    return sorted(w.replace(",", "") for w in _words(text) if w[0].isdigit())


def _arithmetic_changed(candidate: str, original: str) -> str | None:
    nums_o = _numbers(original)
    if len(nums_o) < 2:
        return None
    extra = sorted(set(_numbers(candidate)) - set(nums_o))
    if extra:
        return "new number " + ", ".join(extra)
    factor = [
        w
        for w in _words(candidate)
        if w in _FACTORS and w not in _words(original) and _FACTORS[w] not in nums_o
    ]
    if factor:
        return f"new factor {factor[0]!r}"
    ops_o, ops_c = operations(original), operations(candidate)
    if ops_o and ops_c and ops_o != ops_c:
        return f"operation {'/'.join(sorted(ops_c))} instead of {'/'.join(sorted(ops_o))}"
    return _operands_swapped(candidate, original, ops_o)


def _operands_swapped(candidate: str, original: str, ops: set[str]) -> str | None:
    """Operands swapped ("958 minus 827" → "827 minus 958"): order matters for minus and divided by."""
    if not ops or not ops <= {"sub", "div"} or re.search(r"\b(from|into)\b", candidate, re.I):
        return None
    order_o = [w for w in _words(original) if w[0].isdigit()]
    order_c = [w for w in _words(candidate) if w[0].isdigit()]
    if sorted(order_o) == sorted(order_c) and order_o != order_c:
        return "operands swapped: " + " ".join(order_c)
    return None


_QUALIFIERS = frozenset(
    "first last never not no nor without least most ever largest smallest highest "
    "lowest biggest longest shortest oldest youngest best worst fastest earliest latest "
    "second third fourth fifth tiniest tallest greatest final".split()
)


_GROUPS = (
    ("largest", "biggest", "greatest"),
    ("smallest", "tiniest"),
    ("highest", "tallest"),
    ("first", "earliest"),
    ("last", "latest", "final"),
)
_SYNONYMS = {w: frozenset(g) - {w} for g in _GROUPS for w in g}


_NEG_PREFIX = ("un", "mis", "im", "in", "dis", "non", "ir", "il")


def _negated(words: list[str]) -> bool:
    """Whether a text negates by morphology or wording ("uncontrolled", "lacks", "out of")."""
    text = " ".join(words)
    if any(k in text for k in ("out of", "lack", "fail", "without", "absence", "stop", "cease")):
        return True
    return any(w.startswith(_NEG_PREFIX) and len(w) > 6 or w.endswith("less") for w in words)


def qualifiers(text: str) -> set[str]:
    """Ordinals, superlatives and negations in a text ("first", "most", "not", "-est" words)."""
    out = set()
    for w in _words(text):
        if w in _QUALIFIERS or w.endswith("n't"):
            out.add("not" if w.endswith("n't") or w in ("never", "no", "nor") else w)
    return out


def _qualifier_dropped(candidate: str, original: str) -> str | None:
    kept = qualifiers(candidate)
    words_c = _words(candidate)
    lost = []
    for q in sorted(qualifiers(original) - kept):
        if _SYNONYMS.get(q, frozenset()) & kept:
            continue
        if q == "not" and _negated(words_c):
            continue  # "no longer regulated" → "misregulated", "uncontrolled", "out of order"
        if q in ("most", "least") and any(w.endswith(("est", "most")) for w in words_c):
            continue  # "most northerly" → "northernmost"
        if q.endswith("est") and ("most" in kept or "least" in kept):
            continue  # "largest" → "most large"
        if q.endswith("est") and any(
            same_adjective_sense(q, w) for w in words_c if w.endswith("est")
        ):
            continue  # "fastest" → "quickest": one WordNet sense of both
        lost.append(q)
    return f"dropped {', '.join(repr(q) for q in lost)}" if lost else None


_OF = re.compile(r"\b([a-z]+) of (?:the )?([A-Z][\w-]*)")


def _role_swap(candidate: str, original: str) -> str | None:
    """Role swap ("capital of France" → "country's capital is France"): the entity became the answer."""
    for noun, entity in _OF.findall(original):
        pat = rf"\b\w+'s {re.escape(noun)}\b (?:is|was|are|were) (?:the )?{re.escape(entity)}\b"
        if re.search(pat, candidate.replace("’", "'"), re.IGNORECASE):
            return f"{entity!r} moved from '{noun} of {entity}' to the answer's place"
    return None


_PASSIVE = re.compile(r"^\W*who (?:is|was|are|were) (?:\w+ )?\w+(?:ed|en|wn|ng)? by\b", re.I)
_OBJECT_Q = re.compile(r"^\W*who (?:did|does|do)\b", re.I)


def _subject_object_swap(candidate: str, original: str) -> str | None:
    """Subject and object swapped ("who played X" → "who was played by X", "who did X play")."""
    w = _words(original)
    if len(w) < 2 or w[0] != "who" or w[1] in _AUX:
        return None
    if _PASSIVE.search(candidate) or _OBJECT_Q.search(candidate):
        return "the one asked about became the subject (who did what to whom swapped)"
    return None


_DET = r"(?:(?:a|an|the|certain|some|its|their) )?"
_AGENT = re.compile(rf"\b([a-z]+(?:ed|en|wn))\s+by\s+{_DET}([a-z]+)")
_ARGUMENTS = re.compile(
    rf"\b([a-z]+) ([a-z]+) (on|to|from|into|over|against|towards?|at) {_DET}([a-z]+)"
)


def _agent_swap(candidate: str, original: str) -> str | None:
    """The agent of a passive became the object ("owned by Eddy Shah" → "owned Eddy Shah")."""
    cand = " ".join(_words(candidate))
    for verb, agent in _AGENT.findall(" ".join(_words(original))):
        if re.search(rf"\b{verb} {_DET}{agent}\b", cand):
            return f"'{verb} by {agent}' became '{verb} {agent}': the agent is now the object"
    return None


def _arguments_swapped(candidate: str, original: str) -> str | None:
    """The two sides of a verb swapped ("a magnet exerts on materials" → "materials exert on a magnet")."""
    found = {
        (stem(b), stem(v), p, stem(a))
        for a, v, p, b in _ARGUMENTS.findall(" ".join(_words(candidate)))
    }
    for a, v, p, b in _ARGUMENTS.findall(" ".join(_words(original))):
        if stem(a) != stem(b) and (stem(a), stem(v), p, stem(b)) in found:
            return f"'{a} … {v} {p} … {b}' swapped round"
    return None


_ENDS = re.compile(rf"\b(from|to|into|towards?) {_DET}([a-z]+)")


def _ends(text: str) -> dict[str, str]:
    """{"from": word, "to": word}: the first word after each end of a movement."""
    out: dict[str, str] = {}
    for prep, word in _ENDS.findall(" ".join(_words(text))):
        out.setdefault("from" if prep == "from" else "to", stem(word))
    return out


def _direction_swapped(candidate: str, original: str) -> str | None:
    """Source and destination swapped.

    "from the receptors to what system" → "to the receptors from what system".
    """
    o, c = _ends(original), _ends(candidate)
    if (
        len(o) == 2
        and o["from"] != o["to"]
        and (c.get("to"), c.get("from")) == (o["from"], o["to"])
    ):
        return f"'from … {o['from']}' and 'to … {o['to']}' swapped round"
    return None


def _entity_added(candidate: str, original: str) -> str | None:
    """A number or name the original does not have ("… ring in Paris", "What is 21 minus 52?").

    The mirror of the gate's ``lost_entity``: a rewording asks about the same
    things, so every number, capitalised word after a sentence's first and quoted
    span of the candidate must be in the original (case-insensitive, simple
    inflections and number words allowed).
    """
    vocab = candidate_vocabulary(original)
    added = [e for e in key_entities(candidate) if not entity_kept(e, vocab)]
    return "added " + ", ".join(repr(e) for e in added) if added else None


def changed_meaning(candidate: str, original: str) -> str | None:
    """A note when ``candidate`` visibly asks for something else than ``original``, else None.

    Examples
    --------
    >>> changed_meaning("Which country's capital is France?", "What is the capital of France?")
    "'France' moved from 'capital of France' to the answer's place"
    >>> changed_meaning("How many times 7 is 48?", "What is 48 times 7?")
    'operation div instead of mul'
    >>> changed_meaning("France's capital city is what?", "What is the capital of France?") is None
    True
    """
    for rule in (
        _role_swap,
        _subject_object_swap,
        _agent_swap,
        _arguments_swapped,
        roles_swapped,
        _direction_swapped,
        _arithmetic_changed,
        _wh_changed,
        second_question,
        comparison_changed,
        _answer_closed,
        blank_moved,
        _qualifier_dropped,
        _entity_added,
    ):
        note = rule(candidate, original)
        if note is not None:
            return note
    return None


def added_meaning(candidate: str, original: str) -> str | None:
    """The meaning check the other way round: what the candidate adds or loses, else None.

    A qualifier or negation added ("Who won …" → "Who was the first woman to
    win …"), a number or name lost.
    """
    emphasis = re.sub(r"\bever\b", "", candidate, flags=re.I)  # "the fifth golfer ever": emphasis
    added = _qualifier_dropped(original, emphasis)
    if added is not None:
        return "added " + added.removeprefix("dropped ")
    lost = _entity_added(original, candidate)
    return "lost " + lost.removeprefix("added ") if lost is not None else None
