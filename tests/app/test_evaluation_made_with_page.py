"""The Evaluation page says how the evaluation was made, and which settings are older than today's."""

from __future__ import annotations

import json

import pytest
from test_app_pages import assert_clean, open_page, own_history  # noqa: F401 - the fixture

pytest.importorskip("streamlit")

from invent_core.config.paraphrase import REWORDING_RULES  # noqa: E402
from invent_core.experiments.made_with import today_defaults  # noqa: E402
from invent_ui import assets  # noqa: E402
from invent_ui.session import state  # noqa: E402

pytestmark = pytest.mark.slow  # loads the packaged embedders


def _made_with(at) -> str:
    return next(c.value for c in at.caption if c.value.startswith("Made with: "))


def test_the_shipped_demo_says_how_it_was_made_and_is_not_older():
    at = open_page("6_Evaluation.py")
    assert_clean(at)
    line = _made_with(at)
    now = today_defaults()
    for key in ("gate", "ψ_y", "padding"):
        assert f"{key} {now[key]}" in line, line
    assert "rewording rules round" in line and "not recorded" not in line
    assert not any("older than today's defaults" in i.value for i in at.info)


def test_an_evaluation_made_with_older_settings_says_which_in_a_box():
    payload = json.loads(assets.DEMO_EVAL.read_text())
    payload["config"]["run"]["score"]["answer_similarity"] = "embedding"
    payload["rewording_rules"] = REWORDING_RULES - 2
    payload.pop("rewording_rules_replayed", None)
    at = open_page("6_Evaluation.py", **{state.EVAL_PAYLOAD: payload})
    assert_clean(at)
    box = next(i.value for i in at.info if "older than today's defaults" in i.value)
    assert "ψ_y embedding (today rules)" in box
    assert f"rewording rules round {REWORDING_RULES - 2} (today round {REWORDING_RULES})" in box


def test_a_payload_that_never_carried_the_round_says_not_recorded_and_flags_nothing_for_it():
    payload = json.loads(assets.DEMO_EVAL.read_text())
    payload.pop("rewording_rules", None)  # a payload saved before it carried the round
    payload.pop("rewording_rules_replayed", None)
    at = open_page("6_Evaluation.py", **{state.EVAL_PAYLOAD: payload})
    assert_clean(at)
    assert "rewording rules not recorded" in _made_with(at)
    assert not any("older than today's defaults" in i.value for i in at.info)
