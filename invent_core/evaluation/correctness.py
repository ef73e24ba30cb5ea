"""Is an LLM's answer correct? Rule-based matchers per dataset and the paper's LLM judge.

Which response is judged
------------------------
We judge the response the uncertainty scores were computed from: the answer to the
*original* question, replication 0. The paper's released code asks the model once more
for a fresh answer and judges that one, so its labels can disagree with the responses
its scores describe; we do not do that.

Rules (``method="match"``)
--------------------------
All text comparisons use :func:`normalize_answer` (SQuAD: lowercase, drop punctuation
and the articles a/an/the, collapse whitespace).

- TriviaQA, NQ-open and user files (``"qa"``): :func:`alias_match` — exact match to any
  alias, or, for a *short* response (at most ``SHORT_RESPONSE_MAX_TOKENS`` tokens after
  normalisation), an alias occurring in it as a whole-word span ("Wolfgang Amadeus
  Mozart" matches the alias "Mozart"). Longer responses must match exactly: the answer
  prompt asks for "only the name", and a long response can name several candidates.
- SciQ: :func:`contains_match` — the reference occurs as a whole-word span in the
  response, whatever its length.
- MMLU: :func:`mmlu_match` — an option letter ("C", "(C)", "C) …", "Answer: C"), else
  the text of exactly one option.
- GSM8K: :func:`gsm8k_match` — the last number in the response equals the dataset
  answer (the number after "####"); commas, "$", units, "%" and "18.0" are handled.
- The arithmetic testbed (:mod:`invent_core.questions.testbed`): :func:`number_match` — a numeric
  reference needs the response's last number to equal it exactly ("56.", "The answer is
  56" are right for 56, "560" is not); a text reference (a table lookup) uses
  :func:`alias_match`.

The parsers (option letters, numbers, normalisation) live in :mod:`invent_core.responses.canonical`,
shared with the canonical answers the random walk reads.

``method="llm"`` asks an LLM the paper's judge prompt (Appendix "Correctness
Evaluation", temperature 0) and reads Yes/No. The paper uses it for all datasets except
MMLU (exact match).

``method="paraphrase"`` (the default of ``evaluate``, ``batch`` and the dashboard)
accepts the reference said in other words, offline
(:mod:`invent_core.evaluation.paraphrase_judge`: containment, numbers, WordNet lemmas,
synonyms and kinds) on the free-text datasets (TriviaQA, NQ-open, SciQ, user files);
MMLU, GSM8K and the testbed keep their exact rules. ``"paraphrase-llm"`` asks the LLM
judge only in its undecided band (some words of the reference found, not all).

:func:`judge_verdict` returns the judgement with its reason (a
:class:`~invent_core.evaluation.paraphrase_judge.Verdict`); :func:`judge_correct` only
the bool.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from invent_core.prompts import CORRECTNESS_TEMPERATURE, correctness_prompt, format_choices
from invent_core.responses.canonical import (
    choice_normalizer,
    contains_span,
    light_normalize,
    normalize_answer,
    option_letter,
    parse_last_number,
    parse_option_letter,
)

from ..text.tokens import ASCII_WORD
from .paraphrase_judge import Verdict, paraphrase_verdict

__all__ = [
    "SHORT_RESPONSE_MAX_TOKENS",
    "JUDGE_MAX_TOKENS",
    "MATCHERS",
    "normalize_answer",
    "alias_match",
    "contains_match",
    "mmlu_match",
    "parse_option_letter",
    "gsm8k_match",
    "gsm8k_reference",
    "number_match",
    "parse_last_number",
    "parse_judge_reply",
    "llm_judge",
    "JUDGE_METHODS",
    "DEFAULT_JUDGE",
    "LLM_JUDGES",
    "Verdict",
    "judge_verdict",
    "judge_correct",
]

#: Responses up to this many normalised tokens may contain an alias rather than equal it.
#: The longest TriviaQA reference in the shipped sample is clipped to 10 tokens
#: (llm-foundry subsample), and the answer prompt asks for "only the name".
SHORT_RESPONSE_MAX_TOKENS = 10

#: Judge replies are one word ("Please answer with a single word, either Yes or No.").
JUDGE_MAX_TOKENS = 8


def _as_list(reference: str | Sequence[str]) -> list[str]:
    refs = [reference] if isinstance(reference, str) else list(reference)
    refs = [str(r) for r in refs if str(r).strip()]
    if not refs:
        raise ValueError("no reference answer given")
    return refs


def alias_match(
    response: str,
    aliases: str | Sequence[str],
    *,
    max_tokens_for_containment: int | None = SHORT_RESPONSE_MAX_TOKENS,
) -> bool:
    """Normalised exact match to any alias, plus containment for short responses.

    Parameters
    ----------
    response : the model's answer.
    aliases : the reference answer or its list of aliases.
    max_tokens_for_containment : int or None, default ``SHORT_RESPONSE_MAX_TOKENS``
        A response of at most this many normalised tokens is also correct when an
        alias occurs in it as a whole-word span. None: containment at any length;
        0: exact match only.

    Returns
    -------
    bool
    """
    resp = {True: normalize_answer(response), False: light_normalize(response)}
    for alias in _as_list(aliases):
        squad = bool(normalize_answer(alias))  # SQuAD rule unless it erases the alias
        a, r = (
            (normalize_answer(alias), resp[True])
            if squad
            else (light_normalize(alias), resp[False])
        )
        if not a or not r:
            continue
        if r == a:
            return True
        tokens = r.split()
        if max_tokens_for_containment is not None and len(tokens) > max_tokens_for_containment:
            continue
        if contains_span(tokens, a.split()):
            return True
    return False


def contains_match(response: str, reference: str | Sequence[str]) -> bool:
    """Correct when a normalised reference occurs in the normalised response (SciQ rule)."""
    return alias_match(response, reference, max_tokens_for_containment=None)


# --- MMLU --------------------------------------------------------------------


def _letter_of(reference: str | Sequence[str], choices: Sequence[str]) -> str:
    """Correct option letter from a reference that is a letter or an option's text."""
    refs = _as_list(reference)
    letters = [chr(ord("A") + i) for i in range(len(choices))]
    first = refs[0].strip()
    if first.upper() in letters and len(first) == 1:
        return first.upper()
    norm = choice_normalizer(choices)
    norm_choices = [norm(c) for c in choices]
    for r in refs:
        if norm(r) in norm_choices:
            return letters[norm_choices.index(norm(r))]
    raise ValueError(f"MMLU reference {refs[0]!r} is neither an option letter nor an option text")


