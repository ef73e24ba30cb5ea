"""How an evaluation was made, in the words RESULTS and the dashboard share."""

from __future__ import annotations

from invent_core.config import RunConfig
from invent_core.config.paraphrase import REWORDING_RULES
from invent_core.experiments.made_with import (
    BEFORE_ROUNDS,
    NOT_RECORDED,
    made_with,
    older_than_today,
    replay_agrees,
    today_defaults,
)


def _meta(rules=REWORDING_RULES, **score) -> dict:
    run = RunConfig().to_dict()
    run["score"] = {**run["score"], **score}
    return {"config": {"run": run}, "rewording_rules": rules}


def test_a_run_made_today_is_made_with_todays_defaults():
    assert made_with(_meta()) == today_defaults()
    assert older_than_today(_meta()) == {}
    words = today_defaults()
    assert words["rewording rules"] == f"round {REWORDING_RULES}"
    assert words["ψ_y"] == "rules" and words["padding"] == "distinct"
    assert "meaning check both ways, undecided rejected" in words["gate"]


def test_each_older_setting_is_named_with_todays_value():
    old = _meta(rules=REWORDING_RULES - 2, answer_similarity="embedding")
    assert older_than_today(old) == {
        "rewording rules": (f"round {REWORDING_RULES - 2}", f"round {REWORDING_RULES}"),
        "ψ_y": ("embedding", "rules"),
    }


def test_a_config_saved_before_an_option_existed_reads_as_its_first_value():
    run = RunConfig().to_dict()
    run["score"] = {
        k: v for k, v in run["score"].items() if k not in ("answer_similarity", "padding")
    }
    run["paraphrase"]["gate"] = {"enabled": True, "meaning_check": True, "delta": 0.7}
    meta = {"config": {"run": run}}  # no round recorded: a folder from before round 5
    words = made_with(meta)
    assert words["ψ_y"] == "embedding" and words["padding"] == "paper"
    assert words["rewording rules"] == BEFORE_ROUNDS
    assert words["gate"].startswith("δ 0.7, meaning check one way, undecided kept, 9 re-asks")
    assert "rewording rules" in older_than_today(meta)


def test_a_payload_that_never_carried_the_round_is_not_called_older_for_it():
    payload = _meta(rules=None)
    assert made_with(payload, NOT_RECORDED)["rewording rules"] == NOT_RECORDED
    assert older_than_today(payload, NOT_RECORDED) == {}


def test_other_perturbers_have_no_gate_and_no_round():
    meta = _meta()
    meta["config"]["run"]["perturber"] = "gaap"
    assert set(made_with(meta)) == {"ψ_y", "padding"}


def test_an_older_round_that_replays_the_same_is_said_so_and_not_flagged():
    check = {
        "rewordings": {"rules": REWORDING_RULES, "replayed": 100, "changed": 0, "unavailable": 0}
    }
    older = REWORDING_RULES - 1
    assert replay_agrees(check, older) == REWORDING_RULES
    meta = {**_meta(rules=older), "rewording_rules_replayed": REWORDING_RULES}
    assert made_with(meta)["rewording rules"] == (
        f"round {older} (replayed with round {REWORDING_RULES}: the same perturbations)"
    )
    assert older_than_today(meta) == {}
    # and the other way: one question would change, a run cannot be replayed, no round recorded
    changed = {"rewordings": {**check["rewordings"], "changed": 1}}
    unavailable = {"rewordings": {**check["rewordings"], "unavailable": 2}}
    assert replay_agrees(changed, older) is None
    assert replay_agrees(unavailable, older) is None
    assert replay_agrees(check, None) is None and replay_agrees(None, older) is None
    # a replay with a round older than today's does not clear today's flag
    stale_replay = {**_meta(rules=older), "rewording_rules_replayed": older}
    assert "rewording rules" in older_than_today(stale_replay)
