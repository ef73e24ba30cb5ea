"""The dashboard in a real browser: Debian's Chromium driven by Playwright against a real
``streamlit run app.py`` on 127.0.0.1.

Each page is opened by URL on a fresh server — a deep link first, before the home
page — and must show its plotly charts with no exception; screenshots go to
``test-artifacts/`` (or ``$INVENT_SCREENSHOTS``). The Explore page then runs a small
real question with the packaged LLM and watches its progress counter advance,
cancels a second run, reloads the page and reopens the first run from the history.

Needs ``/usr/bin/chromium`` (``apt-get install -y chromium``); no browser download.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("INVENT_SCREENSHOTS") or ROOT / "test-artifacts")
CHROMIUM = os.environ.get("INVENT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: URL path of each page (classic pages/ discovery: the file name without its number) and
#: how many charts it shows on first open (the demo artefacts).
PAGES = {
    "Explore_a_question": 3,  # the three heatmaps of the first tab
    "Compare_embedders": 4,
    "GAAP_evolution": 2,
    "TSU": 2,
    "Batch_scoring": 0,  # nothing uploaded yet
    "Evaluation": 3,
    "History": 0,  # whatever earlier runs left
    "Side_by_side": 0,
    "Compare_evaluations": 1,  # the paired differences of two shipped evaluations
    "": 4,  # home: the right and the wrong answer, each a reference chart and a P(X|Y)
}
CHART = '[data-testid="stPlotlyChart"] .main-svg'
#: The app root says whether the page's script is still running.
IDLE = (
    "document.querySelector('[data-testid=\"stApp\"]')"
    "?.getAttribute('data-test-script-state') === 'notRunning'"
)
LOAD_TIMEOUT_MS = 180_000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def chromium_path() -> str:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium not found at {CHROMIUM}. Install Debian's browser with "
            "`apt-get install -y chromium` (no Playwright browser download is used), "
            "or point INVENT_CHROMIUM at a Chromium binary."
        )
    return CHROMIUM


def start_server(log: Path) -> tuple[subprocess.Popen, str]:
    """``streamlit run app.py`` on a free port of 127.0.0.1, healthy; (process, base URL)."""
    port = _free_port()
    with open(log, "wb") as fh:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                "app.py",
                "--server.port",
                str(port),
                "--server.address",
                "127.0.0.1",
                "--server.headless",
                "true",
            ],  # fmt: skip
            cwd=ROOT,
            env=dict(os.environ),
            stdout=fh,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return proc, url
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"streamlit did not start on {url}:\n{log.read_text()[-3000:]}")
        time.sleep(0.5)


def stop_server(proc: subprocess.Popen) -> None:
    """End the server this test started (its own process, by its handle)."""
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    proc, url = start_server(tmp_path_factory.mktemp("streamlit") / "server.log")
    yield url
    stop_server(proc)


@pytest.fixture(scope="module")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield b
        b.close()


def settle(page, n_charts: int) -> None:
    """Wait until the script run is over and ``n_charts`` charts are drawn."""
    page.wait_for_selector('[data-testid="stSidebar"]', timeout=LOAD_TIMEOUT_MS)
    if n_charts:
        page.wait_for_function(
            f"document.querySelectorAll('{CHART}').length >= {n_charts}", timeout=LOAD_TIMEOUT_MS
        )
    page.wait_for_function(IDLE, timeout=LOAD_TIMEOUT_MS)
    page.wait_for_timeout(500)  # let plotly finish its transitions before a screenshot


def assert_no_exception(page, name: str) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0, (
        f"{name}: an exception is shown"
    )
    assert "Traceback" not in page.inner_text("body"), f"{name}: a traceback is shown"


def test_every_page_by_url_on_a_fresh_server(browser, server):
    ARTIFACTS.mkdir(exist_ok=True)
    ctx = browser.new_context(viewport={"width": 1500, "height": 2200})
    page = ctx.new_page()
    # the very first request this server sees is a deep link, not the home page
    for path, n_charts in PAGES.items():
        page.goto(f"{server}/{path}", wait_until="domcontentloaded")
        settle(page, n_charts)
        assert_no_exception(page, path or "home")
        assert page.locator(CHART).count() >= n_charts, path
        assert page.locator("h1").count() >= 1
        page.screenshot(path=str(ARTIFACTS / f"page_{path or 'home'}.png"), full_page=True)
    ctx.close()


def _set_sidebar_number(page, label: str, value: int) -> None:
    box = page.locator('[data-testid="stSidebar"]').get_by_label(label, exact=True)
    box.fill(str(value))
    box.press("Enter")
    page.wait_for_timeout(500)
    page.wait_for_function(IDLE, timeout=LOAD_TIMEOUT_MS)


def _ask(page, question: str) -> None:
    """Type ``question`` on Explore, choose GAAP (perturbs without the LLM) and press Run."""
    box = page.get_by_role("textbox", name="Question", exact=True)
    if not box.is_visible():  # the expander is closed once a run is shown
        page.get_by_text("Ask a question").click()
    box.fill(question)
    box.press("Control+Enter")
    page.wait_for_timeout(500)
    # the rerun the question started must end first: while it runs, Streamlit shows the
    # stale perturber choice beside the new one (two matches: seen on a busy machine)
    page.wait_for_function(IDLE, timeout=LOAD_TIMEOUT_MS)
    page.get_by_text("GAAP (genetic algorithm)").click()
    page.wait_for_timeout(500)
    page.wait_for_function(IDLE, timeout=LOAD_TIMEOUT_MS)
    page.get_by_role("button", name="Run", exact=True).click()


_ANSWERS = re.compile(r"answers received (\d+)/(\d+)")


def _answer_count(page) -> tuple[int, int] | None:
    """The (done, total) the progress panel shows for the answers, if it shows them."""
    for text in page.locator('[data-testid="stProgress"]').all_inner_texts():
        m = _ANSWERS.search(text)
        if m:
            return int(m.group(1)), int(m.group(2))
    return None


def test_explore_tabs_progress_cancel_and_history(browser, server):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    ctx = browser.new_context(viewport={"width": 1500, "height": 2200})
    page = ctx.new_page()
    page.goto(f"{server}/Explore_a_question", wait_until="domcontentloaded")
    settle(page, 3)
    for tab in ("Perturbations & answers", "Bootstrap", "Baselines"):
        page.get_by_role("tab", name=tab).click()
        page.wait_for_timeout(800)
        page.screenshot(
            path=str(ARTIFACTS / f"explore_{tab.split()[0].lower()}.png"), full_page=True
        )
    page.get_by_role("tab", name="Random walks").click()

    # a seed of its own: no answer of this run is in the LLM cache yet
    seed = int(time.time()) % 100_000 + 1
    # n = 6: 7 groups of r = 5 answers (one n-choice request each) on 16 slots finish in
    # about three waves, so the counter has intermediate values to be seen at
    for label, value in (("n perturbations", 6), ("r replications", 5), ("seed", seed)):
        _set_sidebar_number(page, label, value)
    first = "Who wrote the play Romeo and Juliet?"
    _ask(page, first)
    # the counter advances while the run works: at least two screenshots with different counts
    seen: list[tuple[int, int]] = []
    deadline = time.monotonic() + LOAD_TIMEOUT_MS / 1000
    while time.monotonic() < deadline:
        count = _answer_count(page)
        if count is not None and (not seen or count[0] > seen[-1][0]) and count[0] < count[1]:
            seen.append(count)
            page.screenshot(path=str(ARTIFACTS / f"progress_{len(seen)}.png"), full_page=False)
        if page.locator("text=/The run: done in/").count():
            break
        page.wait_for_timeout(300)
    assert len(seen) >= 2, f"the counter was seen at {seen} only"
    assert seen[-1][1] == 35  # (n + 1) · r answers
    page.wait_for_selector("text=/The run: done in/", timeout=LOAD_TIMEOUT_MS)
    settle(page, 3)
    assert_no_exception(page, "explore run")
    assert page.get_by_role("heading", name=first).count() == 1
    assert page.locator('[data-testid="stMetric"]').count() >= 5
    page.screenshot(path=str(ARTIFACTS / "explore_after_run.png"), full_page=True)

    # a second run, cancelled while it asks: the page says what was kept and stays usable
    _set_sidebar_number(page, "seed", seed + 1)
    _set_sidebar_number(page, "r replications", 10)  # 70 answers: time to press Cancel
    _ask(page, "Which planet is known as the Red Planet?")
    page.wait_for_function(
        "[...document.querySelectorAll('[data-testid=\"stProgress\"]')]"
        ".some(e => /answers received [1-9]/.test(e.innerText))",
        timeout=LOAD_TIMEOUT_MS,
    )
    page.get_by_role("button", name="Cancel").click()
    page.wait_for_selector("text=/cancelled after/", timeout=LOAD_TIMEOUT_MS)
    settle(page, 3)
    assert_no_exception(page, "cancelled run")
    assert page.get_by_role("heading", name=first).count() == 1  # the first run is still shown
    page.screenshot(path=str(ARTIFACTS / "explore_cancelled.png"), full_page=True)

    # a refresh is a new session: it shows the last finished run (not the demo),
    # and the first run can be reopened from the history
    page.reload(wait_until="domcontentloaded")
    settle(page, 3)
    assert page.get_by_role("heading", name=first).count() == 1
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_role("button", name=re.compile(r"^run · Who wrote the play Romeo")).first.click()
    page.wait_for_selector(f"h3:has-text('{first}')", timeout=LOAD_TIMEOUT_MS)
    settle(page, 3)
    assert_no_exception(page, "reopened run")
    page.screenshot(path=str(ARTIFACTS / "explore_reopened_from_history.png"), full_page=True)
    ctx.close()


@pytest.fixture
def kept_runs():
    """Three real shipped runs and the demo GAAP trace kept in the history (removed after)."""
    import json

    from invent_core.engine.artifact import RunArtifact
    from invent_core.perturb.gaap import GaapResult
    from invent_ui import assets
    from invent_ui.session import archive

    store = archive.store()
    pair = json.loads(assets.DEMO_PAIR.read_text(encoding="utf-8"))["pair"]
    runs = [RunArtifact.from_dict(item["run"]) for item in pair]
    runs.append(RunArtifact.load(assets.DEMO_RUN))
    before = {e.id for e in store.list()}
    ids = [archive.keep_run(store, run) for run in runs]
    gaap = GaapResult.from_dict(json.loads(assets.DEMO_GAAP.read_text(encoding="utf-8")))
    trace_id = archive.keep_gaap(store, gaap, settings={})
    yield [(i, run.question) for i, run in zip(ids, runs)], (trace_id, gaap.trace.question)
    for entry in store.list():
        if entry.id not in before:
            store.delete(entry.id)


def _heading(page, text: str) -> None:
    page.wait_for_selector(f"h3:has-text({text!r})", timeout=LOAD_TIMEOUT_MS)
    page.wait_for_function(IDLE, timeout=LOAD_TIMEOUT_MS)


def _fresh_tab(browser, url: str):
    ctx = browser.new_context(viewport={"width": 1500, "height": 2200})
    page = ctx.new_page()
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_selector("h1", timeout=LOAD_TIMEOUT_MS)
    settle(page, PAGES.get(url.split("/")[-1].split("?")[0], 0))
    return ctx, page


def _click_key(page, key: str) -> None:
    """Click the button whose widget key is ``key`` (Streamlit marks its element ``st-key-…``)."""
    page.locator(f".st-key-{key} button").first.click(timeout=LOAD_TIMEOUT_MS)


def test_each_result_opens_as_itself_from_history_recent_a_link_and_a_reload(
    browser, server, kept_runs
):
    """A result opens as itself from History, Recent, a link and a reload, in fresh tabs too.

    Run after the Explore test in this module, a finished run is in the job
    registry: a fresh tab once adopted it in place of the entry clicked there.
    """
    runs, (trace_id, trace_question) = kept_runs

    # History in a fresh tab: the older trace opens, not the evolution that just finished
    ctx, page = _fresh_tab(browser, f"{server}/History")
    _click_key(page, f"history_open_{trace_id}")
    _heading(page, trace_question)
    assert f"entry={trace_id}" in page.url
    page.reload(wait_until="domcontentloaded")
    _heading(page, trace_question)
    ctx.close()

    # Recent in a fresh tab, then a reload, then Compare embedders and its reload
    (first_id, first), (second_id, second), (third_id, third) = runs
    ctx, page = _fresh_tab(browser, f"{server}/History")
    sidebar = page.locator('[data-testid="stSidebar"]')
    _click_key(page, f"recent_{first_id}")
    _heading(page, first)
    assert f"entry={first_id}" in page.url
    page.reload(wait_until="domcontentloaded")
    _heading(page, first)
    box = page.get_by_role("textbox", name="Question", exact=True)
    page.get_by_text("Ask a question").click()
    assert box.input_value() == first  # the run shown, not the demo's question
    box.press("Control+Enter")  # once collapsed the form and hid Run
    page.wait_for_timeout(800)
    page.wait_for_function(IDLE, timeout=LOAD_TIMEOUT_MS)
    assert page.get_by_role("button", name="Run", exact=True).is_visible()
    sidebar.get_by_role("link", name="Compare embedders").click()
    page.wait_for_selector(
        f"text=/Rescoring the run shown.*{re.escape(first)}/", timeout=LOAD_TIMEOUT_MS
    )
    page.wait_for_function(IDLE, timeout=LOAD_TIMEOUT_MS)
    page.reload(wait_until="domcontentloaded")
    page.wait_for_selector(
        f"text=/Rescoring the run shown.*{re.escape(first)}/", timeout=LOAD_TIMEOUT_MS
    )
    ctx.close()

    # links in fresh tabs: each names its run, whatever was made or opened last
    for path, (entry_id, question) in (
        ("Explore_a_question", (second_id, second)),
        ("Compare_embedders", (third_id, third)),
    ):
        ctx, page = _fresh_tab(browser, f"{server}/{path}?entry={entry_id}")
        if path == "Compare_embedders":
            page.wait_for_selector(
                f"text=/Rescoring.*{re.escape(question[:40])}/", timeout=LOAD_TIMEOUT_MS
            )
        else:
            _heading(page, question)
            page.get_by_text("Ask a question").click()
            assert (
                page.get_by_role("textbox", name="Question", exact=True).input_value() == question
            )
        assert_no_exception(page, f"link to {path}")
        page.screenshot(path=str(ARTIFACTS / f"link_{path}.png"), full_page=True)
        ctx.close()