def mmlu_match(response: str, reference: str | Sequence[str], choices: Sequence[str]) -> bool:
    """MMLU: option letter, else the text of exactly one option.

    Parameters
    ----------
    response : the model's answer.
    reference : the correct letter ("C") or a list whose first item is the letter (as in
        the shipped sample: ``["C", "<option text>"]``), or the correct option's text.
    choices : the option texts, in letter order A, B, C, …

    Returns
    -------
    bool. A letter, when one is found, decides. Otherwise the options whose normalised
    text occurs in the response are collected; an option contained in another found
    option ("wrong wrong" in "not wrong wrong") is dropped; exactly one must remain.
    """
    if not choices:
        raise ValueError("MMLU matching needs the question's choices")
    return option_letter(response, choices) == _letter_of(reference, choices)


# --- GSM8K -------------------------------------------------------------------


def gsm8k_reference(solution: str) -> str:
    """Return the final answer of a GSM8K solution: the text after "####", commas removed."""
    if "####" not in solution:
        raise ValueError("GSM8K solution has no '####' final-answer marker")
    return solution.rsplit("####", 1)[1].strip().replace(",", "")


def gsm8k_match(response: str, reference: str | Sequence[str]) -> bool:
    """GSM8K: the response's last number equals the reference number.

    ``reference`` is the dataset answer ("18") or a full solution ending "#### 18".
    """
    ref_text = _as_list(reference)[0]
    ref = parse_last_number(ref_text)
    if ref is None:
        raise ValueError(f"GSM8K reference {ref_text!r} holds no number")
    got = parse_last_number(response)
    return got is not None and abs(got - ref) <= 1e-6 * max(1.0, abs(ref))


# --- arithmetic testbed ---------------------------------------------------------

_PLAIN_NUMBER = re.compile(r"^\s*-?\d+(?:\.\d+)?\s*$")


