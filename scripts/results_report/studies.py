"""Sections of RESULTS.md made from other saved studies beside the runs.

Accuracy of each local model (``accuracy_*.json``), the methods that coincide and
where the uncertainty comes from (``scripts/breakdown.py`` on the saved scores),
the answer-graph baselines under the LLM judge (``graph_llm_judge.json``), how
the cleaning and the meaning check moved the scores (``cleaning_gate.json``) and
the kernel study (``kernel_study.json``). A section whose file is missing is left out.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import breakdown

from invent_core.evaluation import rank_correlation
from invent_core.experiments.answer_study import DEFAULT
from invent_core.llm.names import describe_llm

from .loading import Folder
from .text import f3, folder_stem, folder_title, md_table, method_label, notes, pm


def accuracy_section(docs: Path, evaluated: set[str]) -> list[str]:
    """Accuracy of each local model per sample (``accuracy_*.json`` beside the runs folder)."""
    found = sorted(docs.glob("accuracy_*.json"))
    if not found:
        return []
    acc: dict[str, dict[str, str]] = {}
    models: list[str] = []
    for path in found:
        for res in _accuracy_rows(path):
            model = describe_llm(res["llm"])
            models += [model] if model not in models else []
            acc.setdefault(res["dataset"], {})[model] = f"{res['accuracy']:.0%} of {res['n']}"
    rows = [[ds, *(acc[ds].get(m, "–") for m in models), "yes" if ds in evaluated else "no"]
            for ds in sorted(acc)]  # fmt: skip
    band = [f"{ds} ({m}: {acc[ds][m].split(' ')[0]})" for ds in sorted(acc) if ds not in evaluated
            for m in models if m in acc[ds] and 25 <= int(acc[ds][m].split("%")[0]) <= 75]  # fmt: skip
    lines = ["## Which samples can test anything", "",
             "Accuracy of the local models on the first answer to each question (the same seeded "
             "samples of 50, `scripts/measure_accuracy.py`). An uncertainty method can only be "
             "judged where a model is right on a fair share of the questions (25–75 %); the "
             "knowledge samples are far below that for the packaged 0.5B, so they were not "
             "evaluated with it: with 0–3 right answers in 50, no AUROC means anything. One sampled "
             "answer per question at T = 0.7 is itself noisy: compare these with the accuracy of "
             "each evaluation below (larger draws of the same samples, answered with other "
             "seeds).", ""]  # fmt: skip
    lines += md_table(["dataset", *models, "evaluated here"], rows)
    if band:
        lines += ["", "In the 25–75 % band for another model, not evaluated here: "
                  + ", ".join(band) + "."]  # fmt: skip
    return lines + [""]


def _accuracy_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of ``accuracy_*.json``: ``{"provenance", "results"}``, or a bare list (older files)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return data["results"] if isinstance(data, dict) else data


def accuracy_values(docs: Path) -> dict[str, str]:
    """``accuracy.<model>.<dataset>``: a model's share right on a sample (``accuracy_<model>.json``)."""
    out = {}
    for path in sorted(docs.glob("accuracy_*.json")):
        model = path.stem.removeprefix("accuracy_")
        for res in _accuracy_rows(path):
            out[f"accuracy.{model}.{res['dataset']}"] = f"{res['accuracy']:.0%}".replace("%", " %")
    return out


def graph_judge_section(folder: Path, title: str, labels: dict[str, str]) -> list[str]:
    """The answer-graph baselines under both judges (``graph_llm_judge.json``, scripts/graph_judge.py)."""
    path = folder / "graph_llm_judge.json"
    if not path.is_file():
        return []
    g = json.loads(path.read_text(encoding="utf-8"))
    names = list(g["auroc"])
    emb, llm = g["spearman_embedding"], g["spearman_llm"]
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    body = [[labels.get(m, m), f3(g["auroc"][m]["embedding"]), f3(g["auroc"][m]["llm"])]
            for m in names]  # fmt: skip
    rho = [[f"{labels.get(a, a)} / {labels.get(b, b)}", f3(emb[a][b]), f3(llm[a][b])]
           for a, b in pairs]  # fmt: skip
    return [f"#### {title}: the answer-graph baselines with the LLM entailment judge", "",
            f"{g['n_questions']} questions ({g['n_correct']} right); the same saved answers judged "
            f"by the embedding threshold (default) and by the run's LLM asked whether two answers "
            f"mean the same ({g['seconds']:.0f} s at load {g['load']:.1f}).", "",
            *md_table(["Method", "AUROC, embedding judge", "AUROC, LLM judge"], body), "",
            *md_table(["Spearman ρ", "embedding judge", "LLM judge"], rho), ""]  # fmt: skip


