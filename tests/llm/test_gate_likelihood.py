"""scripts/gate_likelihood.py: the 0.5B's likelihood signal is what it says it is.

The recorded figures come from the packaged model (90 s to load de-quantised);
here a 2-layer random-weight Qwen2 with the packaged tokenizer checks the
arithmetic: right-padded batches give each pair's mean target log-probability,
as transformers' own loss computes it one pair at a time.
"""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
from gate_likelihood import BATCH, INSTRUCTION, mean_logprobs  # noqa: E402
from test_llm_hf import build_tiny_qwen2  # noqa: E402

PAIRS = [
    ("Which river separates the Bronx from Manhattan?", "Which waterway connects the Bronx?"),
    ("What is 48 times 7?", "How much is 48 multiplied by 7?"),
    ("Who was the first woman to win a Nobel Prize?", "Who won a Nobel Prize?"),
    ("What is the opposite of hot?", "What is the opposite of cold?"),
    ("A farmer has 12 cows and sells 5. How many are left?", "How many cows remain?"),
    ("Which planet is largest?", "What is the biggest planet in the solar system, by mass?"),
    ("When did the war end?", "In which year did the war end?"),
    ("What is H2O?", "What does the formula H2O stand for?"),
    ("Name a prime number.", "Can you tell me a prime number?"),
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """(tokenizer, model): test_llm_hf's 2-layer random-weight Qwen2, loaded back."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from invent_core.llm.hf import packaged_tokenizer

    folder = build_tiny_qwen2(tmp_path_factory.mktemp("tiny") / "qwen2", packaged_tokenizer())
    tok = AutoTokenizer.from_pretrained(str(folder))
    return tok, AutoModelForCausalLM.from_pretrained(str(folder)).eval()


def test_a_batch_gives_each_pairs_mean_target_log_probability(tiny):
    import torch

    tok, model = tiny
    assert len(PAIRS) > BATCH  # two batches, the pairs of different lengths
    got = mean_logprobs(tok, model, PAIRS)
    for (source, target), value in zip(PAIRS, got):
        msgs = [{"role": "user", "content": INSTRUCTION + source}]
        text = tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
        prompt = tok(text, add_special_tokens=False)["input_ids"]
        ids = torch.tensor([prompt + tok(target, add_special_tokens=False)["input_ids"]])
        labels = ids.clone()
        labels[0, : len(prompt)] = -100  # only the target's tokens are scored
        with torch.no_grad():
            loss = float(model(input_ids=ids, labels=labels).loss)
        assert value == pytest.approx(-loss, abs=1e-5)
