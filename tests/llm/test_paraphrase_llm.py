"""A separate paraphrasing model (``--paraphrase-llm``) with two real HTTP servers.

Two OpenAI-compatible servers on 127.0.0.1 record every request: one rewords
(each reply a rewording of the question), the other answers. The run's
paraphrase requests (the gate's extra rounds included) must reach the first
only and its answer requests the second only; both identities are in the
artefact and survive saving, rescoring and the history; the estimate counts
both; the CLI passes the option through. The embedder is the real MiniLM.
"""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from invent_core.config import RunConfig
from invent_core.engine.artifact import RunArtifact
from invent_core.engine.pipeline import run_question
from invent_core.llm import get_llm
from invent_core.llm.paraphraser import WithParaphraser
from invent_core.workbench.estimate import ThroughputLog, count_llm_calls, estimate_run
from invent_core.workbench.history import HistoryStore

ROOT = Path(__file__).resolve().parents[2]
Q = "What is the capital of France?"
REWORDINGS = [
    "Which city is the capital of France?",
    "What city serves as France's capital?",
    "Name the capital city of France?",
    "Which French city is the nation's capital?",
]


class RecordingServer:
    """An OpenAI-compatible server that records each chat request and replies ``reply(body)``."""

    def __init__(self, reply):
        self.bodies: list[dict] = []
        self.lock = threading.Lock()
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self._send({"object": "list", "data": [{"id": "m", "object": "model"}]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with owner.lock:
                    owner.bodies.append(body)
                n = int(body.get("n") or 1)
                choices = [
                    {
                        "index": k,
                        "message": {"role": "assistant", "content": reply(body, k)},
                        "finish_reason": "stop",
                    }
                    for k in range(n)
                ]
                usage = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
                self._send(
                    {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"]}
                    | {"choices": choices, "usage": usage}
                )

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_port}/v1"

    def prompts(self) -> list[str]:
        with self.lock:
            return [b["messages"][-1]["content"] for b in self.bodies]

    def close(self) -> None:
        self.httpd.shutdown()


def rewording_for(body: dict, k: int) -> str:
    return REWORDINGS[(int(body.get("seed") or 0) + k) % len(REWORDINGS)]


@pytest.fixture
def servers():
    rewriter = RecordingServer(rewording_for)
    answerer = RecordingServer(lambda body, k: "Paris")
    yield rewriter, answerer
    rewriter.close()
    answerer.close()


CFG = RunConfig(n_perturbations=3, n_replications=2).replace(
    n_bootstrap=5, paraphrase_style="single"
)


def _pair(servers, cache):
    rewriter, answerer = servers
    para = get_llm("openai", base_url=rewriter.base_url, model="rewriter", cache=cache)
    ans = get_llm("openai", base_url=answerer.base_url, model="answerer", cache=cache)
    return para, ans


def test_paraphrases_reach_one_model_and_answers_the_other(servers, minilm, tmp_path):
    rewriter, answerer = servers
    para, ans = _pair(servers, tmp_path / "llm.sqlite")
    art = run_question(Q, CFG, llm=WithParaphraser(ans, para), embedder=minilm)
    assert art.perturbations and set(art.perturbations) <= set(REWORDINGS)
    assert sorted(answerer.prompts()) == sorted(p for p in art.prompts for _ in range(2))
    assert rewriter.prompts() and not set(rewriter.prompts()) & set(art.prompts)
    assert all(b["model"] == "rewriter" for b in rewriter.bodies)
    assert all(b["model"] == "answerer" for b in answerer.bodies)
    assert art.identities["llm"] == f"{answerer.base_url}|model=answerer"
    assert art.identities["paraphrase_llm"] == f"{rewriter.base_url}|model=rewriter"
    assert art.usage["perturb_requests"] == len(rewriter.bodies)

    # saved, loaded, rescored: both identities kept
    art.save(tmp_path / "run.json")
    back = RunArtifact.load(tmp_path / "run.json").rescore(n_bootstrap=7)
    assert back.identities["paraphrase_llm"] == art.identities["paraphrase_llm"]
    assert back.identities["llm"] == art.identities["llm"] and back.paraphrase_identity
    assert back.settings["paraphrase_llm"] == art.identities["paraphrase_llm"]
    # the history names both
    store = HistoryStore(tmp_path / "history")
    eid = store.add("run", back.to_dict(), title=Q)
    entry = store.list("run")[0]
    assert entry.id == eid and "paraphrases: rewriter at 127.0.0.1" in entry.settings_summary
    assert "answerer at 127.0.0.1" in entry.settings_summary

    # the same run again: every request from the cache, each model's own keys
    before = (len(rewriter.bodies), len(answerer.bodies))
    again = run_question(Q, CFG, llm=ans, paraphrase_llm=para, embedder=minilm)
    assert (len(rewriter.bodies), len(answerer.bodies)) == before
    assert again.perturbations == art.perturbations


def test_the_cache_keeps_the_two_models_apart(servers, minilm, tmp_path):
    """With one model for both, nothing the other paraphraser said is reused."""
    rewriter, answerer = servers
    para, ans = _pair(servers, tmp_path / "llm.sqlite")
    run_question(Q, CFG, llm=ans, paraphrase_llm=para, embedder=minilm)
    n_answer = len(answerer.bodies)
    single = run_question(Q, CFG, llm=ans, embedder=minilm)  # the answerer rewords now
    assert len(answerer.bodies) > n_answer  # its paraphrase requests were not in the cache
    assert single.identities["paraphrase_llm"] == single.identities["llm"]


def test_old_artefacts_without_it_load_and_read_the_answering_model(servers, minilm, tmp_path):
    _, ans = _pair(servers, None)
    art = run_question(Q, CFG, llm=ans, embedder=minilm)
    data = art.to_dict()
    del data["identities"]["paraphrase_llm"]
    (tmp_path / "old.json").write_text(json.dumps(data))
    old = RunArtifact.load(tmp_path / "old.json")
    assert old.paraphrase_identity == old.identities["llm"]
    assert "paraphrase_llm" not in RunArtifact.from_dict(data).settings  # the answering model


def test_the_estimate_counts_both_models():
    cfg = RunConfig()  # n = 9, r = 5
    para, answers = "http://h:1/v1|model=big", "local"
    assert count_llm_calls(cfg, llm_identity=answers) == 60
    # a server rewords in one list request (style auto): 1 + 50
    assert count_llm_calls(cfg, llm_identity=answers, paraphrase_identity=para) == 51
    log = ThroughputLog(os.devnull + "-no-such-dir/t.json")
    text = estimate_run(cfg, llm_identity=answers, throughput=log, paraphrase_identity=para).text
    assert "Qwen2.5-Coder-0.5B-Instruct (answers)" in text
    assert "big at h:1 (1 paraphrase call)" in text


def test_the_cli_sends_the_rewordings_to_the_paraphrase_llm(servers, tmp_path):
    rewriter, answerer = servers
    out = tmp_path / "run.json"
    args = [Q, "-n", "2", "-r", "2", "-B", "5", "--paraphrase-style", "single", "--no-cache"]
    args += ["--llm", "openai", "--base-url", answerer.base_url, "--model", "answerer"]
    args += ["--paraphrase-llm", "openai", "--paraphrase-base-url", rewriter.base_url]
    args += ["--paraphrase-model", "rewriter", "--save", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "k"}
    done = subprocess.run(
        [sys.executable, "-m", "invent_core", "run", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    art = RunArtifact.load(out)
    assert art.identities["paraphrase_llm"] == f"{rewriter.base_url}|model=rewriter"
    assert art.identities["llm"] == f"{answerer.base_url}|model=answerer"
    assert f"paraphrase llm: {rewriter.base_url}|model=rewriter" in done.stdout
    assert "(answers) and rewriter at 127.0.0.1" in done.stderr  # the estimate names both
    assert rewriter.bodies and not set(rewriter.prompts()) & set(answerer.prompts())


def _two_server_args(rewriter, answerer) -> list[str]:
    return [
        *("-n", "2", "-r", "2", "-B", "5", "--paraphrase-style", "single", "--no-cache"),
        *("--llm", "openai", "--base-url", answerer.base_url, "--model", "answerer"),
        *("--paraphrase-llm", "openai", "--paraphrase-base-url", rewriter.base_url),
        *("--paraphrase-model", "rewriter"),
    ]


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "k"}
    return subprocess.run(
        [sys.executable, "-m", "invent_core", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
    )


def test_batch_and_evaluate_pass_it_on_and_record_both(servers, tmp_path):
    rewriter, answerer = servers
    (tmp_path / "q.csv").write_text(f"question,answer\n{Q},Paris\n")
    batch = _cli(["batch", "q.csv", "-o", "out.csv", *_two_server_args(*servers)], tmp_path)
    assert batch.returncode == 0, batch.stderr[-2000:]
    meta = json.loads((tmp_path / "out.csv.meta.json").read_text())
    assert meta["config"]["paraphrase_llm"] == f"{rewriter.base_url}|model=rewriter"
    assert meta["config"]["llm"] == f"{answerer.base_url}|model=answerer"
    n_rewrites = len(rewriter.bodies)
    assert n_rewrites and all(b["model"] == "rewriter" for b in rewriter.bodies)

    args = ["evaluate", "--data", "q.csv", "-o", "ev", "--methods", "inv_entropy"]
    done = _cli([*args, *_two_server_args(*servers)], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "(answers) and rewriter at 127.0.0.1" in done.stderr  # the estimate
    (saved,) = (tmp_path / "ev" / "runs").glob("*.json")
    run = RunArtifact.load(saved)
    assert run.identities["paraphrase_llm"] == f"{rewriter.base_url}|model=rewriter"
    assert len(rewriter.bodies) > n_rewrites
    assert all(b["model"] == "answerer" for b in answerer.bodies)
