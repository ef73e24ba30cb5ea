"""One run configuration reaches every entry point: CLI options, artefacts, rescoring, perturbers."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from invent_core.cli import build_parser, main
from invent_core.config import (
    GaapConfig,
    ParaphraseConfig,
    RunConfig,
    ScoreConfig,
    flat_values,
    iter_options,
)
from invent_core.engine.artifact import RunArtifact
from invent_core.experiments import ExperimentConfig, generation_key
from invent_core.perturb import available_perturbers, get_perturber
from invent_core.perturb.base import Perturber, PerturbResult, register_perturber

RUN_COMMANDS = ("run", "batch", "evaluate", "tsu")


def subparsers() -> dict[str, argparse.ArgumentParser]:
    """Every subcommand's parser, as the real ``python -m invent_core`` builds them."""
    parser = build_parser()
    (action,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def options_of(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {flag: a for a in parser._actions for flag in a.option_strings}


def test_every_command_is_built():
    assert set(subparsers()) == {
        *("score", "batch", "merge", "evaluate", "tsu", "run", "report", "reference"),
        *("export-samples", "compare"),
    }


@pytest.mark.parametrize("command", RUN_COMMANDS)
def test_every_run_option_is_an_option_of_every_command_that_runs(command):
    opts = options_of(subparsers()[command])
    expected = [
        o for o in iter_options(RunConfig) if not (command == "tsu" and o.name == "temperature")
    ]
    assert len(expected) > 20  # run, score, paraphrase and GAAP options
    for opt in expected:
        assert opt.long_flag in opts, f"{command} lacks {opt.long_flag}"
        assert opts[opt.long_flag].dest == opt.name
        if opt.flag:
            assert opts[opt.flag] is opts[opt.long_flag]
    assert "--affinity" in opts and "--gaap-delta" in opts and "--wd-ground" in opts
    if command == "tsu":  # one run per --temperatures value instead
        assert "--temperature" not in opts and "-t" not in opts


def test_every_score_option_is_an_option_of_score():
    opts = options_of(subparsers()["score"])
    for opt in iter_options(ScoreConfig):
        assert opt.long_flag in opts, f"score lacks {opt.long_flag}"
    assert not any(o.long_flag in opts for o in iter_options(RunConfig) if o.path[0] != "score")


def test_judge_choices_are_the_experiments():
    from invent_core.experiments import JUDGES

    assert tuple(options_of(subparsers()["evaluate"])["--judge"].choices) == JUDGES
    from invent_core.batch.scorer import BATCH_JUDGES
    from invent_core.evaluation.correctness import DEFAULT_JUDGE

    batch = options_of(subparsers()["batch"])["--judge"]
    assert tuple(batch.choices) == BATCH_JUDGES and batch.default == DEFAULT_JUDGE
    assert options_of(subparsers()["evaluate"])["--judge"].default == DEFAULT_JUDGE


def test_perturber_choices_are_the_registry():
    for command in RUN_COMMANDS:
        assert tuple(options_of(subparsers()[command])["--perturber"].choices) == (
            available_perturbers()
        )
    assert available_perturbers()[:2] == ("paraphrase", "gaap")
    for name in available_perturbers():
        p = get_perturber(name)
        assert isinstance(p, Perturber) and p.name == name and p.label
    assert get_perturber("paraphrase").needs_llm and not get_perturber("gaap").needs_llm
    with pytest.raises(
        ValueError, match="unknown perturber 'synonyms': choose one of 'paraphrase'"
    ):
        get_perturber("synonyms")


@dataclasses.dataclass(frozen=True)
class _Echo:
    """A perturber for the registry test: n copies of the question."""

    name: str = "echo"
    label: str = "Echo"
    needs_llm: bool = False

    def perturb(self, question, config, *, llm=None, embedder=None, progress=None, on_accept=None):
        return PerturbResult([question] * config.n_perturbations)


def test_a_registered_perturber_reaches_config_and_cli_at_once():
    from invent_core.perturb import base

    assert "echo" not in options_of(subparsers()["run"])["--perturber"].choices
    register_perturber(_Echo())
    try:
        assert RunConfig(perturber="echo").perturber == "echo"
        assert "echo" in options_of(subparsers()["run"])["--perturber"].choices
        with pytest.raises(ValueError, match="already registered"):
            register_perturber(_Echo(label="another"))
    finally:
        base.unregister_perturber("echo")
    with pytest.raises(TypeError, match="Perturber protocol"):
        register_perturber(object())


def _no_llm():
    raise AssertionError("an unknown perturber must fail before any LLM starts")


def test_config_needs_no_plug_in_and_checks_the_perturber_where_used(tmp_path):
    """A run saved with a plug-in perturber reopens without it; using it is what fails."""
    import subprocess
    import sys

    from invent_core.batch import batch_score
    from invent_core.engine.pipeline import run_question
    from invent_core.experiments import evaluate, tsu

    code = "import sys, invent_core.config; print(sorted(m for m in sys.modules if 'perturb' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    cfg = RunConfig(perturber="plugin")
    assert RunConfig.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg
    for bad in ("", "  ", None):
        with pytest.raises(ValueError, match="RunConfig.perturber must be a perturber's name"):
            RunConfig(perturber=bad)
    unknown = "unknown perturber 'plugin': choose one of 'paraphrase'"
    with pytest.raises(ValueError, match=unknown):
        run_question("What is 2 + 2?", cfg)
    data = tmp_path / "q.csv"
    data.write_text("question\nWhat is 2 + 2?\n", encoding="utf-8")
    with pytest.raises(ValueError, match=unknown):
        batch_score(data, tmp_path / "out.csv", config=cfg)
    exp = ExperimentConfig(dataset="arithmetic", limit=1, run=cfg)
    with pytest.raises(ValueError, match=unknown):
        evaluate(exp, tmp_path / "ev", llm_factory=_no_llm)
    with pytest.raises(ValueError, match=unknown):
        tsu(exp, (0.3, 1.0), tmp_path / "tsu", llm_factory=_no_llm)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.csv"]  # nothing written


def _off_default() -> RunConfig:
    """A config with every option away from its default (scoring options included)."""
    return RunConfig(
        perturber="gaap",
        n_perturbations=3,
        n_replications=2,
        temperature=1.1,
        answer_max_tokens=20,
        score=ScoreConfig(
            n_bootstrap=7,
            seed=3,
            affinity="abs_cosine",
            wd_ground="discrete",
            max_variant="released_code",
        ),
        paraphrase=ParaphraseConfig(style="list", temperature=0.9, max_tokens=99),
        gaap=GaapConfig(delta=0.6, tau=3, max_senses=2, mutate="key", inflect_plurals=False),
    )


def _artifact(config: RunConfig, score=None) -> RunArtifact:
    qs = ["What is the capital of France?", "Which city is France's capital?"]
    rs = [["Paris", "Paris, France"], ["Lyon", "Paris"]]
    return RunArtifact(
        question=qs[0],
        task="qa",
        choices=None,
        perturbations=qs[1:],
        questions=qs,
        prompts=qs,
        raw_responses=rs,
        responses=rs,
        config=config,
        identities={"llm": "test", "embedder": None},
        score=score,
    )


def test_run_config_round_trips_through_the_artifact_json():
    cfg = _off_default()
    run = _artifact(cfg)
    data = json.loads(run.to_json())
    assert (
        data["config"]["gaap"]["delta"] == 0.6
        and data["config"]["score"]["affinity"] == "abs_cosine"
    )
    assert "settings" not in data and data["format"] == "invent.run/2"
    back = RunArtifact.from_json(run.to_json())
    assert back.config == cfg and back.identities == run.identities
    # the flat view old readers use carries every option and the identities
    assert back.settings == {
        **flat_values(cfg),
        "llm": "test",
        "embedder_identity": None,
        "task": "qa",
    }
    with pytest.raises(AttributeError):
        back.settings = {}


def test_old_artifact_loads_with_its_settings():
    # the demo run as shipped before RunConfig (format /1), kept as a fixture
    path = Path(__file__).parent / "data" / "run_format1.json"
    old = json.loads(path.read_text())
    assert "settings" in old and "config" not in old  # saved in format /1
    run = RunArtifact.load(path)
    for key, value in old["settings"].items():
        assert run.settings[key] == value, key
    assert run.config.perturber == "gaap" and run.config.score.n_bootstrap == 30
    assert run.config.score.affinity == old["score"]["options"]["affinity"]
    assert run.identities["llm"].startswith("local:sha256=")
    assert run.score.config == run.config.score
    assert RunArtifact.from_json(run.to_json()).config == run.config


@pytest.mark.slow
def test_rescore_keeps_every_scoring_option(minilm):
    from invent_core.engine.scoring import score_responses

    cfg = _off_default()
    run = _artifact(cfg)
    run.score = score_responses(run.questions, run.responses, cfg.score, embedder=minilm)
    again = run.rescore()
    assert again.config == cfg and again.score.config == cfg.score
    for opt in iter_options(ScoreConfig):  # one change at a time: the others stay
        value = {"embedder": "minilm", "n_bootstrap": 5, "seed": 9, "kernel_tau": 0.5,
                 "answer_judge": "qwen1.5b"}.get(opt.name)  # fmt: skip
        if value is None:
            value = next(c for c in opt.choices if c != getattr(cfg.score, opt.name))
        changed = run.rescore(**{opt.name: value})
        expected = dataclasses.replace(cfg.score, **{opt.name: value})
        assert changed.config.score == expected == changed.score.config, opt.name
        assert changed.config.gaap == cfg.gaap and changed.config.temperature == cfg.temperature
    # affinity really reaches the scores: |cos| → (1 + cos) / 2 on two paraphrases (cos > 0)
    shifted = run.rescore(affinity="shifted_cosine")
    np.testing.assert_allclose(shifted.score.sim_x, (1 + run.score.sim_x) / 2, atol=1e-6)
    assert run.rescore(ScoreConfig(seed=3)).config.score == ScoreConfig(seed=3)
    with pytest.raises(ValueError, match="rescore takes scoring options"):
        run.rescore(temperature=1.0)


def test_experiment_config_round_trip_old_and_new():
    cfg = ExperimentConfig(run=_off_default(), dataset="triviaqa", limit=3, methods=["inv"])
    assert cfg.methods == ("inv",)
    assert ExperimentConfig.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg
    old = {  # config.json / dashboard payloads written before RunConfig
        "dataset": "mmlu",
        "data": None,
        "limit": 10,
        "sample_seed": None,
        "methods": ["all"],
        "perturber": "gaap",
        "n_perturbations": 4,
        "n_replications": 3,
        "n_bootstrap": 30,
        "temperature": 0.7,
        "seed": 0,
        "embedder": "minilm",
        "judge": "match",
        "n_boot_metrics": 40,
    }
    back = ExperimentConfig.from_dict(old)
    assert back.run == RunConfig(perturber="gaap", n_perturbations=4, n_replications=3)
    assert back.dataset == "mmlu" and back.limit == 10 and back.n_bootstrap_metrics == 40


def test_an_experiment_config_saved_with_n_boot_metrics_loads():
    """``n_boot_metrics`` became ``n_bootstrap_metrics``; config.json saved before loads."""
    cfg = ExperimentConfig(dataset="mmlu", limit=3, n_bootstrap_metrics=7)
    saved = cfg.to_dict()
    assert saved["n_bootstrap_metrics"] == 7 and "n_boot_metrics" not in saved
    old = {("n_boot_metrics" if k == "n_bootstrap_metrics" else k): v for k, v in saved.items()}
    assert ExperimentConfig.from_dict(old) == cfg


def test_generation_key_ignores_scoring_options_but_not_the_seed():
    cfg = _off_default()
    assert generation_key(cfg) == generation_key(
        cfg.replace(n_bootstrap=50, affinity="shifted_cosine")
    )
    assert generation_key(cfg) != generation_key(cfg.replace(seed=4))
    assert generation_key(cfg) != generation_key(cfg.replace(gaap_delta=0.65))
    assert ExperimentConfig(run=cfg, dataset="sciq").run_key(1.4)["temperature"] == 1.4


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "Q", "-t", "nan"], "--temperature must be a finite number, got nan"),
        (["run", "Q", "-r", "0"], "--n-replications must be at least 1, got 0"),
        (
            ["run", "Q", "--paraphrase-temperature", "5"],
            "--paraphrase-temperature must be in [0, 2]",
        ),
        (["evaluate", "--dataset", "triviaqa", "-n", "0"], "--n-perturbations must be at least 1"),
        (["tsu", "--dataset", "triviaqa", "--gaap-delta", "1.5"], "--gaap-delta must be in [0, 1]"),
        (["score", "missing.json", "-B", "0"], "--n-bootstrap must be at least 1, got 0"),
    ],
)
def test_invalid_values_name_the_option(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize(
    "command",
    [
        "run Q",
        "batch in.csv -o out.csv",
        "evaluate --dataset sciq",
        "tsu --dataset sciq",
        "score f.json",
    ],
)
def test_invalid_choice_is_an_argparse_error(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([*command.split(), "--affinity", "bogus"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--affinity" in err and "invalid choice: 'bogus'" in err and "Traceback" not in err


def _no_llm():
    """An LLM that must not be started (a saved run is reused)."""
    from invent_core.llm import LazyLLM

    def never():
        raise AssertionError("the LLM was asked")

    return LazyLLM(never)


@pytest.mark.slow
def test_saved_run_is_rescored_with_new_scoring_options_and_regenerated_otherwise(minilm, tmp_path):
    from invent_core.engine.scoring import score_responses
    from invent_core.experiments.runs import example_run_path, get_run
    from invent_core.questions.datasets import Example

    cfg = ExperimentConfig(run=_off_default(), dataset="triviaqa")
    saved = _artifact(cfg.run)
    saved.score = score_responses(saved.questions, saved.responses, cfg.run.score, embedder=minilm)
    ex = Example(id="q1", question=saved.question, answers=("Paris",), task="qa")
    saved.save(example_run_path(tmp_path, ex, cfg.run.temperature))

    same = get_run(ex, cfg, tmp_path, _no_llm())
    assert same.config == cfg.run and same.score.measures == saved.score.measures
    # only scoring options differ (affinity included): rescored, no LLM
    other = dataclasses.replace(cfg, run=cfg.run.replace(affinity="shifted_cosine", n_bootstrap=4))
    rescored = get_run(ex, other, tmp_path, _no_llm())
    assert rescored.config.score == other.run.score
    assert rescored.score.values["inv_entropy"].shape == (4,)
    assert rescored.responses == saved.responses
    # a generation option differs: the run is made again (here: the LLM is asked)
    regen = dataclasses.replace(cfg, run=cfg.run.replace(answer_max_tokens=21))
    with pytest.raises(AssertionError, match="the LLM was asked"):
        get_run(ex, regen, tmp_path, _no_llm())


@pytest.mark.parametrize("command", ["run", "score", "batch", "merge", "evaluate", "tsu"])
def test_every_subcommand_help_renders(command):
    """argparse formats help with %: a config help text with a bare % once broke --help."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "invent_core", command, "--help"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr[-800:]
    assert "Traceback" not in proc.stderr and "usage:" in proc.stdout


def _command_parsers():
    """Every command's parser (``reference build`` included), by name."""
    import argparse

    from invent_core.cli import build_parser

    todo = [("", build_parser())]
    while todo:
        name, parser = todo.pop()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo += [(f"{name} {n}".strip(), p) for n, p in action.choices.items()]
        if name:
            yield name, parser


def test_every_option_has_one_help_text_with_one_default():
    """The probe of 2026-11-28: no help, two defaults, a literal %%, groups called the paper's."""
    for name, parser in _command_parsers():
        text = parser.format_help()
        assert "%%" not in text, name
        assert "the paper's)" not in text, name  # the defaults are ours (config/profiles.py)
        for action in parser._actions:
            if not action.option_strings or action.help == "show this help message and exit":
                continue
            assert action.help, f"{name} {action.option_strings[-1]}: no help text"
            assert action.help.count("(default:") <= 1, f"{name} {action.option_strings[-1]}"
