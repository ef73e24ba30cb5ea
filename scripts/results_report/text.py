"""Cells, tables and sentences every section of RESULTS.md uses.

Numbers are formatted here only (``pm``: ``"0.812 ± 0.020"``, never ``nan``;
``pm_ci``: ``"0.812 ± 0.020 [0.771, 0.850]"``); ``metric_cell`` reads one (centre,
std) out of a ``results.json`` dict (``{"results": {method: {metric: {"point",
"ci95", "std", "mean", …}}}, "centre", "labels", "skipped", …}``): the centre is
the value on the sample, or the bootstrap mean for evaluations saved before
(``"centre"`` absent) or made under the paper's convention.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from invent_core.config.paraphrase import REWORDING_RULES
from invent_core.experiments.made_with import (
    made_with,
    older_than_today,
    replay_agrees,
    replayed_words,
)
from invent_core.methods.registry import get_method
from invent_core.progress import format_seconds

from .loading import Folder

#: The columns of a dataset's table. The cross-fitted Brier and ECE are what the notes
#: read (an isotonic map fitted on other questions); the in-sample Brier is the paper's.
METRICS = ("auroc", "prr", "brier_cv", "brier", "ece")
LABELS = {"auroc": "AUROC (↑)", "prr": "PRR (↑)", "brier_cv": "Brier, cross-fit (↓)",
          "brier": "Brier in-sample, the paper's (↓)", "ece": "ECE, cross-fit (↓)"}  # fmt: skip
#: The paper's Table 1 columns beside ours: its "PRR" is an AUPRC (its released code's).
PAPER_COLUMNS = (("auroc", "paper AUROC (↑)"), ("prr", "paper AUPRC, its “PRR” (↑)"),
                 ("brier", "paper Brier, in-sample (↓)"))  # fmt: skip


def pm(mean: float | None, std: float | None = None, digits: int = 3) -> str:
    """``"0.812 ± 0.020"``; ``"–"`` for a missing value (never ``nan``)."""
    if mean is None or not math.isfinite(mean):
        return "–"
    if std is None or not math.isfinite(std):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {std:.{digits}f}"


def _seconds(s: float) -> str:
    return format_seconds(s)


def settings_line(f: Folder) -> str:
    """What the numbers rest on: model, n, r, T, perturber, embedder, kernel, B, seed, sample, time."""
    run = f.meta.get("config", {}).get("run", {})
    score = run.get("score", {})
    parts = [
        f"model {f.llm}",
        f"n = {run.get('n_perturbations')}",
        f"r = {run.get('n_replications')}",
        f"T = {run.get('temperature')}",
        f"perturber {run.get('perturber')}",
        f"embedder {score.get('embedder')}",
        f"kernel {score.get('affinity')}",
        f"B = {score.get('n_bootstrap')}",
        f"seed {score.get('seed')}",
    ]
    para = _paraphraser(run)
    parts += [para] if para else []
    same = replayed_words(REWORDING_RULES)
    parts += [f"{k} {v}{same if k == 'rewording rules' and replayed_same(f) else ''}"
              for k, v in made_with(f.meta).items()]  # fmt: skip
    sample = f.meta.get("sample") or f.results.get("sample") or ""
    wall = f.meta.get("wall_seconds")
    timing = f"{_seconds(f.run_seconds)} generating and scoring ({f.n_runs} saved runs"
    if f.llm_cached:  # a run re-made from the cache records almost no time: say so
        timing += f"; {f.llm_cached} of {f.llm_calls} LLM requests answered from the cache"
    timing += ")"
    if wall is not None:
        timing += f"; the last call took {_seconds(float(wall))}"
    return "; ".join([", ".join(parts), sample, timing] if sample else [", ".join(parts), timing])


def replayed_same(f: Folder) -> bool:
    """Whether today's round, replayed on the folder's saved candidates (``stale_check.json``),
    chooses the same perturbations for every question (:func:`replay_agrees`)."""
    return replay_agrees(f.stale_check, f.meta.get("rewording_rules")) == REWORDING_RULES


def older_settings(f: Folder) -> list[str]:
    """A flag when the folder was made with a gate, ψ_y or padding other than today's defaults.

    Re-scoring at this commit keeps the folder's own settings, so it cannot see this:
    the perturbations (gate) or the scores (ψ_y, padding) of a folder made today differ.
    """
    older = older_than_today(f.meta)
    if replayed_same(f):  # an older round that chooses what today's would: not older in effect
        older.pop("rewording rules", None)
    old = [f"{k} {then} (today {now})" for k, (then, now) in older.items()]
    if not old:
        return []
    return [f"**Made with settings older than today's defaults:** {'; '.join(old)}. Its numbers "
            "are those of its own settings; an evaluation made today would differ.", ""]  # fmt: skip


def _paraphraser(run: dict[str, Any]) -> str | None:
    """Which paraphraser made the perturbations, so that runs saved before the meaning check say so."""
    if run.get("perturber") != "paraphrase":
        return None
    p = run.get("paraphrase") or {}
    gate = p.get("gate") or {}
    if not gate.get("enabled", True):
        return "paraphrase gate off"
    asks = "eight constructions" if p.get("constructions") else "one prompt per request"
    kept = ", premises kept" if p.get("premises_kept") else ""
    return f"paraphraser: {asks}{kept}"  # the gate's words follow it (made_with)


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A Markdown table (``|`` in cells escaped)."""

    def cells(row: Sequence[str]) -> str:
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |"

    return [cells(header), "|" + "---|" * len(header), *map(cells, rows)]


