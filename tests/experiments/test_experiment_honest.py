"""evaluate / tsu never throw work away and always report.

The pipeline runs for real (gate, MiniLM, scoring); only the LLM is a scripted
stand-in, so failures, all-wrong answers and Ctrl-C can be made on purpose.
"""

from __future__ import annotations

import csv
import io
import json
import time

import pytest

from invent_core.config import GateConfig, ParaphraseConfig, RunConfig
from invent_core.errors import Cancelled, LLMTimeout
from invent_core.experiments import ExperimentConfig, draw_examples, evaluate, tsu
from invent_core.llm import Completion
from invent_core.progress import CancelToken, Progress

QUESTIONS = [
    ("q1", "What is the capital of France?", "Paris"),
    ("q2", "What is the capital of Japan?", "Tokyo"),
    ("q3", "What is the capital of Italy?", "Rome"),
]
RIGHT = {"France": "Paris.", "Japan": "Tokyo", "Italy": "Answer: Rome"}


class ScriptLLM:
    """Rewords by prefixing, answers from a table, fails (or is interrupted) on demand."""

    identity = "script"

    def __init__(self, answers=None, *, fail_on=(), interrupt_on=None):
        self.answers = answers if answers is not None else RIGHT
        self.fail_on = set(fail_on)
        self.interrupt_on = interrupt_on
        self.prompts: list[str] = []

    def complete(self, messages, **kw):  # pragma: no cover - no method here asks one
        raise AssertionError("unexpected single completion")

    def complete_many(self, requests, progress=None, *, cancel=None, concurrency=None):
        out = []
        for r in requests:
            text = r.message_list[-1]["content"]
            self.prompts.append(text)
            if text.startswith("Please Provide"):
                q = text.split(": ", 1)[1]
                out.append(Completion(f"1. Could you tell me: {q}\n2. I would like to know: {q}"))
                continue
            key = next((k for k in self.answers if k in text), None)
            if self.interrupt_on and self.interrupt_on in text:
                raise KeyboardInterrupt
            if key in self.fail_on or any(f in text for f in self.fail_on):
                raise LLMTimeout("the local model took longer than 120 s")
            out.append(Completion(self.answers.get(key, "I do not know")))
            if progress is not None:
                progress(len(out), len(requests))
        return out

    def answer_prompts(self) -> list[str]:
        return [p for p in self.prompts if not p.startswith("Please Provide")]

    def close(self):
        pass


RUN = RunConfig(
    n_perturbations=2,
    n_replications=2,
    paraphrase=ParaphraseConfig(gate=GateConfig(max_extra_requests=1)),
).replace(n_bootstrap=5)


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "capitals.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "question", "answer"])
        w.writerows(QUESTIONS)
    return path


def _cfg(data_file, **kw):
    kw.setdefault("methods", ("inv_entropy", "lexsim"))
    return ExperimentConfig(run=RUN, data=str(data_file), n_bootstrap_metrics=5, **kw)


