"""The validity gate: is one paraphrase candidate a rewording of the original question.

Small paraphrasers often return something else: a label and quotes kept
(``Paraphrase: "…"``), an answer instead of a rewording ("A Flemish Giant is a
large breed of cattle."), a question whose key entity or one of its MMLU
scenarios is gone ("A connoisseur of what?"), another language, or the
original again. Every such candidate would cost r answers and then be scored
as if it were a perturbation of the question (issue #12 §1).

:func:`check_candidate` applies these checks, in this order, and reports the
first that fails (the ``reason``):

==================  ==============================================================
``empty``           nothing left after :func:`strip_wrappers`
``duplicate``       same normalised text as the original or an accepted paraphrase
``other_language``  the candidate is not in the original's language (script, or
                    French/Spanish/German function words against English ones)
``not_a_question``  the original is a question, the candidate is not
``lost_scenario``   a "Scenario k | …" of an MMLU stem is missing or lost most words
``lost_entity``     a number, a capitalised token after a sentence's first word or
                    a quoted span of the original is missing (case-insensitive,
                    simple inflections and number words allowed)
``changed_meaning`` the rewording asks for something else: another kind of answer
                    (which → where), another operation or a new operand, a dropped
                    ordinal/superlative/negation, or a role swap (issue #24 §2;
                    :mod:`invent_core.perturb.meaning`)
``length_ratio``    word count out of ``[min_length_ratio, max_length_ratio]`` × the
                    original's (both counts + ``length_slack``)
``low_affinity``    (1 + cos)/2 affinity to the original below δ (paper's GAAP δ)
``near_duplicate``  affinity to the original or an accepted paraphrase ≥
                    ``near_duplicate``
==================  ==============================================================

The checks are pure text rules plus affinities the caller computes with the
run's embedder (:func:`gate_affinities`, or :func:`gate_candidates` for a
whole round). Knobs: :class:`invent_core.config.GateConfig`.

Multiple choice: only the stem is perturbed. :func:`split_mmlu_stem` takes the
options off a question, :func:`attach_choices` puts them back unchanged.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..config import GateConfig
from ..paper.random_walk import KERNEL_TAU
from ..prompts import format_choices

__all__ = [
    "REASONS",
    "GateVerdict",
    "strip_wrappers",
    "is_question",
    "key_entities",
    "scenarios",
    "split_mmlu_stem",
    "attach_choices",
    "check_candidate",
    "gate_affinities",
    "gate_candidates",
    "summarize",
]

#: Rejection reasons, in the order the checks run.
REASONS: tuple[str, ...] = (
    "empty",
    "duplicate",
    "other_language",
    "not_a_question",
    "lost_scenario",
    "lost_entity",
    "changed_meaning",
    "length_ratio",
    "low_affinity",
    "near_duplicate",
)


@dataclass(frozen=True)
class GateVerdict:
    """What the gate decided about one candidate.

    Attributes
    ----------
    text : the candidate after :func:`strip_wrappers` (what would be asked).
    accepted : True when every check passed.
    reason : one of :data:`REASONS` when rejected, else None.
    detail : a human-readable note ("lost 'Australia'", "affinity 0.62 < 0.7").
    """

    text: str
    accepted: bool
    reason: str | None = None
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Return the verdict as a JSON-ready dict (for the run artefact)."""
        return asdict(self)


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

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_WH = frozenset("what which who whom whose where when why how".split())
_QUESTION_START = _WH | frozenset(
    "is are was were do does did can could would should will shall has have had may might "
    "must am name identify calculate compute determine find give state list tell explain "
    "describe estimate select choose complete".split()
)  # wh-words, auxiliaries and imperatives
_PREPOSITIONS = frozenset("in on at for from by to of with during after before".split())


def is_question(text: str) -> bool:
    """Tell whether ``text`` asks something: ends with "?" or starts like a question.

    A question starts with a wh-word, an auxiliary, an imperative ("Name …") or a
    preposition followed by a wh-word ("In which city …", "For which of these two
    scenarios …"). NQ-open questions carry no "?" ("who won last year's ncaa
    women's basketball"). "A Flemish Giant is a large breed of cattle." does not ask.
    """
    s = text.strip()
    if s.endswith(("?", "？")):
        return True
    words = _WORD.findall(s.lower())
    if not words:
        return False
    if words[0] in _QUESTION_START:
        return True
    return words[0] in _PREPOSITIONS and any(w in _WH for w in words[1:3])


