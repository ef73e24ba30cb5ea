"""How an evaluation's numbers may be read: paired differences in words, and the code behind them.

:func:`paired_lines` turns the ``paired`` block of a ``results.json`` into
sentences — "ahead", "behind", "not distinguishable at this size" — that follow
from each difference's 95 % interval alone, with the questions a difference of
the observed size would need; nothing is ranked by hand. :func:`code_line` says
which code made an evaluation and flags one made by code older than the last
change to scoring (or whose code is unknown).
"""

from __future__ import annotations

from typing import Any

from invent_core.provenance import BEFORE_PROVENANCE, WHEEL, is_older

from .text import pm_ci

AHEAD, BEHIND = "ahead", "behind"


def _diff(d: dict[str, Any]) -> str:
    lo, hi = d["ci95"]
    return f"Δ {d['difference']:+.3f} [{lo:+.3f}, {hi:+.3f}]"


def _needed(d: dict[str, Any]) -> str:
    k, n = d.get("questions_needed"), d["n_questions"]
    if k is None:
        return "no sample size would tell a zero difference apart"
    if k > 100 * n:
        return "a difference this small would need over 100 times this sample"
    return f"a difference this size would need about {k:,} questions"


def _names(items: list[tuple[str, dict[str, Any]]], labels: dict[str, str], needed: bool) -> str:
    parts = []
    for other, d in items:
        extra = f"; {_needed(d)}" if needed else ""
        parts.append(f"{labels.get(other, other)} ({_diff(d)}{extra})")
    return ", ".join(parts)


def paired_lines(res: dict[str, Any]) -> list[str]:
    """One bullet per reference method (Inv-Entropy, the best baseline) of the paired AUROC block."""
    paired = res.get("paired") or {}
    if not paired:
        return []
    judgement = res.get("judgement") or {}
    if not judgement.get("ok", True):
        return [f"Paired differences are in `results.json`; the ranking is not read "
                f"({judgement.get('reason')}).", ""]  # fmt: skip
    labels = res.get("labels", {})
    n = next(iter(next(iter(paired.values())).values()))["n_questions"]
    lines = [f"Paired AUROC differences on the same {n} questions and the same resamples "
             "(Δ = the first method minus the other, 95 % percentile interval):", ""]  # fmt: skip
    for ref, row in paired.items():
        by = {v: [(o, d) for o, d in row.items() if d["verdict"] == v] for v in (AHEAD, BEHIND)}
        rest = [(o, d) for o, d in row.items() if d["verdict"] not in (AHEAD, BEHIND)]
        said = [f"ahead of {_names(by[AHEAD], labels, False)}" if by[AHEAD] else "",
                f"behind {_names(by[BEHIND], labels, False)}" if by[BEHIND] else "",
                f"not distinguishable at this size from {_names(rest, labels, True)}" if rest else ""]  # fmt: skip
        body = "; ".join(s for s in said if s)
        lines.append(f"- **{labels.get(ref, ref)}** (AUROC {pm_ci(res, ref, 'auroc')}) is {body}.")
    return lines + [""]


def _short(commit: str | None) -> str:
    return (commit or "")[:10]


def code_line(meta: dict[str, Any], last_scoring: str | None) -> str:
    """Which code made the scores (and recomputed the metrics); a flag when it may be stale."""
    prov = meta.get("provenance") or {}
    source, commit = prov.get("source"), prov.get("commit")
    if not prov or source == BEFORE_PROVENANCE:
        version = prov.get("version") or (meta.get("versions") or {}).get("invent_core")
        made = f" (invent {version})" if version else ""
        # not the word "provenance" itself: RESULTS must never read "nan", and it holds one
        text = (f"**Code: possibly stale.** The scores were made before their commit was "
                f"recorded{made}: whether the scoring code changed since cannot be checked.")  # fmt: skip
    elif source == WHEEL or not commit:
        text = f"**Code:** invent {prov.get('version')} ({source}); no commit to check against."
    else:
        dirty = " with uncommitted changes" if prov.get("dirty") else ""
        older = is_older(commit, last_scoring) if last_scoring else None
        flag = {True: "**Stale:** made by code older than the last change to scoring",
                False: "not older than the last change to scoring",
                None: "git cannot tell whether it predates the last change to scoring"}[older]  # fmt: skip
        text = f"**Code:** commit `{_short(commit)}`{dirty}; {flag}."
    again = meta.get("results_recomputed")
    if again:
        text += (f" Metrics recomputed from `scores.csv` with {again.get('n_bootstrap')} "
                 f"resamples by commit `{_short(again.get('commit'))}`"
                 f"{' with uncommitted changes' if again.get('dirty') else ''}.")  # fmt: skip
        if again.get("commit") and last_scoring and is_older(again["commit"], last_scoring):
            text += " **Stale:** that code is older than the last change to scoring."
    return text