def _scores(out):
    with open(out / "scores.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_all_wrong_still_writes_the_table_with_the_reason(tmp_path, data_file, minilm):
    res = evaluate(_cfg(data_file), tmp_path, llm_factory=lambda: ScriptLLM(answers={}))
    assert res.judgement.reason == "n/a — all answers wrong" and not res.judgement.ok
    assert res.evaluation.n_questions == 3 and res.evaluation.n_correct == 0
    text = res.table.to_text()
    assert "n/a — all answers wrong" in text and "nan" not in text.lower() and "*" not in text
    md = (tmp_path / "results.md").read_text()
    assert md.startswith("3 questions, accuracy 0.000 (0 correct)")
    assert "n/a — all answers wrong" in md and "**" not in md
    assert json.loads((tmp_path / "results.json").read_text())["judgement"]["ok"] is False
    assert [r["correct"] for r in _scores(tmp_path)] == ["0", "0", "0"]  # per-question kept


def test_a_failed_question_is_kept_with_its_error_and_the_rest_goes_on(tmp_path, data_file, minilm):
    res = evaluate(_cfg(data_file), tmp_path, llm_factory=lambda: ScriptLLM(fail_on={"Japan"}))
    assert [r["id"] for r in res.rows] == ["q1", "q3"]
    assert [r["id"] for r in res.failed] == ["q2"]
    rows = {r["id"]: r for r in _scores(tmp_path)}
    assert rows["q2"]["error"].startswith("LLMTimeout: the local model took longer")
    assert rows["q2"]["correct"] == "" and rows["q2"]["inv_entropy"] == ""
    assert rows["q1"]["error"] == "" and rows["q1"]["correct"] == "1"
    assert any("1 question(s) failed" in w for w in res.warnings)
    # the next run retries only the failed question
    llm = ScriptLLM()
    again = evaluate(_cfg(data_file), tmp_path, llm_factory=lambda: llm)
    assert not again.failed and [r["id"] for r in again.rows] == ["q1", "q2", "q3"]
    assert llm.answer_prompts() and all("Japan" in p for p in llm.answer_prompts())


def test_correctness_is_judged_on_the_canonical_answer(tmp_path, minilm):
    path = tmp_path / "mc.jsonl"
    rows = [
        {"id": "m1", "question": "Which planet is the largest?", "answer": "B",
         "choices": ["Mars", "Jupiter", "Venus", "Earth"]},
        {"id": "m2", "question": "Which planet is closest to the Sun?", "answer": "A",
         "choices": ["Mercury", "Jupiter", "Venus", "Earth"]},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(r) for r in rows))
    answers = {"largest": "The answer is (B).", "closest": "Venus"}
    cfg = ExperimentConfig(run=RUN, data=str(path), methods=("inv_entropy",), n_bootstrap_metrics=5)
    res = evaluate(cfg, tmp_path / "o", llm_factory=lambda: ScriptLLM(answers=answers))
    got = {r["id"]: (r["response"], r["canonical"], int(r["correct"])) for r in res.rows}
    assert got == {"m1": ("(B)", "B", 1), "m2": ("Venus", "C", 0)}
    assert _scores(tmp_path / "o")[0]["canonical"] == "B"
    assert [r["judge_reason"] for r in _scores(tmp_path / "o")] == [
        "answered option B; the reference is B",
        "answered option C; the reference is A",
    ]


def test_scores_say_why_each_answer_was_judged_and_a_new_judge_rejudges(
    tmp_path, data_file, minilm
):
    """The default judge accepts the reference in other words; scores.csv keeps its reason."""
    answers = {
        "France": "Paris.",
        "Japan": "Most people would tell you that the capital city of this island nation is Tokyo",
        "Italy": "Milan",
    }
    res = evaluate(_cfg(data_file), tmp_path, llm_factory=lambda: ScriptLLM(answers=answers))
    assert [int(r["correct"]) for r in res.rows] == [1, 1, 0]
    reasons = [r["judge_reason"] for r in _scores(tmp_path)]
    assert reasons[0] == "the reference 'Paris' occurs in the answer"
    assert reasons[2] == "no word of the reference 'Rome' (nor a synonym or kind) in the answer"
    # the rules alone: the long answer holding "Tokyo" is wrong; the saved runs are reused
    llm = ScriptLLM(answers=answers)
    again = evaluate(_cfg(data_file, judge="match"), tmp_path, llm_factory=lambda: llm)
    assert [int(r["correct"]) for r in again.rows] == [1, 0, 0] and not llm.answer_prompts()
    assert _scores(tmp_path)[1]["judge_reason"].startswith("no reference matches")


def test_limit_draws_a_seeded_shuffled_sample():
    from invent_core.evaluation.sample_size import draw_sample
    from invent_core.questions.datasets import load_dataset

    full = load_dataset("mmlu")
    drawn, how = draw_examples(ExperimentConfig(dataset="mmlu", limit=15))
    assert how == "15 of 300 questions, drawn with seed 0"
    assert drawn == draw_sample(full, 15, 0).items == load_dataset("mmlu", limit=15, seed=0)
    subjects = {e.extra.get("subject") for e in drawn}
    assert len(subjects) > 1  # not fifteen "moral scenarios" in a row
    other, how = draw_examples(ExperimentConfig(dataset="mmlu", limit=15, sample_seed=4))
    assert other != drawn and how.endswith("seed 4")
    first, how = draw_examples(ExperimentConfig(dataset="mmlu", limit=15, sample_seed=None))
    assert first == full[:15] and how == "the first 15 of 300 questions (file order)"
    assert draw_examples(ExperimentConfig(dataset="mmlu"))[1] == "all 300 questions"
    with pytest.raises(ValueError, match="--limit must be a positive number"):
        ExperimentConfig(dataset="mmlu", limit=0)
    with pytest.raises(ValueError, match="--sample-seed must be >= 0"):
        ExperimentConfig(dataset="mmlu", limit=3, sample_seed=-1)


