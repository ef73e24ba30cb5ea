"""Two analysis views: where one question's uncertainty comes from, and which methods agree.

Explore shows the within/across-wording split of a run's answers
(``invent_core.evaluation.spread``, beyond the paper); Evaluation shows the Spearman rank
correlation between the methods' scores (``invent_core.evaluation.agreement``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from invent_core.evaluation import normalize_answer, rank_correlation
from invent_core.evaluation.spread import wording_entropy_split
from invent_ui.text import untrusted


def wording_spread(responses: Sequence[Sequence[str]]) -> None:
    """Explore: the answers' entropy split into within one wording and across wordings."""
    try:
        split = wording_entropy_split(responses, key=normalize_answer)
    except ValueError as err:  # a ragged saved run: say why, show the rest of the page
        st.caption(f"Where the uncertainty comes from: not available ({untrusted(err)}).")
        return
    with st.expander("Where the uncertainty comes from (within vs across wordings)"):
        c1, c2, c3 = st.columns(3)
        c1.metric("Total H(Y)", f"{split.total:.3f} nats")
        c2.metric("Within one wording H(Y|X)", f"{split.within:.3f}")
        share = split.across_share
        c3.metric("Across wordings I(X;Y)", f"{split.across:.3f}",
                  f"{share:.0%} of the spread" if np.isfinite(share) else "no spread",
                  delta_color="off")  # fmt: skip
        per = [wording_entropy_split([row], key=normalize_answer).total for row in responses]
        names = ["x0 (original)", *(f"x{i}" for i in range(1, len(per)))]
        fig = go.Figure(go.Bar(x=names, y=per, marker_color="#1f77b4"))
        fig.update_layout(height=260, margin=dict(l=40, r=10, t=30, b=30),
                          yaxis_title="entropy of its r answers (nats)",
                          title="Spread within each wording")  # fmt: skip
        st.plotly_chart(fig, width="stretch", key="explore_spread")
        st.caption(
            "Answers are grouped when equal after normalisation. Within = the mean entropy of one "
            "wording's replications (what replication alone sees); across = H(Y) − H(Y|X), how "
            "much the answer depends on the wording. High across with low within: each wording "
            "is confidently answered, differently — the case rewording reveals (paper Fig. 1). "
            "This split is ours, not the paper's."
        )


def method_agreement(table: Mapping[str, Sequence[float]], labels: Mapping[str, str]) -> None:
    """Evaluation: Spearman ρ between every pair of methods, and which ones coincide."""
    methods = [m for m in table if np.isfinite(np.asarray(table[m], dtype=float)).any()]
    if len(methods) < 2:
        return
    rc = rank_correlation({m: table[m] for m in methods}, methods)
    names = [labels.get(m, m) for m in methods]
    with st.expander("Do the methods agree? (rank correlation)"):
        fig = go.Figure(go.Heatmap(z=rc.rho, x=names, y=names, zmin=-1, zmax=1,
                                   colorscale="RdBu", reversescale=True,
                                   text=np.round(rc.rho, 2), texttemplate="%{text}"))  # fmt: skip
        fig.update_layout(height=80 + 32 * len(names), margin=dict(l=10, r=10, t=10, b=10),
                          yaxis_autorange="reversed")  # fmt: skip
        st.plotly_chart(fig, width="stretch", key="eval_agreement")
        groups = [" = ".join(untrusted(labels.get(m, m)) for m in g) for g in rc.coinciding()]
        st.caption(
            f"Spearman ρ over the {int(rc.n_questions)} questions every method scored. "
            + (f"**One ranking (ρ ≥ 0.999): {'; '.join(groups)}** — the same AUROC, PRR and "
               "Brier, one baseline not several. " if groups else "No two methods coincide. ")
            + "With one-line answers and the embedding judge, Kernel Entropy, DegMat and LUQ "
            "are all monotone in the mean pairwise affinity of the answers."
        )  # fmt: skip
