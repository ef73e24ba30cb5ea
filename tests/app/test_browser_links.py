"""A link to each kind of result opens in the real browser, and again after a server restart.

Debian's Chromium driven by Playwright against ``streamlit run app.py`` on 127.0.0.1
(the helpers of ``test_browser.py``): a run file, an evaluation folder, a TSU folder
of the checkout's ``docs/results`` and a history entry, each by its URL in a fresh
tab; the server is then stopped, a new one started, and every URL opened again.
"""

from __future__ import annotations

import json
import re

import pytest
from test_browser import (
    ARTIFACTS,
    LOAD_TIMEOUT_MS,
    assert_no_exception,
    chromium_path,  # noqa: F401 - a fixture
    settle,
    start_server,
    stop_server,
)
from test_browser import browser as chromium  # noqa: F401 - the fixture, as "chromium"

pytestmark = [pytest.mark.browser, pytest.mark.slow]

EVAL = "results/evaluate-arithmetic-100"
RUN = f"{EVAL}/runs/arithmetic_10-1b969fc9_T0.7.json"
TSU = "results/tsu-arithmetic"


@pytest.fixture
def kept_entry():
    """A shipped run kept in the history under a title of its own (removed after)."""
    from invent_core.engine.artifact import RunArtifact
    from invent_ui import assets
    from invent_ui.session import archive

    pair = json.loads(assets.DEMO_PAIR.read_text(encoding="utf-8"))["pair"]
    run = RunArtifact.from_dict(pair[1]["run"])
    store = archive.store()
    entry = archive.keep_run(store, run)
    yield entry, run.question
    store.delete(entry)


def _links(entry: str, entry_question: str) -> list[tuple[str, str]]:
    """(path and query, text the page must show) for each kind of link."""
    from invent_core.engine.artifact import RunArtifact
    from invent_ui.session import places

    question = RunArtifact.load(places.resolve(RUN)).question
    return [
        (f"Explore_a_question?run={RUN}", question),
        (f"Evaluation?evaluation={EVAL}", "Per-question answers and uncertainties (100)"),
        (f"TSU?tsu={TSU}", "20 question(s)"),
        (f"Explore_a_question?entry={entry}", entry_question),
    ]


def _open_each(browser, url: str, links: list[tuple[str, str]], round_: int) -> None:
    for path, text in links:
        ctx = browser.new_context(viewport={"width": 1500, "height": 2000})
        page = ctx.new_page()
        page.goto(f"{url}/{path}", wait_until="domcontentloaded")
        settle(page, 1)
        shown = page.locator(f"text=/{re.escape(text)}/ >> visible=true").first
        shown.wait_for(timeout=LOAD_TIMEOUT_MS)  # (the question box holds it too, hidden)
        assert_no_exception(page, path)
        assert page.locator('[data-testid="stAlertContentError"]').count() == 0, path
        assert page.get_by_text("Showing the shipped").count() == 0, path  # not the demo
        param = path.split("?")[1].split("=")[0]
        assert f"{param}=" in page.url, page.url  # the address still names it
        name = path.split("?")[0].lower()
        page.screenshot(path=str(ARTIFACTS / f"link_{round_}_{name}_{param}.png"), full_page=False)
        ctx.close()


def test_each_kind_of_link_opens_before_and_after_a_server_restart(request, kept_entry, tmp_path):
    browser = request.getfixturevalue("chromium")  # test_browser's, imported under that name
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    links = _links(*kept_entry)
    for round_ in (1, 2):
        proc, url = start_server(tmp_path / f"server{round_}.log")
        try:
            _open_each(browser, url, links, round_)
        finally:
            stop_server(proc)