def analysis_sections(
    root: Path, folders: list[Folder], values: dict[str, str] | None = None
) -> list[str]:
    """Rank agreement between methods, where the uncertainty comes from, and the breakdown."""
    evals = [f for f in folders if f.kind == "evaluate" and f.scores]
    if not evals:
        return []
    values = dict(values or {})
    for f in evals:
        values |= rho_values(f)
    lines = ["## Methods that coincide", "", *notes(root, "coincide.md", values)]
    for f in evals:
        lines += breakdown.agreement_section(f.path, folder_title(f), f.results.get("labels", {}))
    for f in evals:
        lines += graph_judge_section(f.path, folder_title(f), f.results.get("labels", {}))
    rows = [breakdown.spread_line(folder_title(f), breakdown.spread_rows(f.path)) for f in evals]
    for f, row in zip(evals, rows, strict=True):
        values |= spread_values(folder_stem(f), row)
    lines += ["## Where the uncertainty comes from (beyond the paper)", "",
              *notes(root, "spread.md", values)]  # fmt: skip
    lines += [*md_table(breakdown.SPREAD_HEADER, rows), ""]
    sections = [
        breakdown.breakdown_section(f.path, folder_title(f)) + stale_labels(f) for f in evals
    ]
    for f in evals:
        values |= breakdown_values(f)
    if any(sections):
        lines += ["## Performance breakdown (the paper's ablations, re-scored)", "",
                  *notes(root, "breakdown.md", values)]  # fmt: skip
        lines += [line for s in sections for line in s]
    return lines


def rho_values(f: Folder) -> dict[str, str]:
    """``rho.<stem>.<a>.<b>``: Spearman ρ between two methods over the evaluation's questions
    (2 decimals, as the agreement tables print it; the same reading of ``scores.csv``)."""
    rows = breakdown.read_scores(f.path)
    methods = [m for m in f.results.get("results", {}) if rows and m in rows[0]]
    if len(methods) < 2:
        return {}
    cols = {m: [float(r[m]) if r.get(m) else math.nan for r in rows] for m in methods}
    rc = rank_correlation(cols, methods)
    stem = folder_stem(f)
    return {f"rho.{stem}.{a}.{b}": f"{rc.rho[i, j]:.2f}"
            for i, a in enumerate(methods) for j, b in enumerate(methods) if i != j}  # fmt: skip


def spread_values(stem: str, row: list[str]) -> dict[str, str]:
    """A spread table row as note values: ``spread.<stem>.total`` … ``.caught``, ``.blind``."""
    _, n, wrong, total, within, across, share, caught = row
    got, _, blind = caught.partition(" of ")
    keys = ("n", "wrong", "total", "within", "across", "share", "caught", "blind")
    return {
        f"spread.{stem}.{k}": v
        for k, v in zip(keys, (n, wrong, total, within, across, share, got, blind), strict=True)
    }


