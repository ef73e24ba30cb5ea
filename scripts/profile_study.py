"""The three profiles on one saved evaluation: how ours, the paper's and the released code's differ.

    python scripts/profile_study.py docs/results/evaluate-arithmetic-100 \\
        --out docs/results/profile_study.json

Every saved run of the folder is re-scored (no LLM call: the answers are read
from ``runs/``) under each profile's scoring options (``invent_core.config.PROFILES``:
the kernel, B), and Inv-Entropy is evaluated under the profile's convention
(ours: the value on the sample ± std [95 % interval] over 1,000 resamples; the
paper and the released code: mean ± std over 40), with the profile's PRR
(Malinin's, or the released code's AUPRC). The paired AUROC difference of each
profile to ours is taken on 1,000 shared resamples. The labels are those of
``scores.csv``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from kernel_study import load_items  # noqa: E402  (scripts/ on sys.path)

from invent_core.config import PROFILES, RunConfig, get_profile  # noqa: E402
from invent_core.evaluation.metrics import CONVENTIONS, N_BOOTSTRAP, evaluate_scores  # noqa: E402
from invent_core.provenance import provenance  # noqa: E402


def rescore(items, profile: str, embedder) -> np.ndarray:
    """Inv-Entropy of every item under the profile's scoring options."""
    from invent_core.engine.scoring import score_responses

    score = RunConfig().replace(**get_profile(profile).score_options()).score
    return np.array([
        score_responses(it.questions, it.responses, score, embedder=embedder).measures["inv_entropy"]
        for it in items
    ])  # fmt: skip


def summary(values: np.ndarray, correct: np.ndarray, profile: str) -> dict[str, Any]:
    """AUROC and the profile's PRR under the profile's convention."""
    p = get_profile(profile)
    conv = CONVENTIONS[p.intervals]
    ev = evaluate_scores({"inv": values}, correct, n_bootstrap=conv.n_bootstrap,
                         metrics=("auroc", p.prr), centre=conv.centre)  # fmt: skip
    out = {"convention": conv.name, "n_bootstrap": conv.n_bootstrap, "prr_metric": p.prr}
    for key, metric in (("auroc", "auroc"), ("prr", p.prr)):
        cell = ev.results["inv"][metric]
        out[key] = {"centre": cell.centre(conv.centre), "std": cell.std, "ci95": list(cell.ci95)}
    return out


def study(folder: Path) -> dict[str, Any]:
    """Every profile's Inv-Entropy metrics on ``folder`` and its paired AUROC difference to ours."""
    from invent_core.embedders import get_embedder

    items, missing = load_items(folder)
    correct = np.array([it.correct for it in items])
    embedder = get_embedder("minilm")
    t0 = time.perf_counter()
    table = {name: rescore(items, name, embedder) for name in PROFILES}
    seconds = time.perf_counter() - t0
    paired = evaluate_scores(table, correct, n_bootstrap=N_BOOTSTRAP, metrics=("auroc",))
    paired = paired.with_paired(["ours"]).paired["ours"]
    rows = {}
    for name in PROFILES:
        rows[name] = {"help": get_profile(name).help.split(" (")[0],
                      "score": get_profile(name).score_options(),
                      **summary(table[name], correct, name)}  # fmt: skip
        if name != "ours":
            d = paired[name].to_dict()
            rows[name]["vs_ours"] = {
                "difference": -d["difference"],
                "ci95": [-d["ci95"][1], -d["ci95"][0]],
            }
    return {"folder": folder.name, "n": len(items), "n_correct": int(correct.sum()),
            "missing": missing, "seconds": seconds, "profiles": rows, "provenance": provenance()}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Run the study on one evaluate folder and write (or print) its JSON."""
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("folder", type=Path)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/profile_study.py"))
    if not (args.folder / "runs").is_dir():
        p.error(f"{args.folder}: no runs/ folder (an evaluate folder with its saved runs)")
    text = json.dumps(study(args.folder), indent=1)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
