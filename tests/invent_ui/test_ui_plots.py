"""The dashboard's pure helpers (invent_ui.plots / tables / settings / experiments), no Streamlit runtime."""

from __future__ import annotations

import json

import numpy as np
import pytest
from plotly_spec import array_from_spec as decode

from invent_core.paper.random_walk import random_walk, transition_matrix
from invent_ui import plots
from invent_ui.data import experiments
from invent_ui.render import tables
from invent_ui.session.settings import Settings, run_fingerprint, secret_fingerprint


def spec(fig):
    return json.loads(fig.to_json())


@pytest.fixture
def walk():
    rng = np.random.default_rng(0)
    a_x = rng.uniform(0.5, 1.0, (4, 4))
    a_y = rng.uniform(0.5, 1.0, (4, 4))
    return random_walk(transition_matrix((a_x + a_x.T) / 2), transition_matrix((a_y + a_y.T) / 2))


def test_wrap_text_wraps_and_truncates():
    text = " ".join(["word"] * 100)
    out = plots.wrap_text(text, width=20, max_lines=3)
    assert out.count("<br>") == 2
    assert out.endswith("…")
    assert plots.wrap_text("short") == "short"
    # a question's HTML shows as typed: plotly would make <a href> a link in the hover box
    hostile = plots.wrap_text('<a href="http://attacker.invalid">q</a> <b>x</b> & y', width=200)
    assert "<a" not in hostile and "<b>" not in hostile and "&lt;a href" in hostile


def test_walk_heatmaps_carry_the_matrices_and_texts(walk):
    qs = ["q0", "q1", "q2", "q3"]
    ans = ["a0", "a1", "a2", "a3"]
    figs = plots.walk_heatmaps(walk, qs, ans)
    assert set(figs) == {"p_x", "p_y", "p_x_given_y"}
    for name, fig in figs.items():
        data = spec(fig)["data"][0]
        z = decode(data["z"])
        np.testing.assert_allclose(z, getattr(walk, name))
        np.testing.assert_allclose(z.sum(axis=1), 1.0)  # every row is a distribution
    px = spec(figs["p_x_given_y"])["data"][0]
    assert px["customdata"][2][1] == ["a2", "q1"]  # row y2 (answer), column x1 (question)
    assert px["y"] == ["y0", "y1", "y2", "y3"] and px["x"] == ["x0", "x1", "x2", "x3"]


def test_heatmap_rejects_mismatched_labels():
    with pytest.raises(ValueError, match="does not match 2 row and 3 column labels"):
        plots.heatmap_figure(
            np.eye(2),
            row_labels=["a", "b"],
            col_labels=["a", "b", "c"],
            row_texts="ab",
            col_texts="abc",
            title="t",
        )


def test_walk_graph_threshold_controls_edges(walk):
    texts = ["q0", "q1", "q2", "q3"]
    off = walk.p_x[~np.eye(4, dtype=bool)]
    thr = float(np.median(off))
    fig = plots.walk_graph_figure(walk.p_x, texts=texts, threshold=thr, title="P_x")
    expected = int((off >= thr).sum())
    hover = next(t for t in spec(fig)["data"] if t.get("name") == "edge")
    assert len(hover["text"]) == expected
    assert f"{expected} edges" in fig.layout.title.text
    # every drawn edge's probability is at least the threshold
    probs = [float(t.rsplit("= ", 1)[1]) for t in hover["text"]]
    assert min(probs) >= thr - 1e-4
    none = plots.walk_graph_figure(walk.p_x, texts=texts, threshold=1.0, title="P_x")
    assert [t["name"] for t in spec(none)["data"]] == ["states"]
    # the layout does not depend on the threshold (nodes stay put under the slider)
    states = [t for t in spec(fig)["data"] if t["name"] == "states"][0]
    states_none = spec(none)["data"][0]
    np.testing.assert_allclose(decode(states["x"]), decode(states_none["x"]))


