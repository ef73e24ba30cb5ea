"""How the transformers engine draws a token: the sampler chain, as llama.cpp's server does.

Why not plain temperature sampling: the packaged models run on llama.cpp by
default, whose server samples every request with its default chain
(``/props``: penalties → top-k 40 → top-p 0.95 → min-p 0.05 → temperature),
and the two engines must answer alike (one model, two engines, one set of
answers and scores). ``SamplerChain.plain()`` is the OpenAI API's sampling,
which is also the paper's (ChatGPT, top-p 1): the truncation keeps a small
model from drawing rare tokens, at the price of the tail the paper samples.

Shapes: ``logits`` (B, V); per row a temperature, one uniform in [0, 1) from
the row's own seeded generator (so a row's token never depends on its batch
neighbours), and optionally its penalty window (the last tokens of its
prompt and reply, as llama.cpp feeds the prompt into its penalty sampler).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["SAMPLERS", "SamplerChain", "sample", "kept_candidates"]


@dataclass(frozen=True)
class SamplerChain:
    """Truncation before the temperature; 0 / 1.0 / 0.0 switch a stage off."""

    top_k: int = 40
    top_p: float = 0.95
    min_p: float = 0.05
    penalty_last_n: int = 64  # tokens the frequency penalty looks back over

    @classmethod
    def plain(cls) -> SamplerChain:
        """Temperature only (the OpenAI API's and the paper's sampling)."""
        return cls(top_k=0, top_p=1.0, min_p=0.0)


#: ``HFConfig.sampling`` names: llama.cpp's server defaults (the default), or plain.
SAMPLERS = {"llamacpp": SamplerChain(), "plain": SamplerChain.plain()}


def penalise(logits: Any, windows: Sequence[tuple[Sequence[int], float] | None]) -> Any:
    """Subtract ``count × frequency_penalty`` from each row's recently seen tokens (in place)."""
    import torch

    for row, w in enumerate(windows):
        if w is None or not w[1]:
            continue
        counts = Counter(w[0])
        ids = torch.tensor(list(counts), device=logits.device)
        seen = torch.tensor(list(counts.values()), dtype=logits.dtype, device=logits.device)
        logits[row, ids] -= seen * float(w[1])
    return logits


def kept_candidates(vals: Any, chain: SamplerChain) -> Any:
    """Which of the (B, K) best-first candidate logits survive top-p and min-p (at T = 1)."""
    import torch

    keep = torch.ones_like(vals, dtype=torch.bool)
    if chain.top_p < 1.0:
        p = torch.softmax(vals, dim=-1)
        keep &= (p.cumsum(dim=-1) - p) < chain.top_p  # up to the token that crosses top_p
    if chain.min_p > 0.0:
        keep &= vals >= vals[:, :1] + math.log(chain.min_p)
    return keep


def sample(
    logits: Any,
    temps: Sequence[float],
    uniforms: Sequence[float],
    chain: SamplerChain | None = None,
    windows: Sequence[tuple[Sequence[int], float] | None] | None = None,
) -> list[int]:
    """One token per row: argmax at temperature 0, else the chain then inverse-CDF sampling.

    ``chain`` None is plain sampling; ``windows`` (per row: the penalty
    window's tokens and the frequency penalty, or None) apply first, to the
    greedy rows too, as in llama.cpp.
    """
    import torch

    chain = chain or SamplerChain.plain()
    if windows is not None and any(w is not None for w in windows):
        logits = penalise(logits.clone(), windows)
    device = logits.device
    t = torch.tensor(list(temps), dtype=torch.float32, device=device)
    greedy = logits.argmax(dim=-1)
    warm = t > 0
    if not bool(warm.any()):
        return greedy.tolist()
    if chain == SamplerChain.plain():  # no truncation: no sort of the vocabulary either
        vals, idx = logits, None
    else:
        k = chain.top_k if 0 < chain.top_k < logits.shape[-1] else logits.shape[-1]
        vals, idx = torch.topk(logits, k, dim=-1)  # (B, K), best first
        vals = torch.where(kept_candidates(vals, chain), vals, torch.full_like(vals, -math.inf))
    probs = torch.softmax(vals / t.clamp_min(1e-6)[:, None], dim=-1)
    cdf = probs.cumsum(dim=-1)
    u = torch.tensor(list(uniforms), dtype=cdf.dtype, device=device)[:, None] * cdf[:, -1:]
    drawn = torch.searchsorted(cdf, u).squeeze(-1).clamp_max(vals.shape[-1] - 1)
    if idx is not None:
        drawn = idx.gather(1, drawn[:, None]).squeeze(-1)
    return torch.where(warm, drawn, greedy).tolist()
