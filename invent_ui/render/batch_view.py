"""The Batch page's result blocks: the scored rows, the failed rows, the metrics and curves.

They render what :mod:`invent_core.batch` wrote (the output file and its
sidecars, read with the core's readers) and what ``evaluate_output`` judged;
the curves are :func:`invent_ui.render.results_view.class_curves`, the Evaluation
page's, with :func:`~invent_core.evaluation.metrics.undefined_reason` saying
why there are none.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from invent_core.batch import evaluate_output, iter_records
from invent_core.evaluation.sample_size import judgeable
from invent_ui.data import batch_rows
from invent_ui.jobs.feedback import guarded
from invent_ui.text import untrusted

from . import results_view, tables
from .downloads import download_buttons

#: Columns too long for the results table (still in the downloads).
LONG_COLUMNS = ("perturbations", "responses")


def scored_rows(out: Path, stem: str) -> pd.DataFrame:
    """The scored rows as a table, with CSV and JSON downloads; returns the rows."""
    records = list(iter_records(out))
    st.subheader(f"Results: {len(records)} row(s)")
    df = pd.DataFrame(records)
    shown = batch_rows.integers_as_integers(df)  # n: 5, not 5.000000
    st.dataframe(shown.drop(columns=[c for c in LONG_COLUMNS if c in df]), width="stretch")
    d1, d2 = st.columns(2)
    d1.download_button(
        "Download CSV",
        out.read_bytes(),
        file_name=f"{stem}_scores.csv",
        mime="text/csv",
        key="batch_dl_csv",
        on_click="ignore",
    )
    d2.download_button(  # rewordings and answers as lists, not strings of JSON
        "Download JSON",
        batch_rows.records_json(records),
        file_name=f"{stem}_scores.json",
        mime="application/json",
        key="batch_dl_json",
        on_click="ignore",
    )
    return df


def failed_table(failed: list[Mapping[str, Any]], names: Mapping[str, str]) -> None:
    """The failed rows (id, row, line, kind, reason in the user's names) and their downloads."""
    st.subheader(f"Failed rows ({len(failed)})")
    table = pd.DataFrame(
        [
            {
                "id": e.get("id"),
                "row": e.get("row"),
                "line": e.get("line"),
                "kind": e.get("kind"),
                "reason": batch_rows.public_message(e, names),
            }
            for e in failed
        ]
    )
    st.dataframe(table, hide_index=True, width="stretch", height="content")
    download_buttons(st, "failed rows", table, key="batch_failed")


def retried_rows(retry_out: Path, other: str, df: pd.DataFrame, stem: str) -> None:
    """The rows retried with the ``other`` perturber, and the scores with them joined."""
    retried = pd.DataFrame(list(iter_records(retry_out)))
    st.markdown(f"**Retried with {untrusted(other)}: {len(retried)} row(s) scored**")
    st.dataframe(retried.drop(columns=[c for c in LONG_COLUMNS if c in retried]), width="stretch")
    both = pd.concat([df, retried], ignore_index=True)
    download_buttons(st, f"{stem} scores with retried rows", both, key="batch_both")


def metrics(out: Path, df: pd.DataFrame, labels: Mapping[str, str]) -> None:
    """AUROC/PRR of each method against the file's answers, greyed on a small sample; curves."""
    ev = guarded("Evaluating", evaluate_output, out)
    if not ev or not ev["methods"]:
        return
    st.subheader("Metrics against the answers")
    n_judged = int(ev["n_judged"])
    n_pos = round((ev["accuracy"] or 0.0) * n_judged)
    judged = judgeable(n_judged, n_pos, unit="row")
    frame = batch_rows.integers_as_integers(pd.DataFrame(ev["methods"]).T)  # n: 5, not 5.000000
    frame.index = [labels.get(m, m) for m in frame.index]
    frame.index.name = "method"
    st.dataframe(
        frame.style.apply(lambda c: [tables.GREY] * len(c)) if not judged.ok else frame,
        width="stretch",
        height="content",
    )
    download_buttons(st, "batch metrics", frame, key="batch_metrics")
    st.caption(
        f"Accuracy of the answers to the original questions: {ev['accuracy']:.0%} over "
        f"{n_judged} judged rows. "
        + (
            judged.reason
            if judged.ok
            else f"**{judged.reason}**: AUROC and PRR are shown greyed; they mean little here."
        )
    )
    judged_rows = df[df["correct"].notna()]
    correct = judged_rows["correct"].astype(int).to_numpy()
    table = {
        m: judged_rows[m].astype(float).to_numpy()
        for m in ev["methods"]
        if m in judged_rows and judged_rows[m].notna().all()
    }
    reason = results_view.class_curves(correct, table, labels=labels, key="batch", what="batch ")
    if reason is not None:
        st.info(
            f"No ROC or rejection curve ({untrusted(reason)}): they compare right answers with wrong "
            "ones, and AUROC and PRR are undefined when every judged answer is the same."
        )
