"""docs/RESULTS.md from saved runs: it parses, and every number matches the runs it was made from."""

from __future__ import annotations

import csv
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from invent_core.config import RunConfig
from invent_core.evaluation.metrics import evaluate_scores
from invent_core.experiments import ExperimentConfig

ROOT = Path(__file__).resolve().parents[2]
PAPER_TEX = Path("/work/shared/paper/inv_entropy_paper.tex")
QWEN = (
    "local:sha256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32|model=qwen0.5b"
)


def _results(name: str):
    """A module of ``scripts/results_report`` (what make_results.py runs), scripts/ on sys.path."""
    scripts = str(ROOT / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)  # the package imports its sibling script breakdown.py
    return importlib.import_module(f"results_report.{name}")


def _evaluate_folder(root: Path, dataset: str, ids: list[str], correct, table: dict) -> Path:
    """What ``evaluate`` writes, made from synthetic scores with the real metric code."""
    folder = root / f"evaluate-{dataset}"
    (folder / "runs").mkdir(parents=True)
    cfg = ExperimentConfig(run=RunConfig(), dataset=dataset, limit=len(ids))
    correct = np.asarray(correct)
    both = 0 < correct.sum() < correct.size
    ev = evaluate_scores(table, correct, n_bootstrap=10, seed=0) if both else None
    results = ev.to_dict() if ev else {
        "metrics": [], "n_questions": int(correct.size), "n_correct": int(correct.sum()),
        "n_boot": 10, "seed": 0, "skipped": {m: "n/a — all answers wrong" for m in table},
        "results": {},
    }  # fmt: skip
    reason = "n = 24" if both else "n/a — all answers wrong"
    results |= {"labels": {m: m.replace("_", " ").title() for m in table},
                "judgement": {"ok": bool(both), "reason": reason}, "failed": [],
                "sample": f"{len(ids)} of 300 questions, drawn with seed 0"}  # fmt: skip
    (folder / "results.json").write_text(json.dumps(results))
    meta = {"config": cfg.to_dict(), "sample": results["sample"], "wall_seconds": 75.0}
    (folder / "config.json").write_text(json.dumps(meta))
    with open(folder / "scores.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "correct", "error", *table])
        for i, q in enumerate(ids):
            w.writerow([q, int(correct[i]), "", *(table[m][i] for m in table)])
    for i, q in enumerate(ids):
        run = {"identities": {"llm": QWEN}, "timings": {"total": 2.5}, "question": q}
        (folder / "runs" / f"{i}.json").write_text(json.dumps(run))
    return folder


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    from invent_core.questions.datasets import load_dataset

    root = tmp_path_factory.mktemp("results") / "runs"
    rng = np.random.default_rng(0)
    # mmlu: informative Inv-Entropy, noisy LexSim, 12 right and 12 wrong
    correct = np.array([1, 0] * 12)
    mmlu = {"inv_entropy": 1.0 - correct + rng.normal(0, 0.3, 24), "lexsim": rng.normal(0, 1, 24)}
    folder = _evaluate_folder(root, "mmlu", [f"m{i}" for i in range(24)], correct, mmlu)
    saved = json.loads((folder / "results.json").read_text())  # two questions' rewordings copies
    saved["degenerate"] = [{"id": i, "reason": "degenerate result: …"} for i in ("m3", "m7")]
    (folder / "results.json").write_text(json.dumps(saved))
    # triviaqa: every answer wrong
    _evaluate_folder(
        root, "triviaqa", ["t0", "t1", "t2"], [0, 0, 0], {"inv_entropy": [1.0, 2.0, 3.0]}
    )
    # the testbed: 25 questions, easy ones right, hard ones wrong
    examples = load_dataset("arithmetic")[:25]
    level = np.array([ex.extra["difficulty"] for ex in examples])
    right = (level <= 2).astype(int)
    arith = {"inv_entropy": level + rng.normal(0, 0.1, 25), "lexsim": rng.normal(0, 1, 25)}
    _evaluate_folder(root, "arithmetic", [ex.id for ex in examples], right, arith)
    # a TSU folder
    tsu_dir = root / "tsu-triviaqa"
    (tsu_dir / "runs").mkdir(parents=True)
    tsu = {"inv_entropy": {"TSU(1.0,1.4)": 0.5, "TSU(0.7–1.4)": 0.25}}
    judgement = {"ok": False, "reason": "too few to judge: 4 questions (< 20)"}
    (tsu_dir / "tsu.json").write_text(json.dumps({"temperatures": [0.7, 1.0, 1.4], "tsu": tsu,
                                                  "judgement": judgement}))  # fmt: skip
    cfg = ExperimentConfig(dataset="triviaqa", limit=4)
    (tsu_dir / "config.json").write_text(json.dumps({"config": cfg.to_dict()}))
    study = {"runs/evaluate-mmlu": {"n": 24, "accuracy": 0.5, "rows": [
        {"kernel": "shifted_cosine", "auroc": 0.61, "auroc_std": 0.05, "vs_paper": 0.0,
         "vs_paper_std": 0.0, "mean": 2.3, "std": 0.002, "iqr": 0.003},
        {"kernel": "abs_cosine", "auroc": 0.66, "auroc_std": 0.05, "vs_paper": 0.05,
         "vs_paper_std": 0.02, "mean": 2.2, "std": 0.02, "iqr": 0.03}]}}  # fmt: skip
    (root / "kernel_study.json").write_text(json.dumps(study))
    out = root.parent / "docs" / "RESULTS.md"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_results.py"), "--runs", str(root), "--out", str(out)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return root, out, out.read_text()


def _tables(text: str) -> list[list[list[str]]]:
    """Every Markdown table as rows of cells (header first, separator dropped)."""
    tables, cur = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if not all(set(c) <= {"-"} for c in cells):
                cur.append(cells)
        elif cur:
            tables.append(cur)
            cur = []
    return tables


def test_every_table_parses(report):
    _, _, text = report
    tables = _tables(text)
    assert len(tables) >= 7  # overview, 3 datasets, TSU, difficulty, kernels
    for table in tables:
        assert len({len(row) for row in table}) == 1, table[0]
    assert "nan" not in text.lower()


def test_numbers_match_the_saved_runs_and_the_paper(report):
    root, _, text = report
    res = json.loads((root / "evaluate-mmlu" / "results.json").read_text())
    table = next(t for t in _tables(text) if "paper AUROC (↑)" in t[0])
    row = next(r for r in table if r[0] == "Inv Entropy")
    cell = res["results"]["inv_entropy"]["auroc"]
    lo, hi = cell["ci95"]  # the centre is the value on the sample, then std and interval
    assert row[1] == f"{cell['point']:.3f} ± {cell['std']:.3f} [{lo:.3f}, {hi:.3f}]"
    assert row[table[0].index("paper AUROC (↑)")] == "0.780 ± 0.041"  # paper Table 1, MMLU
    assert "paper AUPRC, its “PRR” (↑)" in table[0]  # the paper's PRR column is its AUPRC
    brier = res["results"]["inv_entropy"]["brier_cv"]
    lo, hi = brier["ci95"]
    cross = row[table[0].index("Brier, cross-fit (↓)")]
    assert cross == f"{brier['point']:.3f} ± {brier['std']:.3f} [{lo:.3f}, {hi:.3f}]"
    ece = res["results"]["inv_entropy"]["ece"]
    debiased = max(0.0, 2 * ece["point"] - ece["mean"])
    assert (
        f"resampled mean {ece['mean']:.3f}, debiased {debiased:.3f}"
        in row[table[0].index("ECE, cross-fit (↓)")]
    )
    assert "accuracy 0.500 (12 of 24)" in text
    assert "n = 9, r = 5, T = 0.7, perturber paraphrase, embedder minilm" in text
    assert "model Qwen2.5-Coder-0.5B-Instruct" in text and "24 saved runs" in text
    assert "1 min 00 s generating and scoring" in text and "the last call took 1 min 15 s" in text


def test_weak_model_is_said_plainly(report):
    _, _, text = report
    section = text.split("### triviaqa")[1].split("###")[0]
    assert "**Not judgeable: n/a — all answers wrong.**" in section


def test_testbed_by_difficulty_and_target(report):
    from invent_core.questions.datasets import load_dataset

    _, _, text = report
    part = text.split("## Testbed")[1]
    table = _tables(part)[0]
    levels = {ex.id: ex.extra["difficulty"] for ex in load_dataset("arithmetic")[:25]}
    counts = {d: sum(1 for v in levels.values() if v == d) for d in set(levels.values())}
    for row in table[1:]:
        d = int(row[0])
        assert int(row[1]) == counts[d]
        assert row[2] == ("1.00" if d <= 2 else "0.00")
    assert re.search(r"Target: .* — (met|not met): Inv-Entropy 1\.000", part)


def test_tsu_beside_the_papers_and_kernel_study(report):
    _, _, text = report
    tsu = next(t for t in _tables(text) if "paper TSU(1.0,1.4)" in t[0])
    assert tsu[1] == ["Inv-Entropy", "50.00", "25.00", "77.55", "47.21"]
    assert "**Not judgeable: too few to judge: 4 questions (< 20).**" in text
    kernels = next(t for t in _tables(text) if t[0][0] == "kernel")
    assert kernels[2] == ["abs_cosine", "0.660 ± 0.050", "0.050 ± 0.020", "0.0200", "0.0300"]


def test_plots_are_pngs(report):
    from PIL import Image

    _, out, text = report
    for name in ("results_mmlu_auroc.png", "results_testbed_difficulty_arithmetic.png"):
        assert f"]({name})" in text
        with Image.open(out.parent / name) as img:
            assert img.format == "PNG" and img.size == (900, 420)


@pytest.mark.skipif(not PAPER_TEX.is_file(), reason="the paper's source is not on this machine")
def test_the_papers_numbers_are_copied_right():
    tex = PAPER_TEX.read_text(encoding="utf-8")
    mod = _results("paper")
    body = tex.split(r"\label{tab:accuracy_based}")[1].split(r"\end{tabular}")[0]
    labels = {"Semantic Entropy": "semantic_entropy", "Kernel Entropy": "kernel_entropy",
              "VU": "verbalized", "P(True)": "p_true", "LexSim": "lexsim", "DegMat": "degmat",
              "LUQ": "luq", "KLE": "kle", "Inv-Entropy": "inv_entropy", "NI-Entropy": "ni_entropy",
              "NR-Inv-Entropy": "nr_inv_entropy", "WD-px-py": "wd_px_py", "MAX-py-x": "max_py_x"}  # fmt: skip
    metric = None
    seen = 0
    for line in body.splitlines():
        for key, name in (("AUROC", "auroc"), ("PRR", "prr"), ("Brier", "brier")):
            if f"multirow{{13}}{{*}}{{{key}" in line or f"multirow{{12}}{{*}}{{{key}" in line:
                metric = name
        cells = [c.strip() for c in line.strip().rstrip("\\").split("&")]
        if metric and len(cells) == 7 and cells[1] in labels:
            nums = [float(x) for x in re.findall(r"\d\.\d{3}", " ".join(cells[2:]))]
            got = mod.PAPER_TABLE1[metric][labels[cells[1]]]
            assert [v for d in mod.PAPER_DATASETS for v in got[d]] == nums, (metric, cells[1])
            seen += 1
    assert seen == 39


def test_the_shipped_report_is_what_its_saved_runs_give(tmp_path):
    """docs/RESULTS.md is regenerated from docs/results/ (the committed runs) to the same text."""
    shipped = ROOT / "docs" / "RESULTS.md"
    out = tmp_path / "docs" / "RESULTS.md"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_results.py"),
         "--runs", str(ROOT / "docs" / "results"), "--out", str(out)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    made_by = _results("report").MADE_BY
    want, got = shipped.read_text(encoding="utf-8"), out.read_text(encoding="utf-8")
    # the report names the commit it was made at, on a clean tree, and is otherwise the same text
    line = next(s for s in want.splitlines() if s.startswith(made_by))
    assert re.fullmatch(
        re.escape(made_by) + r"scripts/make_results\.py with invent \S+ at commit [0-9a-f]{12} "
        r"\(clean tree\)\.",
        line,
    ), line
    assert _without(got, made_by) == _without(want, made_by)
    tables = _tables(want)
    assert tables and all(len({len(row) for row in t}) == 1 for t in tables)


def _without(text: str, start: str) -> list[str]:
    return [s for s in text.splitlines() if not s.startswith(start)]


def test_graph_judge_section_reads_both_judges(tmp_path):
    """Each graph baseline's AUROC and their ρ under both judges, as written."""
    mod = _results("studies")
    names = ["kernel_entropy", "degmat", "luq"]
    rho = {a: {b: 1.0 if a == b or "kernel_entropy" not in (a, b) else 0.4 for b in names}
           for a in names}  # fmt: skip
    data = {
        "n_questions": 50, "n_correct": 30, "seconds": 12.0, "load": 1.5,
        "auroc": {m: {"embedding": 0.8, "llm": 0.6 + i / 10} for i, m in enumerate(names)},
        "spearman_embedding": {a: dict.fromkeys(names, 1.0) for a in names},
        "spearman_llm": rho,
    }  # fmt: skip
    (tmp_path / "graph_llm_judge.json").write_text(json.dumps(data))
    text = "\n".join(mod.graph_judge_section(tmp_path, "Arithmetic", {"degmat": "DegMat"}))
    assert "| DegMat | 0.800 | 0.700 |" in text
    assert "| kernel_entropy / DegMat | 1.000 | 0.400 |" in text
    assert "| DegMat / luq | 1.000 | 1.000 |" in text
    assert mod.graph_judge_section(tmp_path / "none", "x", {}) == []


def test_cleaning_gate_section_gives_the_same_questions_and_each_rescoring(tmp_path):
    """RESULTS says how the meaning check and the cleaning moved the scores."""
    mod = _results("studies")
    row = {"mean": 0.9, "std": 0.05, "delta": 0.05, "delta_std": 0.02, "p_better": 0.9}
    data = {
        "saved_runs": [{
            "folder": "evaluate-x", "n_questions": 30, "n_correct": 17, "n_boot": 200,
            "saved": {**row, "mean": 0.85}, "rows": {"flips_padded": {"label": "padded", **row}},
            "canonical_changed": 0, "replies": 1500, "flipped_states": 65,
            "questions_with_flips": 14, "non_answers": 29,
        }],
        "same_questions": {"old": "a", "new": "b", "n_questions": 30, "n_correct": 17,
                           "n_boot": 200, "before": {**row, "mean": 0.85}, "after": row},
    }  # fmt: skip
    (tmp_path / "cleaning_gate.json").write_text(json.dumps(data))
    text = "\n".join(mod.cleaning_gate_section(tmp_path))
    assert "0.850 ± 0.050 → 0.900 ± 0.050, Δ +0.050 ± 0.020" in text
    assert (
        "| evaluate-x (30 q) | 0.850 ± 0.050 | 0.900 ± 0.050 (+0.050 ± 0.020) | 65 in 14 q |"
        in text
    )


def test_best_baseline_names_every_baseline_of_a_tie():
    """Three graph baselines that coincide are named together, not whichever sorts last."""
    cell = {"auroc": {"mean": 0.6961, "std": 0.05}}
    res = {"results": {"kernel_entropy": cell, "degmat": cell, "luq": {"auroc": {"mean": 0.6958, "std": 0.05}},
                       "lexsim": {"auroc": {"mean": 0.691, "std": 0.05}}, "inv_entropy": {"auroc": {"mean": 0.9, "std": 0.1}}},
           "labels": {"kernel_entropy": "Kernel Entropy", "degmat": "DegMat", "luq": "LUQ"}}  # fmt: skip
    assert _results("text").best_baseline(res) == (0.696, "Kernel Entropy = DegMat = LUQ")
    res["results"]["lexsim"]["auroc"]["mean"] = 0.71
    assert _results("text").best_baseline(res) == (0.71, "lexsim")
    assert _results("text").best_baseline({"results": {}}) == (None, "")


def test_paired_prose_follows_from_the_intervals_alone():
    """Ahead, behind, not distinguishable: read off each interval, with the questions needed."""
    rng = np.random.default_rng(1)
    c = np.array([1, 0] * 30)
    good = 1.0 - c + rng.normal(0, 0.4, 60)
    ev = evaluate_scores({"inv_entropy": good, "lexsim": good + rng.normal(0, 0.05, 60),
                          "kle": -good}, c, n_bootstrap=200, metrics=("auroc",))  # fmt: skip
    res = ev.with_paired(["inv_entropy"]).to_dict() | {
        "labels": {"inv_entropy": "Inv-Entropy", "lexsim": "LexSim", "kle": "KLE"},
        "judgement": {"ok": True},
    }
    text = "\n".join(_results("reading").paired_lines(res))
    d = res["paired"]["inv_entropy"]
    assert d["kle"]["verdict"] == "ahead" and "is ahead of KLE (Δ +" in text
    if d["lexsim"]["verdict"] == "not distinguishable at this size":
        assert "not distinguishable at this size from LexSim" in text
        assert "would need" in text
    res["judgement"] = {
        "ok": False,
        "reason": "accuracy 22% is not clearly above the 25% of guessing",
    }
    assert "the ranking is not read" in _results("reading").paired_lines(res)[0]


def test_each_evaluation_says_how_many_questions_are_degenerate(report):
    _, _, text = report
    overview = next(t for t in _tables(text) if t[0][-1] == "degenerate")
    cells = {row[0].split(" (")[0]: row[-1] for row in overview[1:]}
    assert cells["mmlu"] == "2 of 24"  # results.json's list
    assert cells["triviaqa"] == "not recorded"  # no list, and its runs cannot tell
    section = text.split("### mmlu")[1].split("###")[0]
    assert "**Degenerate questions: 2 of 24** (from results.json): `m3`, `m7`." in section
    assert "not recorded" in text.split("### triviaqa")[1].split("###")[0]


def test_a_folder_without_the_list_is_counted_from_its_saved_runs(tmp_path):
    import dataclasses

    from invent_core.engine.artifact import RunArtifact
    from invent_ui import assets

    run = RunArtifact.load(assets.DEMO_RUN)
    copies = dataclasses.replace(run, question="Who?", questions=["Who?"] * len(run.questions))
    folder = _evaluate_folder(tmp_path, "x", ["a", "b"], [0, 0], {"inv_entropy": [0.1, 0.9]})
    for path in (folder / "runs").glob("*.json"):
        path.unlink()
    run.save(folder / "runs" / "a.json")
    copies.save(folder / "runs" / "b.json")
    rows = list(csv.DictReader((folder / "scores.csv").open()))
    rows[0]["question"], rows[1]["question"] = run.question, "Who?"
    with open(folder / "scores.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    mod, loading = _results("degenerate"), _results("loading")
    found = mod.degenerate_of(loading.load_folder(folder))
    assert (found.n, found.total, found.ids) == (1, 2, ("b",))
    assert "from its 2 saved runs" in mod.degenerate_sentence(loading.load_folder(folder), found)
    (folder / "runs" / "a.json").unlink()  # a judged question without its run: unknown
    assert mod.degenerate_of(loading.load_folder(folder)) is None


def test_a_note_cannot_quote_a_value_its_source_does_not_give():
    text = _results("text")
    values = {"sciq.right": "54"}
    assert text.fill_note("{{sciq.right}} right", values) == "54 right"
    with pytest.raises(KeyError, match=r"spread\.md: \{\{sciq\.wrong\}\}.*near: sciq\.right"):
        text.fill_note("{{sciq.wrong}} wrong", values, "spread.md")


def test_a_notes_numbers_follow_the_files_they_come_from(tmp_path):
    """The values a note quotes are read from results.json: change it and the note changes."""
    loading, text = _results("loading"), _results("text")
    shipped = ROOT / "docs" / "results" / "evaluate-sciq-140-1.5b"
    folder = tmp_path / shipped.name
    folder.mkdir()
    for name in ("config.json", "results.json"):
        (folder / name).write_bytes((shipped / name).read_bytes())
    res = json.loads((folder / "results.json").read_text())
    values = text.note_values([loading.load_folder(folder)])
    assert values["sciq-140-1.5b.right"] == str(res["n_correct"])
    assert (
        values["sciq-140-1.5b.auroc.inv_entropy"]
        == f"{res['results']['inv_entropy']['auroc']['point']:.3f}"
    )
    res["n_correct"] -= 1
    (folder / "results.json").write_text(json.dumps(res))
    again = text.note_values([loading.load_folder(folder)])
    assert again["sciq-140-1.5b.right"] == str(res["n_correct"])


@pytest.mark.parametrize("name", ["spread.md"])
def test_a_templated_note_writes_no_number_of_the_runs_by_hand(name):
    """Every number with a decimal point in these notes is a placeholder filled from the runs."""
    body = (ROOT / "docs" / "results" / name).read_text(encoding="utf-8")
    outside = re.sub(r"\{\{[^{}]+\}\}", "", body)
    assert not re.findall(r"\d\.\d\d", outside), name  # "T = 0.7", "1.5B" are settings


def test_a_tsu_sweep_made_with_older_settings_says_so(tmp_path):
    """The TSU table names the settings it was made with and flags the ones today changed."""
    from dataclasses import replace

    from invent_core.config.paraphrase import REWORDING_RULES

    loading, sections = _results("loading"), _results("sections")
    folder = tmp_path / "tsu-arithmetic"
    (folder / "runs").mkdir(parents=True)
    tsu = {"inv_entropy": {"TSU(1.0,1.4)": 0.5}}
    (folder / "tsu.json").write_text(json.dumps({"temperatures": [1.0, 1.4], "tsu": tsu}))
    run = RunConfig()
    gate = replace(
        run.paraphrase.gate, max_extra_requests=run.paraphrase.gate.max_extra_requests - 1
    )
    older = run.replace(paraphrase=replace(run.paraphrase, gate=gate))
    same = {"rules": REWORDING_RULES, "replayed": 20, "changed": [], "unavailable": {}}
    moved = same | {"changed": ["q1.json"]}
    for cfg, rules, replay, flagged in (
        (run, REWORDING_RULES, None, False),
        (older, REWORDING_RULES, None, True),
        (run, REWORDING_RULES - 1, None, True),  # today's options, an older round of rules
        (run, REWORDING_RULES - 1, same, False),  # ... that replays to the same perturbations
        (run, REWORDING_RULES - 1, moved, True),  # ... that would choose others for a question
        (run, None, same, True),  # made before config.json recorded the round: not trusted
        (run, None, None, True),
    ):
        meta = {
            "config": ExperimentConfig(run=cfg, dataset="arithmetic", limit=20).to_dict(),
            "rewording_rules": rules,
        }
        (folder / "config.json").write_text(json.dumps(meta))
        (folder / "stale_check.json").write_text(json.dumps({"rewordings": replay}))
        text = "\n".join(sections.tsu_section(loading.load_folder(folder)))
        assert ("older than today's defaults" in text) == flagged, text
        assert "re-asks" in text and "rewording rules round" in text or rules is None, text
        assert ("the same perturbations" in text) == (replay is same and rules is not None), text


def test_a_folder_shipped_without_runs_names_the_model_its_config_records():
    loading = _results("loading")
    folder = loading.load_folder(ROOT / "docs" / "results" / "evaluate-arithmetic-100-gaap")
    assert folder.n_runs == 0 and folder.llm == "Qwen2.5-Coder-0.5B-Instruct"


def test_the_settings_line_says_how_many_requests_the_cache_answered():
    """A folder re-made from the LLM cache records almost no time; the line says why."""
    loading, text = _results("loading"), _results("text")
    path = ROOT / "docs" / "results" / "evaluate-arithmetic-100"
    usage = [json.loads(p.read_text())["usage"] for p in sorted((path / "runs").glob("*.json"))]
    calls = sum(u["requests"] + u["perturb_requests"] for u in usage)
    cached = sum(u["cached"] + u["perturb_cached"] for u in usage)
    assert cached > 0
    line = text.settings_line(loading.load_folder(path))
    assert f"{cached} of {calls} LLM requests answered from the cache" in line


def _option(tune, report, all_, vs_best, verdict, within, vs_default=None, holm=False):
    cell = {
        "tune": {"value": tune, "ci95": [0, 1]},
        "report": {"value": report, "ci95": [0, 1]},
        "all": {"value": all_, "ci95": [0, 1]},
        "vs_best_baseline": {"difference": vs_best, "ci95": [vs_best - 0.1, vs_best + 0.1],
                             "verdict": verdict},
        "within_count_strata": {"value": within, "ci95": [0, 1]},
    }  # fmt: skip
    if vs_default is not None:
        lo, hi = vs_default
        cell["vs_default"] = {"difference": (lo + hi) / 2, "ci95": [lo, hi],
                              "holm": {"significant": holm}}  # fmt: skip
    return cell


def test_the_answer_study_reading_takes_its_words_from_the_data_too():
    # the note's verdict words (which option comes first, ahead/behind, which verdicts
    # change, where the count carries the ranking) are computed, not written by hand
    studies = _results("studies")
    data = {
        "provenance": {"commit": "0123456789abcdef"},
        "folders": [
            {"folder": "evaluate-arith", "best_baseline": "kle", "count_auroc": None,
             "options": {
                 "rules+distinct": _option(0.60, 0.80, 0.70, -0.12, "behind", 0.80),
                 "embedding+distinct": _option(0.70, 0.78, 0.72, -0.10, "behind", 0.82,
                                               (0.003, 0.05), holm=False),
             }},
            {"folder": "evaluate-quiz", "best_baseline": "p_true", "count_auroc": None,
             "options": {
                 "rules+distinct": _option(0.50, 0.60, 0.55, 0.02, "not distinguishable", 0.50),
                 "embedding+distinct": _option(0.52, 0.56, 0.54, -0.2, "behind", 0.6,
                                               (-0.04, 0.02)),
                 "judge+distinct": _option(0.9, 0.9, 0.9, 0.1, "ahead", 0.9, (0.2, 0.3), True),
             }},
        ],
    }  # fmt: skip
    v = studies.answer_similarity_values(data)
    # judge+distinct is measured on one folder only, so it cannot come first
    assert v["asim.first_tune"] == "embedding + distinct" and v["asim.first_tune_mean"] == "0.610"
    assert v["asim.first_report"] == "rules + distinct"
    assert v["asim.arith.best"] == "KLE" and v["asim.quiz.best"] == "P(True)"
    assert v["asim.arith.rules+distinct.side"] == "behind"
    assert v["asim.quiz.rules+distinct.side"] == "ahead of"
    assert v["asim.quiz.rules+distinct.verdict"] == "not distinguishable"
    assert v["asim.verdict_changes"] == (
        "on quiz embedding + distinct read *behind*; on quiz judge + distinct read *ahead*"
    )
    assert v["asim.within_lower"] == "quiz"  # 0.50 within the strata against 0.55 overall
    assert (v["asim.vs_default.pairs"], v["asim.vs_default.excluding_zero"]) == ("3", "2")
    assert (v["asim.vs_default.holm"], v["asim.vs_default.by_chance"]) == ("1", "0.2")
    assert v["asim.vs_default.largest"] == "0.250"
    assert v["asim.vs_default.reading"].startswith("1 of the differences hold under Holm")
    # nothing to say is said as "none", never left out (the note would fail to fill)
    calm = {"folders": [dict(data["folders"][0], options={
        "rules+distinct": _option(0.6, 0.8, 0.7, -0.1, "behind", 0.8)})]}  # fmt: skip
    w = studies.answer_similarity_values(calm)
    assert w["asim.verdict_changes"] == "none" and w["asim.within_lower"] == "none"
    two = [dict(data["folders"][1], options={k: v for k, v in data["folders"][1]["options"].items()
                                              if k != "judge+distinct"})]  # fmt: skip
    none_holds = studies.answer_similarity_values({"folders": two})
    assert none_holds["asim.vs_default.reading"].startswith("no difference holds under Holm")
