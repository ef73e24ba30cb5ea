"""The options of a served model (several ``--base-url``, ``--concurrency auto``, the key), the checks of the LLM options, a progress note, ``int_in``."""

from __future__ import annotations

import argparse
import os
import re
from typing import Any

from ..errors import scrub
from ..llm import spec_problem
from ..llm.concurrency import MAX_CONCURRENCY, parse_concurrency
from ..llm.endpoints import split_base_urls, url_problem
from ..llm.hf import HFConfig
from ..llm.inference_engine import check_engine
from ..llm.specs import DEFAULT_KEY_ENV, GGUF_PREFIX, LOCAL_ALIASES, api_key_from, key_env_problem


def seconds_arg(text: str) -> float:
    """The argparse type of ``--stall-timeout``: a finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, got {text!r}")
    return value


class AppendUrl(argparse.Action):
    """``--base-url`` given again adds a server: the URLs are kept comma-separated."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        """Add ``values`` to the URLs given before."""
        before = getattr(namespace, self.dest, None)
        setattr(namespace, self.dest, f"{before},{values}" if before else values)


def concurrency_arg(text: str) -> int | str:
    """An argparse type: an integer in 1 … MAX_CONCURRENCY, ``auto`` or ``auto:N``."""
    if not text.strip().lower().startswith("auto"):
        return int_in(1, MAX_CONCURRENCY)(text)

    try:
        return str(parse_concurrency(text))
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err).removeprefix("concurrency ")) from None


def concurrency_note(llm: Any) -> str | None:
    """``"12 in flight allowed (auto)"`` for a backend under ``--concurrency auto``, else None.

    Never builds a backend that is not built yet (a lazy one).
    """
    if llm is None or getattr(llm, "started", True) is False:
        return None
    try:
        live = getattr(llm, "live_concurrency", None)
    except Exception:  # noqa: BLE001 - a progress line never fails a command
        return None
    return f"{live} in flight allowed (auto)" if isinstance(live, int) else None


def int_in(low: int, high: int):
    """An argparse type: an integer in [low, high], else a usage error naming the bounds."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be in {low} … {high:,}, got {value:,}")
        return value

    return parse


def check_openai_key(args: argparse.Namespace, para: str | None) -> None:
    """The key's variable, and OpenAI's own API with no key: refused now, not after five attempts.

    A variable named with ``--api-key-env`` must hold the key (never another
    variable's instead; a key typed in its place is not repeated). No key is
    refused only where no server is named (no ``--base-url``,
    ``--paraphrase-base-url`` or ``$OPENAI_BASE_URL``): a local server (vLLM,
    llama.cpp) may need none.
    """
    problem = key_env_problem(args.api_key_env) if args.api_key_env is not None else None
    if problem is not None:  # before any message names the variable: it may be the key
        raise ValueError(f"--api-key-env: the value given {problem}")
    named = args.base_url or os.environ.get("OPENAI_BASE_URL")
    env = getattr(args, "api_key_env", None) or DEFAULT_KEY_ENV
    for option, spec, url in (
        ("--llm", args.llm, named),
        ("--paraphrase-llm", para, getattr(args, "paraphrase_base_url", None) or named),
    ):
        if spec == "openai" and not url and not os.environ.get(env):
            raise ValueError(
                f"{option} openai with no --base-url asks api.openai.com, which needs a key: "
                f"${env} is not set (name another variable with --api-key-env, or a server "
                "with --base-url)"
            )
    if args.api_key_env is not None:
        api_key_from(args.api_key_env)  # unset or empty: refused, naming the option and variable


def check_urls(args: argparse.Namespace) -> None:
    """Each URL of ``--base-url`` / ``--paraphrase-base-url`` is an http(s) address."""
    for option in ("--base-url", "--paraphrase-base-url"):
        value = getattr(args, option[2:].replace("-", "_"), None)
        for url in split_base_urls(value) if value else ():
            problem = url_problem(url)
            if problem is not None:  # shown without what precedes an @ (a user and password)
                shown = re.sub(r"//[^/]*@", "//…@", scrub(url))  # and no ?key=
                raise ValueError(f"{option} {shown!r}: {problem}")


