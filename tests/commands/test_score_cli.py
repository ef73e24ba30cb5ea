"""``score FILE``: answers you already have, with the warnings run and batch give."""

from __future__ import annotations

import json

from invent_core.cli import main as cli


def _write(path, questions, responses):
    path.write_text(json.dumps({"questions": questions, "responses": responses}))
    return path


def test_rewordings_that_repeat_the_question_are_called_degenerate(tmp_path, capsys, minilm):
    """Two copies of one state: Inv-Entropy is ln 2 whatever the answers, and it is said."""
    path = _write(tmp_path / "copies.json", ["Q?", "Q?"], [["a", "a"], ["a", "b"]])
    assert cli(["score", str(path), "-B", "5"]) == 0
    out = capsys.readouterr()
    assert "inv_entropy        0.6931" in out.out
    assert "warning: degenerate result: all 1 perturbations are the question itself" in out.err
    assert cli(["score", str(path), "-B", "5", "--json"]) == 0
    assert "measures nothing" in json.loads(capsys.readouterr().out)["degenerate"]


def test_a_real_rewording_is_not_degenerate(tmp_path, capsys, minilm):
    path = _write(
        tmp_path / "ok.json", ["Capital of France?", "France's capital?"], [["Paris"]] * 2
    )
    assert cli(["score", str(path), "-B", "5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["degenerate"] is None