def metric_cell(
    results: dict[str, Any], method: str, metric: str
) -> tuple[float | None, float | None]:
    """(centre, std) of one cell: the sample value, or the bootstrap mean (see the module)."""
    cell = results.get("results", {}).get(method, {}).get(metric)
    if not cell:
        return None, None
    sample = results.get("centre", "bootstrap_mean") == "sample"
    return (cell["point"] if sample else cell["mean"]), cell["std"]


def metric_ci(results: dict[str, Any], method: str, metric: str) -> tuple[float, float] | None:
    """The cell's 95 % interval, or None (saved before intervals were recorded)."""
    cell = results.get("results", {}).get(method, {}).get(metric) or {}
    ci = cell.get("ci95")
    return (float(ci[0]), float(ci[1])) if ci else None


def pm_ci(results: dict[str, Any], method: str, metric: str) -> str:
    """``"0.812 ± 0.020 [0.771, 0.850]"``: the centre, the std and the 95 % interval."""
    text = pm(*metric_cell(results, method, metric))
    ci = metric_ci(results, method, metric)
    return f"{text} [{ci[0]:.3f}, {ci[1]:.3f}]" if ci and text != "–" else text


def ece_cell(results: dict[str, Any], method: str) -> str:
    """The ECE cell, with the resampled mean and the bootstrap bias-corrected value beside it.

    The ECE of a resample runs above the sample's (copies of a question make the
    bins emptier and noisier), so the interval alone overstates it; 2·sample − mean
    (Efron & Tibshirani 1993, §10.6), floored at 0, is the debiased value.
    """
    text = pm_ci(results, method, "ece")
    cell = results.get("results", {}).get(method, {}).get("ece") or {}
    if text == "–" or "mean" not in cell or "point" not in cell:
        return text
    mean, point = float(cell["mean"]), float(cell["point"])
    return f"{text}; resampled mean {mean:.3f}, debiased {max(0.0, 2 * point - mean):.3f}"


def metric_text(results: dict[str, Any], method: str, metric: str) -> str:
    """One cell of a dataset's table (:func:`ece_cell` for the ECE, :func:`pm_ci` otherwise)."""
    return ece_cell(results, method) if metric == "ece" else pm_ci(results, method, metric)


def centre_words(results: dict[str, Any]) -> str:
    """How the cells were made, in words, for the line above a table."""
    n = results.get("n_bootstrap", results.get("n_boot"))
    if results.get("centre") == "sample":
        return (f"value on the sample ± std [95 % percentile interval] over {n} paired bootstrap "
                "resamples; Brier and ECE of isotonic-calibrated P(correct), cross-fitted (5 folds) "
                "except the in-sample Brier the paper reports")  # fmt: skip
    return f"mean ± std over {n} paired bootstrap resamples"


def method_label(method: str) -> str:
    """The registry's label of a method ("Inv-Entropy"), or the name itself."""
    try:
        return get_method(method).label
    except (KeyError, ValueError):
        return method


def reported_methods(results: dict[str, Any]) -> list[str]:
    return list(results.get("results", {})) + list(results.get("skipped", {}))


def accuracy_text(results: dict[str, Any]) -> str:
    """``"accuracy 0.420 (21 of 50)"`` or ``"no judged question"``."""
    n, k = results.get("n_questions", 0), results.get("n_correct", 0)
    return f"accuracy {k / n:.3f} ({k} of {n})" if n else "no judged question"


