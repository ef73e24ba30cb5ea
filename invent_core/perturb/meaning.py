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

from ..text.stems import inflection_stem as _stem
from ..text.wordnet import guess_pos, load_wordnet, pos_candidates, serialised
from .text import candidate_vocabulary, entity_kept, key_entities

__all__ = [
    "ANSWER_KINDS",
    "OPERATION_WORDS",
    "changed_meaning",
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
    "one someone individual".split()
)

#: nouns that name the kind of answer ("What city", "In which year", "Which footballer")
ANSWER_KINDS = _PLACE | _TIME | _PERSON


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold().replace("’", "'"))


_HOW_MUCH = frozenset("many much long old far big tall often".split())


def _degree_adjective(word: str) -> bool:
    """Whether "how" + ``word`` asks for a degree: WordNet knows the word as an adjective.

    "how fast", "how deep", "how populous" ask for a quantity; "how does",
    "how did" (no adjective sense) ask for a manner.
    """
    return word.isalpha() and "a" in pos_candidates(word) and word not in _AUX


#: a polite frame before the question proper ("Can you tell me", "Do you know", "Tell me,")
_FRAME = re.compile(
    r"^\W*(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?"
    r"(?:tell|say|show)(?:\s+to)?\s+me|do\s+you\s+(?:happen\s+to\s+)?know|"
    r"(?:please\s+)?tell\s+me|i\s+wonder|i\s*(?:'d|would)\s+like\s+to\s+know)\b[\s,:]*",
    re.IGNORECASE,
)
#: a frame that asks for an account rather than an answer, unless a wh-word follows
_ACCOUNT = re.compile(
    r"^\W*(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:describe|explain|discuss|summari[sz]e)\b\s*",
    re.IGNORECASE,
)
#: a yes/no question where the original asked for a thing ("Do you know if …", "Is it true that")
_POLAR = re.compile(r"^\W*(?:if|whether|is\s+it\s+true\s+that|is\s+it\s+the\s+case)\b", re.I)


def question_proper(text: str) -> tuple[str, str | None]:
    """The question without its polite frame, and what the frame makes of it.

    ``("what the capital is", None)`` for "Can you tell me what the capital
    is?"; the second item is ``"polar"`` for a yes/no question ("Do you know
    if …", "Is it true that …") and ``"account"`` for a request to describe or
    tell about ("Tell me about …", "Can you describe …") where the original
    asks for an answer.
    """
    framed = _FRAME.match(text)
    rest = text[framed.end() :] if framed else text
    if _POLAR.match(rest):
        return rest, "polar"
    account = _ACCOUNT.match(rest)
    if account:
        rest = rest[account.end() :]
        return rest, (None if rest[:1] and _first_is_wh(rest) else "account")
    if framed and re.match(r"^\W*about\b", rest, re.I):
        return rest, "account"
    return rest, None


def _first_is_wh(text: str) -> bool:
    w = _words(text)
    return bool(w) and (w[0] in _WH_WORDS or w[0] in ("to", "in", "on", "at", "from"))


def wh_class(text: str) -> str | None:
    """The kind of thing a question asks for: person, place, time, reason, quantity, manner, thing.

    From its first wh-word after a polite frame ("Can you tell me …" is left
    out); "what/which" followed within two words by a place, time or person
    noun counts as that kind ("In what year" = time). ``"polar"`` or
    ``"account"`` for a frame that makes a yes/no question or a request to
    describe (:func:`question_proper`). None when there is no wh-word (a
    yes/no or imperative question).
    """
    text, frame = question_proper(text)
    if frame is not None:
        return frame
    w = _words(text)
    for i, word in enumerate(w):
        if 3 <= i < len(w) - 2:
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
            if nxt and (nxt[0] in _HOW_MUCH or _degree_adjective(nxt[0])):
                return "quantity"  # "how fast" asks for a speed, as "what is the speed" does
            return "manner"
        if word in ("what", "which"):
            if any(x in _PLACE for x in nxt):
                return "place"
            if any(x in _TIME for x in nxt):
                return "time"
            if any(x in _PERSON for x in nxt):
                return "person"
            return "thing"
    return None


# what/which → thing may become any concrete kind ("What footballer" → "Who");
# a concrete kind may become "thing" ("Who" → "Which person" is caught above)
_COMPATIBLE = {
    ("thing", "person"),
    ("person", "thing"),
    ("thing", "quantity"),
    ("quantity", "thing"),
}


def _wh_changed(candidate: str, original: str) -> str | None:
    a, b = wh_class(original), wh_class(candidate)
    if b in ("polar", "account") and a not in (b, None):
        return "asks whether it is so" if b == "polar" else "asks for an account, not an answer"
    if _what_which(question_proper(original)[0]) and _what_which(question_proper(candidate)[0]):
        return None  # "What is the capital" ~ "Which city is the capital": both name the kind
    if (a, b) == ("person", "thing") and not _names_person(candidate):
        return "asks for a thing instead of a person"  # "Who voiced Simba" → "What voice …"
    if {a, b} == {"thing", "quantity"} and not (_names_quantity(original + " " + candidate)):
        return f"asks for a {b} instead of a {a}"  # "… are called what?" → "how many …"
    if a is None or b is None or a == b or (a, b) in _COMPATIBLE:
        return None
    if a == "thing" and b in ("place", "time") and _has_noun(original, _PLACE | _TIME):
        return None  # "What city …" may become "Where …"
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
        _is_kind(x, "person.n.01", senses=1) for x in common
    )


def _names_quantity(text: str) -> bool:
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


_WH_WORDS = frozenset("what which who whom whose where when why how".split())


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


_AUX = frozenset("is are was were did does do has have had can could will would".split())
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
        (_stem(b), _stem(v), p, _stem(a))
        for a, v, p, b in _ARGUMENTS.findall(" ".join(_words(candidate)))
    }
    for a, v, p, b in _ARGUMENTS.findall(" ".join(_words(original))):
        if _stem(a) != _stem(b) and (_stem(a), _stem(v), p, _stem(b)) in found:
            return f"'{a} … {v} {p} … {b}' swapped round"
    return None


_ENDS = re.compile(rf"\b(from|to|into|towards?) {_DET}([a-z]+)")


def _ends(text: str) -> dict[str, str]:
    """{"from": word, "to": word}: the first word after each end of a movement."""
    out: dict[str, str] = {}
    for prep, word in _ENDS.findall(" ".join(_words(text))):
        out.setdefault("from" if prep == "from" else "to", _stem(word))
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
    if before and before[0] in _WH_WORDS | {"from", "to", "in", "on", "by", "of"}:
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


def _roles_swapped(candidate: str, original: str) -> str | None:
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
        # right after a wh-word ("What eats …") or after "did X" ("did Beethoven study"),
        # a word that can be a verb is one, whatever its commoner sense
        if pos == "v" or (i and words[i - 1] in _WH_WORDS) or _after_do(words, i):
            out.append(lemma)
    return out


def _after_do(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` is the first word that can be a verb after "do/does/did" + subject."""
    do = [k for k in range(max(0, i - 4), i) if words[k] in ("do", "does", "did")]
    return bool(do) and not any(_verb_lemma(w) for w in words[do[-1] + 2 : i])


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
        _roles_swapped,
        _direction_swapped,
        _arithmetic_changed,
        _wh_changed,
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
