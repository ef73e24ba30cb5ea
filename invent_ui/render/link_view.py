"""A link to any result: open what the URL names, and a "Copy link" button on every view.

A page names what it shows in its address (:mod:`invent_ui.session.links`): a
history entry (``?entry=<id>``), or a file or folder below one of the roots of
:mod:`invent_ui.session.places` — ``?run=<run file or history id>``,
``?evaluation=<evaluate folder or payload file>``, ``?tsu=<tsu folder or payload
file>``. :func:`follow` is called at the top of a page, before it adopts a
finished job; :func:`copy_link` draws the button. A link that names nothing
openable gets an error saying what was asked and why it cannot open.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from invent_ui.data.result_folders import read_evaluation, read_run, read_tsu
from invent_ui.jobs.feedback import error_text
from invent_ui.session import archive, links, places, state
from invent_ui.text import untrusted

from . import relabel_view, views

#: Kind shown → the reader of what its path parameter names (the parameter is the kind).
READERS: dict[str, Callable[[Path], Any]] = {
    "run": read_run,
    "evaluation": read_evaluation,
    "tsu": read_tsu,
}
#: How the messages name each kind.
WHAT = {"run": "run", "evaluation": "evaluation", "tsu": "TSU sweep"}


def _refuse(param: str, wanted: str, err: BaseException) -> None:
    st.error(
        f"**The link's {untrusted(param)}={untrusted(wanted)} cannot be opened.** "
        f"{untrusted(error_text(err))}",
        icon=":material/link_off:",
    )


def _open_entry(key: str, kind: str, wanted: str) -> None:
    """``?run=<history id>``: the entry, shown as ``?entry=`` links it."""
    try:
        target = archive.reopen(archive.store(), wanted)
    except Exception as err:  # noqa: BLE001 - shown, not raised
        _refuse(kind, wanted, err)
        return
    if target.key != key:
        _refuse(kind, wanted, ValueError(f"history entry {wanted} is no {WHAT[kind]}"))
        return
    _put(key, target.value, wanted, None)


def _put(key: str, value: Any, entry_id: str | None, link: tuple[str, str] | None) -> None:
    """Show ``value`` under ``key``; a run made with GAAP brings its trace along."""
    if key == state.EXPLORE_RUN:
        views.show_run(value, entry_id, link)
    else:
        links.show(key, value, entry_id, link)


def follow(key: str, kind: str) -> None:
    """Open under ``key`` what the URL names (``?entry=``, or ``?<kind>=``) unless shown already."""
    wanted = st.query_params.get(kind) if kind in READERS else None
    if st.query_params.get(links.PARAM) or not wanted:
        links.follow_link(key, kind)
        return
    if links.shown_link(key) == (kind, wanted) and key in st.session_state:
        return
    if kind == "run" and "/" not in wanted and not wanted.endswith(".json"):
        _open_entry(key, kind, wanted)  # a history id
        return
    try:
        value = READERS[kind](places.resolve(wanted))
    except (OSError, ValueError) as err:
        _refuse(kind, wanted, err)
        return
    _put(key, value, None, (kind, wanted))


def link_params(key: str, shown: Any, demo: tuple[str, Path] | None = None) -> dict[str, str]:
    """The query parameters that name ``shown`` (what the page draws); {} when nothing names it.

    ``shown`` is the session's own value under ``key`` (a history entry, a file
    opened by a link, an evaluation's folder) or, otherwise, ``demo``: the
    (parameter, shipped file) the page fell back to.
    """
    if shown is not None and st.session_state.get(key) is shown:
        if links.shown_id(key):
            return {links.PARAM: links.shown_id(key)}
        if links.shown_link(key):
            return dict([links.shown_link(key)])
        folder = relabel_view.evaluation_folder(shown) if isinstance(shown, Mapping) else None
        return {"evaluation": places.name_of(folder)} if folder is not None else {}
    if demo is not None:
        name = places.name_of(demo[1])
        return {demo[0]: name} if name else {}
    return {}


def full_url(params: Mapping[str, str]) -> str:
    """The page's address with ``params`` (relative where the browser's address is unknown)."""
    base = st.context.url or ""
    return f"{base}?{urlencode(params)}"


def copy_link(params: Mapping[str, str], *, what: str, key: str) -> None:
    """A "Copy link" button: the full address of ``what``, to paste anywhere."""
    with st.popover("Copy link", icon=":material/link:", key=key):
        if not params:
            st.caption(
                f"This {what} is kept nowhere a link can name (an uploaded file): keep it "
                "in the history by running it here, or save it under the dashboard's folder."
            )
            return
        st.code(full_url(params), language=None)
        st.caption(
            f"Opens this {what} on this server, after a restart too: copy it with the "
            "button at the right of the address."
        )
