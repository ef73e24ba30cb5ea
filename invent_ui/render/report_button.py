"""The dashboard's "Download report" button: the same self-contained HTML as ``invent report``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from invent_core.report import evaluation_report, run_report


def evaluation_report_button(payload: Mapping[str, Any], *, key: str) -> None:
    """One HTML file of the evaluation shown (table, curves, every question, settings)."""
    title = f"Evaluation {payload.get('config', {}).get('dataset') or 'of a file'}"
    # made on the click only (a callable): a page rerun does not build a 5 MB page
    _button(
        lambda: evaluation_report({**payload, "title": title}), "evaluation_report.html", key=key
    )


def run_report_button(run: Any, *, key: str) -> None:
    """One HTML file of the run shown."""
    _button(lambda: run_report(run), "run_report.html", key=key)


def _button(make: Callable[[], str], name: str, *, key: str) -> None:
    st.download_button(
        "Download report (HTML)",
        make,
        file_name=name,
        mime="text/html",
        key=key,
        help="One file anyone can open in a browser, offline: no server, no network.",
        icon=":material/description:",
    )
