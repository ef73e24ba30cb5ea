"""The run history in the sidebar (the last few) and the reopen action every list shares."""

from __future__ import annotations

from typing import Any

import streamlit as st

from invent_ui.jobs.feedback import show_error
from invent_ui.text import untrusted

from . import archive, links


def open_entry(entry_id: str) -> None:
    """Put an entry into its page's session state and switch to that page."""
    try:
        target = archive.reopen(archive.store(), entry_id)
    except Exception as err:  # noqa: BLE001 - shown, not raised
        show_error(err, "Reopening it")
        return
    from streamlit.errors import StreamlitPageNotFoundError

    links.show(target.key, target.value, entry_id)
    try:  # the entry's id in the URL: a reload or the link opens it again
        st.switch_page(target.page, query_params={links.PARAM: entry_id})
    except StreamlitPageNotFoundError:  # a page run on its own (tests): no other page to go to
        st.info(f"Opened: see {untrusted(target.page)}.")


def entry_label(entry: Any, width: int = 48) -> str:
    """``"run · What is the capital of Fr…"`` for a button: the title shown literally."""
    title = entry.title if len(entry.title) <= width else entry.title[: width - 1] + "…"
    return f"{untrusted(archive.KIND_LABELS.get(entry.kind, entry.kind))} · {untrusted(title)}"


def recent_in_sidebar(sb: Any) -> None:
    """List the newest history entries in the sidebar; a click reopens one."""
    try:
        entries = archive.store().list()[: archive.RECENT]
    except Exception:  # noqa: BLE001 - an unreadable history must not break every page
        return
    with sb.expander(f"Recent ({len(entries)})", expanded=bool(entries)):
        if not entries:
            st.caption("Runs, GAAP traces, evaluations and sweeps you make are kept here.")
        for entry in entries:
            if st.button(
                entry_label(entry),
                key=f"recent_{entry.id}",
                help=f"{untrusted(entry.settings_summary)} — reopen",
                width="stretch",
            ):
                open_entry(entry.id)
        quiet_page_link("pages/7_History.py", "All history", ":material/history:")


def quiet_page_link(path: str, label: str, icon: str) -> None:
    """``st.page_link`` that stays quiet where the page is unknown (a page run on its own in tests)."""
    from streamlit.errors import StreamlitPageNotFoundError

    try:
        st.page_link(path, label=label, icon=icon)
    except StreamlitPageNotFoundError:
        pass
