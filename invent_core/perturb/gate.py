"""The validity gate: is one paraphrase candidate a rewording of the original question.

Small paraphrasers often return something else: a label and quotes kept
(``Paraphrase: "…"``), an answer instead of a rewording ("A Flemish Giant is a
large breed of cattle."), a question whose key entity or one of its MMLU
scenarios is gone ("A connoisseur of what?"), another language, or the
original again. Every such candidate would cost r answers and then be scored
as if it were a perturbation of the question.

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
``length_ratio``    word count out of ``[min_length_ratio, max_length_ratio]`` × the
                    original's (both counts + ``length_slack``)
``changed_meaning`` the rewording asks for something else, checked both ways: another
                    kind of answer (which → where), another operation, number, unit or
                    name, an antonym, a negation or qualifier dropped or added, a role
                    swap, too few shared content words; the undecided ones are asked
                    of the rewording model (:mod:`invent_core.perturb.asks_same`)
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

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..config import GateConfig
from ..paper.random_walk import KERNEL_TAU
from ..questions.mmlu import scenarios
from ..text.function_words import content_words
from .aliases import with_aliases_joined
from .asks_same import question_rule_verdict
from .meaning import changed_meaning
from .text import (
    candidate_vocabulary,
    copy_key,
    duplicate_key,
    entity_kept,
    is_question,
    key_entities,
    other_language,
    strip_wrappers,
)

__all__ = [
    "REASONS",
    "GateVerdict",
    "check_candidate",
    "copies_warning",
    "gate_affinities",
    "gate_candidates",
    "summarize",
    "cut_after_question",
]

#: Rejection reasons, in the order the checks run.
REASONS: tuple[str, ...] = (
    "empty",
    "duplicate",
    "other_language",
    "not_a_question",
    "lost_scenario",
    "lost_entity",
    "length_ratio",
    "changed_meaning",
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
    detail : a human-readable note ("lost 'Australia'", "affinity 0.62 < 0.845").
    """

    text: str
    accepted: bool
    reason: str | None = None
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Return the verdict as a JSON-ready dict (for the run artefact)."""
        return asdict(self)


def lost_entities(candidate: str, original: str, min_recall: float) -> str | None:
    # one name for another is no loss ("the United States" → "the US", "Holland")
    candidate, original = with_aliases_joined(candidate), with_aliases_joined(original)
    entities = key_entities(original)
    if not entities:
        return None
    vocab = candidate_vocabulary(candidate)
    lost = [e for e in entities if not entity_kept(e, vocab)]
    if lost and (len(entities) - len(lost)) / len(entities) < min_recall:
        return "lost " + ", ".join(repr(e) for e in lost)
    return None


def _lost_scenario(candidate: str, original: str) -> str | None:
    """Each scenario must keep its "Scenario k" label and at least half its content words."""
    parts = scenarios(original)
    if not parts:
        return None
    words = content_words(candidate)
    for k, body in parts:
        if not re.search(rf"scenario\s*{k}\b", candidate, re.IGNORECASE):
            return f"Scenario {k} missing"
        content = content_words(body)
        if content and len(content & words) < 0.5 * len(content):
            return f"Scenario {k} lost {len(content - words)} of {len(content)} words"
    return None


# --- the gate -----------------------------------------------------------------------------


def cut_after_question(candidate: str, original: str) -> str:
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
    verified: Mapping[str, bool] | None = None,
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
    verified : the rewording model's verdicts (text → same) for candidates the
        rules cannot decide; one missing falls back to ``config.undecided_kept``.

    Returns
    -------
    GateVerdict; ``reason`` is the first failed check of :data:`REASONS`.
    With ``config.enabled`` False every candidate is accepted unchanged.
    """
    cfg = config or GateConfig()
    if not cfg.enabled:
        return GateVerdict(str(candidate or "").strip(), True)
    text = cut_after_question(strip_wrappers(candidate), original)
    checks: list[tuple[str, Callable[[], str | None]]] = [
        ("empty", lambda: "nothing left after removing wrappers" if not text else None),
        ("duplicate", lambda: _duplicate(text, original, accepted)),
        ("other_language", lambda: other_language(text, original)),
        ("not_a_question", lambda: _not_a_question(text, original)),
        ("lost_scenario", lambda: _lost_scenario(text, original)),
        ("lost_entity", lambda: lost_entities(text, original, cfg.min_entity_recall)),
        ("length_ratio", lambda: _length_ratio(text, original, cfg)),
        ("changed_meaning", lambda: _changed_meaning(text, original, cfg, verified)),
        ("low_affinity", lambda: _low_affinity(affinity, cfg.delta)),
        ("near_duplicate", lambda: _near_duplicate(affinity, accepted_affinity, cfg)),
    ]
    for reason, check in checks:
        detail = check()
        if detail is not None:
            return GateVerdict(text, False, reason, detail)
    return GateVerdict(text, True)


def _duplicate(text: str, original: str, accepted: Sequence[str]) -> str | None:
    key = duplicate_key(text)
    if key == duplicate_key(original):
        return "same as the original"
    if any(key == duplicate_key(a) for a in accepted):
        return "same as an accepted paraphrase"
    return None


