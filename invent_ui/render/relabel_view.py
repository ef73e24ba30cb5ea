"""The Evaluation page's relabel layer: a reviewer marks an answer right or wrong, the metrics follow.

:func:`applied` gives the payload with the reviewer's layer applied and every
metric recomputed from the labels (no LLM call; the judge's labels stay in
``judge_correct`` and on disk) and says how many labels were changed by hand
and how often the judge agrees with the reviewer; :func:`control` is the form
that adds a relabel. The layer lives beside the evaluation
(``<folder>/relabels.jsonl``); an evaluation with no folder (the shipped
demo, an older history entry) keeps it in the dashboard's cache, keyed by
the evaluation, so it survives a reload too.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import streamlit as st

from invent_core.experiments.recompute import relabelled_evaluation
from invent_core.experiments.relabel import RELABELS, Relabel, append_relabel, folder_relabels
from invent_ui.data.experiments import payload_config
from invent_ui.jobs.feedback import show_error
from invent_ui.session import places, resources
from invent_ui.text import untrusted


def evaluation_folder(payload: Mapping[str, Any]) -> Path | None:
    """The payload's evaluation folder, when it names one inside the dashboard's folders.

    The payload carries the path itself (a file opened by a link, a history
    entry): it is confined to the folders a link may name
    (:func:`invent_ui.session.places.confined`), or None.
    """
    folder = payload.get("folder")
    if not isinstance(folder, str) or not folder.strip():
        return None
    try:
        inside = places.confined(folder)
    except places.PlaceError:
        return None
    return inside if (inside / "scores.csv").is_file() else None


def layer_folder(payload: Mapping[str, Any]) -> Path:
    """Where the payload's relabels live: its evaluation folder, else a cache folder of its own."""
    folder = evaluation_folder(payload)
    if folder is not None:
        return folder
    ident = [payload.get("config"), payload.get("llm"), [r["id"] for r in payload["rows"]]]
    key = hashlib.sha256(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()
    return resources.work_dir("relabels", key[:16])


@st.cache_data(show_spinner="Recomputing the metrics with the reviewer's labels…", max_entries=8)
def _recomputed(
    folder: str, stamp: str, layer: tuple[Relabel, ...], _payload: Mapping[str, Any]
) -> dict:
    """The payload with ``layer`` applied and its evaluation recomputed (cached per layer).

    ``stamp`` tells the payload's rows apart (an evaluation made again in the same folder).
    """
    cfg = payload_config(_payload)
    rows, ev, judgement, summary = relabelled_evaluation(
        _payload["rows"], _payload["methods"], cfg, layer, source=str(Path(folder) / RELABELS)
    )
    out = {**_payload, "rows": rows, "relabels": summary.to_dict(), "relabel_note": summary.note()}
    out["evaluation"] = ev.to_dict() if ev.results else None
    if not ev.results:
        out["reason"] = judgement.reason
    return out


def _stamp(payload: Mapping[str, Any]) -> str:
    """A fingerprint of what the metrics read: each row's id, judge's label and scores."""
    cells = [
        [r["id"], r.get("judge_correct", r["correct"]), *(r.get(m) for m in payload["methods"])]
        for r in payload["rows"]
    ]
    return hashlib.sha256(json.dumps(cells, default=str).encode()).hexdigest()


def applied(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    """The payload as the reviewer labelled it (unchanged without a layer), with the note said."""
    if not payload.get("rows"):
        return payload
    folder = layer_folder(payload)
    try:
        layer = tuple(folder_relabels(folder))
    except (ValueError, OSError) as err:  # a damaged layer: said, and the judge's labels shown
        show_error(err, "Reading the relabels")
        return payload
    if not layer:
        return payload
    out = _recomputed(str(folder), _stamp(payload), layer, payload)
    st.info(
        f"{untrusted(out['relabel_note'])} The tiles, leaderboard, curves and per-question table below "
        "use the reviewer's labels; the judge's are kept beside them.",
        icon=":material/rate_review:",
    )
    return out


def _option(row: Mapping[str, Any]) -> str:
    mark = "✓" if int(row["correct"]) else "✗"
    return f"{mark} {row['question'][:70]} → {str(row['response'])[:40]}"


def control(payload: Mapping[str, Any]) -> None:
    """The form that marks one judged answer right or wrong (with why), and the layer's lines."""
    rows = payload.get("rows") or []
    if not rows:
        return
    folder = layer_folder(payload)
    with st.expander("Relabel an answer (the judge's labels are kept)"):
        i = st.selectbox("Answer", range(len(rows)), format_func=lambda k: _option(rows[k]),
                         key="relabel_row")  # fmt: skip
        row = rows[i]
        judge = int(row.get("judge_correct", row["correct"]))
        st.caption(
            f"Reference: {untrusted(row['reference'])} · the judge said "
            f"**{'right' if judge else 'wrong'}**"
            + (f" ({untrusted(row['judge_reason'])})" if row.get("judge_reason") else "")
        )
        c1, c2, c3 = st.columns([1, 3, 1])
        label = c1.radio("The answer is", ["right", "wrong"], index=1 - int(row["correct"]),
                         key="relabel_label")  # fmt: skip
        reason = c2.text_input("Why", key="relabel_reason", placeholder="e.g. 'Paris' is right")
        who = c3.text_input("Reviewer", key="relabel_who")
        if st.button("Save the label", key="relabel_save", type="primary"):
            relabel = Relabel.now(
                row["id"], label == "right", answer=str(row["response"]), reason=reason, who=who
            )
            try:
                append_relabel(folder, relabel)
            except OSError as err:
                show_error(err, "Saving the relabel")
            else:
                st.rerun()
        _layer_lines(folder)


def _layer_lines(folder: Path) -> None:
    """The relabels saved so far, newest first, and where they are kept."""
    try:
        layer = folder_relabels(folder)
    except (ValueError, OSError) as err:
        show_error(err, "Reading the relabels")
        return
    st.caption(
        f"Kept in {untrusted(folder / RELABELS)} ({len(layer)} line(s); the last per answer "
        "counts)."
    )
    if layer:
        st.dataframe(
            [{"id": r.id, "right": r.label, "answer": r.answer, "why": r.reason, "who": r.who,
              "when": r.when} for r in reversed(layer)],
            hide_index=True,
            width="stretch",
        )  # fmt: skip