def _breakdown(f: Folder) -> dict[str, Any] | None:
    path = f.path / "breakdown.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def breakdown_values(f: Folder) -> dict[str, str]:
    """breakdown.json as note values: ``breakdown.<stem>.n``, ``.right``, ``.n_boot``,
    ``.auroc`` (the default row, mean ± std), ``.default`` (its mean), ``.delta_range``
    (lowest to highest Δ of the rows), and per row ``.<row>`` (mean), ``.<row>.auroc``
    (mean ± std), ``.<row>.delta`` (paired Δ ± its std), ``.<row>.better`` /
    ``.<row>.worse`` (resamples where the row is better / not), ``.<row>.better_share``."""
    bd = _breakdown(f)
    if bd is None:
        return {}
    d = bd["default"]["auroc"]
    key = f"breakdown.{folder_stem(f)}"
    n_boot = int(bd["n_boot"])
    out = {f"{key}.n": str(bd["n_questions"]), f"{key}.right": str(bd["n_correct"]),
           f"{key}.n_boot": str(n_boot), f"{key}.auroc": f"{d['mean']:.3f} ± {d['std']:.3f}",
           f"{key}.default": f"{d['mean']:.3f}"}  # fmt: skip
    deltas = []
    for row, rec in bd["rows"].items():
        a = rec.get("auroc")
        if not a:
            continue
        deltas.append(a["delta"])
        better = round(a["p_better"] * n_boot)
        out |= {f"{key}.{row}": f"{a['mean']:.3f}", f"{key}.{row}.auroc": pm(a["mean"], a["std"]),
                f"{key}.{row}.delta": f"{a['delta']:+.3f} ± {a['delta_std']:.3f}",
                f"{key}.{row}.better": str(better), f"{key}.{row}.worse": str(n_boot - better),
                f"{key}.{row}.better_share": f"{a['p_better']:.0%}".replace("%", " %")}  # fmt: skip
    if deltas:
        out[f"{key}.delta_range"] = f"{min(deltas):+.3f} to {max(deltas):+.3f}"
    return out


def stale_labels(f: Folder) -> list[str]:
    """A flag under a breakdown made on other labels than the evaluation's present ones."""
    bd = _breakdown(f)
    if bd is None or bd.get("n_correct") == f.results.get("n_correct"):
        return []
    return [f"**Made on other labels:** this breakdown counts {bd['n_correct']} right answers of "
            f"{bd['n_questions']}; the evaluation now counts {f.results.get('n_correct')} of "
            f"{f.results.get('n_questions')} (it was judged again). Its rows are not re-made "
            "here (`python scripts/breakdown.py` re-scores them).", ""]  # fmt: skip


def cleaning_gate_section(root: Path, values: dict[str, str] | None = None) -> list[str]:
    """How the cleaning and the meaning check moved Inv-Entropy (``cleaning_gate.json``).

    Written by ``scripts/measure_cleaning_gate_auroc.py``: the saved runs re-scored
    without an LLM call, and two evaluations of the same questions made before
    and after.
    """
    path = root / "cleaning_gate.json"
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    lines = ["## How the meaning check and the cleaning moved the scores", "",
             *notes(root, "cleaning_gate.md", (values or {}) | cleaning_values(data))]  # fmt: skip
    same = data.get("same_questions") or []
    for rec in [same] if isinstance(same, dict) else same:
        b, a = rec["before"], rec["after"]
        lines += [f"- **The same {rec['n_questions']} questions, run again** "
                  f"(`{rec['old']}` → `{rec['new']}`, {rec['n_correct']} right in both, "
                  f"{rec['n_boot']} paired resamples): Inv-Entropy AUROC {pm(b['mean'], b['std'])} "
                  f"→ {pm(a['mean'], a['std'])}, Δ {a['delta']:+.3f} ± {a['delta_std']:.3f}."]  # fmt: skip
    lines += [""] if same else []
    body = []
    for rec in data.get("saved_runs", []):
        s = rec["saved"]
        cells = [f"{pm(r['mean'], r['std'])} ({r['delta']:+.3f} ± {r['delta_std']:.3f})"
                 for r in rec["rows"].values()]  # fmt: skip
        body.append([f"{rec['folder']} ({rec['n_questions']} q)", pm(s["mean"], s["std"]), *cells,
                     f"{rec['flipped_states']} in {rec['questions_with_flips']} q",
                     f"{rec['canonical_changed']} of {rec['replies']}"])  # fmt: skip
    if body:
        first = data["saved_runs"][0]["rows"].values()
        head = ["Saved runs", "AUROC as saved", *[r["label"] for r in first],
                "states rejected", "answers changed"]  # fmt: skip
        lines += [*md_table(head, body), ""]
    return lines


