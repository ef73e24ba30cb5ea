"""The sidebar's reference questions: the shipped sets, or a file of your own.

A file built by ``invent reference build DIR -o FILE`` (an evaluation, with its
relabels, made into a reference set) is uploaded — kept under the dashboard's
folder, ``dashboard/references/`` — or named by its path below one of the
folders of :mod:`invent_ui.session.places`. Explore then places its question
among that file's questions instead of the shipped references; a run made
with other settings than the file is refused there, naming what differs
(:func:`invent_core.evaluation.reference.settings_mismatch`, as ``--reference``
does on the command line). The choice is kept in the session
(``state.OWN_REFERENCE``), so every page sees it.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import streamlit as st

from invent_core.evaluation.reference import load_own_reference
from invent_ui.text import untrusted

from . import places, state

__all__ = ["SHIPPED", "chosen", "known_files", "reference_picker", "save_upload"]

#: The picker's entry for the shipped references.
SHIPPED = "shipped references"
_PICK = state.SIDEBAR_PREFIX + "reference"
_PATH = state.SIDEBAR_PREFIX + "reference_path"
_UPLOADED = "own_reference_uploaded"  # the file id of the upload already kept
_ERROR = "own_reference_error"


def uploads_dir() -> Path:
    """Where uploaded reference files are kept (``dashboard/references/``)."""
    return places.roots()["dashboard"] / "references"


def known_files() -> list[str]:
    """The names of the reference files kept under ``dashboard/references/``, sorted."""
    folder = uploads_dir()
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    return [name for name in (places.name_of(p) for p in files) if name]


def checked(name: str) -> Any:
    """The reference set ``name`` holds; ValueError naming the file and why it is none."""
    path = places.resolve(name)  # PlaceError (a ValueError) naming ``name`` and why
    try:
        return load_own_reference(path)
    except (OSError, ValueError) as err:
        raise ValueError(f"{name}: {str(err).split(': ', 1)[-1]}") from None


def save_upload(data: bytes, file_name: str) -> str:
    """Keep an uploaded reference file (checked first) and return its name; ValueError if none."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(file_name).stem)[:60] or "reference"
    digest = hashlib.sha256(data).hexdigest()[:12]
    folder = uploads_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}-{digest}.json"
    path.write_bytes(data)
    try:
        load_own_reference(path)
    except (OSError, ValueError) as err:
        path.unlink(missing_ok=True)
        raise ValueError(f"{file_name}: {str(err).split(': ', 1)[-1]}") from None
    return str(places.name_of(path))


def chosen() -> str | None:
    """The reference file chosen in the sidebar (its name), or None: the shipped references."""
    return st.session_state.get(state.OWN_REFERENCE)


def _adopt(name: str) -> None:
    """Use ``name`` from now on when it is a reference set; else say why and keep the choice."""
    try:
        checked(name)
    except ValueError as err:
        st.session_state[_ERROR] = str(err)
        return
    st.session_state[state.OWN_REFERENCE] = name
    st.session_state.pop(_ERROR, None)


def _typed() -> None:
    typed = st.session_state.get(_PATH, "").strip()
    if typed:
        _adopt(typed)


def _picked() -> None:
    pick = st.session_state.get(_PICK)
    st.session_state[state.OWN_REFERENCE] = None if pick in (None, SHIPPED) else pick
    st.session_state.pop(_ERROR, None)


def _upload() -> None:
    up = st.file_uploader(
        "Upload a reference file",
        type=["json"],
        key=state.SIDEBAR_PREFIX + "reference_upload",
        help="Built by `invent reference build DIR -o FILE`; kept under dashboard/references/.",
    )
    if up is None or st.session_state.get(_UPLOADED) == up.file_id:
        return
    st.session_state[_UPLOADED] = up.file_id
    try:
        _adopt(save_upload(up.getvalue(), up.name))
    except (OSError, ValueError) as err:
        st.session_state[_ERROR] = str(err)


def reference_picker(sb: Any) -> None:
    """The sidebar's "Reference questions": shipped, an upload, or a file under the data folders."""
    current = chosen()
    with sb.expander("Reference questions", expanded=current is not None):
        _upload()
        st.text_input(
            "…or a file under results/, assets/ or dashboard/",
            key=_PATH,
            on_change=_typed,
            placeholder="dashboard/references/mine.json",
        )
        current = chosen()
        options = [SHIPPED, *known_files()]
        if current and current not in options:
            options.append(current)
        st.session_state[_PICK] = current or SHIPPED  # a page switch drops the widget's state
        st.selectbox("Place questions among", options, key=_PICK, on_change=_picked)
        st.caption(
            "Explore places a question among these reference questions (percentile, "
            "P(right)); your own file must be made with the run's settings."
        )
    if st.session_state.get(_ERROR):
        sb.error(
            f"Reference file refused: {untrusted(st.session_state[_ERROR])}",
            icon=":material/error:",
        )