def number_match(response: str, reference: str | Sequence[str]) -> bool:
    """Testbed rule: exact number for a numeric reference, alias match for a text one.

    ``reference`` "56": correct when the last number in the response is 56 ("56",
    "56.", "56.0", "The answer is 56", "7 x 8 = 56"); "560" or "5" are wrong.
    ``reference`` "Canberra" or "Au": :func:`alias_match`.
    """
    ref = _as_list(reference)[0]
    if not _PLAIN_NUMBER.match(ref):
        return alias_match(response, reference)
    got = parse_last_number(response)
    return got is not None and got == float(ref)


# --- LLM judge -----------------------------------------------------------------


def parse_judge_reply(text: str) -> bool:
    """Read a Yes/No judge reply.

    The first word decides when it is "yes" or "no" (any case/punctuation); otherwise a
    reply containing exactly one of the words "yes"/"no" decides.

    Raises
    ------
    ValueError
        When the reply says neither or both.
    """
    words = ASCII_WORD.findall(text.lower())
    if words and words[0] in ("yes", "no"):
        return words[0] == "yes"
    said = {w for w in words if w in ("yes", "no")}
    if len(said) == 1:
        return said == {"yes"}
    raise ValueError(f"the correctness judge did not answer Yes or No: {text!r}")


def llm_judge(response: str, reference: str, *, question: str, llm: Any, seed: int = 0) -> bool:
    """Ask ``llm`` whether ``response`` and ``reference`` are semantically equivalent.

    Parameters
    ----------
    response : the model's answer (A2 in the prompt).
    reference : the standard answer (A1).
    question : the original question (Q).
    llm : an object with ``complete(messages, *, temperature, seed, max_tokens)`` returning
        an object with ``.text`` (see :class:`invent_core.llm.base.LLM`).
    seed : int, default 0.

    Returns
    -------
    bool

    References
    ----------
    Paper Appendix "Correctness Evaluation" (prompt) and "LLM Configuration"
    (temperature 0 for correctness evaluation).
    """
    messages = [{"role": "user", "content": correctness_prompt(question, reference, response)}]
    out = llm.complete(
        messages, temperature=CORRECTNESS_TEMPERATURE, seed=seed, max_tokens=JUDGE_MAX_TOKENS
    )
    return parse_judge_reply(out.text)


# --- dispatcher ----------------------------------------------------------------

#: dataset name -> rule of ``method="match"``
MATCHERS: dict[str, str] = {
    "triviaqa": "alias",
    "nq_open": "alias",
    "nq": "alias",
    "qa": "alias",
    "custom": "alias",
    "sciq": "contains",
    "mmlu": "mmlu",
    "gsm8k": "gsm8k",
    "arithmetic": "number",
}


#: ``judge_verdict``'s methods: rules, rules + paraphrases (offline), the latter with an LLM
#: for its undecided band, and the paper's LLM judge.
JUDGE_METHODS: tuple[str, ...] = ("paraphrase", "match", "paraphrase-llm", "llm")
#: What ``evaluate``, ``batch`` and the dashboard judge with unless told otherwise.
DEFAULT_JUDGE = "paraphrase"
#: The methods that ask an LLM.
LLM_JUDGES = frozenset({"paraphrase-llm", "llm"})
#: The rules the paraphrase judge widens (free-text answers); the others stay exact.
FREE_TEXT_RULES = frozenset({"alias", "contains"})


