"""GAAP evolution: how the genetic algorithm builds Per(S_x0), generation by generation."""

from __future__ import annotations

import time

import streamlit as st

from invent_core.perturb.gaap import GaapResult, gaap
from invent_core.perturb.gaap_sampling import member_flags
from invent_core.progress import ProgressReporter
from invent_ui import assets, plots
from invent_ui.jobs.background import start_job
from invent_ui.jobs.feedback import guarded, job_panel, reattach, show_error
from invent_ui.render import link_view, tables, views
from invent_ui.render.downloads import download_buttons
from invent_ui.session import archive, links, resources, state
from invent_ui.session.sidebar import page_setup
from invent_ui.text import untrusted

settings = page_setup("GAAP evolution", icon="🧬")
st.title("GAAP evolution")
st.caption(
    "GAAP (paper §2.5) starts from every single key-word substitution of the question "
    "(WordNet synonyms, hypernyms, hyponyms or deletion), then selects parents by roulette "
    "wheel on fitness a(x0, ·), crosses them over and mutates the children. It stops after T "
    "generations or when no member is closer to x0 than δ; Per(S_x0) samples generations 0, τ, 2τ, …"
)


# --- run GAAP on a new question ---------------------------------------------
def _start_gaap(question: str, run_cfg) -> None:
    emb = resources.embedder(run_cfg.embedder)
    history = archive.store()
    used = {
        k: v for k, v in settings.public_dict().items() if k not in ("llm", "base_url", "model")
    }

    def work(progress, cancel):
        return gaap(
            question,
            n=run_cfg.n_perturbations,
            embedder=emb,
            seed=run_cfg.seed,
            config=run_cfg.gaap,
            progress=ProgressReporter(progress).counter("gaap"),
        )

    start_job(
        state.GAAP_JOB,
        work,
        label="GAAP",
        kind="gaap",
        on_done=lambda res: archive.keep_gaap(history, res, settings=used),
    )


links.follow_link(state.GAAP_RESULT, "gaap")  # a link or a reload: the trace it names
reattach(state.GAAP_JOB, ("gaap_question",), shows=state.GAAP_RESULT)  # a running evolution
with st.expander("Run GAAP on a new question", expanded=False):
    q = st.text_area("Question", key="gaap_question", height=70)
    run_cfg = settings.run_config()
    g = run_cfg.gaap
    st.caption(
        f"n = {int(run_cfg.n_perturbations)} perturbations, δ = {g.delta:g}, "
        f"T = {int(g.max_generations)}, τ = {int(g.tau)}, fitness embedder "
        f"{untrusted(run_cfg.embedder)}, seed {int(run_cfg.seed)} "
        "(sidebar; δ, T, τ and the other GAAP options under *Advanced*). No LLM call."
    )
    if st.button(
        "Run GAAP", type="primary", key="gaap_run", disabled=views.job_running(state.GAAP_JOB)
    ):
        if not q.strip():
            st.error("Type a question in the **Question** box first.")
        else:
            try:
                _start_gaap(q.strip(), run_cfg)
            except Exception as err:  # noqa: BLE001 - shown, not raised
                show_error(err, "GAAP")

job = job_panel(state.GAAP_JOB, kept="Nothing is kept from a cancelled evolution (it asks no LLM).")
views.take_result(job, state.GAAP_RESULT)

result = st.session_state.get(state.GAAP_RESULT)
if result is None:  # the newest trace kept (e.g. Explore's last GAAP run), else the demo
    result = views.latest_kept("gaap", "GAAP trace", state.GAAP_RESULT)
if result is None:
    data = resources.demo_json(assets.DEMO_GAAP)
    result = guarded("Reading the GAAP demo trace", GaapResult.from_dict, data)
    if result is None:
        st.stop()
    st.info(
        "Showing the shipped GAAP demo trace. Open *Run GAAP on a new question* for your own.",
        icon=":material/lightbulb:",
    )
    views.demo_note(result.provenance)
else:  # the session's own trace: its history entry names it
    link = link_view.link_params(state.GAAP_RESULT, result)
    link_view.copy_link(link, what="GAAP trace", key="gaap_link")

