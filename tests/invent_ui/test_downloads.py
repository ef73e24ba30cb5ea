"""Download helpers: CSV (formula-safe), JSON, LaTeX, chart HTML/PNG, and the button renderer."""

from __future__ import annotations

import csv
import importlib.util
import io
import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from invent_core.csv_safe import restore_cell
from invent_core.evaluation.tables import Column, ResultsTable
from invent_ui.render import downloads
from invent_ui.render.downloads import (
    PNG_MISSING,
    ExportUnavailable,
    download_buttons,
    figure_html,
    figure_png,
    png_available,
    table_csv,
    table_json,
    table_latex,
)

DANGEROUS = ['=HYPERLINK("http://x")', "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx", "'quoted"]


def _rows(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8"))))


def _results_table(first: str = "Inv-Entropy") -> ResultsTable:
    cols = (Column("auroc", "AUROC", True), Column("brier", "Brier", False))
    mean = np.array([[0.81, 0.2], [0.7, np.nan]])
    std = np.array([[0.02, 0.01], [0.03, np.nan]])
    return ResultsTable((first, "LexSim"), cols, mean, std)


def test_csv_escapes_formula_cells_but_not_numbers():
    df = pd.DataFrame({"=evil header": DANGEROUS, "n": range(len(DANGEROUS))})
    df["neg"] = -0.5
    df["neg_text"] = "-0.5"
    rows = _rows(table_csv(df))
    assert rows[0] == ["'=evil header", "n", "neg", "neg_text"]
    assert [r[0] for r in rows[1:]] == ["'" + s for s in DANGEROUS]
    assert [restore_cell(r[0]) for r in rows[1:]] == DANGEROUS  # reversible, as the batch writer
    assert {r[2] for r in rows[1:]} == {"-0.5"} and {r[3] for r in rows[1:]} == {"-0.5"}
    assert [r[1] for r in rows[1:]] == [str(i) for i in range(len(DANGEROUS))]
    # RFC 4180 line ends; a cell with a lone CR is quoted, so it cannot split its row
    assert table_csv(df).endswith(b"\r\n") and b'"\'\rx"' in table_csv(df)


def test_csv_missing_values_numpy_types_index_and_records():
    df = pd.DataFrame(
        {"x": [np.float32(1.5), np.nan], "k": np.array([3, 4], dtype=np.int64), "b": [True, None]},
        index=pd.Index(["q1", "q2"], name="question"),
    )
    rows = _rows(table_csv(df))
    assert rows == [["question", "x", "k", "b"], ["q1", "1.5", "3", "1"], ["q2", "", "4", ""]]
    records = [{"method": "inv", "auroc": 0.8}, {"method": "=cmd", "auroc": None}]
    assert _rows(table_csv(records)) == [["method", "auroc"], ["inv", "0.8"], ["'=cmd", ""]]
    with pytest.raises(TypeError, match="not a table"):
        table_csv(42)


def test_json_of_a_dataframe():
    df = pd.DataFrame({"question": ["Où?", "=x"], "score": [np.float64(0.25), np.nan]})
    data = json.loads(table_json(df))
    assert data == [{"question": "Où?", "score": 0.25}, {"question": "=x", "score": None}]
    assert "Où?" in table_json(df).decode("utf-8")  # not \u-escaped


def test_results_table_csv_json_latex():
    table = _results_table()
    rows = _rows(table_csv(table))
    assert rows == list(csv.reader(io.StringIO(table.to_csv())))  # nothing to escape: unchanged
    assert rows[1][:4] == ["Inv-Entropy", "0.81", "0.02", "best"]
    risky = _rows(table_csv(_results_table(first="=cmd()")))
    assert risky[1][0] == "'=cmd()"
    data = json.loads(table_json(table))
    assert data["columns"][1] == {"key": "brier", "label": "Brier", "higher_is_better": False}
    assert data["rows"][0]["auroc"] == {"mean": 0.81, "std": 0.02, "mark": "best"}
    assert data["rows"][1]["brier"] == {"mean": None, "std": None, "mark": None}
    latex = table_latex(table, caption="AUROC on TriviaQA").decode()
    assert r"\begin{tabular}" in latex and r"\textbf{0.810}" in latex
    assert r"\caption{AUROC on TriviaQA}" in latex
    assert table_latex(pd.DataFrame({"a": [1]})) is None


def test_small_sample_tables_download_without_marks():
    table = _results_table().unmarked()
    assert "best" not in table_csv(table).decode()
    assert r"\textbf{0" not in table_latex(table).decode()
    assert json.loads(table_json(table))["rows"][0]["auroc"]["mark"] is None


def _figure() -> go.Figure:
    return go.Figure(go.Bar(x=["inv", "lexsim"], y=[0.81, 0.7]), layout={"title": "AUROC"})


def test_figure_html_is_standalone():
    html = figure_html(_figure()).decode("utf-8")
    assert html.lstrip().lower().startswith("<!doctype html>") and html.rstrip().endswith("</html>")
    assert "lexsim" in html and "AUROC" in html
    assert 'src="https://cdn' not in html  # plotly.js is inside: the file opens offline
    assert len(html) > 1_000_000


@pytest.mark.skipif(importlib.util.find_spec("kaleido") is not None, reason="kaleido installed")
def test_png_without_kaleido_says_what_is_missing():
    assert png_available() is False
    with pytest.raises(ExportUnavailable, match="optional kaleido package"):
        figure_png(_figure())


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("kaleido") is None, reason="kaleido not installed")
def test_png_with_kaleido():  # pragma: no cover - kaleido is optional
    png = figure_png(_figure())
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