_ENGLISH = frozenset(
    "the is are was were of what which who whom whose where when why how in on at to for "
    "from by with and or did does do has have had be been this that it its an many much "
    "name".split()
)
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
    words = Counter(_WORD.findall(text.lower()))
    english = sum(c for w, c in words.items() if w in _ENGLISH)
    foreign = max(sum(c for w, c in words.items() if w in fw) for fw in _FOREIGN.values())
    return english, foreign


def _other_language(candidate: str, original: str) -> str | None:
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

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_QUOTED = re.compile(r'"([^"]{2,80})"|“([^”]{2,80})”')
_SENTENCE = re.compile(r"(?<=[.!?|])\s+")
_TOKEN = re.compile(r"[A-Za-z][\w'’.\-]*")
_NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
_NUMBER_WORDS.update({"twice": "2", "double": "2", "thrice": "3", "triple": "3"})
_NUMBER_WORDS.update(
    {
        w: str(i)
        for i, w in enumerate(
            "zeroth first second third fourth fifth sixth seventh eighth ninth tenth".split()
        )
    }
)


def _plain_number(token: str) -> str:
    return token.replace(",", "")


def _norm_token(token: str) -> str:
    """Casefold, drop dots ("U.S." → "us") and a possessive ("Janet's" → "janet")."""
    t = token.casefold().replace(".", "").replace("’", "'")
    return t[:-2] if t.endswith("'s") else t.rstrip("'")