def test_bootstrap_figure_marks_mean_and_interval():
    v = np.array([1.0, 2.0, 3.0, 4.0])
    fig = plots.bootstrap_figure(v, label="Inv-Entropy", interval=(1.5, 3.5))
    shapes = spec(fig)["layout"]["shapes"]
    assert any(s["type"] == "line" and s["x0"] == pytest.approx(2.5) for s in shapes)
    assert any(s["type"] == "rect" and s["x0"] == 1.5 and s["x1"] == 3.5 for s in shapes)
    np.testing.assert_allclose(decode(spec(fig)["data"][0]["x"]), v)


def test_gaap_figures_use_fitness_and_delta():
    gens = [
        [{"text": "a", "fitness": 0.9, "kind": "initial", "in_per": True}],
        [
            {"text": "b", "fitness": 0.8, "kind": "crossover"},
            {"text": "c", "fitness": 0.6, "kind": "mutation"},
        ],
    ]
    fig = plots.gaap_generations_figure(gens, delta=0.7, upto=1)
    data = spec(fig)["data"]
    ys = sorted(
        float(y)
        for t in data
        if t["name"] in ("initial", "crossover", "mutation")
        for y in decode(t["y"])
    )
    assert ys == [0.6, 0.8, 0.9]
    star = next(t for t in data if "Per" in t["name"])
    assert list(decode(star["y"])) == [0.9]
    assert spec(fig)["layout"]["shapes"][0]["y0"] == 0.7
    only0 = plots.gaap_generations_figure(gens, delta=0.7, upto=0)
    assert sum(len(decode(t["y"])) for t in spec(only0)["data"] if "Per" not in t["name"]) == 1
    box = plots.gaap_fitness_box_figure(gens, delta=0.7)
    assert [t["name"] for t in spec(box)["data"]] == ["t=0", "t=1"]


def test_uq_temperature_figure_normalizes_per_method():
    curves = {"a": np.array([[1.0, 2.0, 3.0], [1.0, 3.0, 5.0]]), "b": np.array([10.0, 10.0, 10.0])}
    fig = plots.uq_temperature_figure([0.3, 0.7, 1.0], curves, normalize=True)
    a = decode(spec(fig)["data"][0]["y"])
    np.testing.assert_allclose(
        a, [0.0, 0.375, 0.75]
    )  # scaled over all its values (1..5), then averaged
    np.testing.assert_allclose(decode(spec(fig)["data"][1]["y"]), 0.0)  # constant → flat at 0
    raw = plots.uq_temperature_figure([0.3, 0.7, 1.0], curves, normalize=False)
    np.testing.assert_allclose(decode(spec(raw)["data"][0]["y"]), [1.0, 2.5, 4.0])


def test_evaluation_figures():
    from invent_core.evaluation.metrics import rejection_curve, reliability_diagram

    correct = np.array([1, 1, 0, 0, 1, 0])
    u = {
        "good": np.array([0.1, 0.2, 0.9, 0.8, 0.3, 0.7]),
        "bad": np.array([0.9, 0.8, 0.1, 0.2, 0.7, 0.3]),
    }
    roc = spec(plots.roc_figure(correct, u))
    assert roc["data"][1]["name"].endswith("(1.000)") and roc["data"][2]["name"].endswith("(0.000)")
    rej = spec(plots.rejection_figure({m: rejection_curve(correct, v) for m, v in u.items()}))
    assert decode(rej["data"][0]["y"])[0] == pytest.approx(0.5)
    rel = spec(
        plots.reliability_figure(
            {"good": reliability_diagram(correct, u["good"], n_bins=4, cross_fit=False)}
        )
    )
    assert rel["data"][1]["name"].startswith("good (ECE")


def test_tables(walk):
    qs = ["q0", "q1", "q2", "q3"]
    sim_x = np.full((4, 4), 0.8)
    df = tables.perturbations_table(qs, sim_x, walk.p_x)
    assert list(df["question"]) == qs and df["affinity to x0"].tolist() == [0.8] * 4
    grid = tables.responses_table(qs, [["a", "b"], ["c", "d"], ["e", "f"], ["g", "h"]])
    assert grid.shape == (4, 3) and grid.loc["x2", "rep 2"] == "f"
    cmp = tables.comparison_table(
        {"minilm": {"inv_entropy": 1.0}, "mpnet": {"inv_entropy": 1.5}},
        labels={"inv_entropy": "Inv-Entropy"},
    )
    assert cmp.loc["Inv-Entropy", "spread"] == pytest.approx(0.5)
    html = tables.style_comparison(cmp).to_html()
    assert "#ffe0b2" in html  # the 50 % difference is highlighted