def cleaning_values(data: dict[str, Any]) -> dict[str, str]:
    """Totals over the re-scored saved runs of ``cleaning_gate.json``: ``cleaning.replies``,
    ``cleaning.canonical_changed`` and ``cleaning.flip_questions`` (fewest–most questions with
    a rejected state)."""
    runs = data.get("saved_runs") or []
    if not runs:
        return {}
    flips = [int(r["questions_with_flips"]) for r in runs]
    return {"cleaning.replies": f"{sum(int(r['replies']) for r in runs):,}",
            "cleaning.canonical_changed": str(sum(int(r["canonical_changed"]) for r in runs)),
            "cleaning.flip_questions": f"{min(flips)}–{max(flips)}"}  # fmt: skip


def kernel_section(path: Path | None) -> list[str]:
    """The kernel study (``scripts/kernel_study.py --out``): AUROC and spread per kernel."""
    if path is None or not path.is_file():
        return [
            "## Kernel study",
            "",
            "No kernel study file (run `scripts/kernel_study.py --out`).",
            "",
        ]
    lines = ["## Kernel study", "", "Inv-Entropy re-scored from the saved runs under each "
             "affinity kernel (no LLM call); paired bootstrap; Δ is against the paper's (1+cos)/2.", ""]  # fmt: skip
    for folder, block in json.loads(path.read_text(encoding="utf-8")).items():
        if folder == "provenance":  # the code behind the study, not a folder of it
            continue
        rows = [
            [r["kernel"], pm(r.get("auroc"), r.get("auroc_std")),
             pm(r.get("vs_paper"), r.get("vs_paper_std")), pm(r.get("std"), digits=4),
             pm(r.get("iqr"), digits=4)]
            for r in block.get("rows", [])
        ]  # fmt: skip
        acc = block.get("accuracy")
        lines += [f"{Path(folder).name}: {block.get('n')} questions, accuracy {pm(acc)}", ""]
        lines += md_table(["kernel", "AUROC", "Δ vs paper", "std across questions", "IQR"], rows)
        lines.append("")
    return lines


def kernel_values(path: Path | None) -> dict[str, str]:
    """The kernel study as note values: ``kernel.<folder>.<kernel>.vs_paper`` (Δ ± std against
    the paper's kernel) and ``kernel.std_range.<kernel>`` (lowest–highest spread across
    questions over the folders)."""
    if path is None or not path.is_file():
        return {}
    out: dict[str, str] = {}
    spreads: dict[str, list[float]] = {}
    for folder, block in json.loads(path.read_text(encoding="utf-8")).items():
        if folder == "provenance":
            continue
        for r in block.get("rows", []):
            out[f"kernel.{Path(folder).name}.{r['kernel']}.vs_paper"] = (
                f"{r['vs_paper']:+.3f} ± {r['vs_paper_std']:.3f}"
            )
            spreads.setdefault(r["kernel"], []).append(r["std"])
    for kernel, s in spreads.items():
        out[f"kernel.std_range.{kernel}"] = f"{min(s):.3f}–{max(s):.3f}"
    return out


