"""A temperature sweep made on the TSU page opens again from the link the page offers for it."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl

import pytest
from test_app_pages import (  # noqa: F401 - the fixtures
    TIMEOUT,
    assert_clean,
    demo_run,
    fake_llm,
    finish_job,
    own_history,
)

pytest.importorskip("streamlit")
from streamlit.testing.v1 import AppTest  # noqa: E402

from invent_ui.session import places, state  # noqa: E402

pytestmark = pytest.mark.slow  # the packaged embedder scores each run

ROOT = Path(__file__).resolve().parents[2]


def _link(at: AppTest) -> str:
    (code,) = [c.value for c in at.code if "?" in c.value]
    return code


def test_a_sweep_made_here_opens_from_its_own_link(fake_llm):  # noqa: F811 - the fixture
    at = AppTest.from_file(str(ROOT / "pages" / "4_TSU.py"), default_timeout=TIMEOUT).run()
    at.number_input(key="sb_n_perturbations").set_value(2).run()
    at.number_input(key="sb_n_replications").set_value(2).run()
    at.radio(key="tsu_perturber").set_value("gaap")  # no rewording request: GAAP is offline
    at.text_input(key="tsu_question").input("What is the capital of France?")
    at.text_input(key="tsu_temps").input("0.3, 1.0")
    at.button(key="tsu_run").click().run()
    finish_job(at, state.TSU_JOB)
    assert_clean(at)
    made = at.session_state[state.TSU_PAYLOAD]
    assert made["temperatures"] == [0.3, 1.0]
    params = dict(parse_qsl(_link(at).split("?", 1)[1]))
    again = AppTest.from_file(str(ROOT / "pages" / "4_TSU.py"), default_timeout=TIMEOUT)
    for k, v in params.items():
        again.query_params[k] = v
    again.run()
    assert_clean(again)
    assert not again.warning or all("link" not in w.value for w in again.warning)
    assert again.session_state[state.TSU_PAYLOAD]["rows"] == made["rows"]
    # and its folder, as a link names it (uq.csv now has a "degenerate" column: not a method)
    (folder,) = (places.roots()["dashboard"] / "tsu" / "question").iterdir()
    assert "degenerate" in (folder / "uq.csv").read_text(encoding="utf-8").splitlines()[0]
    by_folder = AppTest.from_file(str(ROOT / "pages" / "4_TSU.py"), default_timeout=TIMEOUT)
    by_folder.query_params["tsu"] = places.name_of(folder)
    by_folder.run()
    assert_clean(by_folder)
    shown = by_folder.session_state[state.TSU_PAYLOAD]
    assert shown["methods"] == made["methods"] and "degenerate" not in shown["methods"]
