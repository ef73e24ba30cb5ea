"""The confound check beside each headline: Inv-Entropy's AUROC against counts anyone can make.

For every evaluation, Inv-Entropy's AUROC is set beside the AUROC of two
count-only baselines on the same questions and the same resamples
(:func:`invent_core.experiments.counts.folder_confound`): the number of distinct
rewordings the run was asked, and the number of distinct canonical answers among
the replies to the original question. The paired difference and its interval
say whether the headline beats a trivial count; the words follow from the
interval alone. A folder shipped without its runs has nothing to count and says so.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from invent_core.evaluation.confound import COUNT_LABELS, CountCheck
from invent_core.evaluation.metrics.paired import AHEAD, BEHIND
from invent_core.experiments.counts import folder_confound, folder_within_strata

from .loading import Folder
from .text import folder_title, md_table

_WORDS = {AHEAD: "beats the count", BEHIND: "loses to the count"}


@cache
def _checks(path: str) -> dict[str, CountCheck] | str:
    """The folder's checks, or why there are none (computed once per folder)."""
    try:
        return folder_confound(Path(path))
    except (FileNotFoundError, ValueError) as err:
        return str(err).split(": ", 1)[-1]


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
    lo, hi = d.ci95
    words = _WORDS.get(d.verdict, "not distinguishable from the count at this size")
    return f"{d.difference:+.3f} [{lo:+.3f}, {hi:+.3f}], {words}"


def _judged(f: Folder) -> bool:
    return bool((f.results.get("judgement") or {}).get("ok", True))


def confound_line(f: Folder) -> str:
    """One sentence for a dataset's section: the headline against each count."""
    checks = _checks(str(f.path))
    if isinstance(checks, str):
        return f"**Against a count:** not computed ({checks})."
    parts = [
        f"{COUNT_LABELS[name]} alone {_auroc(c.count_auroc)} (Inv-Entropy − count Δ {_delta(c)})"
        for name, c in checks.items()
    ]
    first = next(iter(checks.values()))
    tail = "" if _judged(f) else " Not judgeable: shown, not read."
    return (
        f"**Against a count:** Inv-Entropy AUROC {_auroc(first.method_auroc)}; "
        + "; ".join(parts)
        + f" (same questions, same resamples; higher count = less trusted).{tail}"
    )


def confound_section(folders: list[Folder]) -> list[str]:
    """The table beside the overview: each evaluation's headline and the two counts."""
    evaluations = [f for f in folders if f.kind == "evaluate"]
    if not evaluations:
        return []
    header = ["dataset", "Inv-Entropy AUROC"]
    for label in COUNT_LABELS.values():
        header += [f"{label} AUROC", f"Δ Inv-Entropy − {label} [95 %]"]
    header.append("Inv-Entropy within strata of distinct rewordings")
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
        rows.append([*row, _strata(str(f.path))])
    intro = (
        "Does the headline beat a count? Inv-Entropy's AUROC beside two count-only "
        "baselines on the same questions and resamples: the number of distinct "
        "rewordings the run was asked (the rewording step's confound) and the number of "
        "distinct canonical answers among the five replies to the original question. "
        "The words follow from the paired 95 % interval alone. The last column counts only "
        "pairs of a right and a wrong answer whose runs were asked the same number of "
        "distinct rewordings: what Inv-Entropy adds among questions the rewording step "
        "treated alike (a score that only read the count would be 0.5 there)."
    )
    return ["## Headline against a count", "", intro, "", *md_table(header, rows), ""]
