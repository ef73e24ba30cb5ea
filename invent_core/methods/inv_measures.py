"""The measures of the paper's own framework (Table 1, lower block).

They share one bootstrap pass (:attr:`ScoringContext.score`), so they live
in one module rather than one file each.
"""

from __future__ import annotations

from ..registry import Method, ScoringContext, register

_REF = "Song et al., Inv-Entropy, NeurIPS 2025"


def _reader(name: str):
    def compute(ctx: ScoringContext) -> float:
        return ctx.score.measures[name]

    compute.__name__ = f"compute_{name}"
    return compute


register(
    Method(
        name="inv_entropy",
        label="Inv-Entropy",
        family="inv",
        compute=_reader("inv_entropy"),
        needs=frozenset({"perturbations"}),
        reference=_REF + ", Eqs. (entropy), (meanentropy)",
        summary="Bootstrap mean of -Σ P(x_i|y_i) log P(x_i|y_i) over resampled replications.",
    )
)
register(
    Method(
        name="ni_entropy",
        label="NI-Entropy",
        family="inv",
        compute=_reader("ni_entropy"),
        needs=frozenset({"perturbations"}),
        reference=_REF + ", §3 Baselines (i)",
        summary="Same entropy on the forward conditional P(y_i|x_i) (Bayes).",
    )
)
register(
    Method(
        name="nr_inv_entropy",
        label="NR-Inv-Entropy",
        family="inv",
        compute=_reader("nr_inv_entropy"),
        needs=frozenset({"perturbations"}),
        reference=_REF + ", §3 Baselines (ii)",
        summary="Inv-Entropy without replications: the first response of each question.",
    )
)
register(
    Method(
        name="wd_px_py",
        label="WD-px-py",
        family="inv",
        compute=_reader("wd_px_py"),
        needs=frozenset({"perturbations"}),
        reference=_REF + ", §3 Baselines (iii)",
        summary="Wasserstein distance between P(X) and P(Y) on the state set.",
        simplifications="Ground metric not named by the paper: state index by default (see measures.wd_px_py).",
    )
)
register(
    Method(
        name="max_py_x",
        label="MAX-py-x",
        family="inv",
        compute=_reader("max_py_x"),
        needs=frozenset({"perturbations"}),
        reference=_REF + ", §3 Baselines (iv)",
        summary="max_i P(y_i|x_i).",
    )
)