def test_difficulty_keeps_only_those_testbed_levels_before_the_draw():
    from invent_core.errors import InventError

    cfg = ExperimentConfig(dataset="arithmetic", difficulty=(5, 4), limit=100)
    drawn, how = draw_examples(cfg)
    assert how == "100 of 120 questions, drawn with seed 0 (difficulty 4, 5)"
    assert len({e.id for e in drawn}) == 100
    assert {e.extra["difficulty"] for e in drawn} == {4, 5}
    assert ExperimentConfig.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg
    every, how = draw_examples(ExperimentConfig(dataset="arithmetic", difficulty=(1,)))
    assert how == "all 60 questions (difficulty 1)" and len(every) == 60
    with pytest.raises(
        InventError, match="--difficulty: the questions of mmlu carry no difficulty"
    ):
        draw_examples(ExperimentConfig(dataset="mmlu", difficulty=(4,)))
    with pytest.raises(
        InventError, match="no question of arithmetic has level 9; levels: 1, 2, 3, 4, 5"
    ):
        draw_examples(ExperimentConfig(dataset="arithmetic", difficulty=(9,)))


def test_cli_difficulty_for_a_sample_without_levels_fails_before_any_folder(tmp_path):
    import subprocess
    import sys

    out = tmp_path / "o"
    argv = ["evaluate", "--dataset", "mmlu", "--difficulty", "4-5", "--limit", "3", "-o", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "invent_core", *argv], capture_output=True, text=True
    )
    assert done.returncode != 0
    assert "--difficulty: the questions of mmlu carry no difficulty level" in done.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("text", "levels"), [("4-5", (4, 5)), ("3,5", (3, 5)), ("2", (2,)), ("1-2, 5", (1, 2, 5))]
)
def test_difficulty_option_reads_ranges_and_lists(text, levels):
    from invent_core.commands.evaluate import parse_levels

    assert parse_levels(text) == levels


@pytest.mark.parametrize("text", ["hard", "5-4", "0", "4-", ""])
def test_difficulty_option_refuses_what_is_not_levels(text):
    import argparse

    from invent_core.commands.evaluate import parse_levels

    with pytest.raises(argparse.ArgumentTypeError):
        parse_levels(text)


def test_cancel_keeps_the_finished_questions_and_the_same_call_resumes(tmp_path, data_file, minilm):
    token = CancelToken()

    def progress(ev):
        if ev.stage == "questions" and ev.done == 1:
            token.cancel()

    with pytest.raises(Cancelled, match="cancelled after 1 of 3 questions; the 1 finished"):
        evaluate(_cfg(data_file), tmp_path, llm_factory=ScriptLLM, progress=progress, cancel=token)
    assert [r["id"] for r in _scores(tmp_path)] == ["q1"]
    llm = ScriptLLM()
    res = evaluate(_cfg(data_file), tmp_path, llm_factory=lambda: llm)
    assert [r["id"] for r in res.rows] == ["q1", "q2", "q3"]
    assert not any("France" in p for p in llm.answer_prompts())  # q1 was not asked again


def test_small_samples_are_greyed_and_never_bolded(tmp_path, data_file, minilm):
    answers = {"France": "Paris", "Japan": "Kyoto", "Italy": "Rome"}
    res = evaluate(_cfg(data_file), tmp_path, llm_factory=lambda: ScriptLLM(answers=answers))
    assert res.judgement.reason == "too few to judge: 3 questions (< 20)"
    md = (tmp_path / "results.md").read_text()
    assert '<span style="color:gray">' in md and "**" not in md and "<ins>" not in md
    assert "Greyed: too few to judge: 3 questions (< 20)" in md
    assert "Brier (cross-fit) and ECE need at least 10 questions" in md
    tex = (tmp_path / "results.tex").read_text()
    assert r"\textcolor{gray}" in tex and r"\textbf{0" not in tex
    assert "ECE" in res.table.to_text()


