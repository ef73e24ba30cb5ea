"""Text rules the rewording checks share: wrappers, questions, languages, key entities, duplicates.

Pure string functions (no model): :mod:`invent_core.perturb.gate` and
:mod:`invent_core.perturb.meaning` both read a candidate rewording through them,
so neither needs the other's internals. Tokens, stems, function words and number
words are the text floor's (:mod:`invent_core.text`).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from ..text.function_words import ENGLISH_FUNCTION_WORDS
from ..text.numbers import ORDINALS, small_number_words
from ..text.stems import inflection_stem
from ..text.tokens import LETTER_WORD, NAME_TOKEN, NUMBER, WORD

# --- wrappers ---------------------------------------------------------------------

_WS = re.compile(r"\s+")
_PREAMBLE = re.compile(
    r"^(?:(?:sure|certainly|of course|okay|ok|absolutely)[,.!:]+\s*)?"
    r"(?:here(?:'s|’s|\s+is|\s+are)\b[^:?\n]*:\s*)?",
    re.IGNORECASE,
)
_LABEL = re.compile(
    r"^(?:(?:the\s+|a\s+)?(?:paraphrased?|rephrased|reworded|rewritten|revised|new|alternative)"
    r"(?:\s+(?:question|sentence|version|text|query))?|paraphrase\s*\#?\d*|question|q)"
    r"\s*\#?\d*\s*[:\-–—]\s+",
    re.IGNORECASE,
)
_NUMBERING = re.compile(r"^(?:\(?\d{1,2}\s*[.)\]:]|[-*•·–—])\s+")
_QUOTE_PAIRS = (('"', '"'), ("“", "”"), ("'", "'"), ("‘", "’"), ("«", "»"), ("`", "`"))
_TRAILING_NOTE = re.compile(r"(?<=[?.!])\s*\([^()]*\)\s*$")


def _is_preamble_line(line: str) -> bool:
    """Tell whether a line only introduces the answer: "Sure, here is a paraphrase:", "Paraphrase:"."""
    bare = line.strip().strip("*_ ")
    return bare.endswith(":") and "?" not in bare


def _unquote(text: str) -> str:
    for left, right in _QUOTE_PAIRS:
        for tail in ("", ".", ","):
            end = right + tail
            inner = text[len(left) : len(text) - len(end)]
            if (
                len(text) > len(left) + len(end)
                and text.startswith(left)
                and text.endswith(end)
                and left not in inner
                and right not in inner
            ):
                return inner.strip()
    return text


def strip_wrappers(text: str) -> str:
    r"""Remove what a model wraps around one paraphrase.

    Drops preamble lines and phrases ("Sure, here is a paraphrase:"), labels
    ("Paraphrase:", "Rewritten question:", "Q:"), list numbering and bullets,
    Markdown bold, surrounding quotes and a trailing parenthetical note; keeps
    the first line that is left; collapses whitespace.

    Examples
    --------
    >>> strip_wrappers('Paraphrase: "Who picks up his kid from school himself?"')
    'Who picks up his kid from school himself?'
    >>> strip_wrappers("Sure, here is a reworded version:\n\n1. **What is Australia's capital?**")
    "What is Australia's capital?"
    """
    lines = [ln.strip() for ln in str(text or "").splitlines() if ln.strip()]
    body = next((ln for ln in lines if not _is_preamble_line(ln)), "")
    for _ in range(4):
        before = body
        body = _PREAMBLE.sub("", body, count=1).strip()
        body = _LABEL.sub("", body, count=1).strip()
        body = _NUMBERING.sub("", body, count=1).strip()
        body = re.sub(r"^(\*\*|__)(.+)\1$", r"\2", body).strip()
        body = _unquote(body)
        body = _TRAILING_NOTE.sub("", body).strip()
        if body == before:
            break
    return _WS.sub(" ", body).strip()


# --- what kind of text is it --------------------------------------------------------

_WH = frozenset("what which who whom whose where when why how".split())
_QUESTION_START = _WH | frozenset(
    "is are was were do does did can could would should will shall has have had may might "
    "must am name identify calculate compute determine find give state list tell explain "
    "describe estimate select choose complete".split()
)  # wh-words, auxiliaries and imperatives
_ASKING = re.compile(
    r"^(?:please\b|i(?: would|'d)? (?:like|want|need) to know\b|i (?:was )?wonder(?:ing)?\b)",
    re.IGNORECASE,
)  # a request for the answer written as a sentence
#: prepositions that may stand before a wh-word ("In which city …", "…, in which year …")
PREPOSITIONS = frozenset("in on at for from by to of with during after before".split())
#: words that open a noun phrase ("did *the* cat chase", "What causes *the* tides")
DETERMINERS = frozenset("the a an this that these those his her its their my your our".split())


def is_question(text: str) -> bool:
    """Tell whether ``text`` asks something: ends with "?" or starts like a question.

    A question starts with a wh-word, an auxiliary, an imperative ("Name …") or a
    preposition followed by a wh-word ("In which city …", "For which of these two
    scenarios …"). NQ-open questions carry no "?" ("who won last year's ncaa
    women's basketball"). A blank to fill in asks too ("… the concentration of
    ___ it produces"). "A Flemish Giant is a large breed of cattle." does not ask.
    """
    s = text.strip()
    if s.endswith(("?", "？")) or "___" in s:
        return True
    words = LETTER_WORD.findall(s.lower())
    if not words:
        return False
    if words[0] in _QUESTION_START or words[-1] in _WH or _ASKING.match(s):
        return True  # NQ-open writes "… came out when"; "Please tell me who …" asks
    return words[0] in PREPOSITIONS and any(w in _WH for w in words[1:3])


_FOREIGN = {
    "french": frozenset(
        "le la les des du est sont quel quelle quels quelles qui que dans pour avec une un et "
        "été sur par au aux ce cette il elle ont où comment".split()
    ),
    "spanish": frozenset(
        "el los las del es qué cuál cuáles quién quiénes una en por con para se y de como "
        "cómo dónde cuándo fue lo".split()
    ),
    "german": frozenset(
        "der die das den dem des ist sind und welche welcher welches wer wie wo ein eine "
        "einer mit für von nicht auf zu bei hat wurde".split()
    ),
}


def _non_latin_letters(text: str) -> int:
    """How many letters are outside the Latin script (CJK, Cyrillic, Greek …)."""
    return sum(
        1
        for ch in text
        if ch.isalpha() and not ch.isascii() and "LATIN" not in unicodedata.name(ch, "")
    )


def _language_votes(text: str) -> tuple[int, int]:
    """(English function words, the most of any one other language's) in ``text``."""
    words = Counter(LETTER_WORD.findall(text.lower()))
    english = sum(c for w, c in words.items() if w in ENGLISH_FUNCTION_WORDS)
    foreign = max(sum(c for w, c in words.items() if w in fw) for fw in _FOREIGN.values())
    return english, foreign


def is_english(text: str) -> bool:
    """Whether ``text`` reads as English: Latin script, no more foreign function words than English."""
    english, foreign = _language_votes(text)
    return _non_latin_letters(text) == 0 and english >= foreign


def other_language(candidate: str, original: str) -> str | None:
    """Return a note when the candidate is not in the original's language.

    An English original with a foreign or non-Latin candidate, and the other
    way round: small models often "paraphrase" a French or Chinese question by
    translating it into English, which changes the question they are asked.
    """
    if _non_latin_letters(original) == 0 and _non_latin_letters(candidate) > 0:
        return "non-Latin script"
    if _non_latin_letters(original) > 0:
        latin = _non_latin_letters(candidate) == 0 and any(ch.isalpha() for ch in candidate)
        return "Latin script for a question in another script" if latin else None
    en_o, fo_o = _language_votes(original)
    en_c, fo_c = _language_votes(candidate)
    if fo_o > en_o:  # the original is French, Spanish or German
        if en_c >= 2 and en_c > fo_c:
            return (
                f"English ({en_c} English vs {fo_c} foreign function words) for a foreign question"
            )
        return None
    if fo_c >= 2 and fo_c > en_c:
        return f"{fo_c} foreign vs {en_c} English function words"
    return None


# --- entities and scenarios -----------------------------------------------------------

_QUOTED = re.compile(r'"([^"]{2,80})"|“([^”]{2,80})”')
_SENTENCE = re.compile(r"(?<=[.!?|])\s+")
#: number words a rewording may write for a digit: "seven", "twice", "third" (up to "tenth")
_NUMBER_WORDS = {w: str(i) for w, i in small_number_words().items()}
_NUMBER_WORDS.update({"twice": "2", "double": "2", "thrice": "3", "triple": "3"})
_NUMBER_WORDS.update({w: str(i) for w, i in ORDINALS.items() if i <= 10})


def _plain_number(token: str) -> str:
    return token.replace(",", "")


def _norm_token(token: str) -> str:
    """Casefold, drop dots ("U.S." → "us") and a possessive ("Janet's" → "janet")."""
    t = token.casefold().replace(".", "").replace("’", "'")
    return t[:-2] if t.endswith("'s") else t.rstrip("'")


def key_entities(text: str) -> list[str]:
    """List the original's tokens a paraphrase must keep.

    Numbers; capitalised tokens after the first word of each sentence (not "I"),
    e.g. "British", "US", "Open"; quoted spans ("sou-wester"). Order of first
    appearance, no repeats.

    Examples
    --------
    >>> key_entities('Which golfer won the British and US Open in 1982?')
    ['1982', 'British', 'US', 'Open']
    """
    found = [_plain_number(m) for m in NUMBER.findall(text)]
    for sentence in _SENTENCE.split(text):
        tokens = NAME_TOKEN.findall(sentence)
        found += [t.rstrip(".") for t in tokens[1:] if t[0].isupper() and t != "I"]
    found += [a or b for a, b in _QUOTED.findall(text)]
    return list(dict.fromkeys(f for f in found if f))


def candidate_vocabulary(candidate: str) -> tuple[set[str], set[str], str]:
    """(numbers incl. number words, stemmed normalised tokens, casefolded text)."""
    numbers = {_plain_number(m) for m in NUMBER.findall(candidate)}
    tokens = [_norm_token(t) for t in NAME_TOKEN.findall(candidate)]
    numbers |= {_NUMBER_WORDS[t] for t in tokens if t in _NUMBER_WORDS}
    return numbers, {inflection_stem(t) for t in tokens}, _WS.sub(" ", candidate.casefold())


def entity_kept(entity: str, vocab: tuple[set[str], set[str], str]) -> bool:
    """Whether a key entity of the original is in a candidate's :func:`candidate_vocabulary`."""
    numbers, stems, folded = vocab
    if NUMBER.fullmatch(entity):
        return entity in numbers
    if " " in entity.strip() or not NAME_TOKEN.fullmatch(entity):  # quoted span
        return _WS.sub(" ", entity.casefold()).strip() in folded
    return inflection_stem(_norm_token(entity)) in stems


_CONTRACTIONS = {"what's": "what is", "who's": "who is", "where's": "where is", "it's": "it is"}


def duplicate_key(text: str) -> str:
    """Comparison key: casefold, contractions expanded, punctuation dropped."""
    s = text.casefold().replace("’", "'")
    for short, full in _CONTRACTIONS.items():
        s = s.replace(short, full)
    return " ".join(WORD.findall(s))


def copy_key(text: str) -> str:
    """:func:`duplicate_key` with number words written as digits ("seven" → "7").

    Two wordings with one key ask the same thing in the same words: GAAP's
    WordNet mutation "7" → "seven" is the only change its meaning check lets
    through on an arithmetic question, and such a variant is a copy.
    """
    return " ".join(_NUMBER_WORDS.get(w, w) for w in duplicate_key(text).split())
