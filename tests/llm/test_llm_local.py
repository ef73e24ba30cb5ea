"""The packaged model on a real llama.cpp server (xllamacpp), through the real openai client."""

from __future__ import annotations

import socket
from dataclasses import replace

import pytest

from invent_core.llm import Request, available_llms, get_llm, user
from invent_core.llm.base import yes_probability
from invent_core.llm.local import LOCAL_MODELS, QWEN_05B
from invent_core.packaged import parts_installed

pytestmark = pytest.mark.slow

FRANCE = "What is the capital of France? Answer concisely and return only the name."


@pytest.fixture(scope="module")
def llamacpp_url():
    """A plain llama.cpp server (one slot) serving the packaged GGUF on 127.0.0.1."""
    import xllamacpp

    p = xllamacpp.CommonParams()
    p.model.path = str(QWEN_05B.path())
    p.verbosity = -1
    p.n_ctx = 1024
    p.n_parallel = 1
    p.n_gpu_layers = 0
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p.hostnames = ["127.0.0.1"]
    p.port = port
    server = xllamacpp.Server(p)
    yield f"http://127.0.0.1:{port}/v1"
    del server


def test_openai_backend_against_llamacpp_server(llamacpp_url):
    llm = get_llm("openai", base_url=llamacpp_url, model="qwen", api_key="unused", cache=None)
    c = llm.complete(user(FRANCE), temperature=0.0, seed=0, max_tokens=8)
    assert "Paris" in c.text
    assert c.usage["prompt_tokens"] > 10 and 0 < c.usage["completion_tokens"] <= 8
    assert llm.identity == f"{llamacpp_url}|model=qwen"


def test_logprobs_of_first_token(llamacpp_url):
    llm = get_llm("openai", base_url=llamacpp_url, model="qwen", cache=None)
    c = llm.complete(
        user("Is Paris the capital of France? Please answer with a single word, either Yes or No."),
        temperature=0.0,
        max_tokens=2,
        logprobs=True,
        top_logprobs=5,
    )
    assert c.logprobs is not None and len(c.logprobs) == 5
    assert c.logprobs[0][1] >= c.logprobs[-1][1]
    p_yes, p_no = c.first_token_prob("Yes"), c.first_token_prob("No")
    assert p_yes + p_no > 0.8  # the judge's answer is read from these two
    assert c.text.strip().lower().startswith("yes" if p_yes > p_no else "no")


def test_seeded_replications_differ_and_repeat(llamacpp_url):
    llm = get_llm("openai", base_url=llamacpp_url, model="qwen", cache=None)
    prompt = user("Name one random animal. Answer with one word.")
    reqs = [Request(prompt, temperature=1.5, seed=7, max_tokens=6, replication=k) for k in range(6)]
    texts = [c.text for c in llm.complete_many(reqs)]
    assert len(set(texts)) >= 2, texts
    again = [c.text for c in llm.complete_many(reqs[:2])]
    assert again == texts[:2]  # same seed, same text


def test_local_default_backend(local_llm):
    assert local_llm.identity == f"local:sha256={QWEN_05B.sha256}|model=qwen0.5b"
    c = local_llm.complete(user(FRANCE), temperature=0.0, max_tokens=8)
    assert "Paris" in c.text and not c.cached
    assert local_llm.server.running and local_llm.server.port is not None


def test_streaming_stop_rule(local_llm):
    req = Request(user("Count from 1 to 10, one number per line."), temperature=0.0, max_tokens=60)
    full = local_llm.complete_many([req])[0]
    assert full.text.count("\n") >= 5, full.text
    cut = local_llm.complete_until(req, lambda text: text.count("\n") >= 2, tag="two-lines")
    assert cut.finish_reason == "early_stop"
    assert cut.text.count("\n") == 2 and full.text.startswith(cut.text)
    assert 0 < cut.usage["completion_tokens"] < full.usage["completion_tokens"]


def test_close_stops_and_next_call_restarts():
    llm = get_llm("local", cache=None)
    llm.complete(user("Hi"), max_tokens=1)
    port = llm.server.port
    llm.close()
    assert not llm.server.running
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    assert "Paris" in llm.complete(user(FRANCE), max_tokens=8).text
    assert llm.server.running


def test_available_llms_lists_installed_models():
    names = available_llms()
    assert names[0] == "qwen0.5b" and names[-1] == "openai"
    assert ("qwen1.5b" in names) == parts_installed(LOCAL_MODELS["qwen1.5b"].parts)
    if "qwen1.5b" not in names:
        from invent_core.errors import LLMError

        with pytest.raises(LLMError, match="requirements-strong.txt"):
            get_llm("qwen1.5b")


def test_another_instance_closing_the_shared_server_does_not_strand_this_one():
    """Two LocalLLM objects share one server per process; one closing it (as the
    CLI does on exit) must not leave the other talking to a dead port."""
    a = get_llm("local", cache=None)
    b = get_llm("local", cache=None)
    a.complete(user("Hi"), max_tokens=1)
    b.complete(user("Hi"), max_tokens=1)
    b.close()  # stops the shared server
    a2 = get_llm("local", cache=None)
    a2.complete(user("Hi"), max_tokens=1)  # restarts it, maybe on another port
    assert "Paris" in a.complete(user(FRANCE), max_tokens=8).text


