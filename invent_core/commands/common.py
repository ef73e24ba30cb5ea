"""Options shared by the commands: the LLM backend, the config options, a progress line.

:func:`add_config_args` generates one option per config field
(:func:`invent_core.config.iter_options`), so ``run``, ``score``, ``batch``,
``evaluate`` and ``tsu`` offer every option, and a new field reaches them all.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import threading
import time
import typing
from functools import partial
from typing import Any

from ..config import (
    DEFAULT_PROFILE,
    PROFILES,
    LLMChoice,
    RunConfig,
    ScoreConfig,
    config_from_flat,
    get_profile,
    iter_options,
)
from ..llm import LazyLLM
from ..llm.choice import build_llm, build_one, choice_identity
from ..llm.choice import paraphrase_identity as choice_paraphrase_identity
from ..llm.local import MAX_THREADS
from ..perturb import available_perturbers
from ..progress import LOG_INTERVAL, RENDER_INTERVAL, ProgressTracker, format_range, format_seconds
from ..workbench.estimate import ThroughputLog, estimate_run
from .served import (  # noqa: F401 - batch reads concurrency_note here
    AppendUrl,
    check_llm_args,
    check_openai_key,
    check_urls,
    concurrency_arg,
    concurrency_note,
    int_in,
    seconds_arg,
    served_judge_problem,
)


def add_llm_args(
    p: argparse.ArgumentParser, only: tuple[str, ...] | None = None, title: str = "LLM backend"
) -> None:
    """One option per field of :class:`~invent_core.config.LLMChoice` (--llm, --base-url, …).

    Generated from the fields (their help, ``metavar`` and ``kind``), so the
    command line and the dashboard's model choice are the same object
    (:func:`choice_from_args`). ``only``: these fields alone (``score``'s served judge).
    """
    g = p.add_argument_group(title)
    kinds = _llm_kinds()
    for f in dataclasses.fields(LLMChoice):
        if only is not None and f.name not in only:
            continue
        meta = f.metadata
        flag = "--" + f.name.replace("_", "-")
        kwargs: dict[str, Any] = {"help": _escape(meta["help"]), "default": f.default}
        kind = meta.get("kind")
        if kind == "flag":
            kwargs["action"] = "store_true"
        elif kind == "on_off":
            kwargs.update(choices=("on", "off"), default="off")
        else:
            kwargs["metavar"] = meta.get("metavar")
            kwargs.update(kinds.get(kind, {}))
        g.add_argument(flag, **kwargs)


def _llm_kinds() -> dict[str, dict[str, Any]]:
    return {
        "urls": {"action": AppendUrl},
        "concurrency": {"type": concurrency_arg},
        "threads": {"type": int_in(1, MAX_THREADS)},
        "seconds": {"type": seconds_arg},
    }


def choice_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~invent_core.config.LLMChoice` the options describe (fields absent: defaults).

    Raises ValueError naming the option as typed (``--llm-engine must be one of …``).
    """
    names = [f.name for f in dataclasses.fields(LLMChoice)]
    given = {name: getattr(args, name) for name in names if hasattr(args, name)}
    if "thinking" in given:
        given["thinking"] = given["thinking"] == "on"
    try:
        return LLMChoice(**given)
    except ValueError as err:  # "LLMChoice.llm_engine must …" → "--llm-engine must …"
        field, _, rest = str(err).removeprefix("LLMChoice.").partition(" ")
        if field not in names:
            raise
        raise ValueError(f"--{field.replace('_', '-')} {rest}") from None


def parse_optional(kind: type):
    """Return the argparse type of an optional field: ``none`` → None, else ``kind(text)``."""

    def parse(text: str):
        return None if text.strip().lower() in ("none", "") else kind(text)

    parse.__name__ = kind.__name__
    return parse


def _escape(text: str) -> str:
    """Help text with ``%`` doubled: argparse formats help strings with ``%``."""
    return text.replace("%", "%%")


def add_config_args(
    p: argparse.ArgumentParser, cls: type | None = None, *, exclude: tuple[str, ...] = ()
) -> None:
    """One option per field of ``cls`` (default :class:`~invent_core.config.RunConfig`).

    Generated from :func:`invent_core.config.iter_options`, so a new config
    field is an option of every command at once. Defaults are ``None`` here
    (meaning "the config's default"), so :func:`config_from_args` can tell
    what the user typed.
    """
    cls = cls or RunConfig
    top = "run" if cls is RunConfig else cls.__name__.removesuffix("Config").lower()
    p.add_argument(
        "--profile",
        choices=tuple(PROFILES),
        default=None,
        help="the options that reproduce a reference in one word, as a base the other options "
        "change: "
        + "; ".join(f"{_escape(q.name)}: {_escape(q.help)}" for q in PROFILES.values())
        + f" (default: {DEFAULT_PROFILE})",
    )
    groups: dict[str, argparse._ArgumentGroup] = {}
    for opt in iter_options(cls):
        if opt.name in exclude:
            continue
        section = opt.path[0] if len(opt.path) > 1 else top
        g = groups.get(section)
        if g is None:
            # the defaults are the default profile's (ours), not the paper's: see --profile
            title = f"{section} options (defaults: {DEFAULT_PROFILE}, see --profile)"
            g = groups[section] = p.add_argument_group(title)
        flags = [opt.flag] if opt.flag else []
        if opt.type is bool:  # --adaptive / --no-adaptive
            g.add_argument(
                *flags,
                opt.long_flag,
                dest=opt.name,
                action=argparse.BooleanOptionalAction,
                default=None,
                help=f"{_escape(opt.help)} (default: {'on' if opt.default else 'off'})",
            )
            continue
        kind = parse_optional(opt.type) if opt.optional else opt.type
        choices = _choices(opt)
        g.add_argument(
            *flags,
            opt.long_flag,
            dest=opt.name,
            type=kind,
            choices=choices,
            default=None,
            metavar=opt.name.upper() if choices is None else None,
            help=_with_default(opt),
        )


def _with_default(opt: Any) -> str:
    """An option's help with its default, unless the help says it ("default: per task")."""
    text = _escape(opt.help)
    if "(default" in opt.help:
        return text
    return f"{text} (default: {'none' if opt.default is None else opt.default})"


def _choices(opt: Any) -> Any:
    """An option's choices: the config's own ``Literal`` choices, or the registry's.

    The config imports no plug-in, so the entry point looks up ``--perturber``'s choices.
    """
    if opt.name == "perturber":
        return available_perturbers()
    return opt.choices


def config_from_args(args: argparse.Namespace, cls: type | None = None, base: Any = None) -> Any:
    """Build the config the options describe.

    Raises
    ------
    ValueError
        For an invalid value, naming the option as typed (``--temperature must be …``).
    """
    cls = cls or RunConfig
    given = {k: v for k, v in vars(args).items() if v is not None and k != "profile"}
    if base is None and getattr(args, "profile", None):
        base = profile_base(cls, args.profile)
    try:
        config = config_from_flat(cls, given, base)
        _check_answer_judge(config, args, explicit="answer_judge" in given)
        return config
    except ValueError as err:
        msg = str(err)
        # "ParaphraseConfig.temperature must …" → "--paraphrase-temperature must …"
        for opt in iter_options(cls):
            owner = f"{_owner(cls, opt.path).__name__}.{opt.path[-1]} "
            if msg.startswith(owner):
                msg = f"{opt.long_flag} {msg[len(owner) :]}"
                break
        raise ValueError(msg) from err


def _check_answer_judge(config: Any, args: argparse.Namespace, explicit: bool = False) -> None:
    """Refuse an ``--answer-judge`` naming no model, or typed (``explicit``) beside another ψ_y.

    Before any file is read: the rules may decide every pair, so the error would come
    later or never; beside another ψ_y it would be ignored. A served judge is bound to
    this command's server (:func:`bind_served_judge`).
    """
    from ..responses.judge import answer_judge_problem

    score = getattr(config, "score", config)
    if explicit and getattr(score, "answer_similarity", None) != "judge":
        raise ValueError("--answer-judge goes with --answer-similarity judge (else unused)")
    if getattr(score, "answer_similarity", None) == "judge":
        problem = answer_judge_problem(score.answer_judge) or served_judge_problem(
            args, score.answer_judge
        )
        if problem is not None:
            raise ValueError(f"--answer-judge {problem}")
        bind_served_judge(args, score.answer_judge)


def bind_served_judge(args: argparse.Namespace, spec: str) -> None:
    """A served judge (``openai``) asks this command's server, built on first use."""
    from ..responses.judge import SERVED, use_answer_judge

    if spec.strip().lower() == SERVED:
        use_answer_judge(spec, LazyLLM(partial(served_llm, args)))


def served_llm(args: argparse.Namespace) -> Any:
    """The command's served model (``--base-url``, ``--model``, ``--api-key-env``)."""
    return build_one(choice_from_args(args).replace(llm="openai"))


def profile_base(cls: type, name: str) -> Any:
    """The config a ``--profile`` starts from: ``cls``'s defaults with the profile's scoring options."""
    options = get_profile(name).score_options()
    return ScoreConfig(**options) if cls is ScoreConfig else cls().replace(**options)


def _owner(cls: type, path: tuple[str, ...]) -> type:
    """Return the config class declaring the field at ``path`` (``("gaap", "delta")`` → GaapConfig)."""
    for name in path[:-1]:
        cls = typing.get_type_hints(cls)[name]
    return cls


def llm_from_args(args: argparse.Namespace) -> Any:
    """Build the LLM backend the options describe (lazy: the local server starts on first use).

    With ``--paraphrase-llm`` naming another model, the answering model
    carrying it (:func:`invent_core.llm.choice.build_llm`).
    """
    check_llm_args(args)
    return build_llm(choice_from_args(args))


def identity_from_args(args: argparse.Namespace, llm: Any = None) -> str:
    """The LLM's identity for the estimate, contacting no server (:func:`~invent_core.llm.choice.choice_identity`)."""
    return str(choice_identity(choice_from_args(args), llm))


def paraphrase_identity(args: argparse.Namespace, llm: Any) -> str | None:
    """A separate paraphrasing model's identity for the estimate (``None``: none)."""
    return choice_paraphrase_identity(choice_from_args(args), llm)


def print_estimate(
    config: Any,
    identity: str,
    n_questions: int = 1,
    paraphrase: str | None = None,
    *,
    llm: Any = None,
    reworded: int | None = None,
) -> Any:
    """Print what runs the LLM (``llm.label``) and the estimate (LLM calls, a time range) to stderr.

    ``paraphrase``: a separate paraphrasing model's identity, counted at its own rate.
    Returns ``(low, high)`` seconds (:class:`CliProgress`'s ``estimate``), or None.
    """
    label = getattr(llm, "label", None) if llm is not None else None
    if isinstance(label, str):
        print(f"llm: {label}", file=sys.stderr, flush=True)

    est = estimate_run(
        config,
        llm_identity=identity,
        throughput=ThroughputLog(),
        n_questions=n_questions,
        paraphrase_identity=paraphrase,
        reworded=reworded,
    )
    print(f"estimate: {est.text}; fewer when answers are cached", file=sys.stderr, flush=True)
    return None if est.low is None else (est.low, est.high)


#: How each progress stage is named on the command line ("perturbations
#: accepted, answers received, questions evaluated").
STAGE_LABELS: dict[str, str] = {
    "perturb": "perturbations accepted",
    "generate": "answers received",
    "score": "scored",
    "questions": "questions evaluated",
    "runs": "runs done",
}


class CliProgress:
    """Progress on stderr: done/total per stage, elapsed, time left, at least every 2 s.

    Fed :class:`~invent_core.progress.Progress` events (call it); a background
    thread re-prints the line when no event came for ``interval`` seconds, so a
    slow request still shows time passing. On a terminal the line is redrawn in
    place every 2 s; in a log, a line every 15 s (``LOG_INTERVAL``).

    Parameters
    ----------
    quiet : print nothing.
    outer : the stage that counts the whole command ("questions", "runs"); its
        rate gives the time left. ``None``: the latest stage's.
    estimate : seconds, or the ``(low, high)`` range, the estimate said: the time
        left until a rate is measured (:func:`estimate_left`; it never grows).
    stream : where to print (default ``sys.stderr``).
    interval : seconds between lines (default: by where the stream goes, above).
    llm : the backend; under ``--concurrency auto`` the line shows its limit now.
    """

    def __init__(
        self,
        *,
        quiet: bool = False,
        outer: str | None = None,
        estimate: float | None = None,
        stream: Any = None,
        interval: float | None = None,
        clock: Any = None,
        llm: Any = None,
    ) -> None:
        self.quiet, self.outer, self.estimate, self.llm = quiet, outer, estimate, llm
        self.stream = stream if stream is not None else sys.stderr
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = interval or (RENDER_INTERVAL if self._tty else LOG_INTERVAL)
        self._clock = clock or time.monotonic
        self.tracker = ProgressTracker(clock=self._clock, render_interval=self.interval)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last = self._clock()
        self._width = 0

    def __call__(self, event: Any) -> None:
        """Record one event; print the line when a new one is due."""
        self.tracker(event)
        if self.tracker.poll_line() is not None:
            self.emit()

    def line(self) -> str:
        """``"questions evaluated 3/50 · answers received 23/50 · 1 min 02 s elapsed · ≈ 12 min left"``."""
        snap = self.tracker.snapshot()
        parts = [
            f"{STAGE_LABELS.get(st.stage, st.stage)} {st.done}/{st.total}"
            if st.total > 0
            else f"{STAGE_LABELS.get(st.stage, st.stage)} {st.done}"
            for st in snap
        ]
        elapsed = self.tracker.elapsed
        parts.append(f"{format_seconds(elapsed)} elapsed")
        left = self._time_left(snap, elapsed)
        if left is not None:
            parts.append(left)
        text = " · ".join(parts) if snap else f"starting · {format_seconds(elapsed)} elapsed"
        note = concurrency_note(self.llm)
        return f"{text} · {note}" if note else text

    def _time_left(self, snap: list[Any], elapsed: float) -> str | None:
        views = {st.stage: st for st in snap}
        stage = views.get(self.outer) if self.outer else (snap[-1] if snap else None)
        if stage is not None and stage.time_left is not None:
            return "done" if stage.finished else f"≈ {format_seconds(stage.time_left)} left"
        return estimate_left(self.estimate, elapsed)

    def emit(self) -> None:
        """Print the current line now."""
        if self.quiet:
            return
        text = self.line()
        with self._lock:
            self._last = self._clock()
            if self._tty:
                pad = max(0, self._width - len(text))
                self.stream.write("\r" + text + " " * pad)
                self._width = len(text)
            else:
                self.stream.write(text + "\n")
            self.stream.flush()

    def _tick(self) -> None:
        while not self._stop.wait(self.interval / 4):
            if self._clock() - self._last >= self.interval:
                self.emit()

    def __enter__(self) -> CliProgress:
        """Start the ticker thread (nothing when quiet)."""
        if not self.quiet:
            self._thread = threading.Thread(target=self._tick, name="cli-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        """Stop the ticker and end the line."""
        self.close()

    def close(self) -> None:
        """Stop the ticker; on a terminal, end the redrawn line."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._tty and self._width and not self.quiet:
            self.stream.write("\n")
            self.stream.flush()
            self._width = 0


def estimate_left(estimate: Any, elapsed: float) -> str | None:
    """Time left from the estimate made before the start, while no rate is measured.

    ``estimate``: seconds, or ``(low, high)``. It counts down and never grows;
    past the high end it is None (the elapsed time says the rest).
    """
    if estimate is None:
        return None
    low, high = estimate if isinstance(estimate, tuple) else (estimate, estimate)
    if high <= elapsed:
        return None
    if low > elapsed and high > 1.3 * low:
        return f"{format_range(low - elapsed, high - elapsed)} left (estimate)"
    if low > elapsed:
        return f"≈ {format_seconds(high - elapsed)} left (estimate)"
    return f"at most {format_seconds(high - elapsed)} left (estimate)"


def interrupted(message: str) -> int:
    """Say that the command stopped and what was kept; return the exit status 130."""
    print(f"interrupted: {message}", file=sys.stderr, flush=True)
    return 130


def check_methods(names: Any) -> None:
    """Refuse an unknown ``--methods`` name, naming the option (batch, evaluate, tsu)."""
    from ..methods.registry import resolve_methods

    if not (names.replace(",", "").strip() if isinstance(names, str) else names):
        raise ValueError("--methods: no method named (a comma-separated list, or all)")
    try:
        resolve_methods(names)
    except ValueError as err:
        raise ValueError(f"--methods: {err}") from None
