"""Word alignment of a question and its rewording: every content word matched, both ways.

A rewording asks the same thing when each content word of the question is
matched by a word of the rewording, and each content word the rewording adds
is matched back or asks nothing new ("please", "exactly", "located").
Two words match (:func:`words_match`) when they have

* the same lemma ("legs" ~ "leg", "wrote" ~ "write");
* a WordNet synset among the first senses of both (:data:`SENSE_RANKS`):
  "film" ~ "movie", "author" ~ "writer", but not "wrote" ~ "published",
  which share only the third sense of each;
* a WordNet derivation, pertainym or attribute ("fast" ~ "speed", "deep" ~
  "depth", "inventor" ~ "invent", "French" ~ "France") — or a shared stem
  of five letters or more with at most three letters left ("populous" ~
  "population", "performed" ~ "performance");
* one name in :mod:`invent_core.perturb.aliases` (already joined into one
  token: "US" ~ "United States").

Two adjacent words that WordNet knows as one lemma are one word ("boiling
point", "vice president", "give off"). Such a compound also matches its
modifier's relatives ("boil" ~ "boiling point") and its hypernyms other than
its head ("temperature" ~ "boiling point"; "president" is not matched by
"vice president").

:func:`alignment` returns what is left unmatched. A question word replaced
by an unmatched rewording word (a co-hyponym, an antonym, another verb of the
same kind, another part) or a rewording word added unmatched (a modifier)
means another question; a pair related only through a rarer sense
("wrote" ~ "published") or a question word dropped cannot be decided here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..text.function_words import content_words
from ..text.tokens import ASCII_WORD as _WORD
from ..text.wordnet import guess_pos, load_wordnet, pos_candidates, serialised
from .aliases import with_aliases_joined
from .frames import WH_WORDS
from .meaning import ANSWER_KINDS, OPERATION_WORDS
from .text import is_english

__all__ = ["Alignment", "aligns", "alignment", "content_tokens", "lower_words", "words_match"]

#: a shared synset counts as a synonym when it is among the first SENSE_RANK + 1 senses of both
SENSE_RANK = 1
#: longest question (in words) the alignment reads: a word problem restated in other words
#: changes many words on purpose, and the number and entity rules check it instead
MAX_WORDS = 30
#: a shared stem this long or longer, with at most STEM_REST letters of the shorter word after it
STEM = 5
STEM_REST = 3

Matcher = Callable[[str, str], bool]
#: words that ask nothing new: wrappers, framing, the generic kind of answer
ASKS_NOTHING = frozenset(
    (
        # wrappers and framing
        "please exactly actually tell know name named called call known say explain describe "
        "identify give given wonder like want find term word mean meant refer referred "
        "following example question answer exist exists existing currently located situated "
        "location serve serves served "
        # function words
        "which what who whom whose where when why how can could would should will shall may "
        "might must did does doe done do be being been is are was were has have had having "
        "it its that this these those there here also some any one ones the and or of in on "
        "at to for from by with into onto about over across upon between through among "
        "during within along around me you your we our us i my "
        # the generic kind of thing asked for
        "thing things something someone person people individual kind sort type variety "
        "varieties "
        # a calculation's wording (the arithmetic rules compare operations and numbers)
        "calculate compute value total result equal equals evaluate solve work figure "
        "expression number sum product difference quotient one two three four five six seven "
        "eight nine ten eleven twelve twenty hundred thousand million billion dozen twice "
        "double triple thrice half quarter "
        # praise that narrows nothing
        "famous renowned well typical usual normal "
        # quantifiers and sentence adverbs: "all of the petals", "eventually"; the scope of a
        # superlative that holds for everything asked about ("the longest … on Earth")
        "all both each every together eventually ever world earth "
        # a degree word whose superlative another word carries ("most northerly" →
        # "northernmost"; a superlative dropped is the qualifier rule's)
        "most"
    ).split()
) | (ANSWER_KINDS & frozenset("place location time date period".split()))
#: verbs whose particle makes another verb ("give off", "take in", "come out")
_PARTICLES = frozenset("off in out up down over on away back".split())


def _asks_nothing(word: str) -> bool:
    """Whether a word, or it less a plural or third-person "s", is in :data:`ASKS_NOTHING`."""
    return word in ASKS_NOTHING or (word.endswith("s") and word[:-1] in ASKS_NOTHING)


def lower_words(text: str) -> list[str]:
    """Words in order, casefolded, a possessive dropped."""
    return [w.casefold() for w in _WORD.findall(re.sub(r"['’]s\b", "", text))]


@serialised
def _compound(first: str, second: str) -> str | None:
    """``first_second`` when WordNet knows the two words as one lemma ("boiling_point")."""
    wn = load_wordnet()
    for pos in ("n", "v"):
        heads = {first} | ({b for b in [wn.morphy(first, "v")] if b} if pos == "v" else set())
        for head in sorted(heads):  # "came out" → "come_out"
            base = wn.morphy(f"{head}_{second}", pos)
            if base is not None and wn.synsets(base, pos):
                return base
    return None


#: units written in two letters: kept as words, so "4 km" can match "4 kilometres"
_SHORT_UNITS = frozenset("km cm mm nm kg lb ft oz mg ml".split())


def content_tokens(text: str) -> list[str]:
    """The content words of ``text`` after joining aliases and WordNet compounds, in order.

    The kind of answer named after "what" or "which" ("Which city is …") is
    left to the wh-word rule, as are numbers and count words to the count rule.
    """
    words = lower_words(with_aliases_joined(text))
    out: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        if i > 0 and words[i - 1] in ("what", "which") and w in ANSWER_KINDS:
            i += 1
            continue
        nxt = words[i + 1] if i + 1 < len(words) else None
        if (
            nxt is not None
            and w not in ASKS_NOTHING
            and (nxt not in ASKS_NOTHING or nxt in _PARTICLES)
            and (joined := _compound(w, nxt)) is not None
        ):
            out.append(joined)
            i += 2
            continue
        if (
            len(w) > 2 and not _asks_nothing(w) and w not in OPERATION_WORDS and content_words(w)
        ) or w in _SHORT_UNITS:
            # operations are the arithmetic rules' to compare ("times" ~ "product")
            out.append(w)
        i += 1
    return out


@functools.cache
@serialised
def _senses(word: str) -> dict[str, tuple[str, int]]:
    """{synset name: (pos, rank of the sense in this word)} over the word's base forms."""
    wn = load_wordnet()
    out: dict[str, tuple[str, int]] = {}
    for pos in ("n", "v", "a", "r"):
        base = wn.morphy(word, pos)
        if base is None:
            continue
        for rank, syn in enumerate(wn.synsets(base, pos)):
            out.setdefault(syn.name(), (pos, rank))
    return out


