"""The transformers engine draws as llama.cpp does: the sampler chain, the penalty, the template.

Checked against the real llama.cpp server with the packaged 0.5B: its
``/completion`` reports the raw distribution (``n_probs``) and, with
``post_sampling_probs``, the distribution after its sampler chain; the
engine's chain applied to the first must give the second.
"""

from __future__ import annotations

import json
import math

import pytest
import torch
from test_llm_hf import build_tiny_qwen2

from invent_core.llm import Request, get_llm, user
from invent_core.llm.hf import HFLLM, HFConfig, packaged_tokenizer
from invent_core.llm.hf_sampling import SAMPLERS, SamplerChain, kept_candidates, penalise, sample


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory):
    """A tiny random-weight Qwen2 with the packaged tokenizer (the engine's code, not its answers)."""
    return build_tiny_qwen2(tmp_path_factory.mktemp("tiny") / "tiny", packaged_tokenizer())


CHAT = "<|im_start|>user\n{}<|im_end|>\n<|im_start|>assistant\n"


def _native(server, prompt: str, **kw) -> dict:
    body = {"prompt": prompt, "n_predict": 1, "n_probs": 200, "temperature": 1.0, **kw}
    return json.loads(server.native("/completion", body))["completion_probabilities"][0]


def _ours(raw: list[dict], temperature: float, window=None) -> dict[int, float]:
    """The engine's chain on llama.cpp's raw top tokens: {token id: probability}."""
    logits = torch.full((1, 151936), -1e4)
    for t in raw:
        logits[0, t["id"]] = t["logprob"]
    logits = penalise(logits, [window])
    vals, idx = torch.topk(logits, 40)
    keep = kept_candidates(vals, SAMPLERS["llamacpp"])
    p = torch.softmax(torch.where(keep, vals / temperature, -math.inf), dim=-1)[0]
    return {int(idx[0, i]): float(p[i]) for i in range(40) if keep[0, i]}


def _theirs(server, prompt: str, temperature: float, **kw) -> dict[int, float]:
    post = _native(server, prompt, temperature=temperature, post_sampling_probs=True, **kw)
    return {t["id"]: t["prob"] for t in post["top_probs"] if t["prob"] > 0}


def _same(a: dict[int, float], b: dict[int, float]) -> None:
    assert set(a) == set(b)
    assert max(abs(a[k] - b[k]) for k in a) < 1e-5


@pytest.mark.parametrize(
    "question", ["Name a colour.", "Give me a random word.", "Who wrote Hamlet? Answer briefly."]
)
def test_the_chain_gives_llama_cpps_post_sampling_distribution(local_llm, question):
    server = local_llm.server
    prompt = CHAT.format(question)
    _native(server, prompt)  # a prompt's first evaluation differs in the last bits from a
    raw = _native(server, prompt)["top_logprobs"]  # reused one's: compare reused with reused
    for temperature in (0.5, 0.7, 1.5):
        _same(_ours(raw, temperature), _theirs(server, prompt, temperature))


def test_the_frequency_penalty_counts_the_prompt_as_llama_cpp_does(local_llm):
    server = local_llm.server
    prompt = "one two one two one two one two one"
    ids = json.loads(server.native("/tokenize", {"content": prompt, "parse_special": True}))
    _native(server, prompt)
    raw = _native(server, prompt)["top_logprobs"]
    sizes = []
    for penalty in (0.5, 1.5):
        ours = _ours(raw, 0.7, (ids["tokens"][-64:], penalty))
        _same(ours, _theirs(server, prompt, 0.7, frequency_penalty=penalty))
        sizes.append(len(ours))
    assert sizes[0] < sizes[1]  # the penalty moved the distribution (the test can fail)


def test_sample_draws_the_chains_distribution():
    """Inverse-CDF on an even grid of uniforms reproduces the truncated, tempered distribution."""
    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(1, 500, generator=gen) * 3
    n, temperature = 4000, 0.7
    for chain in (
        SamplerChain(),
        SamplerChain(top_k=5, top_p=1.0, min_p=0.0),
        SamplerChain.plain(),
    ):
        grid = [(j + 0.5) / n for j in range(n)]
        drawn = sample(logits.expand(n, -1), [temperature] * n, grid, chain)
        vals, idx = torch.topk(logits, chain.top_k or 500)
        keep = kept_candidates(vals, chain)
        p = torch.softmax(torch.where(keep, vals / temperature, -math.inf), dim=-1)[0]
        want = {int(idx[0, i]): float(p[i]) for i in range(vals.shape[1]) if keep[0, i]}
        got = {t: drawn.count(t) / n for t in set(drawn)}
        assert set(got) <= set(want)
        assert max(abs(got.get(t, 0.0) - q) for t, q in want.items()) <= 1.5 / n
    assert len(set(sample(logits.expand(n, -1), [0.0] * n, grid))) == 1  # T = 0: argmax


def test_both_engines_send_the_same_prompt_tokens(local_llm, tiny_folder):
    """The chat template: the transformers engine's prompt ids are llama.cpp's, token for token."""
    hf = get_llm(f"hf:{tiny_folder}", cache=None)
    server = local_llm.server
    shapes = [
        user("What is the capital of France?"),
        [{"role": "system", "content": "Answer briefly."}, *user("Name a colour.")],
        user("Reword: 'Who wrote Hamlet?'\nGive 3 rewordings, one per line."),
    ]
    for messages in shapes:
        text = json.loads(server.native("/apply-template", {"messages": list(messages)}))["prompt"]
        ids = json.loads(server.native("/tokenize", {"content": text, "parse_special": True}))
        assert hf._encode(messages) == ids["tokens"]


def test_the_sampling_setting_is_checked_and_in_the_identity(tiny_folder):
    base = get_llm(f"hf:{tiny_folder}", cache=None)
    plain = HFLLM(base.source, config=HFConfig(sampling="plain"))
    assert base.identity.split("|")[0].endswith(";sampling=llamacpp")
    assert plain.identity != base.identity
    with pytest.raises(ValueError, match="sampling must be one of llamacpp, plain"):
        HFConfig(sampling="top-p")
    req = Request(user("Name a colour."), temperature=0.7, seed=3, max_tokens=6)
    assert plain.complete_many([req])[0].text == plain.complete_many([req])[0].text