def test_tsu_keeps_going_past_a_failed_run_and_greys_a_small_sample(tmp_path, data_file, minilm):
    class HotFails(ScriptLLM):
        def complete_many(self, requests, progress=None, *, cancel=None, concurrency=None):
            if any(
                r.temperature > 1.0 and "Japan" in r.message_list[-1]["content"] for r in requests
            ):
                raise LLMTimeout("too slow at T = 1.2")
            return super().complete_many(requests, progress)

    res = tsu(_cfg(data_file), [0.3, 1.2], tmp_path, llm_factory=HotFails)
    assert [(r["id"], r["temperature"]) for r in res.failed] == [("q2", 1.2)]
    assert len(res.rows) == 5 and res.judgement.reason == "too few to judge: 3 questions (< 20)"
    saved = json.loads((tmp_path / "tsu.json").read_text())
    assert (
        saved["failed"][0]["error"].startswith("LLMTimeout") and saved["judgement"]["ok"] is False
    )
    assert "**" not in (tmp_path / "tsu.md").read_text()


# --- the command line -------------------------------------------------------------------


def _cli(monkeypatch, module, llm, argv, capsys):
    import importlib

    from invent_core.cli import main

    monkeypatch.setattr(
        importlib.import_module(f"invent_core.commands.{module}"), "llm_from_args", lambda args: llm
    )
    rc = main(argv)
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def _evaluate_argv(data_file, out):
    return ["evaluate", "--data", str(data_file), "-n", "2", "-r", "2", "-B", "5",
            "--paraphrase-gate-max-extra-requests", "1",
            "--methods", "inv_entropy,lexsim", "--n-boot", "5", "-o", str(out)]  # fmt: skip


def test_cli_evaluate_all_wrong_prints_a_table_and_exits_0(
    tmp_path, data_file, minilm, monkeypatch, capsys
):
    argv = _evaluate_argv(data_file, tmp_path / "o")
    rc, out, err = _cli(monkeypatch, "evaluate", ScriptLLM(answers={}), argv, capsys)
    assert rc == 0, err
    assert "3 questions, accuracy 0.000 (0 correct)" in out
    assert "n/a — all answers wrong" in out and "ECE" in out
    assert "<ins>" not in out and "nan" not in out.lower()
    assert "warning: metrics not judged: n/a — all answers wrong" in err
    assert "estimate: 21–24 LLM calls for 3 questions" in err  # 3 × (1 list (+ 1) + 3 × 2)
    assert "questions evaluated 3/3" in err and "elapsed" in err
    assert "questions: all 3 questions" in err


def test_cli_evaluate_ctrl_c_keeps_finished_work_and_exits_130(
    tmp_path, data_file, minilm, monkeypatch, capsys
):
    argv = _evaluate_argv(data_file, tmp_path / "o")
    llm = ScriptLLM(interrupt_on="Japan")
    rc, out, err = _cli(monkeypatch, "evaluate", llm, argv, capsys)
    assert rc == 130
    assert "interrupted: cancelled after 1 of 3 questions; the 1 finished are kept" in err
    assert [r["id"] for r in _scores(tmp_path / "o")] == ["q1"]


def test_cli_run_prints_gate_acceptance_and_the_reference_percentile(
    tmp_path, monkeypatch, capsys, minilm
):
    from invent_core.evaluation.reference import ReferenceSet, reference_settings

    cfg = RunConfig(n_perturbations=2, n_replications=2).replace(n_bootstrap=5)
    settings = {**reference_settings(cfg, "script", "inv_entropy"), "dataset": "toy"}
    ReferenceSet([0.1 * k for k in range(40)], [1] * 20 + [0] * 20, settings).save(
        tmp_path / "ref" / "toy.json"
    )
    monkeypatch.setenv("INVENT_REFERENCE_DIR", str(tmp_path / "ref"))
    argv = ["run", "What is the capital of France?", "-n", "2", "-r", "2", "-B", "5"]
    rc, out, err = _cli(monkeypatch, "run", ScriptLLM(), argv, capsys)
    assert rc == 0, err
    from invent_core.engine.artifact import RunArtifact

    if "acceptance" in RunArtifact.__dataclass_fields__:  # h7 adds the field to the artefact
        assert "paraphrase gate: " in out and "candidates accepted" in out
    assert "inv_entropy: percentile " in out and "among 40 reference questions" in out
    assert "P(correct) ≈ " in out and "; toy" in out
    assert "answers received" in err and "estimate:" in err
    # the artefact (--json, --save) carries the placement
    saved = tmp_path / "run.json"
    rc, out, err = _cli(
        monkeypatch, "run", ScriptLLM(), [*argv, "--json", "--save", str(saved)], capsys
    )
    assert rc == 0, err
    rec = json.loads(out)["reference"]
    assert (
        rec["percentile"] is not None and rec["n_reference"] == 40 and rec["files"] == ["toy.json"]
    )
    assert rec["placement"]["mode"] == "pooled"  # the toy file has no question texts
    assert RunArtifact.load(saved).reference == rec


