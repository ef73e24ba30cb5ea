"""A batch file with its own ``perturbations`` but no ``responses``: the LLM answers, never rewords.

Against the loopback OpenAI-compatible server of ``benchmarks/loopback_server.py``
(a real HTTP server on 127.0.0.1, counting the requests it serves): each row's
n + 1 states are asked r times each and nothing else, the output keeps the
file's rewordings, and a damaged cell is refused naming the file, row and column
while the other rows are scored.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from loopback_server import LoopbackServer  # noqa: E402

from invent_core.batch import batch_score, inspect_input, iter_records, read_errors  # noqa: E402
from invent_core.batch.scorer import FILE_COPIES_HINT  # noqa: E402
from invent_core.config import RunConfig  # noqa: E402
from invent_core.llm import get_llm  # noqa: E402

CONFIG = RunConfig(n_perturbations=5, n_replications=2).replace(n_bootstrap=3)
FRANCE = ["Which city is the capital of France?", "Name the French capital."]
ROWS = [
    ("q0", "What is the capital of France?", "Paris", json.dumps(FRANCE)),
    ("q1", "What is 7 + 5?", "12", json.dumps(["What is seven + 5?"])),  # a copy: degenerate
    ("q2", "Who wrote Hamlet?", "Shakespeare", json.dumps(["Who wrote Hamlet?", " "])),
]


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "reworded.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([("id", "question", "answer", "perturbations"), *ROWS])
    return path


def test_the_layout_is_named_before_any_work(tmp_path):
    assert inspect_input(_file(tmp_path)).layout == "reworded"


@pytest.mark.slow
def test_the_files_rewordings_are_answered_and_nothing_is_reworded(tmp_path, minilm):
    out = tmp_path / "out.csv"
    with LoopbackServer(delay=0.0) as srv:
        llm = get_llm("openai", base_url=srv.base_url, model="loopback", cache=None)
        summary = batch_score(_file(tmp_path), out, CONFIG, llm=llm, embedder=minilm)
        served = srv.requests
    france, sum_ = iter_records(out)
    # (1 + 2) states × r = 2 for France, (1 + 1) × 2 for the sum: answers only, no paraphrase prompt
    assert served == 3 * 2 + 2 * 2
    assert json.loads(france["perturbations"]) == FRANCE and france["n_perturbations"] == 2
    assert [len(reps) for reps in json.loads(france["responses"])] == [2, 2, 2]
    assert france["degenerate"] == "" and france["inv_entropy"] != ""
    assert sum_["degenerate"].endswith(f"({FILE_COPIES_HINT})") and summary.n_degenerate == 1
    [bad] = read_errors(out)  # the blank rewording: named, and the other rows scored
    assert (bad["id"], bad["row"], bad["column"], bad["kind"]) == (
        "q2",
        3,
        "perturbations",
        "input",
    )
    assert bad["message"].endswith("reworded.csv, row 3 (line 4), column 'perturbations': "
                                   "perturbation 2 is blank")  # fmt: skip