def _stem(word: str) -> str:
    """Crude inflection stripping, enough for "championships" ~ "championship"."""
    for suffix, repl in (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ing", "")):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)] + repl
    return word


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
    found = [_plain_number(m) for m in _NUMBER.findall(text)]
    for sentence in _SENTENCE.split(text):
        tokens = _TOKEN.findall(sentence)
        found += [t.rstrip(".") for t in tokens[1:] if t[0].isupper() and t != "I"]
    found += [a or b for a, b in _QUOTED.findall(text)]
    return list(dict.fromkeys(f for f in found if f))


def _candidate_vocabulary(candidate: str) -> tuple[set[str], set[str], str]:
    """(numbers incl. number words, stemmed normalised tokens, casefolded text)."""
    numbers = {_plain_number(m) for m in _NUMBER.findall(candidate)}
    tokens = [_norm_token(t) for t in _TOKEN.findall(candidate)]
    numbers |= {_NUMBER_WORDS[t] for t in tokens if t in _NUMBER_WORDS}
    return numbers, {_stem(t) for t in tokens}, _WS.sub(" ", candidate.casefold())


def _kept(entity: str, vocab: tuple[set[str], set[str], str]) -> bool:
    numbers, stems, folded = vocab
    if _NUMBER.fullmatch(entity):
        return entity in numbers
    if " " in entity.strip() or not _TOKEN.fullmatch(entity):  # quoted span
        return _WS.sub(" ", entity.casefold()).strip() in folded
    return _stem(_norm_token(entity)) in stems


def _lost_entities(candidate: str, original: str, min_recall: float) -> str | None:
    entities = key_entities(original)
    if not entities:
        return None
    vocab = _candidate_vocabulary(candidate)
    lost = [e for e in entities if not _kept(e, vocab)]
    if lost and (len(entities) - len(lost)) / len(entities) < min_recall:
        return "lost " + ", ".join(repr(e) for e in lost)
    return None


_SCENARIO = re.compile(r"Scenario\s*(\d+)\s*\|\s*(.*?)(?=\s*Scenario\s*\d+\s*\||$)", re.S)
_STOP = _ENGLISH | frozenset("me my her his him she he they them their i you your".split())


def scenarios(text: str) -> list[tuple[str, str]]:
    """Return the "Scenario k | …" parts of an MMLU moral-scenarios stem: [(k, text), …]."""
    return [(k, body.strip()) for k, body in _SCENARIO.findall(text)]


def _content_words(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _STOP}


def _lost_scenario(candidate: str, original: str) -> str | None:
    """Each scenario must keep its "Scenario k" label and at least half its content words."""
    parts = scenarios(original)
    if not parts:
        return None
    words = _content_words(candidate)
    for k, body in parts:
        if not re.search(rf"scenario\s*{k}\b", candidate, re.IGNORECASE):
            return f"Scenario {k} missing"
        content = _content_words(body)
        if content and len(content & words) < 0.5 * len(content):
            return f"Scenario {k} lost {len(content - words)} of {len(content)} words"
    return None


# --- multiple choice ---------------------------------------------------------------------

_OPTION_LINE = re.compile(r"^\s*\(?([A-J])[.)]\s+(.+?)\s*$")
_INLINE_OPTION = re.compile(r"(?:^|\s)\(?([A-J])[.)]\s+")


def split_mmlu_stem(question_with_options: str) -> tuple[str, list[str]]:
    """Split a multiple-choice question into its stem and its options.

    Options are lines ``A. …`` / ``(B) …`` / ``C) …`` in letter order from A
    (what :func:`invent_core.prompts.format_choices` writes), or the same
    markers inline after the stem ("… ? A. x B. y C. z"). Text after the last
    option line (the answer prompt's suffix) is dropped. The stem keeps any
    embedded "Scenario 1 | … Scenario 2 | …" parts.

    Returns
    -------
    (stem, choices); ``choices`` is empty when no options were found.
    """
    lines = question_with_options.strip().splitlines()
    for start, line in enumerate(lines):
        m = _OPTION_LINE.match(line)
        if m and m.group(1) == "A":
            choices = []
            for follow in lines[start:]:
                mm = _OPTION_LINE.match(follow)
                if not mm or mm.group(1) != chr(ord("A") + len(choices)):
                    break
                choices.append(mm.group(2))
            if len(choices) >= 2:
                return "\n".join(lines[:start]).strip(), choices
    return _split_inline(question_with_options.strip())


def _split_inline(text: str) -> tuple[str, list[str]]:
    marks = list(_INLINE_OPTION.finditer(text))
    letters = [m.group(1) for m in marks]
    for i in range(len(marks)):
        run = letters[i:]
        n = 0
        while n < len(run) and run[n] == chr(ord("A") + n):
            n += 1
        if letters[i] == "A" and n >= 2:
            cut = marks[i : i + n]
            ends = [m.start() for m in cut[1:]] + [len(text)]
            choices = [text[m.end() : e].strip() for m, e in zip(cut, ends)]
            return text[: cut[0].start()].strip(), choices
    return text, []


def attach_choices(stem: str, choices: Sequence[str]) -> str:
    r"""Put the options back under a (perturbed) stem, unchanged: ``stem\\nA. …\\nB. …``."""
    return f"{stem.strip()}\n{format_choices(choices)}" if choices else stem.strip()


# --- the gate -----------------------------------------------------------------------------

_CONTRACTIONS = {"what's": "what is", "who's": "who is", "where's": "where is", "it's": "it is"}


def _dup_key(text: str) -> str:
    """Comparison key: casefold, contractions expanded, punctuation dropped."""
    s = text.casefold().replace("’", "'")
    for short, full in _CONTRACTIONS.items():
        s = s.replace(short, full)
    return " ".join(re.findall(r"\w+", s))


def _cut_after_question(candidate: str, original: str) -> str:
    """Drop a note or an answer after the last "?" when the original ends with one."""
    if original.rstrip().endswith("?") and "?" in candidate and not candidate.endswith("?"):
        return candidate[: candidate.rfind("?") + 1]
    return candidate


def _length_ratio(candidate: str, original: str, cfg: GateConfig) -> str | None:
    n_c, n_o = len(candidate.split()), len(original.split())
    ratio = (n_c + cfg.length_slack) / (n_o + cfg.length_slack)
    if not cfg.min_length_ratio <= ratio <= cfg.max_length_ratio:
        return f"{n_c} words vs {n_o} (ratio {ratio:.2f})"
    return None


def check_candidate(
    candidate: str,
    original: str,
    *,
    affinity: float | None,
    accepted: Sequence[str] = (),
    config: GateConfig | None = None,
    accepted_affinity: Sequence[float] | None = None,
) -> GateVerdict:
    """Decide whether one paraphrase candidate may stand for the original question.

    Parameters
    ----------
    candidate : the model's reply for one paraphrase (wrappers are stripped here).
    original : the question being perturbed (for MMLU: the stem, without options).
    affinity : (1 + cos)/2 affinity of the *stripped* candidate to the original
        under the run's embedder, or None to skip ``low_affinity`` and the
        original's ``near_duplicate`` check (see :func:`gate_affinities`).
    accepted : paraphrases already accepted for this question.
    config : the gate's knobs (default :class:`~invent_core.config.GateConfig`).
    accepted_affinity : affinity of the candidate to each of ``accepted`` (same
        order), or None to compare them by text only.

    Returns
    -------
    GateVerdict; ``reason`` is the first failed check of :data:`REASONS`.
    With ``config.enabled`` False every candidate is accepted unchanged.
    """
    cfg = config or GateConfig()
    if not cfg.enabled:
        return GateVerdict(str(candidate or "").strip(), True)
    text = _cut_after_question(strip_wrappers(candidate), original)
    checks: list[tuple[str, Callable[[], str | None]]] = [
        ("empty", lambda: "nothing left after removing wrappers" if not text else None),
        ("duplicate", lambda: _duplicate(text, original, accepted)),
        ("other_language", lambda: _other_language(text, original)),
        ("not_a_question", lambda: _not_a_question(text, original)),
        ("lost_scenario", lambda: _lost_scenario(text, original)),
        ("lost_entity", lambda: _lost_entities(text, original, cfg.min_entity_recall)),
        ("changed_meaning", lambda: _changed_meaning(text, original, cfg)),
        ("length_ratio", lambda: _length_ratio(text, original, cfg)),
        ("low_affinity", lambda: _low_affinity(affinity, cfg.delta)),
        ("near_duplicate", lambda: _near_duplicate(affinity, accepted_affinity, cfg)),
    ]
    for reason, check in checks:
        detail = check()
        if detail is not None:
            return GateVerdict(text, False, reason, detail)
    return GateVerdict(text, True)


def _duplicate(text: str, original: str, accepted: Sequence[str]) -> str | None:
    key = _dup_key(text)
    if key == _dup_key(original):
        return "same as the original"
    if any(key == _dup_key(a) for a in accepted):
        return "same as an accepted paraphrase"
    return None


def _changed_meaning(text: str, original: str, cfg: GateConfig) -> str | None:
    from .meaning import changed_meaning

    return changed_meaning(text, original) if cfg.meaning_check else None


def _not_a_question(text: str, original: str) -> str | None:
    return "not a question" if is_question(original) and not is_question(text) else None


def _low_affinity(affinity: float | None, delta: float) -> str | None:
    if affinity is not None and affinity < delta:
        return f"affinity {affinity:.3f} < δ {delta:g}"
    return None


def _near_duplicate(
    affinity: float | None, accepted_affinity: Sequence[float] | None, cfg: GateConfig
) -> str | None:
    if affinity is not None and affinity >= cfg.near_duplicate:
        return f"affinity {affinity:.4f} to the original"
    for i, a in enumerate(accepted_affinity or ()):
        if a >= cfg.near_duplicate:
            return f"affinity {a:.4f} to accepted paraphrase {i + 1}"
    return None


def gate_affinities(similarity: Any, original: str, texts: Sequence[str]) -> np.ndarray:
    """(1 + cos)/2 affinity of each text to the original under the run's embedder.

    Parameters
    ----------
    similarity : a :class:`invent_core.embedders.Similarity` (the run's ψ).
    original : the question.
    texts : k stripped candidates.

    Returns
    -------
    array of shape (k,). Always the paper's kernel, whatever the run scores with,
    so δ = 0.7 means what it means for GAAP.
    """
    if not texts:
        return np.zeros(0)
    sim = similarity.similarity_matrix([original, *texts], kind="shifted_cosine", tau=KERNEL_TAU)
    return np.asarray(sim, dtype=np.float64)[0, 1:]


def gate_candidates(
    candidates: Sequence[str],
    original: str,
    *,
    similarity: Any = None,
    accepted: Sequence[str] = (),
    config: GateConfig | None = None,
) -> list[GateVerdict]:
    """Run the gate over one round of candidates, in order.

    A candidate accepted here counts as accepted for the ones after it (so a
    near-duplicate of it is rejected). One ``similarity_matrix`` call embeds the
    original, the earlier accepted paraphrases and the round's candidates.

    Parameters
    ----------
    candidates : raw candidate replies of this round.
    original : the question (the stem for MMLU).
    similarity : the run's embedder, or None for text checks only.
    accepted : paraphrases accepted in earlier rounds.
    config : the gate's knobs.

    Returns
    -------
    One :class:`GateVerdict` per candidate, in order.
    """
    texts = [_cut_after_question(strip_wrappers(c), original) for c in candidates]
    kept = list(accepted)
    sim = None
    if similarity is not None and texts:
        sim = similarity.similarity_matrix(
            [original, *kept, *texts], kind="shifted_cosine", tau=KERNEL_TAU
        )
        sim = np.asarray(sim, dtype=np.float64)  # (1 + a + k, 1 + a + k)
    rows = list(range(1, 1 + len(kept)))  # rows of the accepted texts in ``sim``
    verdicts = []
    for i, text in enumerate(texts):
        row = 1 + len(accepted) + i
        verdict = check_candidate(
            text,
            original,
            affinity=None if sim is None else float(sim[0, row]),
            accepted=kept,
            config=config,
            accepted_affinity=None if sim is None else [float(sim[row, j]) for j in rows],
        )
        verdicts.append(verdict)
        if verdict.accepted:
            kept.append(verdict.text)
            rows.append(row)
    return verdicts


def summarize(verdicts: Sequence[GateVerdict]) -> dict[str, Any]:
    """Count candidates, acceptances and rejections per reason (for the CLI and the run).

    Returns
    -------
    ``{"candidates": k, "accepted": a, "acceptance_rate": a / k (None when k = 0),
    "rejected": {reason: count}}`` with reasons in :data:`REASONS` order.
    """
    k = len(verdicts)
    n_ok = sum(v.accepted for v in verdicts)
    counts = Counter(v.reason for v in verdicts if not v.accepted)
    return {
        "candidates": k,
        "accepted": n_ok,
        "acceptance_rate": n_ok / k if k else None,
        "rejected": {r: counts[r] for r in REASONS if counts[r]},
    }


def acceptance_line(acceptance: dict | None) -> str | None:
    """``"paraphrase gate: 9 of 14 candidates accepted (64 %); rejected: lost_entity 3, …; padded 0"``."""
    if not acceptance or not acceptance.get("gate", True):
        return None
    k, ok = acceptance.get("candidates", 0), acceptance.get("accepted", 0)
    rate = f" ({100 * ok / k:.0f} %)" if k else ""
    rejected = ", ".join(f"{r} {c}" for r, c in (acceptance.get("rejected") or {}).items())
    line = f"paraphrase gate: {ok} of {k} candidates accepted{rate}"
    line += f"; rejected: {rejected}" if rejected else ""
    if acceptance.get("near_duplicates"):
        line += f"; near-duplicates standing in for copies: {acceptance['near_duplicates']}"
    line += f"; padded by duplication: {acceptance.get('padded', 0)}"
    if acceptance.get("fallback") == "original":
        line += " (no candidate passed: every state is the question itself)"
    if acceptance.get("distinct") is not None and acceptance.get("states"):
        line += f"; distinct states: {acceptance['distinct']} of {acceptance['states']}"
    if acceptance.get("premises_kept"):  # words of a word problem's data, kept as they are
        line += (
            f"; only the last sentence reworded ({acceptance['premises_kept']} words of data kept)"
        )
    warning = distinct_warning(acceptance)
    return line + (f" — {warning}" if warning else "")


#: fewer distinct wordings than this share of n is flagged (issue #24 §3: 8 of 12
#: short questions ended with at most 4 of 9)
LOW_DISTINCT_SHARE = 0.5


def distinct_warning(acceptance: dict | None) -> str | None:
    """``"only 3 distinct states of 9: Inv-Entropy mostly measures replication"`` when few, else None."""
    if not acceptance or acceptance.get("distinct") is None:
        return None
    d, n = int(acceptance["distinct"]), int(acceptance.get("states") or 0)
    if n and d < LOW_DISTINCT_SHARE * n:
        return f"only {d} distinct states of {n}: Inv-Entropy here mostly measures replication"
    return None
