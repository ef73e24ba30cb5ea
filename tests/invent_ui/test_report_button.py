"""The Evaluation page's report download: the shipped demo evaluation as one HTML file."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from invent_core.report import evaluation_report

ROOT = Path(__file__).resolve().parents[2]


def test_the_demo_evaluation_payload_makes_a_whole_report():
    payload = json.loads((ROOT / "assets" / "demo_eval.json").read_text(encoding="utf-8"))
    html = evaluation_report({**payload, "title": "Evaluation demo"})
    for anchor in ("summary", "curves", "questions", "settings"):
        assert f'<section id="{anchor}">' in html
    assert html.count("class='question'") == len(payload["rows"])
    assert payload["provenance"]["demo"]["commit"] in html  # the demo says what made it
    bare = {k: v for k, v in payload.items() if k != "provenance"}
    assert "not recorded" in evaluation_report(bare)  # a payload without provenance says so


def test_the_evaluation_page_offers_the_report():
    at = AppTest.from_file(str(ROOT / "pages" / "6_Evaluation.py"), default_timeout=120).run()
    assert not at.exception
    labels = [b.label for b in at.get("download_button")]
    assert "Download report (HTML)" in labels