@functools.cache
@serialised
def _bases(word: str) -> frozenset[str]:
    wn = load_wordnet()
    return frozenset({word} | {b for p in "nvar" if (b := wn.morphy(word, p)) is not None})


@functools.cache
@serialised
def _derived(word: str) -> frozenset[str]:
    """Derivations, pertainyms and attributes of the word's lemmas, and their base forms."""
    wn = load_wordnet()
    out: set[str] = set()
    for base in _bases(word):
        for syn in wn.synsets(base):
            out |= {a.name() for s in syn.attributes() for a in s.lemmas()}
            for lemma in syn.lemmas():
                if lemma.name().lower() != base:
                    continue
                out |= {d.name().lower() for d in lemma.derivationally_related_forms()}
                out |= {p.name().lower() for p in lemma.pertainyms()}
    return frozenset(out)


@functools.cache
@serialised
def _hypernyms(compound: str) -> frozenset[str]:
    """Lemmas of a compound's hypernyms, two levels up, its head word left out."""
    wn = load_wordnet()
    head = compound.rsplit("_", 1)[-1]
    out: set[str] = set()
    for syn in wn.synsets(compound):
        for hyper in syn.hypernyms():
            for s in (hyper, *hyper.hypernyms()):
                out |= {n.lower() for n in s.lemma_names()}
    return frozenset(n for n in out if head not in n.split("_"))


def _stem_shared(a: str, b: str) -> bool:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n >= STEM and min(len(a), len(b)) - n <= STEM_REST


def _synonyms(a: str, b: str) -> bool:
    sa, sb = _senses(a), _senses(b)
    return any(
        max(sa[s][1], sb[s][1]) <= SENSE_RANK for s in sa.keys() & sb.keys() if sa[s][0] == sb[s][0]
    )


