"""The dashboard's models: the embedded llama.cpp server answers at the background jobs' niceness.

llama.cpp runs inside the dashboard's process, in threads; a page is served by
other threads of the same process. Each check starts the real packaged model
in a process of its own (so no server another test started is reused), asks
it one question, and reads every thread's niceness and CPU time from
``/proc/self/task``: the threads llama.cpp made must be the lowered ones and do
the work. The command line's path is the control: there they stay at 0.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,  # loads the packaged 0.5B
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's niceness: Linux"),
]

#: Started as ``python -c PROBE dashboard|cli``: prints the new threads' (niceness, CPU ticks).
PROBE = r"""
import json, sys
from pathlib import Path

def threads():
    out = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            rest = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        # fields from the third on: utime is the 14th, stime the 15th, nice the 19th
        out[task.name] = (int(rest[16]), int(rest[11]) + int(rest[12]))
    return out

from invent_core.config import LLMChoice
from invent_core.llm import user

if sys.argv[1] == "dashboard":
    from invent_ui.session import resources
    make = lambda: resources._llm(LLMChoice(no_cache=True), "", None)
else:
    from invent_core.llm.choice import build_one
    make = lambda: build_one(LLMChoice(no_cache=True))
before = threads()
llm = make()
reply = llm.complete(user("Name three colours."), temperature=0.0, seed=0, max_tokens=48)
after = threads()
llm.close()
print(json.dumps({"reply": reply.text, "new": [after[t] for t in after if t not in before]}))
"""


def _new_threads(path: str) -> list[tuple[int, int]]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, path],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["reply"].strip(), out  # the model answered
    return [tuple(t) for t in out["new"]]


def test_the_dashboards_llamacpp_threads_are_lowered_and_do_the_work():
    from invent_ui.jobs.background import BACKGROUND_NICE

    base = os.nice(0)  # this process's niceness: the probe's threads start from it
    new = _new_threads("dashboard")
    lowered = [ticks for nice, ticks in new if nice >= max(BACKGROUND_NICE, base)]
    assert lowered, new  # llama.cpp's threads
    # the answer was computed by them: the threads left at the caller's niceness
    # (the client's request pool) did next to nothing
    assert sum(lowered) >= 0.8 * sum(ticks for _, ticks in new), new


def test_the_command_lines_llamacpp_threads_keep_the_callers_priority():
    base = os.nice(0)
    new = _new_threads("cli")
    assert new and all(nice == base for nice, _ in new), new