def profile_section(root: Path) -> list[str]:
    """The three profiles on one evaluation (``profile_study.json``, scripts/profile_study.py)."""
    path = root / "profile_study.json"
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = []
    for name, p in data["profiles"].items():
        kind = "±" if p["convention"] == "paper" else "± [95 %]"
        cells = [_profile_cell(p[k], p["convention"]) for k in ("auroc", "prr")]
        vs = p.get("vs_ours")
        diff = (
            f"{vs['difference']:+.3f} [{vs['ci95'][0]:+.3f}, {vs['ci95'][1]:+.3f}]" if vs else "–"
        )
        options = ", ".join(f"{k} {v}" for k, v in p["score"].items()) or "the defaults"
        rows.append([f"`{name}`", options, f"{p['n_bootstrap']} ({kind})", *cells,
                     "AP (AUPRC)" if p["prr_metric"] == "auprc" else "Malinin's", diff])  # fmt: skip
    head = [
        "profile",
        "scoring options",
        "resamples",
        "Inv-Entropy AUROC",
        "PRR",
        "PRR is",
        "AUROC − ours",
    ]
    return ["## Profiles: ours, the paper's text, the released code", "",
            f"`{data['folder']}`: {data['n']} questions ({data['n_correct']} right), every saved run "
            f"re-scored under each `--profile` (no LLM call, {data['seconds']:.0f} s), Inv-Entropy "
            "evaluated under the profile's own convention; the last column is the paired AUROC "
            "difference to ours over 1,000 shared resamples (`scripts/profile_study.py`).", "",
            *md_table(head, rows), ""]  # fmt: skip


def _profile_cell(cell: dict, convention: str) -> str:
    text = pm(cell["centre"], cell["std"])
    lo, hi = cell["ci95"]
    return text if convention == "paper" else f"{text} [{lo:.3f}, {hi:.3f}]"


def _ci(cell: dict | None) -> str:
    if not cell or cell.get("value") is None or not math.isfinite(cell["value"]):
        return "–"
    lo, hi = cell["ci95"]
    return f"{cell['value']:.3f} [{lo:.3f}, {hi:.3f}]"


def _delta(d: dict | None) -> str:
    if not d:
        return "–"
    lo, hi = d["ci95"]
    return f"{d['difference']:+.3f} [{lo:+.3f}, {hi:+.3f}], {d['verdict']}"


def _interval(cell: dict | None, signed: bool = False, digits: int = 3) -> str:
    if not cell:
        return "–"
    value = cell.get("value", cell.get("difference"))
    lo, hi = cell["ci95"]
    s = "+" if signed else ""
    return f"{value:{s}.{digits}f} [{lo:{s}.{digits}f}, {hi:{s}.{digits}f}]"


def answer_similarity_values(data: dict[str, Any]) -> dict[str, str]:
    """The ψ_y study as note values: ``asim.mean_tune.<option>`` / ``asim.mean_report.<option>``
    (mean AUROC over the folders), per folder ``asim.<folder>.<option>.vs_best`` (Δ [95 %]),
    ``.within`` (within count strata), ``.all``; ``asim.<folder>.count`` (count alone), and the
    ranges ``asim.count_range``, ``asim.within_range.arithmetic.<option>``,
    ``asim.judge_vs_rules`` (largest |judge − rules| AUROC on all questions); ``asim.commit``,
    the code that made the study. Words, too, come from the data: ``asim.first_tune`` /
    ``asim.first_report`` (the option with the highest mean among those measured on every
    folder), ``asim.<folder>.best`` (the best baseline's label), ``asim.<folder>.<option>.side``
    ("ahead of" / "behind" it, by the point difference), and against today's default
    ``asim.vs_default.pairs`` (folder × option differences), ``.excluding_zero`` (how many of
    them exclude 0, uncorrected), ``.by_chance`` (how many would at 95 % by chance alone),
    ``.holm`` (how many hold under Holm over each folder's options)
    and ``.largest`` (the largest |Δ|), ``.reading`` (those in words); ``.verdict`` per option
    and folder, and the phrases
    of :func:`_folder_phrases`."""
    out: dict[str, str] = {}
    tune: dict[str, list[float]] = {}
    report: dict[str, list[float]] = {}
    counts, judge_gap, within_arith, vs_default = [], [], {}, []
    for block in data.get("folders", []):
        name = block["folder"].removeprefix("evaluate-")
        if block.get("count_auroc"):
            counts.append(block["count_auroc"]["value"])
            out[f"asim.{name}.count"] = _interval(block["count_auroc"])
        if block.get("best_baseline"):
            out[f"asim.{name}.best"] = method_label(block["best_baseline"])
        for label, c in block["options"].items():
            tune.setdefault(label, []).append(c["tune"]["value"])
            report.setdefault(label, []).append(c["report"]["value"])
            out |= _option_values(f"asim.{name}.{label}", c)
            vs_default += [c["vs_default"]] if c.get("vs_default") else []
            if "arithmetic" in name and c.get("within_count_strata"):
                within_arith.setdefault(label, []).append(c["within_count_strata"]["value"])
        for pad in ("paper", "distinct"):
            j, r = block["options"].get(f"judge+{pad}"), block["options"].get(f"rules+{pad}")
            if j and r:
                judge_gap.append(abs(j["all"]["value"] - r["all"]["value"]))
    for label in tune:
        out[f"asim.mean_tune.{label}"] = f"{sum(tune[label]) / len(tune[label]):.3f}"
        out[f"asim.mean_report.{label}"] = f"{sum(report[label]) / len(report[label]):.3f}"
    for label, w in within_arith.items():
        out[f"asim.within_range.arithmetic.{label}"] = f"{min(w):.2f}–{max(w):.2f}"
    if counts:
        out["asim.count_range"] = f"{min(counts):.2f}–{max(counts):.2f}"
    if judge_gap:
        out["asim.judge_vs_rules"] = f"{max(judge_gap):.3f}"
    n_folders = len(data.get("folders", []))
    out |= _first_values(tune, report, n_folders) | _vs_default_values(vs_default)
    out |= _folder_phrases(data.get("folders", []))
    out["asim.n_folders"] = str(n_folders)
    out["asim.commit"] = str((data.get("provenance") or {}).get("commit") or "unrecorded")[:10]
    return out


