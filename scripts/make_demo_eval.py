"""Regenerate the Evaluation page's demo from a shipped evaluation folder, by today's code.

    python scripts/make_demo_eval.py                       # from docs/results/evaluate-arithmetic-100
    python scripts/make_demo_eval.py --source runs/evaluate-mmlu

No LLM call: the folder's saved scores are read by the one reader of an
evaluation folder and its metrics recomputed by today's code
(:func:`invent_core.experiments.recompute.recompute_evaluation`, on a copy: the
shipped folder is not written), then written as the payload the page reads
(:func:`invent_ui.data.experiments.eval_payload`) with its provenance: the
folder it came from, the code that made the scores and the code that made the
demo. The default is the arithmetic testbed, the shipped sample where the
packaged 0.5B is right about as often as wrong (56 of 100). To show another
evaluation, make it with ``invent evaluate`` and pass its folder.
``tests/invent_ui/test_assets.py`` checks that the demo's numbers are its
source folder's, recomputed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: The shipped evaluation the demo is made from.
SOURCE = ROOT / "docs" / "results" / "evaluate-arithmetic-100"


def demo_payload(source: Path, made: dict[str, Any]) -> dict[str, Any]:
    """The page's payload of ``source``, its metrics recomputed now, with its provenance.

    ``made``: :func:`invent_ui.assets.demo_provenance` of this call (the model is the folder's).
    """
    from invent_core.experiments import ExperimentConfig
    from invent_core.experiments.folder import read_evaluation
    from invent_core.experiments.own_reference import llm_identity_of
    from invent_core.experiments.recompute import recompute_evaluation
    from invent_ui.data.experiments import eval_payload

    meta = read_evaluation(source).meta  # refused, naming what, when it is no evaluation
    cfg = ExperimentConfig.from_dict(meta["config"])
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / source.name
        shutil.copytree(source, work)
        result = recompute_evaluation(work, n_bootstrap=cfg.n_bootstrap_metrics)
        payload = eval_payload(result, cfg, llm=llm_identity_of(work), out=work)
    payload.pop("folder", None)  # relabels go to a folder of one's own, not the shipped one
    where = source.resolve()
    shown = str(where.relative_to(ROOT)) if where.is_relative_to(ROOT) else str(where)
    payload["provenance"] = {
        "source": shown,
        "scores": meta.get("provenance"),
        "demo": {
            **made,
            "model": made.get("model") or llm_identity_of(source),
            "from": shown,
            "n_bootstrap": cfg.n_bootstrap_metrics,
        },
    }
    return payload


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--source", type=Path, default=SOURCE, help="an evaluate folder")
    parser.add_argument("--out", type=Path, default=ROOT / "assets" / "demo_eval.json")
    args = parser.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/make_demo_eval.py"))

    from invent_core.csv_safe import atomic_file
    from invent_ui.assets import demo_provenance

    made = demo_provenance("scripts/make_demo_eval.py", sys.argv[1:] if argv is None else argv)
    payload = demo_payload(args.source, made)
    with atomic_file(args.out) as f:
        f.write(json.dumps(payload, ensure_ascii=False) + "\n")  # 1,000 resamples a cell: no indent
    rows = payload["rows"]
    acc = sum(int(r["correct"]) for r in rows) / len(rows)
    print(f"{len(rows)} questions, accuracy {acc:.0%}, from {args.source}; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
