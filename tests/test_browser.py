"""The dashboard in a real browser: Debian's Chromium driven by Playwright against a real
``streamlit run app.py`` on 127.0.0.1.

Each page is opened by URL on a fresh server — a deep link first, before the home
page — and must show its plotly charts with no exception; screenshots go to
``test-artifacts/``. The Explore page then runs a small real question (n = 2,
r = 2) with the local default LLM.

Needs ``/usr/bin/chromium`` (``apt-get install -y chromium``); no browser download.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
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
    "": 1,  # home
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


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = _free_port()
    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    env = dict(os.environ)
    env.setdefault("INVENT_CACHE", str(ROOT / ".cache" / "test"))
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
            env=env,
            stdout=fh,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"streamlit did not start on {url}:\n{log.read_text()[-3000:]}")
        time.sleep(0.5)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _settle(page, n_charts: int) -> None:
    """Wait until the script run is over and ``n_charts`` charts are drawn."""
    page.wait_for_selector('[data-testid="stSidebar"]', timeout=LOAD_TIMEOUT_MS)
    if n_charts:
        page.wait_for_function(
            f"document.querySelectorAll('{CHART}').length >= {n_charts}", timeout=LOAD_TIMEOUT_MS
        )
    page.wait_for_function(IDLE, timeout=LOAD_TIMEOUT_MS)
    page.wait_for_timeout(500)  # let plotly finish its transitions before a screenshot


def _assert_no_exception(page, name: str) -> None:
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
        _settle(page, n_charts)
        _assert_no_exception(page, path or "home")
        assert page.locator(CHART).count() >= n_charts, path
        assert page.locator("h1").count() >= 1
        page.screenshot(path=str(ARTIFACTS / f"page_{path or 'home'}.png"), full_page=True)
    ctx.close()


def test_explore_tabs_and_a_small_real_run(browser, server):
    ctx = browser.new_context(viewport={"width": 1500, "height": 2200})
    page = ctx.new_page()
    page.goto(f"{server}/Explore_a_question", wait_until="domcontentloaded")
    _settle(page, 3)
    for tab in ("Perturbations & answers", "Bootstrap", "Baselines"):
        page.get_by_role("tab", name=tab).click()
        page.wait_for_timeout(800)
        page.screenshot(
            path=str(ARTIFACTS / f"explore_{tab.split()[0].lower()}.png"), full_page=True
        )
    page.get_by_role("tab", name="Random walks").click()

    sidebar = page.locator('[data-testid="stSidebar"]')
    for label, value in (("n perturbations", "2"), ("r replications", "2")):
        box = sidebar.get_by_label(label)
        box.fill(value)
        box.press("Enter")
        page.wait_for_timeout(500)
        page.wait_for_function(IDLE, timeout=LOAD_TIMEOUT_MS)
    question = page.get_by_role("textbox", name="Question", exact=True)
    if not question.is_visible():  # the expander is open on first visit
        page.get_by_text("Ask a question").click()
    question.fill("Who wrote the play Romeo and Juliet?")
    question.press("Control+Enter")
    page.wait_for_timeout(500)
    page.get_by_role("button", name="Run", exact=True).click()
    # the status box reports the stages, then "done in …"
    page.wait_for_selector("text=Running the question", timeout=60_000)
    page.wait_for_selector("text=/Running the question: done in/", timeout=LOAD_TIMEOUT_MS * 2)
    _settle(page, 3)
    _assert_no_exception(page, "explore run")
    assert page.get_by_role("heading", name="Who wrote the play Romeo and Juliet?").count() == 1
    assert page.locator('[data-testid="stMetric"]').count() >= 5
    page.screenshot(path=str(ARTIFACTS / "explore_after_run.png"), full_page=True)
    ctx.close()
