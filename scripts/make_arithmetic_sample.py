"""Regenerate the shipped arithmetic testbed sample (no LLM, no network, deterministic).

    python scripts/make_arithmetic_sample.py        # assets/datasets/arithmetic_sample300.jsonl

Writes ``invent_core.questions.testbed.generate_testbed(300, seed=0)`` as JSON lines in the
format of the other shipped samples and prints its sha256 (recorded in
``assets/datasets/MANIFEST.json``). ``tests/questions/test_testbed.py`` checks that the
shipped file is exactly what this writes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

N, SEED = 300, 0  # the shipped sample: 300 rows, seed 0


def sample_text(n: int = N, seed: int = SEED) -> str:
    """The JSONL text of the sample: one row per line, UTF-8 kept as is."""
    from invent_core.questions.testbed import generate_testbed

    return "".join(
        json.dumps(row, ensure_ascii=False) + "\n" for row in generate_testbed(n, seed=seed)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--out", type=Path, default=ROOT / "assets" / "datasets" / "arithmetic_sample300.jsonl"
    )
    args = parser.parse_args(argv)
    from invent_core.provenance import provenance_line  # the code behind this printout

    print(provenance_line("scripts/make_arithmetic_sample.py"))
    text = sample_text()
    args.out.write_text(text, encoding="utf-8")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    print(f"wrote {args.out} ({N} rows, seed {SEED}), sha256 {digest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