def test_results_frame_formats_and_marks():
    from invent_core.evaluation.tables import tsu_results_table

    rt = tsu_results_table({"a": {"TSU(1.0,1.4)": 0.5}, "b": {"TSU(1.0,1.4)": 0.25}})
    df, marks = tables.results_frame(rt)
    assert df.loc["a"].iloc[0] == "50.00" and marks[0, 0] == "best" and marks[1, 0] == "second"
    assert "font-weight: bold" in tables.style_marks(df, marks).to_html()


def test_the_leaderboard_cells_show_the_interval_the_caption_promises():
    """The Evaluation caption says "± std [95 % interval]": each cell shows both."""
    from invent_core.evaluation.tables import Column, ResultsTable

    rt = ResultsTable(
        ("a", "b"), (Column("auroc", "AUROC", True),), np.array([[0.8], [0.6]]), np.array([[0.02], [0.03]]),
        ci=np.array([[[0.76, 0.84]], [[np.nan, np.nan]]]),
    )  # fmt: skip
    df, _ = tables.results_frame(rt)
    assert df.loc["a"].iloc[0] == "0.800 ± 0.020 [0.760, 0.840]"
    assert df.loc["b"].iloc[0] == "0.600 ± 0.030"  # no interval computed: none shown


def test_a_difference_of_equal_matrices_is_found_before_it_is_drawn_blank():
    a = np.array([[0.5, 0.5], [0.25, 0.75]])
    assert plots.same_matrix(a, a.copy())
    assert not plots.same_matrix(a, a + np.array([[1e-6, -1e-6], [0, 0]]))


def test_settings_defaults_validation_and_keys():
    s = Settings()
    run = s.run_config()
    assert (run.n_perturbations, run.n_replications, run.score.n_bootstrap, run.temperature) == (
        9,
        5,
        30,
        0.7,
    )
    assert s.key("q") == Settings().key("q") != Settings(run=s.run_config(seed=1)).key("q")
    assert Settings.from_dict({**s.to_dict(), "unknown": 1}) == s
    assert "api" not in json.dumps(s.to_dict()).lower()
    with pytest.raises(ValueError, match="n_perturbations must be at least 1"):
        Settings.from_dict({"n_perturbations": 0})
    with pytest.raises(ValueError, match="temperature must be in"):
        Settings.from_dict({"temperature": 3.0})
    assert secret_fingerprint("sk-secret") != "sk-secret" and "secret" not in secret_fingerprint(
        "sk-secret"
    )
    assert secret_fingerprint(None) == ""


def test_run_fingerprint_changes_with_responses():
    class R:
        questions = ["q"]
        responses = [["a"]]
        settings = {"seed": 0}

    a = run_fingerprint(R)
    R.responses = [["b"]]
    assert run_fingerprint(R) != a


def test_parse_temperatures():
    assert experiments.parse_temperatures("0.3, 0.7,1.0; 1.4") == [0.3, 0.7, 1.0, 1.4]
    with pytest.raises(ValueError, match="strictly increasing"):
        experiments.parse_temperatures("0.7, 0.3")
    with pytest.raises(ValueError, match="numbers separated by commas"):
        experiments.parse_temperatures("hot, cold")
    with pytest.raises(ValueError, match=r"lie in \[0, 2\]"):
        experiments.parse_temperatures("0.5, 3")


