"""How an evaluation was made, in words: its gate, round of rewording rules, ψ_y and padding.

An evaluation's numbers are those of its own settings. When the defaults move on
(a new round of rewording rules, another ψ_y), a folder made earlier is still
right about itself but no longer what a run made today would give. RESULTS
(``scripts/results_report``) and the dashboard's Evaluation page both say so,
with the same words, from what the folder recorded:

- :func:`made_with`: ``{"gate": …, "rewording rules": "round 6", "ψ_y": "rules",
  "padding": "distinct"}`` from a folder's ``config.json`` (or a dashboard payload,
  which carries the same two keys ``config`` and ``rewording_rules``);
- :func:`today_defaults`: the same for a run made today with the default profile;
- :func:`older_than_today`: each setting that differs, as ``(then, today)``;
- :func:`replay_agrees`: whether today's round, replayed on the folder's saved
  candidates (``stale_check.json``), chooses the same perturbations; a payload
  carries the round it agrees with as ``rewording_rules_replayed``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..config import RunConfig
from ..config.paraphrase import GATE_BEFORE_OPTIONS, REWORDING_RULES

__all__ = [
    "BEFORE_ROUNDS",
    "NOT_RECORDED",
    "made_with",
    "older_than_today",
    "replay_agrees",
    "replayed_words",
    "today_defaults",
]

#: What a folder's config.json says when it records no round: the round was recorded
#: from round 5 on, so an evaluate folder without it is older.
BEFORE_ROUNDS = "before round 5 (not recorded)"
#: What a payload without the round says (payloads did not carry it before 2026-11-30,
#: so its absence dates nothing).
NOT_RECORDED = "not recorded"
#: What a config saved before each of these options existed was made with (their first value).
_BEFORE = {"ψ_y": "embedding", "padding": "paper"}  # the gate's: GATE_BEFORE_OPTIONS


def made_with(meta: Mapping[str, Any], unrecorded: str = BEFORE_ROUNDS) -> dict[str, str]:
    """The gate, rewording rules, ψ_y and padding ``meta`` was made with.

    ``meta``: a folder's ``config.json`` or a dashboard payload (``config`` with its
    ``run``; ``rewording_rules``). An option missing from an older config is the value
    it had before the option existed (the paper's: ψ_y by the embedder's cosine, padded
    copies scored); a missing round reads ``unrecorded``. Gate and rules only for the
    paraphrase perturber (GAAP and the others have no gate).
    """
    run = (meta.get("config") or {}).get("run") or {}
    score = run.get("score") or {}
    out = {"ψ_y": str(score.get("answer_similarity", _BEFORE["ψ_y"])),
           "padding": str(score.get("padding", _BEFORE["padding"]))}  # fmt: skip
    if run.get("perturber") == "paraphrase":
        rules, same = meta.get("rewording_rules"), meta.get("rewording_rules_replayed")
        words = f"round {rules}" if rules else unrecorded
        if rules and same and same != rules:
            words += replayed_words(same)
        out = {"gate": _gate_words((run.get("paraphrase") or {}).get("gate") or {}),
               "rewording rules": words, **out}  # fmt: skip
    return out


def replayed_words(round_: int) -> str:
    """What follows a recorded round when ``round_``, replayed on its candidates, agreed."""
    return f" (replayed with round {round_}: the same perturbations)"


def replay_agrees(stale_check: Mapping[str, Any] | None, recorded: int | None) -> int | None:
    """The round replayed on the folder's candidates when it changed no question, else None.

    ``stale_check``: the folder's ``stale_check.json``; ``recorded``: the round its config
    records. A folder that records none (made before round 5) gets None: other parts of
    the paraphraser changed with those rounds, which a replay of the gate cannot see.
    """
    rw = (stale_check or {}).get("rewordings") or {}
    agrees = recorded and rw.get("replayed") and not rw.get("changed") and not rw.get("unavailable")
    return int(rw["rules"]) if agrees and rw.get("rules") else None


def _gate_words(gate: Mapping[str, Any]) -> str:
    if not gate.get("enabled", True):
        return "off"
    gate = {**GATE_BEFORE_OPTIONS, **gate}  # an option saved before it existed: its first value
    check = "no meaning check"
    if gate.get("meaning_check"):
        check = "meaning check both ways" if gate["both_ways"] else "meaning check one way"
        check += ", undecided kept" if gate["undecided_kept"] else ", undecided rejected"
    return f"δ {gate.get('delta', 0.7)}, {check}, {gate.get('max_extra_requests', 9)} re-asks"


def today_defaults() -> dict[str, str]:
    """The gate, rewording rules, ψ_y and padding of a paraphrase run made today by default."""
    return made_with({"config": {"run": RunConfig().to_dict()}, "rewording_rules": REWORDING_RULES})


def older_than_today(
    meta: Mapping[str, Any], unrecorded: str = BEFORE_ROUNDS
) -> dict[str, tuple[str, str]]:
    """Each setting of ``meta`` that differs from today's default, as ``(then, today)``.

    A round that was not recorded in a payload (``NOT_RECORDED``) is not called older:
    nothing says it was; nor is a round whose replay with today's chose the same
    perturbations (``rewording_rules_replayed``).
    """
    now, then = today_defaults(), made_with(meta, unrecorded)
    if meta.get("rewording_rules_replayed") == REWORDING_RULES:
        then.pop("rewording rules", None)  # an older round that chooses what today's would
    return {
        k: (v, now[k]) for k, v in then.items() if k in now and now[k] != v and v != NOT_RECORDED
    }
