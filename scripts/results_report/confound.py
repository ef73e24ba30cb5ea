"""The confound check beside each headline: every method's AUROC against counts anyone can make.

For every evaluation, each method's AUROC (Inv-Entropy's in the overview, every
method's in the dataset's section) is set beside the AUROC of two
count-only baselines on the same questions and the same resamples
(:func:`invent_core.experiments.counts.folder_confound`): the number of distinct
rewordings the run was asked, and the number of distinct canonical answers among
the replies to the original question. The paired difference and its interval
say whether a method beats a trivial count; in a dataset's table the words follow
from the Holm-corrected interval over the methods set against the same count. A
folder shipped without its runs has nothing to count and says so.
"""

from __future__ import annotations

import dataclasses
from functools import cache
from pathlib import Path
from typing import Any

from invent_core.evaluation.confound import COUNT_LABELS, CountCheck
from invent_core.evaluation.metrics.paired import AHEAD, BEHIND, holm_adjusted
from invent_core.experiments.counts import folder_confound, folder_within_strata

from .loading import Folder
from .text import folder_stem, folder_title, md_table

_WORDS = {AHEAD: "beats the count", BEHIND: "loses to the count"}


@cache
def _checks(path: str) -> dict[str, CountCheck] | str:
    """The folder's checks, or why there are none (computed once per folder)."""
    try:
        return folder_confound(Path(path))
    except (FileNotFoundError, ValueError) as err:
        return str(err).split(": ", 1)[-1]


@cache
def _all_checks(path: str, methods: tuple[str, ...]) -> dict[str, dict[str, CountCheck]] | str:
    """Every method against every count, Holm-corrected per count over the methods."""
    out: dict[str, dict[str, CountCheck]] = {}
    for m in methods:
        try:
            out[m] = folder_confound(Path(path), method=m)
        except (FileNotFoundError, ValueError) as err:
            if not out and m == methods[0]:
                return str(err).split(": ", 1)[-1]
    for count in COUNT_LABELS:
        family = {m: checks[count].difference for m, checks in out.items() if count in checks}
        for m, d in holm_adjusted(family).items():
            out[m][count] = dataclasses.replace(out[m][count], difference=d)
    return out


def count_table(f: Folder) -> list[str]:
    """A dataset's section: every method's AUROC against each count (same questions, resamples)."""
    methods = tuple(f.results.get("results", {}))
    checks = _all_checks(str(f.path), methods) if methods else "no method was evaluated"
    if isinstance(checks, str):
        return [f"**Against a count:** not computed ({checks}).", ""]
    header = ["Method", "AUROC"]
    for label in COUNT_LABELS.values():
        header += [
            f"Δ − {label} (count AUROC {_auroc(next(iter(checks.values()))[_key(label)].count_auroc)})"
        ]
    labels = f.results.get("labels", {})
    rows = [[labels.get(m, m), _auroc(next(iter(c.values())).method_auroc),
             *(_delta(c[k]) for k in COUNT_LABELS)] for m, c in checks.items()]  # fmt: skip
    tail = "" if _judged(f) else " Not judgeable: shown, not read."
    intro = ("**Against a count:** every method's AUROC minus each count's on the same questions and "
             "resamples (higher count = less trusted), with the interval Holm-corrected over the "
             f"{len(rows)} methods set against the same count; a verdict needs it to exclude zero.{tail}")  # fmt: skip
    return [intro, "", *md_table(header, rows), ""]


def _key(label: str) -> str:
    return next(k for k, v in COUNT_LABELS.items() if v == label)


@cache
def _strata(path: str) -> str:
    """Inv-Entropy's AUROC within strata of the distinct-rewordings count, as a cell."""
    try:
        s = folder_within_strata(Path(path))
    except (FileNotFoundError, ValueError) as err:
        return "not computed: " + str(err).split(": ", 1)[-1]
    if s["value"] != s["value"]:
        return "no stratum holds a right and a wrong answer"
    lo, hi = s["ci95"]
    return f"{s['value']:.3f} [{lo:.3f}, {hi:.3f}] ({s['pairs']} pairs, {s['strata']} strata)"


