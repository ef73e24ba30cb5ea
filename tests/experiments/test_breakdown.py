"""The breakdown and the paraphraser comparison regenerate from saved runs (no LLM).

The shipped ``breakdown.json`` and ``rewordings.json`` are what RESULTS quotes;
these tests rebuild them from the committed runs and ask for the same numbers,
so a change to the scorer, the bootstrap or the scripts that moves a quoted
figure fails here rather than leaving RESULTS stale.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"
ARITH = RESULTS / "evaluate-arithmetic-100"
PARA = RESULTS / "evaluate-arithmetic-100-paraphrase-llm"


def _script(name: str):
    sys.path.insert(0, str(ROOT / "scripts"))  # compare_paraphrasers imports breakdown
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _close(got, want, path=""):
    """Same nested numbers (floats to 1e-9), same keys; the code behind each (provenance) may differ."""
    if isinstance(want, dict):
        keys = set(want) - {"provenance"}
        assert set(got) - {"provenance"} == keys, path
        for k in keys:
            _close(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, float):
        assert got == pytest.approx(want, abs=1e-9), path
    else:
        assert got == want, path


def test_breakdown_rows_regenerate_from_the_saved_runs():
    """Every row but mpnet (≈ 8× the embedding cost) is rebuilt to the shipped numbers."""
    bd = _script("breakdown")
    shipped = json.loads((ARITH / "breakdown.json").read_text(encoding="utf-8"))
    got = bd.breakdown(ARITH)
    assert "mpnet" in shipped["rows"] and "mpnet" not in got["rows"]
    shipped["rows"].pop("mpnet")
    _close(got, shipped)
    # the rows from other runs are there, not "not run"
    assert "not_run" not in got["rows"]["gaap"] and "not_run" not in got["rows"]["paraphrase-llm"]


def test_paraphraser_comparison_regenerates(tmp_path):
    cp = _script("compare_paraphrasers")
    out = tmp_path / "rewordings.json"
    assert cp.main([str(ARITH), str(PARA), "--out", str(out)]) == 0
    _close(json.loads(out.read_text()), json.loads((PARA / "rewordings.json").read_text()))


def test_cosine_is_recovered_from_the_saved_affinity():
    cp = _script("compare_paraphrasers")
    tau, cosines = 0.25, [0.9, 0.5, -0.2]
    row = [1.0] + [math.exp((c - 1.0) / tau) for c in cosines]
    run = {"score": {"config": {"kernel_tau": tau}, "sim_x": [row]}}
    assert cp.cosines_to_question(run) == pytest.approx(cosines)


def test_comparison_refuses_a_folder_without_runs(tmp_path, capsys):
    cp = _script("compare_paraphrasers")
    with pytest.raises(SystemExit):
        cp.main([str(ARITH), str(tmp_path), "--out", str(tmp_path / "x.json")])
    assert f"{tmp_path}: no runs/ folder" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()