def _option_values(key: str, c: dict[str, Any]) -> dict[str, str]:
    """One option on one folder: ``.all``, ``.vs_best`` and its ``.side``, ``.within``."""
    out = {
        f"{key}.all": f"{c['all']['value']:.3f}",
        f"{key}.vs_best": _interval(c.get("vs_best_baseline"), True),
        f"{key}.within": _interval(c.get("within_count_strata"), digits=2),
    }
    if c.get("vs_best_baseline"):
        ahead = c["vs_best_baseline"]["difference"] > 0
        out[f"{key}.side"] = "ahead of" if ahead else "behind"
        out[f"{key}.verdict"] = c["vs_best_baseline"]["verdict"]
    return out


def _holm_reading(held: int) -> str:
    """What ``held`` option − default differences holding under Holm say, in words for the note."""
    if not held:
        return "no difference holds under Holm, so the ranking cannot tell the options apart"
    return (f"{held} of the differences hold under Holm (the column says which), so the "
            "choice rests on more than the ranking")  # fmt: skip


def _folder_phrases(folders: list[dict[str, Any]]) -> dict[str, str]:
    """Two sentences' worth of data, as words: ``asim.verdict_changes`` (per folder, the options
    whose verdict against the best baseline differs from the default's) and
    ``asim.within_lower`` (folders where the default reads lower within count strata than on
    all questions: there the count carries part of its ranking); "none" when empty."""
    default = "+".join(DEFAULT)
    changes, lower = [], []
    for block in folders:
        name = block["folder"].removeprefix("evaluate-")
        mine = block["options"].get(default, {})
        if not mine:
            continue
        verdict = (mine.get("vs_best_baseline") or {}).get("verdict")
        other = {}
        for label, c in block["options"].items():
            theirs = (c.get("vs_best_baseline") or {}).get("verdict")
            if theirs and verdict and theirs != verdict:
                other.setdefault(theirs, []).append(label.replace("+", " + "))
        changes += [f"on {name} {' and '.join(labels)} read *{v}*" for v, labels in other.items()]
        within = (mine.get("within_count_strata") or {}).get("value")
        if within is not None and within < mine["all"]["value"]:
            lower.append(name)
    return {
        "asim.verdict_changes": "; ".join(changes) or "none",
        "asim.within_lower": ", ".join(lower) or "none",
    }


