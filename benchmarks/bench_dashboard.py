"""Dashboard benchmark: display-only rerun, first full question, server memory.

    python benchmarks/bench_dashboard.py            # all three
    python benchmarks/bench_dashboard.py --skip-llm # only the rerun figure

1. Re-render after a display-only change: Streamlit AppTest on the Explore page
   (shipped demo run), the edge-threshold slider moved; median of several reruns.
   Target ≤ 0.5 s.
2. First full question with the local default LLM and the paper's settings
   (paraphrase, n = 9, r = 5, B = 30) pressed through the Explore page, with a
   fresh seed so no answer comes from the LLM cache. The model's first load is
   included. Target ≤ 20 s on 2 cores.
3. Peak RSS of a real ``streamlit run app.py`` server (process + children)
   while a browser opens the Explore page and runs a small question, i.e. with
   the default embedder and LLM loaded. Target ≤ 3 GB.
4. ``--while-answering``: the Explore page opened (AppTest, in the process that
   answers, as the dashboard serves pages beside its jobs) while a job's
   threads (niceness 10, as a batch's) keep the embedded llama.cpp decoding 16
   answers at a time; each open's seconds with the load average beside it,
   quiet first, then while answering. Once with the server at the dashboard's
   niceness (10) and once at the caller's (0, as the command line starts it),
   each in a process of its own (one llama.cpp per process).

Prints one line per figure with its target; timings depend on the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
EXPLORE = ROOT / "pages" / "1_Explore_a_question.py"


def bench_rerun(repeats: int = 7) -> dict[str, float]:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(EXPLORE), default_timeout=300)
    t0 = time.perf_counter()
    at.run()
    first = time.perf_counter() - t0
    assert not at.exception, [e.value for e in at.exception]
    at.slider(key="explore_threshold").set_value(0.05).run()  # warm the rerun path
    times = []
    for k in range(repeats):
        t0 = time.perf_counter()
        at.slider(key="explore_threshold").set_value(0.1 if k % 2 == 0 else 0.05).run()
        times.append(time.perf_counter() - t0)
    assert not at.exception
    assert "explore_run" not in at.session_state  # nothing recomputed
    return {
        "first_open_s": first,
        "rerun_median_s": statistics.median(times),
        "rerun_max_s": max(times),
    }


def bench_first_question(question: str) -> dict[str, float]:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(EXPLORE), default_timeout=900).run()
    seed = int(time.time()) % 1_000_000  # a fresh seed: every request misses the LLM cache
    at.number_input(key="sb_seed").set_value(seed).run()
    at.text_area(key="explore_question").set_value(question)
    at.radio(key="explore_perturber").set_value("paraphrase")
    t0 = time.perf_counter()
    at.button(key="explore_run_button").click().run()
    seconds = time.perf_counter() - t0
    if at.error or at.exception:
        raise RuntimeError(
            f"the run failed: {[e.value for e in at.error] or [e.value for e in at.exception]}"
        )
    run = at.session_state["explore_run"]
    return {
        "seconds": seconds,
        **{f"stage_{k}_s": v for k, v in run.timings.items()},
        "requests": run.usage["requests"],
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bench_server_memory(question: str) -> dict[str, float]:
    import psutil
    from playwright.sync_api import sync_playwright

    port = _free_port()
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
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    peak = [0]
    stop = threading.Event()

    def sample() -> None:
        p = psutil.Process(proc.pid)
        while not stop.is_set():
            try:
                rss = p.memory_info().rss + sum(
                    c.memory_info().rss for c in p.children(recursive=True)
                )
                peak[0] = max(peak[0], rss)
            except psutil.Error:
                pass
            time.sleep(0.2)

    threading.Thread(target=sample, daemon=True).start()
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(180):
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.5)
        idle = psutil.Process(proc.pid).memory_info().rss
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=[
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--no-first-run",
                ],  # fmt: skip
            )
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}/Explore_a_question")
            page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg', timeout=300_000)
            sidebar = page.locator('[data-testid="stSidebar"]')
            for label in ("n perturbations", "r replications"):
                box = sidebar.get_by_label(label)
                box.fill("2")
                box.press("Enter")
                page.wait_for_timeout(500)
            q = page.get_by_role("textbox", name="Question", exact=True)
            if not q.is_visible():
                page.get_by_text("Ask a question").click()
            q.fill(question)
            q.press("Control+Enter")
            page.wait_for_timeout(500)
            page.get_by_role("button", name="Run", exact=True).click()
            page.wait_for_selector("text=/Running the question: (done|failed)/", timeout=600_000)
            browser.close()
        time.sleep(1.0)
    finally:
        stop.set()
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
    return {"idle_rss_gb": idle / 1e9, "peak_rss_gb": peak[0] / 1e9}


def _load() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def _keep_answering(llm, stop: threading.Event, workers: int = 16) -> list[threading.Thread]:
    """``workers`` threads of a background job (niceness 10) asking ``llm`` until ``stop``."""
    from invent_core.llm import user
    from invent_ui.jobs.background import lower_thread_priority

    def ask(k: int) -> None:
        lower_thread_priority()  # as a batch job's threads
        seed = k * 1_000
        while not stop.is_set():
            seed += 1  # a fresh seed: no two requests alike (the cache is off anyway)
            llm.complete(user("Write a short poem about the sea."), temperature=0.7,
                         seed=seed, max_tokens=96)  # fmt: skip

    threads = [threading.Thread(target=ask, args=(k,), daemon=True) for k in range(workers)]
    for t in threads:
        t.start()
    return threads


def bench_open_while_answering(nice: int, opens: int = 3) -> dict[str, list]:
    """Explore's open times (s, load) quiet, then while llama.cpp answers at niceness ``nice``."""
    from streamlit.testing.v1 import AppTest

    from invent_core.config import LLMChoice
    from invent_core.llm import user
    from invent_core.llm.choice import build_one

    def open_once() -> tuple[float, float]:
        t0 = time.perf_counter()
        at = AppTest.from_file(str(EXPLORE), default_timeout=900).run()
        seconds = time.perf_counter() - t0
        assert not at.exception, [e.value for e in at.exception]
        return seconds, _load()

    open_once()  # imports, the embedder and the caches: what a second visitor finds
    quiet = [open_once() for _ in range(opens)]
    llm = build_one(LLMChoice(no_cache=True), nice=nice)  # as the dashboard's, or the CLI's
    llm.complete(user("Say hi."), max_tokens=2)  # loaded before the clock
    stop = threading.Event()
    workers = _keep_answering(llm, stop)
    time.sleep(10)  # every slot decoding
    busy = [open_once() for _ in range(opens)]
    stop.set()
    for t in workers:
        t.join(timeout=300)
    llm.close()
    return {"quiet": quiet, "answering": busy}