class RecordingSt:
    """Records what the renderer asks of Streamlit (a container and its columns)."""

    def __init__(self) -> None:
        self.buttons: list[tuple[str, dict]] = []
        self.captions: list[str] = []

    def columns(self, n):
        return [self] * n

    def download_button(self, label, data, **kw):
        self.buttons.append((label, {"data": data, **kw}))

    def caption(self, text):
        self.captions.append(text)


def test_buttons_for_a_results_table_and_a_figure(monkeypatch):
    monkeypatch.setattr(downloads, "png_available", lambda: False)
    st = RecordingSt()
    shown = download_buttons(st, "TSU table", table=_results_table(), figure=_figure())
    assert shown == ["csv", "json", "latex", "html"]
    keys = [kw["key"] for _, kw in st.buttons]
    assert keys == [f"download_TSU_table_{f}" for f in shown]
    assert [kw["file_name"] for _, kw in st.buttons] == [
        "TSU_table.csv",
        "TSU_table.json",
        "TSU_table.tex",
        "TSU_table.html",
    ]
    assert st.buttons[0][1]["data"] == table_csv(_results_table())
    html = st.buttons[3][1]["data"]
    assert callable(html) and b"lexsim" in html()  # made on click, not on every rerun
    assert st.captions == [PNG_MISSING]  # says why there is no PNG


def test_buttons_with_png_and_key_prefix(monkeypatch):
    monkeypatch.setattr(downloads, "png_available", lambda: True)
    st = RecordingSt()
    shown = download_buttons(st, "ROC curve", figure=_figure(), key="eval/roc")
    assert shown == ["html", "png"] and st.captions == []
    assert [kw["key"] for _, kw in st.buttons] == [
        "download_eval_roc_html",
        "download_eval_roc_png",
    ]
    assert callable(st.buttons[1][1]["data"])
    assert download_buttons(RecordingSt(), "nothing") == []


def _page() -> None:
    import pandas as pd
    import streamlit as st

    from invent_ui.render.downloads import download_buttons

    df = pd.DataFrame({"question": ["=1+1", "b"], "score": [0.1, 0.2]})
    st.session_state["shown"] = download_buttons(st, "scores", table=df)
    st.button("rerun")


def test_buttons_render_in_a_real_streamlit_app():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_page).run(timeout=30)
    assert not at.exception
    assert at.session_state["shown"] == ["csv", "json"]
    at.button[0].click().run(timeout=30)  # keys stay stable across reruns: no duplicate-key error
    assert not at.exception and at.session_state["shown"] == ["csv", "json"]


def test_the_batch_json_download_holds_lists_not_strings_of_json():
    """A generated row keeps its rewordings and answers as JSON text in the CSV; not in JSON."""
    from invent_ui.data.batch_rows import records_json

    record = {  # as invent_core.batch's scorer writes a generated row
        "id": "q1",
        "question": "What is 2+2?",
        "perturbations": json.dumps(["What's 2+2?", "2 plus 2?"]),
        "responses": json.dumps([["4", "4"], ["4", "5"], ["four", "4"]]),
        "method_errors": json.dumps({"p_true": "no LLM"}),
        "inv_entropy": float("nan"),
        "judge_reason": '["not", "json"] is a reason, not a cell to decode',
    }
    (row,) = json.loads(
        records_json(
            [
                record,
            ]
        )
    )
    assert row["perturbations"] == ["What's 2+2?", "2 plus 2?"]
    assert row["responses"][2] == ["four", "4"]
    assert row["method_errors"] == {"p_true": "no LLM"}
    assert row["inv_entropy"] is None  # JSON has no NaN
    assert row["judge_reason"] == record["judge_reason"]
    (blank,) = json.loads(records_json([{"method_errors": "", "responses": "not json ["}]))
    assert blank == {"method_errors": None, "responses": "not json ["}
