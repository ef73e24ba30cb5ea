"""History: every run, GAAP trace, evaluation, TSU sweep and comparison made in the dashboard."""

from __future__ import annotations

import streamlit as st

from invent_core.workbench.history import MAX_BYTES, MAX_ENTRIES
from invent_ui.jobs.feedback import guarded
from invent_ui.render.downloads import download_buttons
from invent_ui.session import archive
from invent_ui.session.history_view import entry_label, open_entry
from invent_ui.session.sidebar import page_setup
from invent_ui.text import untrusted

settings = page_setup("History", icon="🗂️")
st.title("History")
st.caption(
    "Every run, GAAP trace, evaluation, TSU sweep and side-by-side comparison made in this "
    f"dashboard is kept on disk in invent's cache folder (at most {MAX_ENTRIES} entries or "
    f"{MAX_BYTES // 2**20} MiB; the oldest go first), so it survives a browser refresh and a "
    "server restart. Open one to see it on its page again."
)
PER_PAGE = 20
store = archive.store()
kinds = ["all", *archive.KIND_LABELS]
kind = st.segmented_control(
    "Show",
    kinds,
    default="all",
    format_func=lambda k: "everything" if k == "all" else archive.KIND_LABELS[k],
    key="history_kind",
)
entries = guarded("Reading the history", store.list, None if kind in (None, "all") else kind)
if not entries:
    st.info(
        "Nothing kept yet. Run a question on *Explore a question*, GAAP on *GAAP evolution*, "
        "an evaluation or a TSU sweep: each finished one appears here.",
        icon=":material/lightbulb:",
    )
    st.stop()

rows = [
    {
        "created (UTC)": e.created[:19].replace("T", " "),
        "kind": archive.KIND_LABELS.get(e.kind, e.kind),
        "title": e.title,
        "settings": e.settings_summary,
        "KB": round(e.size / 1024, 1),
        "id": e.id,
    }
    for e in entries
]
st.dataframe(rows, hide_index=True, width="stretch", height=36 * (min(len(rows), 12) + 1) + 3)
download_buttons(st, "history list", rows, key="history_list")

pages = (len(entries) + PER_PAGE - 1) // PER_PAGE
page = 1
if pages > 1:
    page = st.number_input(f"Page (of {int(pages)})", 1, pages, 1, key="history_page")
for e in entries[(page - 1) * PER_PAGE : page * PER_PAGE]:
    with st.container(border=True):
        head, open_col, rename_col, dl_col, del_col = st.columns([6, 1, 1, 1, 1])
        head.markdown(f"**{entry_label(e, 90)}**")
        head.caption(
            f"{untrusted(e.created[:19].replace('T', ' '))} UTC · {untrusted(e.settings_summary)}"
        )
        if open_col.button("Open", key=f"history_open_{e.id}", type="primary"):
            open_entry(e.id)
        with rename_col.popover("Rename"):
            title = st.text_input("New title", e.title, key=f"history_title_{e.id}")
            if st.button("Save", key=f"history_save_{e.id}"):
                if guarded("Renaming", store.rename, e.id, title) is not None:
                    st.rerun()
        dl_col.download_button(
            "JSON",
            lambda eid=e.id: store.export(eid),
            file_name=f"invent_{e.kind}_{e.id}.json",
            mime="application/json",
            key=f"history_download_{e.id}",
            icon=":material/download:",
            on_click="ignore",
        )
        if del_col.button("Delete", key=f"history_delete_{e.id}"):
            guarded("Deleting", store.delete, e.id)
            st.rerun()

with st.expander("Clear the history"):
    sure = st.checkbox(f"Yes, delete all {len(store.list())} entries", key="history_clear_sure")
    if st.button("Clear history", disabled=not sure, key="history_clear"):
        guarded("Clearing the history", store.clear)
        st.rerun()
