"""Every size option is bounded: a huge value is refused naming the option and its bound.

A shard count of 10^12 let ``merge`` look for 10^12 parts; an unbounded
re-ask count let the gate send thousands of requests. The class is every
whole-number option: each one generated from the configs (run, batch,
evaluate, tsu share them) and each a command adds by hand is tried with
10^12, in process, before any model loads or file is written.
"""

from __future__ import annotations

import pytest

from invent_core.cli import main as cli
from invent_core.config import GateConfig, ParaphraseConfig, iter_options

#: Seeds are numbers, not sizes: any whole number is a seed.
SIZES = [o for o in iter_options() if o.type is int and not o.name.endswith("seed")]
HUGE = str(10**12)
DEAD_LLM = ("--llm", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m")


@pytest.fixture
def questions(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("id,question,answer\nq1,What is 2+2?,4\n", encoding="utf-8")
    return path


def test_the_class_is_not_empty():
    names = {o.name for o in SIZES}
    assert {"n_perturbations", "n_replications", "paraphrase_gate_max_extra_requests"} <= names
    assert {"paraphrase_gate_max_verify_requests", "gaap_max_generations"} <= names


@pytest.mark.parametrize("option", SIZES, ids=lambda o: o.name)
def test_every_generated_size_option_is_bounded(tmp_path, capsys, questions, option):
    out = tmp_path / "o.csv"
    assert cli(["batch", str(questions), "-o", str(out), option.long_flag, HUGE, *DEAD_LLM]) == 2
    err = capsys.readouterr().err
    assert "at most" in err and (option.long_flag in err or option.path[-1] in err), err
    assert not out.exists()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["batch", "IN", "-o", "OUT", "--shard", f"1/{HUGE}"], "at most 10,000 parts"),
        (["evaluate", "--data", "IN", "--limit", HUGE], "--limit must be at most 1,000,000"),
        (["evaluate", "--data", "IN", "--n-bootstrap-metrics", HUGE], "--n-bootstrap-metrics"),
        (["compare", "A", "B", "--top", HUGE], "--top must be from 0 to 10,000"),
        (["compare", "A", "B", "--n-bootstrap-metrics", HUGE], "--n-bootstrap-metrics must be"),
        (["compare", "A", "B", "--n-bootstrap", HUGE], "--n-bootstrap must be from 1 to"),
    ],
)
def test_every_size_option_a_command_adds_is_bounded(tmp_path, capsys, questions, argv, said):
    names = {"IN": str(questions), "OUT": str(tmp_path / "o.csv")}
    names |= {"A": str(tmp_path / "a"), "B": str(tmp_path / "b")}
    args = [names.get(a, a) for a in argv]
    if args[0] != "compare":
        args += DEAD_LLM
    assert cli(args) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err, err
    assert list(tmp_path.iterdir()) == [questions]


def test_the_gate_loop_sends_no_more_meaning_checks_than_its_bound():
    with pytest.raises(ValueError, match="max_verify_requests must be at most 1,000"):
        GateConfig(max_verify_requests=10**6)
    with pytest.raises(ValueError, match="max_extra_requests must be at most 1,000"):
        ParaphraseConfig(gate=GateConfig(max_extra_requests=10**12))