def test_local_timeout_is_a_clean_llm_timeout(local_llm):
    """A request the packaged model cannot finish in time: one ``LLMTimeout``, no retry."""
    from invent_core.errors import LLMError, LLMTimeout

    slow = get_llm("local", cache=None, timeout=0.3)  # shares the running server
    with pytest.raises(
        LLMTimeout, match="local model qwen0.5b gave no complete reply within 0.3 s"
    ):
        slow.complete(user("Count from 1 to 300, one number per line."), max_tokens=400)
    assert slow.requests_sent == 1 and issubclass(LLMTimeout, LLMError)
    assert "Paris" in local_llm.complete(user(FRANCE), max_tokens=8).text  # the server is fine


def _props(llm) -> dict:
    import json
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{llm.server.port}/props", timeout=30) as r:
        return json.load(r)


def test_server_starts_with_the_chosen_slots(local_llm):
    from invent_core.llm import ServerConfig

    assert local_llm.server.config.n_parallel == ServerConfig().n_parallel
    assert local_llm.concurrency == ServerConfig().n_parallel  # one request per slot in flight
    assert _props(local_llm)["total_slots"] == ServerConfig().n_parallel
    local_llm.close()  # one llama.cpp server at a time: the shared one restarts on next use
    three = get_llm("local", cache=None, server_config=ServerConfig(n_parallel=3, n_ctx=2048))
    try:
        three.complete(user("Hi"), max_tokens=1)
        props = _props(three)
        assert props["total_slots"] == 3 and three.concurrency == 3
        assert props["default_generation_settings"]["n_ctx"] == 2048
    finally:
        three.close()


def test_server_counters_count_every_choice(local_llm):
    """``counters`` reads llama.cpp's totals over all n choices; every choice's usage is counted."""
    from invent_core.errors import LLMError
    from invent_core.llm import ServerConfig

    local_llm.complete(user("Hi"), max_tokens=1)
    with pytest.raises(LLMError, match=r"ServerConfig\(metrics=True\)"):
        local_llm.server.counters()  # the default server serves no /metrics
    local_llm.close()  # one llama.cpp server at a time
    counted = get_llm("local", cache=None, server_config=ServerConfig(metrics=True, n_ctx=2048))
    try:
        counted.complete(user("Hi"), max_tokens=1)
        before = counted.server.counters()
        req = Request(
            user("Count from 1 to 50, one number per line."), temperature=0.5, max_tokens=4
        )
        out = counted.complete_many([replace(req, replication=k) for k in range(3)])
        after = counted.server.counters()
        # llama.cpp's usage covers the first choice; the others are counted by its tokenizer
        assert [int(c.usage.get("completion_tokens", 0)) for c in out] == [4, 4, 4]
        assert after["tokens_predicted_total"] - before["tokens_predicted_total"] == 12
        assert after["prompt_tokens_total"] > before["prompt_tokens_total"]
    finally:
        counted.close()


def test_concurrent_requests_each_get_their_own_seeded_answer(local_llm):
    """Six answers in flight at once (one per state and replication), each with its own seed.

    llama.cpp's batched sampling is not bit-reproducible (the same seeds sent
    at once give other texts than sent one by one: batch composition changes
    the logits' rounding), so reproducibility is checked one at a time; a
    re-run of a batch is reproducible through the cache (test_pipeline).
    """
    prompt = user("Name one random animal. Answer with one word.")
    reqs = [
        Request(prompt, temperature=1.5, seed=7, max_tokens=6, replication=k, state=i, stop=("\n",))
        for i in range(3)
        for k in range(2)
    ]
    assert len({r.effective_seed for r in reqs}) == 6
    batch = local_llm.complete_many(reqs)
    assert len(batch) == 6 and all(c.text.strip() and "\n" not in c.text for c in batch)
    assert len({c.text for c in batch}) >= 2, [c.text for c in batch]
    one_by_one = [c.text for c in local_llm.complete_many(reqs, concurrency=1)]
    assert [c.text for c in local_llm.complete_many(reqs, concurrency=1)] == one_by_one


def test_identical_logprob_requests_in_one_batch_keep_their_logprobs(local_llm):
    """Two equal requests for logprobs used to be grouped as one request with n choices,
    which streams back without logprobs (P(True), the answer judge then read the text)."""
    r = Request(
        messages=user("Is Oslo in Norway? Answer Yes or No."),
        max_tokens=1,
        logprobs=True,
        top_logprobs=5,
    )
    out = local_llm.complete_many([r, r, replace(r, replication=1)])
    assert all(c.logprobs for c in out)
    # equal requests are sent once and share the answer; another replication of the
    # same prompt is its own request, the same to llama.cpp's batched arithmetic
    # (two slots at once are not bit-reproducible: P(Yes) 0.748 against 0.730 was seen)
    a, b, c = (yes_probability(c) for c in out)
    assert out[0].text == out[1].text and out[0].logprobs == out[1].logprobs
    assert 0.0 < a < 1.0 and a == b and a == pytest.approx(c, abs=0.05)
