"""The packaged 0.5B's likelihood of a rewording's question, as a same-meaning signal.

The 0.5B asked "do these two questions ask the same?" ranks rewordings little
better than chance (AUROC 0.58 on the rule survivors, docs/method.md): a model
this small answers yes/no poorly. Its *likelihood* is a different use of the
same weights: how probable it finds the original question as a rewording of
the candidate, and the candidate as a rewording of the original. This script
measures that on the labelled candidates no rule rejects
(:func:`gate_labelled_score.rule_survivors`) and records, per pair, the mean
log-probability per token of the target given

    <chat template> user: "Rewrite this question in other words, so that it asks
    exactly the same thing:\\n{source}"  assistant: {target}

both ways (``fwd``: the original given the candidate; ``bwd``: the candidate
given the original). ``gate_labelled_score.py --signals`` reads the record as the
signal ``0.5B likelihood`` (fwd + bwd).

It runs the GGUF de-quantised through transformers (fp32, 2 threads), because
llama.cpp's server returns log-probabilities for generated tokens only (its
``/v1/completions`` ignores ``echo``): ~90 s to load and ~22 min for the 193
pairs both ways on 2 busy cores. The gate cannot afford that on the default
path, which is one reason the signal stays a measurement (the other: its
ranking, below the 1.5B's P(Yes), is far from what the target needs).

Run: python scripts/gate_likelihood.py [--limit N] [--check]
  --limit N  score only the first N pairs (a quick look)
  --check    compare the first N pairs with the record instead of writing it
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
RECORD = ROOT / "tests" / "data" / "gate_labelled_likelihood_qwen0.5b.json"
INSTRUCTION = "Rewrite this question in other words, so that it asks exactly the same thing:\n"
BATCH = 8


def load_model(name: str = "qwen0.5b"):
    """(tokenizer, model) of the packaged GGUF, de-quantised to fp32 on the CPU."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from invent_core.llm.hf import packaged_source

    torch.set_num_threads(os.cpu_count() or 1)
    src = packaged_source(name)
    kw = {"gguf_file": src.gguf_file}
    tok = AutoTokenizer.from_pretrained(str(src.folder), **kw)
    model = AutoModelForCausalLM.from_pretrained(str(src.folder), dtype=torch.float32, **kw)
    return tok, model.eval()


def mean_logprobs(tok, model, pairs: list[tuple[str, str]]) -> list[float]:
    """Mean log P(target token | prompt(source), earlier target tokens) per (source, target)."""
    import torch

    out = []
    with torch.no_grad():
        for i in range(0, len(pairs), BATCH):
            ids, starts = [], []
            for source, target in pairs[i : i + BATCH]:
                msgs = [{"role": "user", "content": INSTRUCTION + source}]
                text = tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
                prompt = tok(text, add_special_tokens=False)["input_ids"]
                ids.append(prompt + tok(target, add_special_tokens=False)["input_ids"])
                starts.append(len(prompt))
            x = torch.full((len(ids), max(map(len, ids))), tok.pad_token_id or 0)
            mask = torch.zeros_like(x)
            for j, seq in enumerate(ids):  # right-padded: a causal model never sees the pad
                x[j, : len(seq)], mask[j, : len(seq)] = torch.tensor(seq), 1
            logits = model(input_ids=x, attention_mask=mask).logits.float()
            logp = torch.log_softmax(logits[:, :-1], -1).gather(-1, x[:, 1:, None])[..., 0]
            for j, seq in enumerate(ids):
                out.append(float(logp[j, starts[j] - 1 : len(seq) - 1].mean()))
            print(
                f"{min(i + BATCH, len(pairs))}/{len(pairs)}", end=" ", file=sys.stderr, flush=True
            )
    print(file=sys.stderr)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/gate_likelihood.py"))
    from gate_labelled_score import load_rows, read_pairs, rule_survivors

    from invent_core import env  # noqa: F401  (offline before any model import)

    pairs = read_pairs(rule_survivors(load_rows()))[: args.limit]
    t0 = time.monotonic()
    tok, model = load_model()
    t1 = time.monotonic()
    fwd = mean_logprobs(tok, model, [(c, q) for q, c in pairs])
    bwd = mean_logprobs(tok, model, [(q, c) for q, c in pairs])
    print(
        f"{len(pairs)} pairs: load {t1 - t0:.0f} s, scoring {time.monotonic() - t1:.0f} s; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    got = {f"{q}\t{c}": [round(f, 6), round(b, 6)] for (q, c), f, b in zip(pairs, fwd, bwd)}
    if args.check:
        table = json.loads(RECORD.read_text(encoding="utf-8"))["fwd_bwd"]
        worst = max(abs(a - b) for k, v in got.items() for a, b in zip(v, table[k]))
        print(f"largest difference from the record: {worst:.2e}")
        return
    about = (
        "Mean log-probability per token of the target question given the other as "
        f"'{INSTRUCTION.strip()}', packaged Qwen2.5-0.5B de-quantised (transformers, fp32); "
        "[fwd: original given candidate, bwd: candidate given original]; keys "
        "'original<TAB>candidate less its wrapper words'. Made by scripts/gate_likelihood.py."
    )
    text = json.dumps({"about": about, "fwd_bwd": got}, indent=0, ensure_ascii=False)
    RECORD.write_text(text + "\n", encoding="utf-8")
    print(f"recorded {len(got)} pairs to {RECORD.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