# --- verdicts ------------------------------------------------------------------------------

#: Accuracy outside [ACC_LOW, 1 − ACC_LOW]: too few answers of one kind to compare methods (ours).
ACC_LOW = 0.10


def verdict(results: dict[str, Any]) -> str:
    """A plain statement of what this dataset's numbers can show with this model."""
    judgement = results.get("judgement") or {}
    n, k = results.get("n_questions", 0), results.get("n_correct", 0)
    if judgement and not judgement.get("ok", True):
        return (
            f"**Not judgeable: {judgement.get('reason')}.** The values are shown for "
            "completeness; they cannot rank the methods."
        )
    acc = k / n if n else 0.0
    if acc < ACC_LOW or acc > 1 - ACC_LOW:
        few = "right" if acc < ACC_LOW else "wrong"
        return (
            f"**The local model is too weak (or too strong) here:** {acc:.0%} of its answers are "
            f"right, so there are too few {few} answers for any method to show what it is worth."
        )
    if not any(_above_chance(results, m) for m in results.get("results", {})):
        return (
            "**No method beats chance beyond its bootstrap spread** (no AUROC interval lies "
            "above 0.5): the model's correctness here is close to a coin toss for every method, "
            "so this comparison with the paper's GPT-3.5-Turbo numbers says little."
        )
    return "At least one method separates right from wrong answers beyond its bootstrap spread."


def _above_chance(results: dict[str, Any], method: str) -> bool:
    """AUROC above 0.5 beyond its interval (or, saved before intervals, beyond mean − 2σ)."""
    ci = metric_ci(results, method, "auroc")
    if ci is not None:
        return ci[0] > 0.5
    mean, std = metric_cell(results, method, "auroc")
    return mean is not None and mean - 2 * (std or 0.0) > 0.5


def best_baseline(res: dict[str, Any]) -> tuple[float | None, str]:
    """The best baseline AUROC and every baseline that reaches it, ``"Kernel Entropy = DegMat = LUQ"``.

    Ties are common (the three graph baselines coincide under the embedding judge), so naming
    only one of them — whichever sorts last — would credit it with what all three share."""
    base = {m: round(metric_cell(res, m, "auroc")[0], 3) for m in res.get("results", {})
            if get_method(m).family == "baseline" and metric_cell(res, m, "auroc")[0] is not None}  # fmt: skip
    if not base:
        return None, ""
    best = max(base.values())
    labels = res.get("labels", {})
    return best, " = ".join(labels.get(m, m) for m, v in base.items() if v == best)


def folder_stem(f: Folder) -> str:
    """The folder's name without ``evaluate-`` / ``tsu-`` (a dataset may have several folders)."""
    return f.path.name.split("-", 1)[1] if "-" in f.path.name else f.path.name


def folder_title(f: Folder) -> str:
    """``arithmetic`` or ``arithmetic (heldout)`` for ``evaluate-arithmetic-heldout``."""
    extra = folder_stem(f)[len(f.dataset) :].strip("-_ ")
    return f"{f.dataset} ({extra})" if extra else f.dataset


#: A placeholder in a note: ``{{key}}``, filled from :func:`note_values`,
#: ``{{json:FILE#a.b.c|FORMAT}}``, one field of a JSON file beside the runs, or
#: ``{{txt:FILE#REGEX}}``, a figure read out of a printout.
_PLACEHOLDER = re.compile(r"\{\{\s*([^{}]+?)\s*\}\}")


def json_field(root: Path, ref: str) -> str:
    """``FILE#a.b.c|FORMAT``: field ``a.b.c`` of ``root/FILE``, formatted.

    A part that is a number indexes a list. FORMAT is a format spec (``.3f``,
    ``+.3f``, ``d``); one ending in ``%`` gives a share as ``"96 %"``; no FORMAT
    gives the value as it is. The note so names the file and the field each
    number comes from, and a field the file no longer holds is an error.
    """
    file, _, rest = ref.partition("#")
    dotted, _, spec = rest.partition("|")
    value: Any = _read_json(root / file)
    for part in dotted.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    if spec.endswith("%"):
        return f"{value * 100:{spec[:-1]}f} %"
    return format(value, spec) if spec else str(value)


