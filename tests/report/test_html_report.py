"""``invent report``: one self-contained HTML file of an evaluation or a run.

The structure test parses the page (every section, a folded drill-down per
question, plotly's JavaScript inline once, nothing fetched from elsewhere); the
browser test opens it in the real Chromium with the network cut off.
"""

from __future__ import annotations

import csv
import html
import json
import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from invent_core.cli import main as cli

ROOT = Path(__file__).resolve().parents[2]
EVALUATION = ROOT / "docs" / "references" / "before_2026-11-27" / "evaluate-sciq"  # 30, no runs
WITH_RUNS = ROOT / "docs" / "results" / "evaluate-mmlu-100"
RUN = ROOT / "assets" / "demo_run.json"
SECTIONS = ("summary", "curves", "questions", "settings")
CHROMIUM = os.environ.get("INVENT_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(os.environ.get("INVENT_SCREENSHOTS") or ROOT / "test-artifacts")


class _Parts(HTMLParser):
    """The ids of sections, the ``<details>`` of questions, scripts and their sources."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[str] = []
        self.questions: list[str] = []
        self.sources: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.sections.append(a.get("id"))
        if tag == "details" and a.get("class") == "question":
            self.questions.append(a.get("data-id"))
        if tag in ("script", "img", "iframe") and a.get("src"):
            self.sources.append(a["src"])
        if tag == "link" and a.get("href"):
            self.links.append(a["href"])


def _parts(path: Path) -> _Parts:
    p = _Parts()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def test_evaluation_report_has_every_section_and_fetches_nothing(tmp_path, capsys):
    out = tmp_path / "report.html"
    assert cli(["report", str(EVALUATION), "-o", str(out)]) == 0
    assert "without a network" in capsys.readouterr().out
    parts = _parts(out)
    assert parts.sections == list(SECTIONS)
    ids = [r["id"] for r in csv.DictReader(open(EVALUATION / "scores.csv", encoding="utf-8"))]
    assert parts.questions == ids  # one folded drill-down per question, in order
    assert parts.sources == [] and parts.links == []  # no CDN, no file beside it
    text = out.read_text(encoding="utf-8")
    assert text.count("Plotly.newPlot") >= 3  # ROC, AUROC bars, Inv-Entropy by correctness
    assert len(re.findall(r"plotly\.js v\d", text)) == 1  # the library inline, once
    assert "made before provenance was recorded" in text  # said, not invented


def test_drill_down_shows_rewordings_and_relabels(tmp_path):
    folder = tmp_path / "evaluate-mmlu-3"
    (folder / "runs").mkdir(parents=True)
    shutil.copy(WITH_RUNS / "config.json", folder)
    shutil.copy(WITH_RUNS / "results.json", folder)
    lines = (WITH_RUNS / "scores.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / "scores.csv").write_text("".join(lines[:4]), encoding="utf-8")
    first = next(csv.DictReader(lines[:2]))
    for path in (WITH_RUNS / "runs").glob("*.json"):
        run = json.loads(path.read_text(encoding="utf-8"))
        if run["question"].strip() == first["question"].strip():
            shutil.copy(path, folder / "runs")
            rewording = run["questions"][1]
    (folder / "relabels.jsonl").write_text(
        json.dumps({"id": first["id"], "label": bool(1 - int(first["correct"]))}) + "\n"
    )
    out = tmp_path / "r.html"
    assert cli(["report", str(folder), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert _parts(out).questions == [first["id"], *[r.split(",")[0] for r in lines[2:4]]]
    assert html.escape(rewording) in text
    meta = json.loads((WITH_RUNS / "config.json").read_text())
    assert meta["provenance"]["source"] in text  # the code that made the scores
    # and the one that recomputed them, where they were recomputed (not a folder made afresh)
    recomputed = meta.get("results_recomputed") or meta["provenance"]
    assert recomputed["commit"] in text
    assert "1 label(s) changed by hand" in text and "relabelled by a reviewer" in text


def test_run_report_and_bad_sources(tmp_path, capsys):
    out = tmp_path / "run.html"
    assert cli(["report", str(RUN), "-o", str(out)]) == 0
    assert _parts(out).sections == list(SECTIONS)
    assert "Which golfer" in out.read_text(encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text('{"question": 1}')
    for source, said in ((bad, "not a run artefact"), (tmp_path / "none", "no such")):
        assert cli(["report", str(source), "-o", str(tmp_path / "x.html")]) == 2
        assert said in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()  # nothing written for a bad source


def test_a_torn_last_row_is_named_with_its_line(tmp_path, capsys):
    """A copy cut short mid-row: its lost scores do not pass for missing values unsaid."""
    folder = tmp_path / "evaluate-sciq"
    shutil.copytree(EVALUATION, folder)
    text = (folder / "scores.csv").read_text(encoding="utf-8")
    lines = text.count("\n")
    (folder / "scores.csv").write_text(text[: text.rindex("\n", 0, -1) + 60], encoding="utf-8")
    assert cli(["report", str(folder), "-o", str(tmp_path / "r.html")]) == 0
    err = capsys.readouterr().err
    assert f"warning: {folder / 'scores.csv'}: line {lines} (id " in err
    assert "the row is cut short" in err


@pytest.mark.browser
@pytest.mark.slow
def test_report_opens_offline_in_the_real_browser(tmp_path):
    pytest.importorskip("playwright")
    from playwright.sync_api import sync_playwright

    out = tmp_path / "report.html"
    assert cli(["report", str(EVALUATION), "-o", str(out)]) == 0
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        ctx = browser.new_context(offline=True, viewport={"width": 1200, "height": 1600})
        fetched: list[str] = []
        ctx.on("request", lambda r: fetched.append(r.url))
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(out.as_uri())
        page.wait_for_function("document.querySelectorAll('.main-svg').length >= 3")
        for anchor in SECTIONS:
            assert page.locator(f"section#{anchor}").is_visible()
        page.locator("details.question summary").first.click()
        assert page.locator("details.question[open] table").first.is_visible()
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / "report_evaluation.png"
        page.screenshot(path=str(shot), full_page=True)
        browser.close()
    assert errors == []
    assert [u for u in fetched if not u.startswith("file:")] == []  # nothing from a network
    assert shot.stat().st_size > 50_000  # charts drawn, not a blank page