trace = result.trace
gens = tables.gaap_members(trace)
last = len(gens) - 1
delta_used = trace.config.delta

st.subheader(untrusted(trace.question))
c1, c2, c3, c4 = st.columns(4)
c1.metric("generations", len(gens))
c2.metric(
    "stopped because",
    untrusted(
        {"delta": "all < δ", "max_generations": "reached T", "empty": "no Pop₀"}.get(
            trace.stop_reason, trace.stop_reason
        )
    ),
)
c3.metric("δ", f"{delta_used:g}")
c4.metric("τ", untrusted(trace.config.tau))
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
    scatter = plots.gaap_generations_figure(gens, delta=delta_used, upto=t)
    st.plotly_chart(scatter, key=f"gaap_scatter_{suffix}")
    st.markdown(
        f"**Generation {int(t)}**: {len(gens[t])} members (★ entered Per(S_x0), ✓ selected as parent)"
    )
    st.dataframe(
        tables.gaap_members_table(gens[t]),
        hide_index=True,
        width="stretch",
        height=min(360, 36 * (len(gens[t]) + 1) + 3),
        column_config={
            "text": st.column_config.TextColumn(width="large"),
            "fitness": st.column_config.NumberColumn(format="%.4f"),
        },
        key=f"gaap_members_{suffix}",
    )
    box = plots.gaap_fitness_box_figure(gens, delta=delta_used, upto=t)
    st.plotly_chart(box, key=f"gaap_box_{suffix}")
    if suffix == "view":
        download_buttons(
            st, f"generation {t} members", tables.gaap_members_table(gens[t]), key="gaap_members"
        )
        download_buttons(
            st, "GAAP generations chart", figure=scatter, key="gaap_scatter", png_note=False
        )
        download_buttons(st, "GAAP fitness chart", figure=box, key="gaap_box", png_note=False)


if state.GAAP_GENERATION not in st.session_state or st.session_state[state.GAAP_GENERATION] > last:
    st.session_state[state.GAAP_GENERATION] = 0
controls = st.container()
button_box = controls.container()
slider_slot = controls.empty()
view = st.empty()
if st.session_state.pop(state.GAAP_PLAYING, False):
    start = st.session_state.get(state.GAAP_GENERATION, 0)
    for t in range(start, last + 1):
        if last > 0:  # the slider follows the play (a read-only copy while it runs)
            slider_slot.slider(
                "generation t", 0, last, value=t, disabled=True, key=f"gaap_playing_{t}"
            )
        with view.container():
            render(t, f"play{t}")
        time.sleep(0.6)
    st.session_state[state.GAAP_GENERATION] = last
    played = True
else:
    played = False

with button_box:
    b1, b2, b3, _ = st.columns([1, 1, 1, 6])
    b1.button("◀", on_click=_step, args=(-1,), key="gaap_prev", help="previous generation")
    b2.button("▶", on_click=_step, args=(1,), key="gaap_next", help="next generation")
    b3.button("Play", on_click=_play, key="gaap_play", help="advance through every generation")
if last > 0:
    slider_slot.slider("generation t", 0, last, key=state.GAAP_GENERATION)
if not played:
    with view.container():
        render(st.session_state[state.GAAP_GENERATION], "view")

st.subheader("What entered Per(S_x0)")
per_rows = [
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
]
for row in per_rows:  # what a member may have broken
    row["flags"] = "; ".join(
        member_flags(row["perturbation"], trace.question, row["fitness"], trace.config.delta)
    )
if any(row["flags"] for row in per_rows):
    n_flagged = sum(bool(r["flags"]) for r in per_rows)
    st.warning(f"{views.gaap_flag_text(n_flagged, len(per_rows))}: see 'flags'.")
st.dataframe(per_rows, hide_index=True, width="stretch")
download_buttons(st, "Per(S_x0)", per_rows, key="gaap_per")
with st.expander("Every generation at a glance"):
    overview = tables.gaap_generations_table(trace)
    st.dataframe(overview, hide_index=True, width="stretch")
    download_buttons(st, "GAAP generations", overview, key="gaap_generations")