def printout_field(root: Path, ref: str) -> str:
    """``FILE#REGEX``: the first group of REGEX's first match in the printout ``root/FILE``.

    For a hand measurement whose only record is a printout (a ``docs/*.txt``, or the one
    kept in a benchmark's docstring): the note cites it, and a printout that no longer
    says it is an error.
    """
    file, _, pattern = ref.partition("#")
    m = re.search(pattern, (root / file).read_text(encoding="utf-8"), re.MULTILINE)
    if m is None:
        raise ValueError(f"{pattern!r} not found in {file}")
    return m.group(1)


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def fill_note(
    text: str, values: dict[str, str], name: str = "note", root: Path | None = None
) -> str:
    """``text`` with every ``{{key}}`` replaced by ``values[key]`` (``{{json:…}}``: :func:`json_field`).

    A key the data does not give is an error naming the note and the key, so a note
    can never print a number its source no longer holds.
    """

    def one(m: re.Match) -> str:
        key = m.group(1)
        if key.startswith("txt:") and root is not None:
            try:
                return printout_field(root, key.removeprefix("txt:"))
            except (OSError, ValueError, re.error) as err:
                raise KeyError(f"{name}: {{{{{key}}}}} is not in its printout ({err})") from None
        if key.startswith("json:") and root is not None:
            try:
                return json_field(root, key.removeprefix("json:"))
            except (OSError, KeyError, IndexError, ValueError, TypeError) as err:
                raise KeyError(f"{name}: {{{{{key}}}}} is not in its file ({err!r})") from None
        if key not in values:
            near = sorted(k for k in values if k.split(".")[0] == key.split(".")[0])[:8]
            raise KeyError(f"{name}: {{{{{key}}}}} is not a value the saved runs give"
                           + (f" (near: {', '.join(near)})" if near else ""))  # fmt: skip
        return values[key]

    return _PLACEHOLDER.sub(one, text)


def notes(root: Path, name: str, values: dict[str, str] | None = None) -> list[str]:
    """A hand-written part of the report (``<runs>/<name>``, beside the runs it reads).

    The reasoning behind a choice is written by a person; the numbers it quotes are
    placeholders (``{{sciq-140-1.5b.auroc.inv_entropy}}``) filled from the saved runs
    (:func:`note_values`) or from a study's JSON file (``{{json:FILE#field|.3f}}``),
    so a note cannot drift from its source (``tests/experiments/test_results_notes.py``
    fails on a number written by hand). A folder without it (your own runs) gets none.
    """
    path = root / name
    if not path.is_file():
        return []
    return [fill_note(path.read_text(encoding="utf-8").rstrip(), values or {}, name, root), ""]


def note_values(folders: Sequence[Folder]) -> dict[str, str]:
    """What a note may quote, by key: per evaluate folder (``<stem>.…``) its size, labels and metrics.

    ``<stem>.n``, ``.right``, ``.wrong``, ``.auroc.<method>`` (the sample value, 3
    decimals), ``.ci.<method>`` (``[lo, hi]``), ``.auroc_pm.<method>`` (with its std).
    """
    out: dict[str, str] = {}
    for f in folders:
        if f.kind != "evaluate":
            continue
        stem, res = folder_stem(f), f.results
        n, k = int(res.get("n_questions", 0)), int(res.get("n_correct", 0))
        out |= {f"{stem}.n": str(n), f"{stem}.right": str(k), f"{stem}.wrong": str(n - k)}
        for m in res.get("results", {}):
            centre, std = metric_cell(res, m, "auroc")
            ci = metric_ci(res, m, "auroc")
            if centre is None:
                continue
            out[f"{stem}.auroc.{m}"] = f"{centre:.3f}"
            out[f"{stem}.auroc_pm.{m}"] = pm(centre, std)
            if ci:
                out[f"{stem}.ci.{m}"] = f"[{ci[0]:.3f}, {ci[1]:.3f}]"
        best, names = best_baseline(res)
        if best is not None:
            out[f"{stem}.best_baseline"], out[f"{stem}.best_baseline_auroc"] = names, f"{best:.3f}"
        for ref, row in (res.get("paired") or {}).items():
            for other, d in row.items():
                key = f"{stem}.paired.{ref}.{other}"
                lo, hi = d["ci95"]
                out[key] = f"Δ {d['difference']:+.3f} [{lo:+.3f}, {hi:+.3f}]"
                out[f"{key}.verdict"] = d["verdict"]
                if d.get("holm"):
                    out[f"{key}.holm"] = "[{:+.3f}, {:+.3f}]".format(*d["holm"]["ci"])
    return out


def f3(value: float | None) -> str:
    return "–" if value is None or not math.isfinite(value) else f"{value:.3f}"