def _auroc(cell: Any) -> str:
    lo, hi = cell.ci95
    return f"{cell.point:.3f} [{lo:.3f}, {hi:.3f}]"


def _delta(check: CountCheck) -> str:
    d = check.difference
    lo, hi = d.holm.ci if d.holm is not None else d.ci95
    words = _WORDS.get(d.verdict, "not distinguishable from the count at this size")
    return f"{d.difference:+.3f} [{lo:+.3f}, {hi:+.3f}], {words}"


def _judged(f: Folder) -> bool:
    return bool((f.results.get("judgement") or {}).get("ok", True))


def _beats(f: Folder) -> str:
    """The methods whose Holm-corrected difference to each count is a verdict, as one cell."""
    methods = tuple(f.results.get("results", {}))
    checks = _all_checks(str(f.path), methods) if methods else "none"
    if isinstance(checks, str):
        return ""
    labels = f.results.get("labels", {})
    parts = []
    for count, label in COUNT_LABELS.items():
        for verdict, word in ((AHEAD, "beat"), (BEHIND, "lose to")):
            names = [
                labels.get(m, m)
                for m, c in checks.items()
                if c[count].difference.verdict == verdict
            ]
            if names:
                parts.append(f"{word} {label}: {', '.join(names)}")
    return "; ".join(parts) or "no method told apart from either count"


def confound_section(folders: list[Folder]) -> list[str]:
    """The table beside the overview: each evaluation's headline and the two counts."""
    evaluations = [f for f in folders if f.kind == "evaluate"]
    if not evaluations:
        return []
    header = ["dataset", "Inv-Entropy AUROC"]
    for label in COUNT_LABELS.values():
        header += [f"{label} AUROC", f"Δ Inv-Entropy − {label} [95 %]"]
    header.append("Inv-Entropy within strata of distinct rewordings")
    header.append("every method against the counts (Holm)")
    rows = []
    for f in evaluations:
        checks = _checks(str(f.path))
        if isinstance(checks, str):
            rows.append([folder_title(f), f"not computed: {checks}", *[""] * (len(header) - 2)])
            continue
        row = [folder_title(f) + ("" if _judged(f) else " (not judgeable)")]
        row.append(_auroc(next(iter(checks.values())).method_auroc))
        for c in checks.values():
            row += [_auroc(c.count_auroc), _delta(c)]
        rows.append([*row, _strata(str(f.path)), _beats(f)])
    intro = (
        "Does the headline beat a count? Inv-Entropy's AUROC beside two count-only "
        "baselines on the same questions and resamples: the number of distinct "
        "rewordings the run was asked (the rewording step's confound) and the number of "
        "distinct canonical answers among the five replies to the original question. "
        "The words follow from the paired 95 % interval alone. The last column counts only "
        "pairs of a right and a wrong answer whose runs were asked the same number of "
        "distinct rewordings: what Inv-Entropy adds among questions the rewording step "
        "treated alike (a score that only read the count would be 0.5 there). The last "
        "column sets every method against the two counts, each verdict Holm-corrected over the "
        "methods set against the same count (each dataset's section has the table)."
    )
    return ["## Headline against a count", "", intro, "", *md_table(header, rows), ""]


def count_values(folders: list[Folder]) -> dict[str, str]:
    """What a note may quote of the headline's counts: ``<stem>.count.<count>.auroc`` / ``.delta``."""
    out: dict[str, str] = {}
    for f in (f for f in folders if f.kind == "evaluate"):
        checks = _checks(str(f.path))
        if isinstance(checks, str):
            continue
        for name, c in checks.items():
            key = f"{folder_stem(f)}.count.{name}"
            lo, hi = c.difference.ci95
            out[f"{key}.auroc"] = f"{c.count_auroc.point:.3f}"
            out[f"{key}.delta"] = f"{c.difference.difference:+.3f} [{lo:+.3f}, {hi:+.3f}]"
    return out