def _loosely_related(a: str, b: str) -> bool:
    """Whether two words are related too loosely to decide either way.

    A synset shared through a rarer sense ("wrote" ~ "published"), one word a
    kind of the other ("vessel" ~ "ship"), two verbs of one kind ("win" ~
    "receive": both "get").
    """
    if _senses(a).keys() & _senses(b).keys() or _verb_parents(a) & _verb_parents(b):
        return True
    return bool(
        _bases(a) & _kinds_above(b, LOOSE_LEVELS) or _bases(b) & _kinds_above(a, LOOSE_LEVELS)
    )


#: hypernym levels up to which one word is a loose relative of another ("vessel" ~ "ship")
LOOSE_LEVELS = 2
#: hypernym levels up to which an added word names the kind of another ("the element gold")
APPOSITION_LEVELS = 3
#: the senses of a word whose hypernyms count
KIND_SENSES = 3


@functools.cache
@serialised
def _kinds_above(word: str, levels: int) -> frozenset[str]:
    """Lemmas of the hypernyms of the word's first senses, up to ``levels`` levels up."""
    wn = load_wordnet()
    out: set[str] = set()
    for base in _bases(word):
        frontier = set(wn.synsets(base)[:KIND_SENSES])
        for _ in range(levels):
            frontier = {h for s in frontier for h in s.hypernyms() + s.instance_hypernyms()}
            out |= {n.lower() for s in frontier for n in s.lemma_names()}
    return frozenset(out)


#: verbs that carry a noun and add nothing ("made the discovery" = "discovered")
LIGHT_VERBS = frozenset(
    "make made makes making take took takes taking give gave gives "
    "giving do doing perform performed carry carried".split()
)


def _same_lemma(a: str, b: str) -> bool:
    return a == b or bool(_bases(a) & _bases(b))


def _simple_match(a: str, b: str) -> bool:
    if a == b or _bases(a) & _bases(b) or _stem_shared(a, b):
        return True
    if _bases(a) & _derived(b) or _bases(b) & _derived(a):
        return True
    return _synonyms(a, b)


@functools.cache
@serialised
def _verb_parents(word: str) -> frozenset[str]:
    """Direct hypernyms of the word's first two verb senses ("win", "receive" → "get")."""
    wn = load_wordnet()
    base = wn.morphy(word, "v")
    if base is None:
        return frozenset()
    return frozenset(h.name() for s in wn.synsets(base, "v")[:2] for h in s.hypernyms())


@functools.cache
def words_match(a: str, b: str) -> bool:
    """Whether two content tokens name the same thing (see the module doc); symmetric."""
    if _simple_match(a, b):
        return True
    for x, y in ((a, b), (b, a)):
        if "_" in y:
            *modifiers, _head = y.split("_")
            if any(_simple_match(x, m) for m in modifiers if len(m) > 2):
                return True
            if x in _hypernyms(y):
                return True
    return False