def test_cli_progress_prints_at_least_every_interval_and_counts_down():
    from invent_core.commands.common import CliProgress

    stream = io.StringIO()
    with CliProgress(outer="questions", estimate=100.0, stream=stream, interval=0.05) as p:
        p(Progress("questions", 0, 4))
        p(Progress("generate", 3, 10))
        time.sleep(0.3)
    lines = [ln for ln in stream.getvalue().splitlines() if ln]
    assert len(lines) >= 3  # the ticker prints while nothing happens
    assert lines[-1].startswith("questions evaluated 0/4 · answers received 3/10 · ")
    assert "left (estimate)" in lines[-1]
    quiet = io.StringIO()
    with CliProgress(quiet=True, stream=quiet, interval=0.01) as p:
        p(Progress("generate", 1, 2))
        time.sleep(0.05)
    assert quiet.getvalue() == ""


def test_acceptance_line():
    from invent_core.commands.run import acceptance_line

    summary = {"candidates": 14, "accepted": 9, "rejected": {"lost_entity": 3, "duplicate": 2}}
    assert acceptance_line({**summary, "padded": 0, "gate": True}) == (
        "paraphrase gate: 9 of 14 candidates accepted (64 %); rejected: lost_entity 3, "
        "duplicate 2; padded by duplication: 0"
    )
    assert acceptance_line(None) is None and acceptance_line({"gate": False}) is None


def test_model_advice_below_ten_percent_with_the_packaged_model(
    tmp_path, data_file, minilm, capsys
):
    from invent_core.commands.evaluate import print_evaluation

    res = evaluate(_cfg(data_file), tmp_path, llm_factory=lambda: ScriptLLM(answers={}))
    qwen = "local:sha256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32|model=qwen0.5b"
    print_evaluation(res, qwen)
    out = capsys.readouterr().out
    assert "advice: Only 0 of 3 answers were correct (0%) with the packaged Qwen2.5-0.5B" in out
    assert "--llm qwen1.5b" in out and "--llm openai --base-url" in out
    print_evaluation(res, "script")
    assert "advice:" not in capsys.readouterr().out  # another model: nothing to advise


def test_cli_tsu_prints_a_plain_table_with_the_caveat(
    tmp_path, data_file, minilm, monkeypatch, capsys
):
    argv = ["tsu", "--data", str(data_file), "--temperatures", "0.3", "1.2", "-n", "2", "-r", "2",
            "-B", "5", "--methods", "inv_entropy", "-o", str(tmp_path / "t")]  # fmt: skip
    rc, out, err = _cli(monkeypatch, "tsu", ScriptLLM(), argv, capsys)
    assert rc == 0, err
    assert out.startswith("TSU (%), all 3 questions") and "Inv-Entropy" in out
    assert "Not judged: too few to judge: 3 questions (< 20)" in out and "<ins>" not in out
    assert "runs done 6/6" in err and "warning: metrics not judged" in err


def test_every_experiment_artefact_records_its_provenance(tmp_path, data_file, minilm):
    """config.json and results.json of evaluate, each saved run, and tsu's config.json."""
    from invent_core.provenance import provenance

    here = provenance()
    evaluate(_cfg(data_file), tmp_path / "ev", llm_factory=ScriptLLM)
    meta = json.loads((tmp_path / "ev" / "config.json").read_text())
    assert meta["provenance"] == here and {"commit", "dirty", "version"} <= set(here)
    results = json.loads((tmp_path / "ev" / "results.json").read_text())
    assert results["provenance"] == here and results["profile"] == "ours"
    assert results["measured"]["answer_scored"].startswith("the first reply to the original")
    runs = list((tmp_path / "ev" / "runs").glob("*.json"))
    assert runs and all(json.loads(p.read_text())["provenance"] == here for p in runs)
    tsu(_cfg(data_file), [0.3, 1.2], tmp_path / "tsu", llm_factory=ScriptLLM)
    assert json.loads((tmp_path / "tsu" / "config.json").read_text())["provenance"] == here
    assert json.loads((tmp_path / "tsu" / "tsu.json").read_text())["provenance"] == here
