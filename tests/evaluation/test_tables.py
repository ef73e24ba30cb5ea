"""Results tables: best bold / second underlined per metric direction, three formats."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from invent_core.evaluation.metrics import evaluate_scores, tsu_label
from invent_core.evaluation.tables import (
    Column,
    ResultsTable,
    format_mean_std,
    results_table,
    tsu_results_table,
)


@pytest.fixture()
def table():
    # AUROC higher is better, Brier lower is better
    cols = (Column("auroc", "AUROC", True), Column("brier", "Brier", False))
    mean = np.array([[0.70, 0.20], [0.80, 0.15], [0.75, 0.10], [np.nan, np.nan]])
    std = np.full_like(mean, 0.01)
    return ResultsTable(("SE", "Inv-Entropy", "LUQ", "KLE"), cols, mean, std)


def test_marks_follow_direction(table):
    m = table.marks()
    assert list(m[:, 0]) == ["", "best", "second", ""]  # AUROC: 0.80 > 0.75
    assert list(m[:, 1]) == ["", "second", "best", ""]  # Brier: 0.10 < 0.15


def test_ties_on_displayed_value_share_the_mark():
    cols = (Column("auroc", "AUROC", True),)
    t = ResultsTable(
        ("a", "b", "c"), cols, np.array([[0.8001], [0.7999], [0.7]]), np.full((3, 1), np.nan)
    )
    assert list(t.marks()[:, 0]) == ["best", "best", "second"]


def test_markdown(table):
    md = table.to_markdown()
    lines = md.strip().splitlines()
    assert lines[0] == "| Method | AUROC (↑) | Brier (↓) |"
    assert lines[3] == "| Inv-Entropy | **0.800** ± 0.010 | <ins>0.150</ins> ± 0.010 |"
    assert lines[4] == "| LUQ | <ins>0.750</ins> ± 0.010 | **0.100** ± 0.010 |"
    assert lines[5] == "| KLE | – | – |"


def test_latex(table):
    tex = table.to_latex(caption="AUROC & Brier", label="tab:x")
    assert r"\caption{AUROC \& Brier}" in tex and r"\label{tab:x}" in tex
    assert r"\begin{tabular}{lcc}" in tex
    assert r"AUROC~($\uparrow$) & Brier~($\downarrow$)" in tex
    assert (
        r"Inv-Entropy & \textbf{0.800}\scriptsize{$\pm$0.010} & "
        r"\underline{0.150}\scriptsize{$\pm$0.010} \\" in tex
    )
    assert r"KLE & -- & -- \\" in tex


def test_csv_full_precision_and_marks(table):
    rows = list(csv.DictReader(io.StringIO(table.to_csv())))
    assert rows[1]["method"] == "Inv-Entropy"
    assert float(rows[1]["auroc_mean"]) == 0.8 and rows[1]["auroc_mark"] == "best"
    assert rows[2]["brier_mark"] == "best" and rows[1]["brier_mark"] == "second"
    assert rows[3]["auroc_mean"] == ""


def test_results_table_from_evaluation():
    rng = np.random.default_rng(0)
    c = rng.integers(0, 2, 150)
    u = rng.normal(size=150) - c
    ev = evaluate_scores(
        {"good": u, "noisy": u + rng.normal(size=150), "Inv_E": -u, "off": np.full(150, np.nan)},
        c,
        n_bootstrap=8,
        metrics=("auroc", "brier"),
    )
    t = results_table(ev)
    assert t.methods == ("good", "noisy", "Inv_E", "off")
    m = t.marks()
    assert m[0, 0] == "best" and m[1, 0] == "second"  # AUROC
    assert m[0, 1] == "best"  # lowest Brier
    assert t.mean[0, 0] == pytest.approx(ev.results["good"]["auroc"].point)  # the sample value
    assert np.isnan(t.mean[3]).all()
    assert r"Inv\_E" in t.to_latex()
    with pytest.raises(ValueError, match="not in this evaluation"):
        results_table(ev, metrics=("ece",))
    with pytest.raises(ValueError, match="method 'x' is not in this evaluation"):
        results_table(ev, methods=("x",))


def test_tsu_table_percentages():
    tsu = {
        "Inv-Entropy": {
            tsu_label(1.0, 1.4, kind="pair"): 0.7755,
            tsu_label(0.7, 1.4, kind="chain"): 0.4721,
        },
        "LUQ": {
            tsu_label(1.0, 1.4, kind="pair"): 0.4806,
            tsu_label(0.7, 1.4, kind="chain"): 0.2763,
        },
    }
    t = tsu_results_table(tsu)
    md = t.to_markdown()
    assert "| Method | TSU(1.0,1.4) (↑) | TSU(0.7–1.4) (↑) |" in md
    assert "| Inv-Entropy | **77.55** | **47.21** |" in md
    assert "| LUQ | <ins>48.06</ins> | <ins>27.63</ins> |" in md
    with pytest.raises(ValueError, match="no TSU values"):
        tsu_results_table({})


def test_format_mean_std_and_shape_check():
    assert format_mean_std(0.81234, 0.0201) == "0.812 ± 0.020"
    assert format_mean_std(float("nan")) == "–"
    assert format_mean_std(0.5) == "0.500"
    with pytest.raises(ValueError, match=r"mean must have shape \(1, 1\)"):
        ResultsTable(("a",), (Column("x", "X", True),), np.zeros((2, 1)), np.zeros((1, 1)))


def test_tables_show_method_labels_when_given():
    from invent_core.evaluation.metrics import evaluate_scores
    from invent_core.evaluation.tables import results_table, tsu_results_table

    correct = [1, 0, 1, 0, 1, 0]
    ev = evaluate_scores(
        {"inv_entropy": [0.1, 0.9, 0.2, 0.8, 0.3, 0.7]}, correct, n_bootstrap=5, seed=0
    )
    md = results_table(ev, labels={"inv_entropy": "Inv-Entropy"}).to_markdown()
    assert "| Inv-Entropy |" in md and "inv_entropy" not in md
    tsu_md = tsu_results_table(
        {"lexsim": {"TSU(1,1.4)": 0.5}}, labels={"lexsim": "LexSim"}
    ).to_markdown()
    assert "| LexSim |" in tsu_md