def _first_values(
    tune: dict[str, list[float]], report: dict[str, list[float]], n_folders: int
) -> dict[str, str]:
    """The option with the highest mean AUROC per half, among those measured on every folder."""
    everywhere = [label for label in tune if len(tune[label]) == n_folders]
    out = {}
    for half, means in (("tune", tune), ("report", report)):
        if everywhere:
            first = max(everywhere, key=lambda label: sum(means[label]) / len(means[label]))
            out[f"asim.first_{half}"] = first.replace("+", " + ")
            out[f"asim.first_{half}_mean"] = f"{sum(means[first]) / len(means[first]):.3f}"
    return out


def _vs_default_values(differences: list[dict[str, Any]]) -> dict[str, str]:
    """How many option − default differences there are, how many exclude 0, the largest."""
    if not differences:
        return {}
    outside = sum(d["ci95"][0] > 0 or d["ci95"][1] < 0 for d in differences)
    held = sum(bool((d.get("holm") or {}).get("significant")) for d in differences)
    return {
        "asim.vs_default.pairs": str(len(differences)),
        "asim.vs_default.excluding_zero": str(outside),
        "asim.vs_default.by_chance": f"{0.05 * len(differences):.1f}",
        "asim.vs_default.holm": str(held),
        "asim.vs_default.largest": f"{max(abs(d['difference']) for d in differences):.3f}",
        "asim.vs_default.reading": _holm_reading(held),
    }


def answer_similarity_section(root: Path, values: dict[str, str] | None = None) -> list[str]:
    """ψ_y × padding on every evaluation with runs (``answer_similarity_study.json``,
    scripts/answer_similarity_study.py): tuning / report halves, the paired difference to
    the folder's best baseline, the count-only AUROC and Inv-Entropy within count strata."""
    path = root / "answer_similarity_study.json"
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    lines = ["## Answer similarity and padding (ψ_y × dataset)", "",
             "Every evaluation with saved runs re-scored under each answer similarity ψ_y "
             "(`--answer-similarity`) and padding rule (`--padding`), no new generation; the "
             f"`judge` option asked `{data['folders'][0]['judge'] if data['folders'] else '?'}` "
             "only about the answer pairs the rules leave undecided (cached). Halves by a hash of "
             "the question id: choose on *tune*, read on *report*. Δ is Inv-Entropy − the "
             "folder's best baseline (by AUROC on all questions) over the same 1,000 resamples, "
             f"and Inv-Entropy under the option − under today's default ({' + '.join(DEFAULT)}); "
             "*within count strata* counts only right/wrong pairs with the same number of "
             "distinct rewordings (a method that only read the count scores 0.5 there). "
             f"Made in {data.get('seconds', 0):.0f} s at load {data.get('load_average', '?')} "
             "(`scripts/answer_similarity_study.py`).", ""]  # fmt: skip
    head = ["ψ_y + padding", "AUROC tune", "AUROC report", "AUROC all",
            "Δ vs best baseline [95 %]", "Δ vs default [95 %]", "within count strata"]  # fmt: skip
    for block in data["folders"]:
        best = block.get("best_baseline") or "none"
        lines += [f"**{block['folder']}** ({block['n']} questions, {block['n_right']} right; "
                  f"tune {block['halves']['tune']}, report {block['halves']['report']}): best "
                  f"baseline {best} {_ci(block.get('best_baseline_auroc'))}; count of distinct "
                  f"rewordings alone {_ci(block.get('count_auroc'))}.", ""]  # fmt: skip
        rows = [
            [f"`{label}`", _ci(c.get("tune")), _ci(c.get("report")), _ci(c.get("all")),
             _delta(c.get("vs_best_baseline")), _delta(c.get("vs_default")),
             _ci(c.get("within_count_strata"))]
            for label, c in block["options"].items()
        ]  # fmt: skip
        lines += md_table(head, rows) + [""]
        for label, why in (block.get("skipped") or {}).items():
            lines += [f"`{label}`: {why}.", ""]
    return lines + notes(root, "answer_similarity_reading.md",
                         (values or {}) | answer_similarity_values(data))  # fmt: skip
