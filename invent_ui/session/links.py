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
from invent_ui.text import untrusted

from . import archive, state

#: The URL's query parameter naming the history entry a page shows.
PARAM = "entry"
#: The query parameters naming a result by where it lies (:mod:`invent_ui.session.places`):
#: ``?run=<file>``, ``?evaluation=<folder or file>``, ``?tsu=<folder or file>``.
PATH_PARAMS = ("run", "evaluation", "tsu")


def _shown() -> dict[str, str | None]:
    """Session key → the history id of what it holds (None: not a history entry)."""
    return st.session_state.setdefault(state.SHOWN_ENTRIES, {})


def _linked() -> dict[str, tuple[str, str] | None]:
    """Session key → the (query parameter, name) of the file it was opened from, if any."""
    return st.session_state.setdefault(state.SHOWN_LINKS, {})


def shown_id(key: str) -> str | None:
    """The history id of what ``key`` holds in this session, or None."""
    return _shown().get(key)


def shown_link(key: str) -> tuple[str, str] | None:
    """The ``(parameter, name)`` of the file ``key``'s value was opened from, or None."""
    return _linked().get(key)


def show(key: str, value: Any, entry_id: str | None, link: tuple[str, str] | None = None) -> None:
    """Put ``value`` under ``key`` and name it in the URL: its history entry, else ``link``."""
    st.session_state[key] = value
    if key == state.GAAP_RESULT:
        st.session_state[state.GAAP_GENERATION] = 0
    _shown()[key] = entry_id
    _linked()[key] = None if entry_id else link
    name_in_url(entry_id, _linked()[key])


def name_in_url(entry_id: str | None, link: tuple[str, str] | None = None) -> None:
    """Make the address bar name ``entry_id``, else ``link`` (a path parameter), or nothing."""
    wanted = {PARAM: entry_id} if entry_id else dict([link]) if link else {}
    for param in (PARAM, *PATH_PARAMS):
        if param in wanted:
            if st.query_params.get(param) != wanted[param]:
                st.query_params[param] = wanted[param]
        elif param in st.query_params:
            del st.query_params[param]


def follow_link(key: str, kind: str) -> None:
    """Open the URL's ``entry`` under ``key`` unless the session already shows it.

    ``kind`` is what the page shows (``"run"``, ``"gaap"`` …): an entry of
    another kind, or one no longer in the history, is said and left alone.
    Without an ``entry`` in the URL, the URL gets the one the session shows.
    """
    wanted = st.query_params.get(PARAM)
    if not wanted:
        here = key in st.session_state
        name_in_url(shown_id(key) if here else None, shown_link(key) if here else None)
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
            f"The link names history entry {untrusted(wanted)}, which is not a {untrusted(label)}: "
            "open it from "
            "the History page.",
            icon=":material/link_off:",
        )
        return
    show(key, target.value, wanted)
