"""How issue #24's cleaning and meaning check move Inv-Entropy's AUROC on saved runs — no LLM call.

For every saved ``evaluate`` folder under ``docs/results`` this re-scores the
saved raw replies two ways and compares each with the score saved when the
run was made (paired bootstrap Δ, the same resamples for all; as
``scripts/breakdown.py`` does):

* **re-cleaned**: every raw reply cleaned and mapped again by today's
  :func:`invent_core.responses.answers.postprocess` (the echoed question
  removed, option letters and numbers read as today), then scored;
* **re-cleaned, flips padded**: as above, each perturbed question the gate's
  meaning check now rejects replaced by a copy of another kept state, its
  answers with it (the paper pads by duplication; a real run would ask the
  copy again with other seeds, so this understates the copy's own spread);
* **re-cleaned, flips dropped**: the rejected states left out (m shrinks, and
  Inv-Entropy's scale moves with m, so this row mixes two effects).

Replies flagged as non-answers (an echo, the operation named) keep their
canonical text in the score — the scorer needs r answers per question — so the
flag itself moves nothing; their count is printed.

The correctness labels are the saved ones (the original question's answers
are not changed by any of this except through cleaning, which the judge saw).

    python scripts/measure_issue24_auroc.py > docs/results/issue24_auroc.txt
"""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from invent_core import _env  # noqa: E402,F401  offline before any model import

DEFAULT = "inv_entropy"


def _answers(run: dict[str, Any]) -> list[list[Any]]:
    """Today's :class:`Answer` for every saved raw reply (question i's replies to question i)."""
    from invent_core.responses.answers import postprocess

    task, choices = run.get("task") or "qa", run.get("choices")
    return [
        [postprocess(raw, q, task=task, choices=choices) for raw in reps]
        for q, reps in zip(run["questions"], run["raw_responses"], strict=True)
    ]


def _flipped(run: dict[str, Any]) -> set[int]:
    """Indices (1-based states) of perturbations the meaning check rejects today."""
    from invent_core.perturb.gate import split_mmlu_stem
    from invent_core.perturb.meaning import changed_meaning

    original = split_mmlu_stem(run["question"])[0]
    return {
        i
        for i, q in enumerate(run["questions"][1:], start=1)
        if changed_meaning(split_mmlu_stem(q)[0], original) is not None
    }


def _score(run: dict[str, Any], questions: list[str], responses: list[list[str]]) -> float:
    from invent_core.config import ScoreConfig
    from invent_core.paper.scoring import score_responses

    cfg = ScoreConfig(**(run.get("score", {}).get("config") or {}))
    return float(score_responses(questions, responses, dataclasses.replace(cfg)).measures[DEFAULT])


def variants(run: dict[str, Any]) -> dict[str, float]:
    """Inv-Entropy of one saved run re-scored the two ways of the module doc."""
    answers = _answers(run)
    qs = list(run["questions"])
    canon = [[a.canonical for a in reps] for reps in answers]
    keep = [i for i in range(len(qs)) if i not in _flipped(run)]
    rng = np.random.default_rng(0)
    donors = keep[1:] or [0]
    pad = [i if i in keep else int(rng.choice(donors)) for i in range(len(qs))]
    return {
        "recleaned": _score(run, qs, canon),
        "flips_padded": _score(run, [qs[i] for i in pad], [canon[i] for i in pad]),
        "flips_dropped": _score(run, [qs[i] for i in keep], [canon[i] for i in keep]),
        "flipped_states": len(qs) - len(keep),
        "changed": sum(
            a.canonical != old
            for reps, saved in zip(answers, run["responses"], strict=True)
            for a, old in zip(reps, saved, strict=True)
        ),
        "replies": sum(map(len, answers)),
        "non_answers": sum(a.non_answer is not None for reps in answers for a in reps),
    }


def folder_lines(folder: Path) -> list[str]:
    """Report lines for one evaluate folder."""
    from breakdown import paired_delta, read_scores, run_for

    from invent_core.evaluation.metrics import bootstrap_indices

    rows = read_scores(folder)
    runs = [run_for(folder, r["id"]) for r in rows]
    pairs = [
        (r, run) for r, run in zip(rows, runs, strict=True) if run and run.get("raw_responses")
    ]
    if not pairs:
        return []
    correct = np.array([int(r["correct"]) for r, _ in pairs])
    saved = np.array([float(r[DEFAULT]) for r, _ in pairs])
    found = [variants(run) for _, run in pairs]
    idx = bootstrap_indices(correct, n_bootstrap=200, seed=0)
    base = paired_delta(correct, saved, saved, idx)["auroc"]
    lines = [
        f"== {folder.name}: {len(pairs)} questions, right on {int(correct.sum())}",
        f"  saved Inv-Entropy AUROC {base['mean']:.3f} ± {base['std']:.3f}",
    ]
    for key, label in (
        ("recleaned", "re-cleaned"),
        ("flips_padded", "re-cleaned, meaning flips padded"),
        ("flips_dropped", "re-cleaned, meaning flips dropped"),
    ):
        d = paired_delta(correct, saved, np.array([f[key] for f in found]), idx)["auroc"]
        lines.append(
            f"  {label:36s} AUROC {d['mean']:.3f} ± {d['std']:.3f}  "
            f"Δ {d['delta']:+.3f} ± {d['delta_std']:.3f}  (P(better) {d['p_better']:.2f})"
        )
    lines.append(
        f"  canonical answers changed by re-cleaning: {sum(f['changed'] for f in found)} of "
        f"{sum(f['replies'] for f in found)}"
    )
    lines.append(
        f"  states dropped as meaning flips: {sum(f['flipped_states'] for f in found)} "
        f"in {sum(bool(f['flipped_states']) for f in found)} questions; replies flagged "
        f"as non-answers: {sum(f['non_answers'] for f in found)}"
    )
    return lines


def main() -> None:
    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (no LLM call)")
    for folder in sorted((ROOT / "docs" / "results").glob("evaluate-*")):
        for line in folder_lines(folder):
            print(line, flush=True)


if __name__ == "__main__":
    main()