def served_judge_problem(args: argparse.Namespace, spec: str) -> str | None:
    """Why a served answer judge (``spec`` ``openai``) has no server here, else None.

    It goes to the server this command names for its own served model
    (``--base-url``, or ``--llm openai``'s); a default server (the public API)
    only when the command asks for it. A samples file's judge follows the same rule.
    """
    if str(spec).strip().lower() != "openai":
        return None
    if getattr(args, "base_url", None) or getattr(args, "llm", None) == "openai":
        return None
    return (
        f"{spec}: a served judge is sent the questions and answers (and the key), so its "
        "server must be named on this command: --base-url URL (and --model); a judge named by "
        "a samples file is never sent anywhere the command does not name"
    )


def check_llm_args(args: argparse.Namespace) -> None:
    """Refuse an unusable LLM choice before anything is read or written: ValueError naming the option.

    One line naming the option and the spec or path (``--llm gguf:/m/x.gguf: no
    such file``): an unknown spec, a ``gguf:``/``hf:`` path that is missing or no
    model, stray server options, an unknown ``--llm-engine`` or ``--llm-dtype``, a
    half-precision dtype where torch sees no CUDA. Loads no model.
    """
    para = getattr(args, "paraphrase_llm", None)
    for option, spec in (("--llm", args.llm), ("--paraphrase-llm", para)):
        problem = None if spec is None else spec_problem(spec)
        if problem is not None:
            raise ValueError(f"{option} {problem}")
    judge = str(getattr(args, "answer_judge", None) or "").strip().lower() == "openai"
    openai = args.llm == "openai" or para == "openai" or judge
    if not openai and (args.base_url or args.model):
        raise ValueError(
            "--base-url and --model go with --llm openai (or --paraphrase-llm openai, "
            "--answer-judge openai)"
        )
    if para != "openai" and (
        getattr(args, "paraphrase_base_url", None) or getattr(args, "paraphrase_model", None)
    ):
        raise ValueError(
            "--paraphrase-base-url and --paraphrase-model go with --paraphrase-llm openai"
        )
    check_urls(args)
    engine = getattr(args, "llm_engine", "auto")
    dtype = getattr(args, "llm_dtype", "auto")
    check_engine(engine)
    if args.llm == "openai" and para in (None, "openai") and (engine, dtype) != ("auto", "auto"):
        # the server decides how it runs the model; saying otherwise here would be ignored
        raise ValueError(
            "--llm-engine and --llm-dtype choose how an in-process model runs (local, gguf:, "
            "hf:); --llm openai is run by its server"
        )
    _check_transformers(args.llm, para, engine, HFConfig(dtype=dtype))
    _check_threads(args.llm, para, engine, getattr(args, "threads", None))
    check_openai_key(args, para)  # last: a stray option is the clearer message


def _check_threads(llm: str, para: str | None, engine: str, threads: int | None) -> None:
    """``--threads`` needs a model on the embedded llama.cpp (a packaged one, or ``gguf:``)."""
    if threads is None:
        return
    specs = [s.strip().lower() for s in (llm, para) if s]
    packaged = engine != "transformers" and any(s in LOCAL_ALIASES for s in specs)
    if not packaged and not any(s.startswith(GGUF_PREFIX) for s in specs):
        raise ValueError(
            "--threads sets the embedded llama.cpp server's threads (--llm local, qwen0.5b, "
            f"qwen1.5b or gguf:FILE); --llm {llm} does not run on it"
        )


def _check_transformers(llm: str, para: str | None, engine: str, config: Any) -> None:
    """``hf:`` specs need the transformers engine and a dtype this machine can run."""
    hf_specs = [s.strip() for s in (llm, para) if s and s.strip().lower().startswith("hf:")]
    for spec in hf_specs:
        option = "--llm" if spec == llm.strip() else "--paraphrase-llm"
        if engine == "llamacpp":
            raise ValueError(
                f"{option} {spec} runs on the transformers engine, not --llm-engine llamacpp"
            )
        try:
            config.resolve()
        except ValueError as err:
            raise ValueError(f"{option} {spec}: {err}") from None
    if not hf_specs and (engine == "transformers" or config.dtype != "auto"):
        config.resolve()


def check_judge_server(args: argparse.Namespace) -> None:
    """``score``'s server options (only for a served answer judge): the URLs and the key's variable."""
    check_urls(args)
    if args.api_key_env is not None:
        api_key_from(args.api_key_env)