def _changed_meaning(
    text: str, original: str, cfg: GateConfig, verified: Mapping[str, bool] | None
) -> str | None:
    if not cfg.meaning_check:
        return None
    if not cfg.both_ways:  # the question-to-rewording rules only
        return changed_meaning(text, original)
    verdict = question_rule_verdict(original, text, cfg)
    if verdict is not None:
        return None if verdict.same else verdict.detail
    if verified is not None and text in verified:
        return None if verified[text] else "the rewording model says it asks something else"
    return None if cfg.undecided_kept else "undecided by the rules, no model asked"


def undecided(text: str, original: str, cfg: GateConfig) -> bool:
    """Whether only the rewording model can tell if ``text`` asks what ``original`` asks."""
    return (
        cfg.meaning_check and cfg.both_ways and question_rule_verdict(original, text, cfg) is None
    )


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
    so the gate's δ reads on GAAP's scale.
    """
    if not texts:
        return np.zeros(0)
    sim = similarity.similarity_matrix([original, *texts], kind="shifted_cosine", tau=KERNEL_TAU)
    return np.asarray(sim, dtype=np.float64)[0, 1:]


#: ``verify(pairs) -> same`` for (original, rewording) pairs the rules cannot decide
Verify = Callable[[list[tuple[str, str]]], list[bool]]


def gate_candidates(
    candidates: Sequence[str],
    original: str,
    *,
    similarity: Any = None,
    accepted: Sequence[str] = (),
    config: GateConfig | None = None,
    verify: Verify | None = None,
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
    verify : asks the rewording model about the candidates the rules cannot
        decide (:func:`~.asks_same.verify_with_llm`), or None. Only those
        that pass every other check are asked, all in one batch.

    Returns
    -------
    One :class:`GateVerdict` per candidate, in order.
    """
    cfg = config or GateConfig()
    texts = [cut_after_question(strip_wrappers(c), original) for c in candidates]
    sim = None
    if similarity is not None and texts:
        sim = similarity.similarity_matrix(
            [original, *accepted, *texts], kind="shifted_cosine", tau=KERNEL_TAU
        )
        sim = np.asarray(sim, dtype=np.float64)  # (1 + a + k, 1 + a + k)
    if verify is None or not cfg.llm_verify:
        return _judge_round(texts, original, sim, accepted, cfg, None)
    # first as if the model said "same" to every undecided one; ask about those still standing
    hopeful = {t: True for t in texts if t and undecided(t, original, cfg)}
    verdicts = _judge_round(texts, original, sim, accepted, cfg, hopeful)
    ask = list(dict.fromkeys(v.text for v in verdicts if v.accepted and v.text in hopeful))
    if not ask:
        return verdicts
    answers = verify([(original, t) for t in ask])
    return _judge_round(texts, original, sim, accepted, cfg, dict(zip(ask, answers)))


def _judge_round(
    texts: Sequence[str],
    original: str,
    sim: np.ndarray | None,
    accepted: Sequence[str],
    cfg: GateConfig,
    verified: Mapping[str, bool] | None,
) -> list[GateVerdict]:
    """:func:`check_candidate` over a round, each accepted text counting for the ones after it."""
    kept = list(accepted)
    rows = list(range(1, 1 + len(kept)))  # rows of the accepted texts in ``sim``
    verdicts = []
    for i, text in enumerate(texts):
        row = 1 + len(accepted) + i
        verdict = check_candidate(
            text,
            original,
            affinity=None if sim is None else float(sim[0, row]),
            accepted=kept,
            config=cfg,
            accepted_affinity=None if sim is None else [float(sim[row, j]) for j in rows],
            verified=verified,
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


#: fewer distinct wordings than this share of n is flagged (8 of 12
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


def copies_warning(question: str, perturbations: Sequence[str], hint: str = "") -> str | None:
    """A sentence when every perturbation is the question itself (wording compared), else None.

    Then the n + 1 states are one: P_x is uniform and Inv-Entropy is exactly
    ln(n + 1) whatever the answers, a number that says nothing about the
    question. A number written another way ("What is seven + 5?" for "What is
    7 + 5?", all that GAAP's meaning check keeps of an arithmetic question) is
    still the question: the states differ only by that spelling's embedding, and
    Inv-Entropy stays within a hair of ln(n + 1). ``hint`` says why it happened
    and what to change.
    """
    n = len(perturbations)
    key = copy_key(question)
    if not n or any(copy_key(p) != key for p in perturbations):
        return None
    exact = all(duplicate_key(p) == duplicate_key(question) for p in perturbations)
    what = (
        "the question itself" if exact else "the question itself up to how its numbers are written"
    )
    return (
        f"degenerate result: all {n} perturbations are {what}, so Inv-Entropy is "
        f"{'' if exact else 'about '}ln(n + 1) = {math.log(n + 1):.4f} whatever the answers "
        "and measures nothing about this question" + (f" ({hint})" if hint else "")
    )
