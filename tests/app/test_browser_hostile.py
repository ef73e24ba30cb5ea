"""In a real browser, a hostile question shows literally and the page fetches nothing for it.

A run whose question, rewordings and answers carry a Markdown picture, a link,
raw HTML, an emoji shortcode and LaTeX is kept in the history of a real
``streamlit run app.py``; Chromium (Playwright) opens the History page and the
run on Explore. Every request the page makes is recorded: none may go to the
hostile host, no ``<img>`` or ``<a>`` may point there, and the question's
characters are on the page as text.
"""

from __future__ import annotations

import json

import pytest
from test_browser import (  # noqa: F401 - the fixtures
    LOAD_TIMEOUT_MS,
    assert_no_exception,
    browser,
    chromium_path,
    server,
    settle,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HOST = "attacker.invalid"
PICTURE = f"![x](http://{HOST}/p.png)"
EVIL = f"{PICTURE} <img src=http://{HOST}/i.png> [l](http://{HOST}/l) :skull: $x$"


@pytest.fixture
def hostile_entry():
    """The demo run with EVIL in its question, rewordings and answers, kept (removed after)."""
    from invent_core.engine.artifact import RunArtifact
    from invent_ui import assets
    from invent_ui.session import archive

    data = json.loads(assets.DEMO_RUN.read_text(encoding="utf-8"))
    question = f"Who won? {EVIL}"
    data["question"] = question
    data["questions"][0] = data["prompts"][0] = data["score"]["questions"][0] = question
    data["perturbations"] = [f"{p} {EVIL}" for p in data["perturbations"]]
    data["questions"][1:] = data["score"]["questions"][1:] = data["perturbations"]
    for key in ("responses", "cleaned_responses", "raw_responses"):
        data[key] = [[f"{a} {EVIL}" for a in reps] for reps in data[key]]
    data.pop("gaap_trace", None)
    store = archive.store()
    entry = archive.keep_run(store, RunArtifact.from_dict(data))
    store.rename(entry, EVIL)
    yield entry
    store.delete(entry)


def test_a_hostile_question_shows_literally_and_fetches_nothing(
    browser,  # noqa: F811 - the fixture
    server,  # noqa: F811 - the fixture
    hostile_entry,
):
    ctx = browser.new_context(viewport={"width": 1500, "height": 2200})
    page = ctx.new_page()
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    for path, charts in ((f"Explore_a_question?entry={hostile_entry}", 3), ("History", 0)):
        page.goto(f"{server}/{path}", wait_until="domcontentloaded")
        settle(page, charts)
        assert_no_exception(page, path)
        page.wait_for_selector(f"text={HOST}", timeout=LOAD_TIMEOUT_MS)
        text = page.inner_text("body").replace("\u200b", "")
        assert PICTURE in text, path  # the characters themselves, shown
        assert page.locator(f'img[src*="{HOST}"]').count() == 0, path
        assert page.locator(f'a[href*="{HOST}"]').count() == 0, path
        assert page.locator(".katex").count() == 0, path  # no $x$ typeset
    assert not [u for u in asked if HOST in u], [u for u in asked if HOST in u]
    ctx.close()
