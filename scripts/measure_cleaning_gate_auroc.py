"""How the cleaning and the meaning check move Inv-Entropy's AUROC on saved runs — no LLM call.

For every saved ``evaluate`` folder under ``docs/results_before_meaning_check`` (the
runs made before the meaning check and the cleaning, moved out of RESULTS' folder when it was rebuilt) this re-scores the
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

    python scripts/measure_cleaning_gate_auroc.py --json docs/results/cleaning_gate.json --same \
        docs/results_before_meaning_check/evaluate-arithmetic \
        docs/results_first_paraphraser/evaluate-arithmetic-100 docs/results/evaluate-arithmetic-100

``--same`` adds the direct comparison: the saved Inv-Entropy of evaluations of
the same questions made at different times (new rewordings and answers: LLM
calls made when each was run), paired on the questions they share that the
model got right or wrong in both.
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

from invent_core import env  # noqa: E402,F401  offline before any model import

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
    from invent_core.perturb.meaning import changed_meaning
    from invent_core.questions.mmlu import split_mmlu_stem

    original = split_mmlu_stem(run["question"])[0]
    return {
        i
        for i, q in enumerate(run["questions"][1:], start=1)
        if changed_meaning(split_mmlu_stem(q)[0], original) is not None
    }


def _score(run: dict[str, Any], questions: list[str], responses: list[list[str]]) -> float:
    from invent_core.config import ScoreConfig
    from invent_core.engine.scoring import score_responses

    cfg = ScoreConfig.from_dict(run.get("score", {}).get("config") or {})
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


ROWS = (
    ("recleaned", "re-cleaned with today's cleaning"),
    ("flips_padded", "re-cleaned, meaning flips padded by copies"),
    ("flips_dropped", "re-cleaned, meaning flips dropped (m shrinks)"),
)


def _auroc(correct: np.ndarray, base: np.ndarray, other: np.ndarray, idx: np.ndarray) -> dict:
    from breakdown import paired_delta

    d = paired_delta(correct, base, other, idx)["auroc"]
    return {k: round(d[k], 4) for k in ("mean", "std", "delta", "delta_std", "p_better")}


def folder_record(folder: Path, n_boot: int = 200) -> dict[str, Any] | None:
    """AUROC of the saved score and of each re-scoring of one evaluate folder, paired."""
    from breakdown import judged_runs, paired_inputs

    pairs = [
        (r, run) for r, run in zip(*judged_runs(folder), strict=True) if run.get("raw_responses")
    ]
    if not pairs:
        return None
    correct, saved, idx = paired_inputs([r for r, _ in pairs], n_boot, seed=0)
    found = [variants(run) for _, run in pairs]
    return {
        "folder": folder.name,
        "n_questions": len(pairs),
        "n_correct": int(correct.sum()),
        "n_boot": n_boot,
        "saved": _auroc(correct, saved, saved, idx),
        "rows": {
            key: {"label": label, **_auroc(correct, saved, np.array([f[key] for f in found]), idx)}
            for key, label in ROWS
        },
        "canonical_changed": sum(f["changed"] for f in found),
        "replies": sum(f["replies"] for f in found),
        "flipped_states": sum(f["flipped_states"] for f in found),
        "questions_with_flips": sum(bool(f["flipped_states"]) for f in found),
        "non_answers": sum(f["non_answers"] for f in found),
    }


def same_questions(old: Path, new: Path, n_boot: int = 200) -> dict[str, Any] | None:
    """Saved Inv-Entropy AUROC of two evaluations on the questions both have (paired)."""
    from breakdown import read_scores

    from invent_core.evaluation.metrics import bootstrap_indices

    a = {r["id"]: r for r in read_scores(old)}
    b = {r["id"]: r for r in read_scores(new)}
    ids = [i for i in a if i in b and a[i]["correct"] == b[i]["correct"]]
    if len(ids) < 10:
        return None
    correct = np.array([int(a[i]["correct"]) for i in ids])
    before = np.array([float(a[i][DEFAULT]) for i in ids])
    after = np.array([float(b[i][DEFAULT]) for i in ids])
    idx = bootstrap_indices(correct, n_bootstrap=n_boot, seed=0)
    return {
        "old": str(old.relative_to(ROOT)) if old.is_relative_to(ROOT) else old.name,
        "new": str(new.relative_to(ROOT)) if new.is_relative_to(ROOT) else new.name,
        "n_questions": len(ids),
        "n_correct": int(correct.sum()),
        "n_boot": n_boot,
        "before": _auroc(correct, before, before, idx),
        "after": _auroc(correct, before, after, idx),
    }


def _made_after(folder: Path) -> bool:
    """Whether an evaluate folder's runs were made with the gate's meaning check."""
    import json

    path = folder / "config.json"
    if not path.is_file():
        return True
    run = json.loads(path.read_text(encoding="utf-8")).get("config", {}).get("run", {})
    return "meaning_check" in ((run.get("paraphrase") or {}).get("gate") or {})


def record_lines(rec: dict[str, Any]) -> list[str]:
    """Printout of one :func:`folder_record`."""
    s = rec["saved"]
    lines = [
        f"== {rec['folder']}: {rec['n_questions']} questions, right on {rec['n_correct']}",
        f"  saved Inv-Entropy AUROC {s['mean']:.3f} ± {s['std']:.3f}",
    ]
    for row in rec["rows"].values():
        lines.append(
            f"  {row['label']:46s} AUROC {row['mean']:.3f} ± {row['std']:.3f}  "
            f"Δ {row['delta']:+.3f} ± {row['delta_std']:.3f}  (P(better) {row['p_better']:.2f})"
        )
    lines.append(
        f"  canonical answers changed by re-cleaning: {rec['canonical_changed']} of "
        f"{rec['replies']}; states the meaning check rejects: {rec['flipped_states']} in "
        f"{rec['questions_with_flips']} questions; replies flagged as non-answers: "
        f"{rec['non_answers']}"
    )
    return lines


def main() -> None:
    import argparse
    import json

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--root", type=Path, nargs="+",
                   default=[ROOT / "docs" / "results_before_meaning_check", ROOT / "docs" / "results"])  # fmt: skip
    p.add_argument("--same", nargs="+", type=Path, metavar="FOLDER", default=[],
                   help="evaluate folders with the same questions, oldest first: each "
                        "consecutive pair and the first against the last are compared")  # fmt: skip
    p.add_argument("--json", type=Path, help="also write the records here")
    args = p.parse_args()
    from invent_core.provenance import provenance, provenance_line  # the code behind this printout

    print(provenance_line("scripts/measure_cleaning_gate_auroc.py"), file=sys.stderr)
    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (no LLM call)")
    records = []
    for folder in sorted(f for root in args.root for f in root.glob("evaluate-*")):
        if _made_after(folder):
            continue  # nothing to re-score: made with the meaning check and today's cleaning
        rec = folder_record(folder)
        if rec is not None:
            records.append(rec)
            print("\n".join(record_lines(rec)), flush=True)
    out: dict[str, Any] = {"provenance": provenance(), "saved_runs": records}
    chain = [f.resolve() for f in args.same]
    pairs = list(zip(chain, chain[1:], strict=False))
    pairs += [(chain[0], chain[-1])] if len(chain) > 2 else []
    out["same_questions"] = [rec for a, b in pairs if (rec := same_questions(a, b))]
    for rec in out["same_questions"]:
        print(json.dumps(rec))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
