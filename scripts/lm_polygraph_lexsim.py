"""Our LexSim against lm-polygraph's ``LexicalSimilarity`` on a saved evaluation's answers (no LLM).

lm-polygraph 0.7.0 cannot be imported whole here (its package ``__init__``
needs ``datasets`` and the rest of its 36 requirements, see docs/method.md), but
its estimator modules can: run this with a throwaway environment that sees
ours and holds the wheel and ``rouge-score`` (nothing goes into the main one):

    python -m venv --system-site-packages /tmp/lmp
    /tmp/lmp/bin/pip install --no-deps lm-polygraph==0.7.0 rouge-score absl-py
    /tmp/lmp/bin/python scripts/lm_polygraph_lexsim.py docs/results/evaluate-sciq-140-1.5b

Both score the same r replies to the original question of every saved run
(what our method reads). lm-polygraph's value is −mean ROUGE-L (with a Porter
stemmer), ours 1 − mean ROUGE-L (no stemmer): the same order when no stem
differs. Printed: how many questions agree to 1e-9 after the shift, the largest
difference, the rank correlation and each one's AUROC against the folder's labels.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import sys
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from invent_core.engine.artifact import RunArtifact  # noqa: E402
from invent_core.evaluation.metrics import auroc_score  # noqa: E402
from invent_core.experiments import ExperimentConfig  # noqa: E402
from invent_core.experiments.runs import run_path  # noqa: E402
from invent_core.methods.lexsim import lexical_similarity  # noqa: E402
from invent_core.methods.registry import ScoringContext  # noqa: E402


def polygraph_lexsim():
    """lm-polygraph's LexicalSimilarity class, its package ``__init__`` files skipped."""
    spec = importlib.util.find_spec("lm_polygraph")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("lm_polygraph is not installed in this environment (see --help)")
    base = Path(list(spec.submodule_search_locations)[0])
    for name, sub in (("lm_polygraph", ""), ("lm_polygraph.estimators", "estimators"),
                      ("lm_polygraph.utils", "utils")):  # fmt: skip
        mod = types.ModuleType(name)
        mod.__path__ = [str(base / sub)]
        sys.modules[name] = mod
    from lm_polygraph.estimators.lexical_similarity import LexicalSimilarity

    return LexicalSimilarity(metric="rougeL")


def _rank(x: np.ndarray) -> np.ndarray:
    return np.argsort(np.argsort(x, kind="stable"), kind="stable").astype(float)


def compare(folder: Path, theirs) -> str:
    """One line: agreement of the two LexSims on ``folder``'s saved replies."""
    meta = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    t = ExperimentConfig.from_dict(meta["config"]).run.temperature
    with open(folder / "scores.csv", newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if not r.get("error") and r.get("correct")]
    ours, poly = [], []
    for r in rows:
        replies = ScoringContext.from_run(RunArtifact.load(run_path(folder / "runs", r["id"], t)))
        texts = list(replies.original_responses)
        ours.append(1.0 - lexical_similarity(texts))
        poly.append(float(theirs({"sample_texts": [texts]})[0]) + 1.0)
    a, b = np.array(ours), np.array(poly)
    correct = np.array([int(r["correct"]) for r in rows])
    same = int(np.sum(np.abs(a - b) < 1e-9))
    rho = float(np.corrcoef(_rank(a), _rank(b))[0, 1])
    return (f"{folder.name}: {len(rows)} questions; equal on {same}, largest difference "
            f"{np.max(np.abs(a - b)):.4f}, Spearman {rho:.4f}; AUROC ours "
            f"{auroc_score(correct, a):.4f}, lm-polygraph {auroc_score(correct, b):.4f}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Print one comparison line per folder."""
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("folders", nargs="+", type=Path)
    args = p.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/lm_polygraph_lexsim.py"))
    theirs = polygraph_lexsim()
    for folder in args.folders:
        print(compare(folder, theirs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
