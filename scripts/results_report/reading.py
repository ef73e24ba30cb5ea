"""How an evaluation's numbers may be read: paired differences in words, and the code behind them.

:func:`paired_lines` turns the ``paired`` block of a ``results.json`` into
sentences — "ahead", "behind", "not distinguishable at this size" — that follow
from each difference's Holm-corrected interval alone (one family per reference
method), with the questions a difference of the observed size would need for
80 % power; nothing is ranked by hand. :func:`seed_flips` re-draws the resamples
with a few other seeds and names the verdicts that change. :func:`code_line`
says which code made an evaluation and whether it is stale: stale when and only
when re-scoring its saved runs at this commit changes a number
(``stale_check.json``, written by ``scripts/recompute_results.py --check-stale``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from invent_core.config.paraphrase import REWORDING_RULES
from invent_core.evaluation.metrics import evaluate_scores
from invent_core.evaluation.metrics.paired import NOT_DISTINGUISHABLE
from invent_core.provenance import BEFORE_PROVENANCE, WHEEL, is_older

from .text import pm_ci

#: The other bootstrap seeds a verdict is checked under (the evaluation's own is 0).
OTHER_SEEDS: tuple[int, ...] = (1, 2, 3, 4)

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
    return f"a difference this size would need about {k:,} questions for 80 % power"


def _holm(d: dict[str, Any]) -> str:
    h = d.get("holm")
    if not h:
        return ""
    lo, hi = h["ci"]
    return f"; Holm {100 * h['level']:.2f} % [{lo:+.3f}, {hi:+.3f}]"


def _names(items: list[tuple[str, dict[str, Any]]], labels: dict[str, str], needed: bool) -> str:
    parts = []
    for other, d in items:
        extra = f"; {_needed(d)}" if needed else ""
        parts.append(f"{labels.get(other, other)} ({_diff(d)}{_holm(d)}{extra})")
    return ", ".join(parts)


def paired_lines(
    res: dict[str, Any], flips: dict[str, dict[str, list[str]]] | None = None
) -> list[str]:
    """One bullet per reference method (Inv-Entropy, the best baseline) of the paired AUROC block.

    ``flips``: :func:`seed_flips` of the folder; a verdict that changes with the seed is named.
    """
    paired = res.get("paired") or {}
    if not paired:
        return []
    judgement = res.get("judgement") or {}
    if not judgement.get("ok", True):
        return [f"Paired differences are in `results.json`; the ranking is not read "
                f"({judgement.get('reason')}).", ""]  # fmt: skip
    labels = res.get("labels", {})
    n = next(iter(next(iter(paired.values())).values()))["n_questions"]
    holm = any("holm" in d for row in paired.values() for d in row.values())
    how = ("a verdict needs the Holm-corrected interval (5 % family-wise over the methods each "
           "reference is compared with) to exclude zero" if holm else
           "saved before Holm's correction: a verdict follows the bare 95 % interval")  # fmt: skip
    lines = [f"Paired AUROC differences on the same {n} questions and the same resamples "
             f"(Δ = the first method minus the other, 95 % percentile interval; {how}):", ""]  # fmt: skip
    for ref, row in paired.items():
        by = {v: [(o, d) for o, d in row.items() if d["verdict"] == v] for v in (AHEAD, BEHIND)}
        rest = [(o, d) for o, d in row.items() if d["verdict"] not in (AHEAD, BEHIND)]
        said = [f"ahead of {_names(by[AHEAD], labels, False)}" if by[AHEAD] else "",
                f"behind {_names(by[BEHIND], labels, False)}" if by[BEHIND] else "",
                f"not distinguishable at this size from {_names(rest, labels, True)}" if rest else ""]  # fmt: skip
        body = "; ".join(s for s in said if s)
        lines.append(f"- **{labels.get(ref, ref)}** (AUROC {pm_ci(res, ref, 'auroc')}) is {body}.")
    lines += _flip_lines(flips, labels) if flips is not None else []
    return lines + [""]


def _flip_lines(flips: dict[str, dict[str, list[str]]], labels: dict[str, str]) -> list[str]:
    seeds = ", ".join(map(str, OTHER_SEEDS))
    changed = [f"{labels.get(r, r)} against {labels.get(o, o)} ({' / '.join(v)})"
               for r, row in flips.items() for o, v in row.items() if len(set(v)) > 1]  # fmt: skip
    if not changed:
        return [f"- Every verdict above is the same with the resamples drawn from seeds {seeds}."]
    return [
        f"- **Verdicts that change with the bootstrap seed** (seed 0, then {seeds}): "
        + "; ".join(changed)
        + "."
    ]


def seed_flips(
    rows: list[dict[str, Any]], res: dict[str, Any], seeds=OTHER_SEEDS
) -> dict[str, dict[str, list[str]]]:
    """Each paired verdict under seed 0 (the evaluation's) and under each of ``seeds``.

    ``rows``: the judged rows of scores.csv (with the relabel layer applied); the
    methods and references are those of ``res`` (results.json). Returns
    reference -> other -> [verdict under seed 0, then each seed].
    """
    paired = res.get("paired") or {}
    methods = list(res.get("results", {}))
    if not paired or not rows:
        return {}
    correct = np.array([int(r["correct"]) for r in rows])
    table = {m: np.array([float(r[m]) for r in rows]) for m in methods}
    out = {ref: {o: [d["verdict"]] for o, d in row.items()} for ref, row in paired.items()}
    for seed in seeds:
        ev = evaluate_scores(table, correct, n_bootstrap=int(res.get("n_bootstrap", 1000)),
                             seed=seed, metrics=("auroc",)).with_paired(list(paired))  # fmt: skip
        for ref, row in out.items():
            for other, verdicts in row.items():
                d = ev.paired.get(ref, {}).get(other)
                verdicts.append(d.verdict if d is not None else NOT_DISTINGUISHABLE)
    return out


def _short(commit: str | None) -> str:
    return (commit or "")[:10]


def _made_by(meta: dict[str, Any]) -> str:
    """Who made the scores: a commit, a wheel, or "before provenance was recorded"."""
    prov = meta.get("provenance") or {}
    source, commit = prov.get("source"), prov.get("commit")
    if not prov or source == BEFORE_PROVENANCE:
        version = prov.get("version") or (meta.get("versions") or {}).get("invent_core")
        made = f" (invent {version})" if version else ""
        # not the word "provenance" itself: RESULTS must never read "nan", and it holds one
        return f"**Code:** the scores were made before their commit was recorded{made}"
    if source == WHEEL or not commit:
        return f"**Code:** invent {prov.get('version')} ({source}), no commit recorded"
    dirty = " with uncommitted changes" if prov.get("dirty") else ""
    return f"**Code:** scores made by commit `{_short(commit)}`{dirty}"


def stale_words(check: dict[str, Any] | None, last_scoring: str | None) -> str:
    """Whether the folder is stale, from its re-scoring check (``stale_check.json``).

    Stale when and only when re-scoring the saved runs changed a value beyond the
    tolerance or a label, or today's rewording rules, replayed on the candidates the
    runs saved, would choose other perturbations. A check made before the last change
    to the scoring code, or with an older round of rewording rules, no longer answers
    for this commit, and says so.
    """
    if check is None:
        return ("**staleness not checked**: no re-scoring of the saved runs is recorded "
                "(`python scripts/recompute_results.py --check-stale FOLDER`)")  # fmt: skip
    commit = (check.get("provenance") or {}).get("commit")
    if commit and last_scoring and is_older(commit, last_scoring):
        return (f"**staleness check out of date**: re-scored at commit `{_short(commit)}`, before "
                f"the last change to scoring (`{_short(last_scoring)}`); run the check again")  # fmt: skip
    rw = check.get("rewordings")
    if rw and rw.get("rules") != REWORDING_RULES:
        return (f"**staleness check out of date**: its rewordings were replayed with round "
                f"{rw.get('rules')} of the rules, today's is round {REWORDING_RULES}; run the check again")  # fmt: skip
    tol = check.get("tolerance")
    metrics = float(check.get("metrics_change", 0.0))
    if check.get("unavailable"):
        head = f"{check['unavailable']}; its metrics recomputed from `scores.csv` at commit `{_short(commit)}`"
        if metrics > tol:
            return f"**Stale:** {head} move by up to {metrics:.2g} (tolerance {tol:g})"
        return f"not stale as far as can be checked: {head} move by no more than {tol:g}"
    where = f"re-scoring its {check.get('n_questions')} saved runs at commit `{_short(commit)}`"
    if metrics > tol:
        where += f" (its metrics recomputed from `scores.csv` move by up to {metrics:.2g})"
    if check.get("stale"):
        moved = ", ".join(f"{m} (by up to {float(check['largest_change'][m]):.2g})"
                          for m in check.get("moved", []))  # fmt: skip
        labels = check.get("labels_changed", 0)
        what = "; ".join(x for x in (f"moves {moved}" if moved else "",
                                     f"changes {labels} labels" if labels else "") if x)  # fmt: skip
        head = f"{where} {what} (tolerance {tol:g})" if what else f"{where} moves no number"
        return f"**Stale:** {head}{rewording_words(rw)}"
    largest = max((float(v) for v in check.get("largest_change", {}).values()), default=0.0)
    return (
        f"not stale: {where} moves no value by more than {tol:g} (largest {largest:.1g}) "
        f"and changes no label{rewording_words(rw)}"
    )


def rewording_words(rw: dict[str, Any] | None) -> str:
    """What replaying the runs' rewording verdicts with today's rules found ("" when not replayed)."""
    if not rw or not (rw.get("replayed") or rw.get("unavailable")):
        return ""
    n, changed, lost = (
        rw.get("replayed", 0),
        len(rw.get("changed") or ()),
        len(rw.get("unavailable") or ()),
    )
    where = f"; replaying its rewording verdicts with today's rules (round {rw.get('rules')})"
    text = (f"{where} would choose other perturbations for {changed} of {n} questions" if changed
            else f"{where} chooses the same perturbations for all {n} questions")  # fmt: skip
    return text + (f" ({lost} runs could not be replayed)" if lost else "")


def code_line(meta: dict[str, Any], check: dict[str, Any] | None, last_scoring: str | None) -> str:
    """Which code made the scores (and recomputed the metrics), and whether they are stale."""
    text = f"{_made_by(meta)}; {stale_words(check, last_scoring)}."
    again = meta.get("results_recomputed")
    if again:
        text += (f" Metrics recomputed from `scores.csv` with {again.get('n_bootstrap')} "
                 f"resamples by commit `{_short(again.get('commit'))}`"
                 f"{' with uncommitted changes' if again.get('dirty') else ''}.")  # fmt: skip
    return text