def test_tsu_arrays_roundtrip():
    from invent_core.experiments import ExperimentConfig, ExperimentResult

    rows = [
        {"id": q, "question": q, "temperature": t, "inv_entropy": v, "p_true": float("nan")}
        for q, base in (("a", 0.0), ("b", 1.0))
        for t, v in ((0.3, base + 0.1), (1.0, base + 0.2))
    ]
    result = ExperimentResult(rows, ["inv_entropy", "p_true"], tsu={})
    payload = experiments.tsu_payload(result, [0.3, 1.0], ExperimentConfig(dataset="triviaqa"))
    temps, questions, uq = experiments.tsu_arrays(json.loads(json.dumps(payload)))
    assert temps == [0.3, 1.0] and questions == ["a", "b"]
    assert set(uq) == {"inv_entropy"}  # all-NaN method left out
    np.testing.assert_allclose(uq["inv_entropy"], [[0.1, 0.2], [1.1, 1.2]])
    with pytest.raises(ValueError, match="not a dashboard TSU file"):
        experiments.tsu_arrays({"format": "x"})


def test_eval_arrays_validates():
    with pytest.raises(ValueError, match="not a dashboard evaluation file"):
        experiments.eval_arrays({"rows": []})
    with pytest.raises(ValueError, match="has no questions"):
        experiments.eval_arrays({"format": experiments.EVAL_FORMAT, "rows": [], "methods": []})
    correct, table = experiments.eval_arrays(
        {
            "format": experiments.EVAL_FORMAT,
            "methods": ["inv_entropy", "p_true"],
            "rows": [
                {"correct": 1, "inv_entropy": 0.5, "p_true": None},
                {"correct": 0, "inv_entropy": 0.9, "p_true": None},
            ],
        }
    )
    assert correct.tolist() == [1, 0] and list(table) == ["inv_entropy"]


def test_shared_colour_range(walk):
    lo, hi = plots.shared_range([walk.p_x, walk.p_y])
    assert lo == min(walk.p_x.min(), walk.p_y.min()) and hi == max(walk.p_x.max(), walk.p_y.max())
    fig = plots.walk_heatmaps(walk, list("abcd"), list("efgh"), zrange=(lo, hi))["p_y"]
    data = spec(fig)["data"][0]
    assert (data["zmin"], data["zmax"]) == (lo, hi)
    assert (
        "zmin" not in spec(plots.walk_heatmaps(walk, list("abcd"), list("efgh"))["p_y"])["data"][0]
    )


def test_the_reference_figure_names_the_percentile_as_an_ordinal():
    from invent_ui.plots.measures import reference_figure

    values = np.linspace(0.0, 3.0, 50)
    for percentile, said in ((43.2, "43rd"), (1.0, "1st"), (12.4, "12th"), (22.0, "22nd")):
        fig = reference_figure(values, 1.0, percentile=percentile)
        (note,) = [a.text for a in fig.layout.annotations]
        assert note == f"this question ({said} percentile)"


def test_measures_on_different_scales_get_an_axis_each():
    table = {
        "minilm": {"inv_entropy": 2.99, "wd_px_py": 0.21, "max_py_x": 0.35},
        "mpnet": {"inv_entropy": 3.01, "wd_px_py": 0.05, "max_py_x": 0.30},
    }
    fig = plots.measures_comparison_figure(table, labels={"inv_entropy": "Inv-Entropy"})
    axes = {(t.xaxis, t.yaxis) for t in fig.data}
    assert len({y for _, y in axes}) == 3  # one y axis per measure, none shared
    by_axis = {}
    for t in fig.data:
        by_axis.setdefault(t.yaxis, []).append(float(t.y[0]))
    assert sorted(by_axis.values(), key=max)[0] == [0.21, 0.05]  # WD alone on its own scale
    assert [a.text for a in fig.layout.annotations][:1] == ["Inv-Entropy"]
    assert sum(t.showlegend for t in fig.data) == 2  # one legend entry per embedder


def test_every_method_on_one_chart_has_its_own_line_style():
    """Thirteen methods (and more) on a ROC chart: no two lines look the same."""
    from invent_ui.plots.style import PALETTE

    rng = np.random.default_rng(0)
    correct = np.array([1, 0] * 10)
    table = {f"m{k}": rng.normal(size=20) for k in range(len(PALETTE) + 7)}
    fig = plots.roc_figure(correct, table)
    styles = [(t.line.color, t.line.dash) for t in fig.data if t.name != "random"]
    assert len(styles) == len(table) and len(set(styles)) == len(styles)
