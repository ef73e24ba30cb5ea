"""GAAP evolution: how the genetic algorithm builds Per(S_x0), generation by generation."""

from __future__ import annotations

import time

import streamlit as st

from invent_core.perturb.gaap import GaapResult, gaap
from invent_core.progress import ProgressReporter
from invent_ui import assets, plots, resources, state, tables
from invent_ui.feedback import StageProgress, guarded, show_error
from invent_ui.sidebar import page_setup

settings = page_setup("GAAP evolution", icon="🧬")
st.title("GAAP evolution")
st.caption(
    "GAAP (paper §2.5) starts from every single key-word substitution of the question "
    "(WordNet synonyms, hypernyms, hyponyms or deletion), then selects parents by roulette "
    "wheel on fitness a(x0, ·), crosses them over and mutates the children. It stops after T "
    "generations or when no member is closer to x0 than δ; Per(S_x0) samples generations 0, τ, 2τ, …"
)

# --- run GAAP on a new question ---------------------------------------------
with st.expander("Run GAAP on a new question", expanded=False):
    q = st.text_area("Question", key="gaap_question", height=70)
    run_cfg = settings.run_config()
    g = run_cfg.gaap
    st.caption(
        f"n = {run_cfg.n_perturbations} perturbations, δ = {g.delta:g}, T = {g.max_generations}, "
        f"τ = {g.tau}, fitness embedder {run_cfg.embedder}, seed {run_cfg.seed} "
        "(sidebar; δ, T, τ and the other GAAP options under *Advanced*). No LLM call."
    )
    if st.button("Run GAAP", type="primary", key="gaap_run"):
        if not q.strip():
            st.error("Type a question first.")
        else:
            try:
                with StageProgress("GAAP", {"gaap": "evolving generations"}) as prog:
                    st.session_state[state.GAAP_RESULT] = gaap(
                        q.strip(),
                        n=run_cfg.n_perturbations,
                        embedder=resources.embedder(run_cfg.embedder),
                        seed=run_cfg.seed,
                        config=g,
                        progress=ProgressReporter(prog).counter("gaap"),
                    )
                st.session_state[state.GAAP_GENERATION] = 0
            except Exception as err:  # noqa: BLE001 - shown, not raised
                show_error(err, "GAAP")

result = st.session_state.get(state.GAAP_RESULT)
if result is None:
    data = resources.demo_json(assets.DEMO_GAAP)
    result = guarded("Reading the GAAP demo trace", GaapResult.from_dict, data)
    if result is None:
        st.stop()
    st.info(
        "Showing the shipped GAAP demo trace. Open *Run GAAP on a new question* for your own.",
        icon=":material/lightbulb:",
    )

trace = result.trace
gens = tables.gaap_members(trace)
last = len(gens) - 1
delta_used = trace.config.delta

st.subheader(trace.question)
c1, c2, c3, c4 = st.columns(4)
c1.metric("generations", len(gens))
c2.metric(
    "stopped because",
    {"delta": "all < δ", "max_generations": "reached T", "empty": "no Pop₀"}.get(
        trace.stop_reason, trace.stop_reason
    ),
)
c3.metric("δ", f"{delta_used:g}")
c4.metric("τ", trace.config.tau)
with st.expander("Key tokens (KeyBERT) and their substitution sets SUB(t) (WordNet)"):
    st.dataframe(
        [
            {
                "word #": k.position,
                "key token": k.token,
                "KeyBERT score": round(k.score, 3),
                "|SUB(t)|": len(trace.sub_set(k.position).options) + 1,
                "examples": ", ".join(o.text or "∅" for o in trace.sub_set(k.position).options[:8]),
            }
            for k in trace.key_tokens
        ],
        hide_index=True,
        width="stretch",
    )


# --- generation player --------------------------------------------------------
def _step(d: int) -> None:
    st.session_state[state.GAAP_GENERATION] = min(
        last, max(0, st.session_state.get(state.GAAP_GENERATION, 0) + d)
    )


def _play() -> None:
    st.session_state[state.GAAP_PLAYING] = True
    if st.session_state.get(state.GAAP_GENERATION, 0) >= last:
        st.session_state[state.GAAP_GENERATION] = 0


def render(t: int, suffix: str) -> None:
    left, right = st.columns([3, 2])
    left.plotly_chart(
        plots.gaap_generations_figure(gens, delta=delta_used, upto=t), key=f"gaap_scatter_{suffix}"
    )
    with right:
        st.markdown(
            f"**Generation {t}**: {len(gens[t])} members (★ entered Per(S_x0), ✓ selected as parent)"
        )
        st.dataframe(
            tables.gaap_members_table(gens[t]),
            hide_index=True,
            height=360,
            column_config={"fitness": st.column_config.NumberColumn(format="%.4f")},
            key=f"gaap_members_{suffix}",
        )
    st.plotly_chart(
        plots.gaap_fitness_box_figure(gens, delta=delta_used, upto=t), key=f"gaap_box_{suffix}"
    )


controls = st.container()
view = st.empty()
if st.session_state.pop(state.GAAP_PLAYING, False):
    start = st.session_state.get(state.GAAP_GENERATION, 0)
    for t in range(start, last + 1):
        with view.container():
            render(t, f"play{t}")
        time.sleep(0.6)
    st.session_state[state.GAAP_GENERATION] = last
    played = True
else:
    played = False

with controls:
    if (
        state.GAAP_GENERATION not in st.session_state
        or st.session_state[state.GAAP_GENERATION] > last
    ):
        st.session_state[state.GAAP_GENERATION] = 0
    b1, b2, b3, s = st.columns([1, 1, 1, 6])
    b1.button("◀", on_click=_step, args=(-1,), key="gaap_prev", help="previous generation")
    b2.button("▶", on_click=_step, args=(1,), key="gaap_next", help="next generation")
    b3.button("Play", on_click=_play, key="gaap_play", help="advance through every generation")
    if last > 0:
        s.slider("generation t", 0, last, key=state.GAAP_GENERATION)
if not played:
    with view.container():
        render(st.session_state[state.GAAP_GENERATION], "view")

st.subheader("What entered Per(S_x0)")
st.dataframe(
    [
        {
            "perturbation": p.text,
            "from generation": p.generation,
            "member #": p.member,
            "padding duplicate": p.duplicate,
            "fitness": gens[p.generation][p.member]["fitness"]
            if p.member < len(gens[p.generation])
            else None,
        }
        for p in trace.perturbations
    ],
    hide_index=True,
    width="stretch",
)
with st.expander("Every generation at a glance"):
    st.dataframe(tables.gaap_generations_table(trace), hide_index=True, width="stretch")