@dataclass(frozen=True)
class Alignment:
    """What :func:`alignment` left: question words unmatched, rewording words unmatched.

    ``modifiers``: the added words that stand right before a matched word of
    the rewording ("hot" in "the largest hot desert"): they narrow what is asked.
    """

    dropped: tuple[str, ...]
    added: tuple[str, ...]
    loose: tuple[tuple[str, str], ...]  # (question word, rewording word) related by a rarer sense
    modifiers: tuple[str, ...] = ()
    dropped_modifiers: tuple[str, ...] = ()  # the same on the question's side ("successful")

    def undecided(self) -> str:
        """Why alignment cannot decide: a rarer sense, a kind of the other word, a dropped word."""
        if self.loose:
            return "; ".join(f"{a!r} ~ {b!r} only loosely related" for a, b in self.loose)
        if self.dropped and self.added:
            words = ", ".join(map(repr, self.dropped)), ", ".join(map(repr, self.added))
            return f"{words[0]} reworded as {words[1]}"
        if self.added:
            return f"added {', '.join(map(repr, self.added))}, not before a word of the question"
        return f"dropped {', '.join(map(repr, self.dropped))}"

    def note(self) -> str | None:
        """Why the rewording asks another thing, or None when alignment cannot say it does.

        A loosely related pair leaves only itself undecided: another word replaced by an
        unrelated one beside it still rejects ("Aphasia … understand" → "Phobia …
        comprehend").
        """
        if self.loose:
            return self._unrelated_beside_loose()
        if self._phrase_for_word():
            return None
        if self.dropped and self.added:
            return (
                f"{', '.join(map(repr, self.dropped))} replaced by "
                f"{', '.join(map(repr, self.added))}"
            )
        if self.modifiers:
            return f"added {', '.join(map(repr, self.modifiers))}"
        return None

    def _unrelated_beside_loose(self) -> str | None:
        near = {a for a, _ in self.loose} | {b for _, b in self.loose}
        rest = Alignment(
            tuple(w for w in self.dropped if w not in near),
            tuple(w for w in self.added if w not in near),
            (),
        )
        return rest.note() if rest.dropped and rest.added else None

    def narrowing_dropped(self) -> str | None:
        """A word of the question left out with nothing in its place: a wider question.

        "Vascular plants all have roots, stems, and what?" → "What do vascular
        plants have?" asks for anything they have. Words that narrow nothing
        were left out of the alignment already (:data:`ASKS_NOTHING`, the
        kind of answer, a word naming the kind of the next one), so what is
        left narrows what is asked. A loosely related pair stays undecided.
        """
        if self.loose or self.added or not self.dropped:
            return None
        return f"dropped {', '.join(map(repr, self.dropped))}: asks a wider question"

    def modifier_dropped(self) -> str | None:
        """A word that narrowed a noun of the question left out, nothing like it in its place.

        "Why should a *successful* public relations counselor …" → "Why should a
        public relations counselor …", "… come on *regular* tv" → "… come on
        TV": a wider question even when other words were reworded. A dropped
        modifier loosely related to an added word ("principal" → "primary")
        stays undecided.
        """
        related = {a for a, _ in self.loose}
        lost = [w for w in self.dropped_modifiers if w not in related]
        return (
            f"dropped {', '.join(map(repr, lost))}, which narrowed the question" if lost else None
        )

    def _phrase_for_word(self) -> bool:
        """One word for several or several for one ("found dead" → "died"): may be a rephrasing."""
        sizes = sorted((len(self.dropped), len(self.added)))
        return sizes[0] == 1 and sizes[1] >= 2


#: nouns that measure travel: beside one, a verb of travel asks nothing new
_RATES = frozenset("speed velocity rate pace".split())


def _travel_beside_speed(left: tuple[str, ...], other: list[str]) -> tuple[str, ...]:
    """Drop verbs of travel ("travel", "move", "run") when the other text names a speed.

    "How fast does light travel?" asks for the speed of light: the speed is
    the rate of the travel, so "travel" adds nothing to "the speed of light".
    """
    if not any(w in _RATES or _RATES & _derived(w) for w in other):
        return left
    return tuple(w for w in left if not _travels(w))


@functools.cache
@serialised
def _travels(word: str) -> bool:
    """Whether a verb is travel or a kind of it, within two levels ("run", "fly", "move")."""
    wn = load_wordnet()
    base = wn.morphy(word, "v")
    if base is None:
        return False
    frontier = set(wn.synsets(base, "v")[:2])
    for _ in range(3):
        if any(s.name() == "travel.v.01" for s in frontier):
            return True
        frontier = {h for s in frontier for h in s.hypernyms()}
    return False


def _unmatched(words: list[str], other: list[str], also: Matcher | None) -> tuple[str, ...]:
    """Words of one text no word of the other matches.

    Less a word that names the kind of the word right after it ("the element
    gold", "the planet Mars": it asks nothing more).
    """
    # a word the other text repeats as it is is taken: it cannot also stand for another word
    # ("became … get" against "became … win": "get" must find its own match)
    taken = {b for b in other if any(_same_lemma(x, b) for x in words)}
    left = []
    for i, a in enumerate(words):
        if any(
            (words_match(a, b) or (also is not None and also(a, b)))
            and (b not in taken or _same_lemma(a, b))
            for b in other
        ):
            continue
        nxt = words[i + 1] if i + 1 < len(words) else None
        if nxt is not None and _bases(a) & _kinds_above(nxt, APPOSITION_LEVELS):
            continue
        left.append(a)
    return tuple(dict.fromkeys(left))


#: "the novel Moby-Dick", "the film Jaws": a common noun naming the kind of a name after it
_CLASSIFIER = re.compile(r"\b(?:the|a|an)\s+([a-z]+)\s+[A-Z0-9]")


