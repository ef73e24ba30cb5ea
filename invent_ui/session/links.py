"""What a page shows, named in its URL: ``…/Explore_a_question?entry=<history id>``.

A result kept in the history is shown through :func:`show`, which puts it in
the session and its entry's id in the address bar. So the address is a link
to that result, and a reload (a new, empty session) opens the same result, not
the newest one nor the shipped demo. :func:`follow_link` is the other half, at
the top of a page: an ``entry`` in the URL that the session does not show yet
is opened there, before the page adopts a finished background job
(:func:`invent_ui.jobs.feedback.reattach`), so a click in History or Recent
in a fresh tab opens the entry clicked.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from invent_ui.jobs.feedback import show_error

from . import archive, state

#: The URL's query parameter naming the history entry a page shows.
PARAM = "entry"


def _shown() -> dict[str, str | None]:
    """Session key → the history id of what it holds (None: not a history entry)."""
    return st.session_state.setdefault(state.SHOWN_ENTRIES, {})


def shown_id(key: str) -> str | None:
    """The history id of what ``key`` holds in this session, or None."""
    return _shown().get(key)


def show(key: str, value: Any, entry_id: str | None) -> None:
    """Put ``value`` under ``key`` and name its history entry in the URL (none: no entry)."""
    st.session_state[key] = value
    if key == state.GAAP_RESULT:
        st.session_state[state.GAAP_GENERATION] = 0
    _shown()[key] = entry_id
    name_in_url(entry_id)


def name_in_url(entry_id: str | None) -> None:
    """Make the address bar name ``entry_id`` (or nothing)."""
    if entry_id:
        if st.query_params.get(PARAM) != entry_id:
            st.query_params[PARAM] = entry_id
    elif PARAM in st.query_params:
        del st.query_params[PARAM]


def follow_link(key: str, kind: str) -> None:
    """Open the URL's ``entry`` under ``key`` unless the session already shows it.

    ``kind`` is what the page shows (``"run"``, ``"gaap"`` …): an entry of
    another kind, or one no longer in the history, is said and left alone.
    Without an ``entry`` in the URL, the URL gets the one the session shows.
    """
    wanted = st.query_params.get(PARAM)
    if not wanted:
        name_in_url(shown_id(key) if key in st.session_state else None)
        return
    if shown_id(key) == wanted and key in st.session_state:
        return
    try:
        target = archive.reopen(archive.store(), wanted)
    except Exception as err:  # noqa: BLE001 - shown, not raised
        show_error(err, f"Opening the linked history entry {wanted}")
        return
    if target.key != key:
        label = archive.KIND_LABELS.get(kind, kind)
        st.warning(
            f"The link names history entry {wanted}, which is not a {label}: open it from "
            "the History page.",
            icon=":material/link_off:",
        )
        return
    show(key, target.value, wanted)
