"""Plan a batch run: every option checked and the input inspected, no file touched.

A bad ``-r``, ``--dataset``, perturber or output path is refused here, before
the output's lock is taken, so a mistyped option never wipes an old output.
:func:`plan_batch` returns the :class:`Plan` the run follows.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import RunConfig
from ..evaluation.correctness import DEFAULT_JUDGE, MATCHERS
from ..methods.registry import list_methods, resolve_methods
from ..perturb.base import get_perturber
from ..questions.files import BatchInputError
from .input import LLM_LAYOUTS, InputInfo, inspect_input
from .output import check_output_paths, output_format, sidecar_paths
from .scorer import BATCH_JUDGES
from .shards import parse_shard

__all__ = ["Plan", "plan_batch"]


@dataclass(frozen=True)
class Plan:
    """What a run does: the paths, the inspected input, the settings, the methods, the shard."""

    input: Path
    output: Path
    paths: dict[str, Path]
    info: InputInfo
    config: RunConfig
    method_names: list[str]
    shard: tuple[int, int] | None
    dataset: str | None
    max_question_chars: int
    judge: str = DEFAULT_JUDGE
    #: where rows are placed: a folder of reference files or one file; None, the shipped ones
    reference_path: Path | None = None

    @property
    def generated(self) -> bool:
        """Whether the LLM generates the responses (and rewords a question-only file)."""
        return self.info.layout in LLM_LAYOUTS


def _check_options(
    config: Any, dataset: str | None, max_question_chars: Any, judge: str = DEFAULT_JUDGE
) -> RunConfig:
    config = RunConfig() if config is None else config
    if not isinstance(config, RunConfig):
        raise TypeError(f"config must be a RunConfig, got {type(config).__name__}")
    get_perturber(config.perturber)  # "unknown perturber 'x': choose one of …"
    if dataset is not None and dataset not in MATCHERS:
        raise ValueError(
            f"dataset {dataset!r} is not a correctness rule; known: {', '.join(MATCHERS)}"
        )
    if judge not in BATCH_JUDGES:
        raise ValueError(f"judge must be one of {', '.join(BATCH_JUDGES)}, got {judge!r}")
    if isinstance(max_question_chars, bool) or not isinstance(max_question_chars, int):
        raise ValueError(f"max_question_chars must be an integer, got {max_question_chars!r}")
    if max_question_chars < 1:
        raise ValueError(f"max_question_chars must be at least 1, got {max_question_chars}")
    return config


def _without_rewordings(methods: str | Iterable[str] | None) -> list[str]:
    """The methods chosen for answers with no rewordings (UQLM's frame); refuse any that needs them."""
    chosen = resolve_methods(methods or "inv")
    need = [m.name for m in chosen if "perturbations" in m.needs]
    if need:
        able = [m.name for m in list_methods() if not {"perturbations", "llm"} & set(m.needs)]
        raise ValueError(
            f"--methods: UQLM's result frame has no rewordings (each prompt alone, n = 0), and "
            f"{', '.join(need)} need them; choose among {', '.join(able)}"
        )
    return [m.name for m in chosen]


def _check_dataset_columns(info: InputInfo, dataset: str | None) -> None:
    """Refuse ``--dataset mmlu`` on a file without choices before any row is scored.

    Its rule judges the answer among each question's options; without them every
    row would fail only after its scores were computed (the LLM's time wasted).
    """
    if dataset == "mmlu" and info.schema.choices is None:
        found = ", ".join(repr(c) for c in info.columns[:30])
        raise BatchInputError(
            f"--dataset mmlu needs a choices column (each question's options, as a JSON list "
            f"or 'a|b'); found {found}",
            file=info.path,
            column="choices",
        )


def plan_batch(
    input: str | os.PathLike,
    output: str | os.PathLike,
    config: RunConfig | None,
    *,
    methods: str | Iterable[str] | None,
    shard: str | tuple[int, int] | None,
    dataset: str | None,
    encoding: str | None,
    max_question_chars: int,
    judge: str = DEFAULT_JUDGE,
    reference_path: str | os.PathLike | None = None,
) -> Plan:
    """Validate every option, inspect the input, check the output paths; write nothing."""
    config = _check_options(config, dataset, max_question_chars, judge)
    shard_t = parse_shard(shard)
    inv_names = [m.name for m in list_methods("inv")]
    method_names = list(
        dict.fromkeys(inv_names + [m.name for m in resolve_methods(methods or "inv")])
    )
    in_path, out_path = Path(input), Path(output)
    output_format(out_path)
    paths = sidecar_paths(out_path)
    info = inspect_input(in_path, encoding=encoding)
    if info.layout == "uqlm":
        method_names = _without_rewordings(methods)
    _check_dataset_columns(info, dataset)
    check_output_paths([out_path, *paths.values()], [in_path])
    return Plan(
        in_path,
        out_path,
        paths,
        info,
        config,
        method_names,
        shard_t,
        dataset,
        max_question_chars,
        judge,
        None if reference_path is None else Path(reference_path),
    )