def _without_classifiers(words: tuple[str, ...], text: str) -> tuple[str, ...]:
    """Less the nouns that only say what kind of thing the name after them is.

    "Who wrote the novel Moby-Dick?" asks what "Who wrote Moby-Dick?" asks: the
    name picks the thing, the noun before it narrows nothing. WordNet knows
    "the planet Mars" (the apposition rule) but not most titles.
    """
    kinds = {m.group(1) for m in _CLASSIFIER.finditer(text.replace("’", "'"))}
    return tuple(w for w in words if w not in kinds)


def _before_noun(words: list[str], i: int, added: tuple[str, ...]) -> bool:
    """Whether ``words[i]`` stands right before a matched noun ("hot" in "hot desert")."""
    if i + 1 >= len(words) or words[i + 1] in added:
        return False
    return "_" in words[i + 1] or guess_pos(words, i + 1)[0] == "n"


#: adjectives that pick or count rather than describe ("in the same year" = "in one year")
_DETERMINER_ADJECTIVES = frozenset(
    "same other another different only own whole certain particular such various several "
    "main".split()
)


def _adjective(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` is a describing adjective, not read as a verb here ("successful")."""
    if words[i] in _DETERMINER_ADJECTIVES:
        return False
    return "a" in pos_candidates(words[i]) and guess_pos(words, i)[0] != "v"


#: "the age of exploration", "the time of the Tudors": a kind word that names what is talked about
_THEME = re.compile(r"\b(?:the|an?)\s+([a-z]+)\s+of\b")


def _themes(text: str) -> frozenset[str]:
    """Kind-of-answer words a text talks about rather than asks for ("began the *age* of exploration").

    "Who began the age of exploration" → "Who began to explore" drops a word
    of the question, not the kind of answer; "What is the capital city of" →
    "What is the capital of" (no "the" right before it) and "In which year of
    …" (a wh-word right before) keep the kind rule.
    """
    lower = text.casefold()
    out = set()
    for m in _THEME.finditer(lower):
        before = _WORD.findall(lower[: m.start()])[-2:]
        asked = bool(before) and (before[-1] in _WH or (before[0] in _WH and before[1] in _BE))
        if m.group(1) in ANSWER_KINDS and not asked:
            out.add(m.group(1))
    return frozenset(out)


_WH = WH_WORDS - {"why"}  # "why" names no kind of answer after it
_BE = frozenset("is are was were".split())


def aligns(question: str) -> bool:
    """Whether :func:`alignment` reads this question: English, at most :data:`MAX_WORDS` words."""
    return is_english(question) and len(question.split()) <= MAX_WORDS


def alignment(question: str, rewording: str, also: Matcher | None = None) -> Alignment:
    """Align the content words of a question and its rewording (see the module doc).

    ``also(a, b)``: another way two words may match, both orders tried (the
    unit rules' "miles" ~ "distance").
    """
    q, r = content_tokens(question), content_tokens(rewording)
    dropped = _without_classifiers(_unmatched(q, r, also), question)
    added = _without_classifiers(_unmatched(r, q, also), rewording)
    added = _travel_beside_speed(added, q)
    dropped = _travel_beside_speed(dropped, r)
    # the kind of answer named on one side only ("the capital city of …") is the wh-rule's
    # ("president" → "vice president" is not that: the kind became a compound's head)
    heads = {w.rsplit("_", 1)[-1] for w in added + dropped if "_" in w}
    if not any(w in ANSWER_KINDS for w in dropped):
        kinds = ANSWER_KINDS - heads - _themes(rewording)
        added = tuple(w for w in added if w not in kinds)
    if not any(w in ANSWER_KINDS for w in added):
        kinds = ANSWER_KINDS - heads - _themes(question)
        dropped = tuple(w for w in dropped if w not in kinds)
    if not dropped:  # "made the discovery of" for "discovered": the verb carries the noun
        added = tuple(w for w in added if w not in LIGHT_VERBS)
    loose = tuple((a, b) for a in dropped for b in added if _loosely_related(a, b))
    modifiers = tuple(w for i, w in enumerate(r) if w in added and _before_noun(r, i, added))
    lost = tuple(
        w
        for i, w in enumerate(q)
        if w in dropped and _before_noun(q, i, dropped) and _adjective(q, i)
    )
    return Alignment(dropped, added, loose, modifiers, lost)
