"""Agreement of the correctness judges with the hand labels, per dataset and split.

    python scripts/judge_agreement.py          # docs/results/judge_agreement.{md,json}

Reads ``tests/data/judge_labels/*.jsonl`` (the labelling rule is in the README
there), judges every labelled answer with the offline judges (``paraphrase``, the
default, and ``match``, the rules alone) and writes the counts. It also gives the
accuracy of the saved SciQ evaluation (``docs/results/evaluate-sciq-140-1.5b``) by
hand and by each judge. No LLM is asked. ``tests/evaluation/test_label_agreement.py``
checks that the committed figures are what the judges give now.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LABELS = ROOT / "tests" / "data" / "judge_labels"
OUT = ROOT / "docs" / "results" / "judge_agreement"
DATASETS = ("sciq", "triviaqa", "nq_open")
JUDGES = ("paraphrase", "match")
SPLITS = {"dev": ("dev",), "heldout": ("heldout",), "all": ("dev", "heldout")}
SCIQ_EVALUATION = "docs/results/evaluate-sciq-140-1.5b"
#: The reading of the figures above; every number in it is filled from the result (:func:`reading`).
READING = """\
## Reading it

- The paraphrase judge is the default of `evaluate`, `batch` and the Evaluation
  page; `match` is the rule judge every other shipped evaluation was made with.
- SciQ: the paraphrase judge misses {sciq_para_missed} answers labelled right (synonyms WordNet
  lacks: "silicic lava" for "felsic magmas", "material" for "medium", "impacts"
  for "a collision"; answers that leave a word out: "host" for "host cell") and
  accepts {sciq_para_accepted} labelled wrong ("Chloroplasts, mitochondria": the right structure
  with a wrong one). The rules alone miss {sciq_match_missed}.
- TriviaQA and NQ-open: only {triviaqa_right} and {nq_open_right} of the labelled answers are right (the
  packaged models rarely know these), so the figures there mostly say how rarely
  a judge accepts a wrong answer.
- The saved SciQ evaluation (re-made on 2026-11-29 with today's pipeline, judged by
  the paraphrase judge against the corrected references in
  `assets/datasets/sciq_sample300.jsonl`): by hand {hand} of its {n} answers are right
  ({hand_share}); the paraphrase judge says {paraphrase}, the rules alone {match}
  ({match_share}). RESULTS reads the paraphrase judge's labels.
"""


def reading(result: dict) -> str:
    """:data:`READING` with its numbers taken from ``result`` (:func:`measure`)."""
    ds = result["datasets"]
    acc = result["sciq_evaluation"]["correct"]

    def right(name: str) -> int:
        a = ds[name]["paraphrase"]["all"]
        return a["right_accepted"] + a["right_rejected"]

    def share(k: str) -> str:
        return f"{acc[k] / acc['n']:.0%}".replace("%", " %")

    return READING.format(
        sciq_para_missed=ds["sciq"]["paraphrase"]["all"]["right_rejected"],
        sciq_para_accepted=ds["sciq"]["paraphrase"]["all"]["wrong_accepted"],
        sciq_match_missed=ds["sciq"]["match"]["all"]["right_rejected"],
        triviaqa_right=right("triviaqa"), nq_open_right=right("nq_open"),
        hand=acc["hand"], n=acc["n"], hand_share=share("hand"), match=acc["match"],
        match_share=share("match"), paraphrase=acc["paraphrase"],
    )  # fmt: skip


def measure() -> dict:
    """``{dataset: {judge: {split: Agreement dict}}}`` plus the SciQ evaluation's accuracy."""
    from invent_core.evaluation.label_agreement import agreement, read_labels

    out: dict = {"datasets": {}}
    for ds in DATASETS:
        rows = read_labels(LABELS / f"{ds}.jsonl")
        out["datasets"][ds] = {
            j: {s: agreement(rows, method=j, splits=sp).to_dict() for s, sp in SPLITS.items()}
            for j in JUDGES
        }
    sciq = [r for r in read_labels(LABELS / "sciq.jsonl") if SCIQ_EVALUATION in r["from"]]
    acc = {"n": len(sciq), "hand": sum(r["label"] for r in sciq)}
    for j in JUDGES:
        a = agreement(sciq, method=j)
        acc[j] = a.right_accepted + a.wrong_accepted
    out["sciq_evaluation"] = {"folder": SCIQ_EVALUATION, "correct": acc}
    return out


def markdown(result: dict) -> str:
    """The tables of ``docs/results/judge_agreement.md``."""
    lines = [
        "# Correctness judges against hand labels",
        "",
        "Made by `python scripts/judge_agreement.py` from the hand labels in",
        "`tests/data/judge_labels/` (labelling rule in its README). Agreement = share of",
        "labelled answers the judge calls right or wrong as the label does. *dev*: the half",
        "the paraphrase judge's rules were tuned on; *held out*: measured only.",
        "Right→wrong: labelled right, judged wrong; wrong→right: the reverse.",
        "",
        "| dataset | judge | split | n | agreement | right→wrong | wrong→right |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for ds, judges in result["datasets"].items():
        for j, splits in judges.items():
            for s, a in splits.items():
                lines.append(
                    f"| {ds} | {j} | {s.replace('heldout', 'held out')} | {a['n']} | "
                    f"{a['agreement']:.3f} | {a['right_rejected']} | {a['wrong_accepted']} |"
                )
    acc = result["sciq_evaluation"]["correct"]
    n = acc["n"]
    lines += [
        "",
        f"## The saved SciQ evaluation ({result['sciq_evaluation']['folder']})",
        "",
        "Answers judged right out of its " + str(n) + " questions:",
        "",
        "| by | right | accuracy |",
        "|---|---:|---:|",
        *(f"| {k} | {acc[k]} | {acc[k] / n:.3f} |" for k in ("hand", *JUDGES)),
        "",
        reading(result),
    ]
    return "\n".join(lines)


def main() -> None:
    """Measure and write the JSON and Markdown beside each other."""
    from invent_core.provenance import provenance, provenance_line  # the code behind this printout

    print(provenance_line("scripts/judge_agreement.py"))
    result = {**measure(), "provenance": provenance()}
    OUT.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    OUT.with_suffix(".md").write_text(markdown(result), encoding="utf-8")
    print(markdown(result))


if __name__ == "__main__":
    main()