def _open_figures(nice: int) -> str:
    """:func:`bench_open_while_answering` in a process of its own, as one printed line."""
    done = subprocess.run(
        [sys.executable, __file__, "--probe-nice", str(nice)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return f"server at nice {nice}: failed: {done.stderr.strip().splitlines()[-1:]}"
    got = json.loads(done.stdout.strip().splitlines()[-1])

    def shown(xs: list) -> str:
        return ", ".join(f"{s:.1f} s (load {ld:.1f})" for s, ld in xs)

    return (
        f"Explore opened, llama.cpp at nice {nice}: quiet {shown(got['quiet'])}; "
        f"while it answers 16 at a time {shown(got['answering'])}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--skip-llm", action="store_true", help="only the display-only rerun")
    parser.add_argument("--question", default="Who wrote the play Romeo and Juliet?")
    parser.add_argument(
        "--while-answering",
        action="store_true",
        help="only figure 4: a page opened while llama.cpp answers, at nice 10 and at 0",
    )
    parser.add_argument("--probe-nice", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.probe_nice is not None:  # one process of figure 4: JSON for its parent
        print(json.dumps(bench_open_while_answering(args.probe_nice)))
        return 0
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("benchmarks/bench_dashboard.py"))
    print(f"machine: {os.cpu_count()} cores, load average {_load():.1f}")
    if args.while_answering:
        for nice in (10, 0):
            print(_open_figures(nice), flush=True)
        return 0

    r = bench_rerun()
    print(
        f"display-only rerun (threshold slider, Explore): median {r['rerun_median_s']:.3f} s, "
        f"max {r['rerun_max_s']:.3f} s  [target ≤ 0.5 s; first open {r['first_open_s']:.1f} s]"
    )
    if args.skip_llm:
        return 0
    q = bench_first_question(args.question)
    stages = ", ".join(f"{k[6:-2]} {v:.1f} s" for k, v in q.items() if k.startswith("stage_"))
    print(
        f"first full question (local default, paraphrase, n=9, r=5, {q['requests']} answers): "
        f"{q['seconds']:.1f} s  [target ≤ 20 s on 2 cores]  ({stages})"
    )
    m = bench_server_memory(args.question)
    print(
        f"streamlit server RSS with MiniLM + local LLM loaded: peak {m['peak_rss_gb']:.2f} GB "
        f"(idle {m['idle_rss_gb']:.2f} GB)  [target ≤ 3 GB]"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
