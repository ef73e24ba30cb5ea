"""The Evaluation page names its degenerate questions: a count under the tiles, a column per question."""

from __future__ import annotations

import json

import pytest
from test_app_pages import assert_clean, open_page, own_history  # noqa: F401 - the fixture

pytest.importorskip("streamlit")

from invent_ui import assets  # noqa: E402
from invent_ui.session import state  # noqa: E402

pytestmark = pytest.mark.slow  # loads the packaged embedders

REASON = "degenerate result: all 9 perturbations are the question itself, so Inv-Entropy is …"


def _per_question(at):
    return next(d.value for d in at.dataframe if "canonical answer" in d.value.columns)


def test_the_count_and_the_column_of_degenerate_questions():
    payload = json.loads(assets.DEMO_EVAL.read_text())
    for i, row in enumerate(payload["rows"]):
        row["degenerate"] = REASON if i in (1, 4) else ""
    at = open_page("6_Evaluation.py", **{state.EVAL_PAYLOAD: payload})
    assert_clean(at)
    n = len(payload["rows"])
    line = f"2 of {n} questions are degenerate (every perturbation a copy of the question)"
    assert any(w.value.startswith(line) for w in at.warning), [w.value for w in at.warning]
    table = _per_question(at)
    assert table["degenerate"].tolist() == [payload["rows"][i]["degenerate"] for i in range(n)]


def test_an_evaluation_that_never_recorded_it_says_so():
    payload = json.loads(assets.DEMO_EVAL.read_text())
    for row in payload["rows"]:  # as an evaluation made before degenerate was named
        row.pop("degenerate", None)
    at = open_page("6_Evaluation.py", **{state.EVAL_PAYLOAD: payload})
    assert_clean(at)
    assert any("not recorded" in c.value for c in at.caption)
    shipped = open_page("6_Evaluation.py")  # the demo, made from today's shipped evaluation
    assert_clean(shipped)
    assert not any("not recorded" in c.value for c in shipped.caption)
    assert not any("are degenerate" in w.value for w in at.warning)
    assert "degenerate" not in _per_question(at).columns