def judge_verdict(
    response: str,
    reference: str | Sequence[str],
    *,
    dataset: str,
    question: str | None = None,
    choices: Sequence[str] | None = None,
    method: str = "match",
    llm: Any = None,
    seed: int = 0,
) -> Verdict:
    """Is ``response`` a correct answer, and why? Dispatches on ``dataset`` and ``method``.

    Parameters
    ----------
    response : the answer to the original question, replication 0 (the response the
        uncertainty scores were computed from; see the module docstring).
    reference : the reference answer or its aliases (``Example.answers``).
    dataset : a key of :data:`MATCHERS` ("triviaqa", "nq_open", "sciq", "mmlu", "gsm8k",
        "arithmetic", or "qa"/"custom" for user files; an ``Example.task`` works too).
    question : the question; required by the LLM judges, read by ``"paraphrase"``.
    choices : the options; required for MMLU.
    method : one of :data:`JUDGE_METHODS`, default "match"
        "match": the rule for the dataset. "paraphrase": the rule widened to answers
        that say the reference in other words (free-text datasets only).
        "paraphrase-llm": as "paraphrase", the undecided band asked of ``llm``.
        "llm": the paper's judge prompt (:func:`invent_core.prompts.correctness_prompt`)
        with ``llm``, comparing to the first alias (the paper's prompt has one standard
        answer); for MMLU the question carries its options and the standard answer is
        "<letter>. <option text>".
    llm : an LLM (see :func:`llm_judge`), required by :data:`LLM_JUDGES`.
    seed : passed to the LLM judge.

    Returns
    -------
    Verdict (``correct``, ``reason``).
    """
    rule = _check_judge(dataset, method, llm, question)
    if method == "llm":
        ref, question = _llm_inputs(reference, rule, question, choices)
        said = llm_judge(response, ref, question=question, llm=llm, seed=seed)
        return Verdict(said, f"the LLM judge said {'Yes' if said else 'No'} (reference {ref!r})")
    if method == "match" or rule not in FREE_TEXT_RULES:
        return _rule_verdict(response, reference, rule, choices)
    got = paraphrase_verdict(response, reference, question=question or "")
    if got.decided or method == "paraphrase":
        return got
    ref = _as_list(reference)[0]
    said = llm_judge(response, ref, question=str(question), llm=llm, seed=seed)
    return Verdict(said, f"{got.reason}; the LLM judge said {'Yes' if said else 'No'}")


def _check_judge(dataset: str, method: str, llm: Any, question: str | None) -> str:
    """The rule of ``dataset``; a clear error for an unknown dataset, method or a missing input."""
    rule = MATCHERS.get(dataset)
    if rule is None:
        raise ValueError(
            f"unknown dataset {dataset!r} for correctness; known: {', '.join(MATCHERS)}"
        )
    if method not in JUDGE_METHODS:
        raise ValueError(f"method must be one of {', '.join(JUDGE_METHODS)}; got {method!r}")
    if method in LLM_JUDGES and llm is None:
        raise ValueError(f"method={method!r} needs an llm object")
    if method in LLM_JUDGES and question is None:
        raise ValueError(f"method={method!r} needs the question")
    return rule


def _llm_inputs(
    reference: str | Sequence[str], rule: str, question: str | None, choices: Sequence[str] | None
) -> tuple[str, str]:
    """The standard answer and the question as the LLM judge sees them."""
    ref = _as_list(reference)[0]
    if rule == "mmlu":
        if not choices:
            raise ValueError("MMLU matching needs the question's choices")
        letter = _letter_of(reference, choices)
        ref = f"{letter}. {choices[ord(letter) - ord('A')]}"
        question = f"{str(question).strip()}\n{format_choices(choices)}"  # as the model saw it
    return ref, str(question)


_RULE_NAMES = {
    "alias": "an alias equals the answer or, in a short answer, occurs in it",
    "contains": "the reference occurs in the answer",
    "number": "the answer's last number equals the reference",
    "gsm8k": "the answer's last number equals the reference",
    "mmlu": "the option letter (or the one option text) named",
}


def _rule_verdict(
    response: str, reference: str | Sequence[str], rule: str, choices: Sequence[str] | None
) -> Verdict:
    """The dataset's exact rule, with the alias it matched or what it read."""
    if rule == "mmlu":
        if not choices:
            raise ValueError("MMLU matching needs the question's choices")
        got, want = option_letter(response, choices), _letter_of(reference, choices)
        return Verdict(got == want, f"answered option {got or 'none'}; the reference is {want}")
    if rule in ("number", "gsm8k"):
        ok = (
            number_match(response, reference)
            if rule == "number"
            else gsm8k_match(response, reference)
        )
        got = parse_last_number(response)
        seen = (
            f"the answer's last number is {got:g}" if got is not None else "no number in the answer"
        )
        return Verdict(ok, f"{seen}; the reference is {_as_list(reference)[0]!r}")
    match = alias_match if rule == "alias" else contains_match
    hit = next((a for a in _as_list(reference) if match(response, [a])), None)
    if hit is not None:
        return Verdict(True, f"matches the reference {hit!r} ({_RULE_NAMES[rule]})")
    return Verdict(False, f"no reference matches ({_RULE_NAMES[rule]})")


def judge_correct(response: str, reference: str | Sequence[str], **options: Any) -> bool:
    """Is ``response`` a correct answer? :func:`judge_verdict` (same options) without the reason."""
    return judge_verdict(response, reference, **options).correct
