"""Options shared by the commands that talk to an LLM (run, batch, evaluate, tsu)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any


def add_llm_args(p: argparse.ArgumentParser) -> None:
    """--llm, --base-url, --model, --api-key-env, --concurrency, --no-cache, --cache."""
    g = p.add_argument_group("LLM backend")
    g.add_argument(
        "--llm",
        default="local",
        help="local (default: packaged Qwen2.5-0.5B, no key), qwen1.5b if installed, "
        "or openai (any OpenAI-compatible server, with --base-url)",
    )
    g.add_argument(
        "--base-url", default=None, help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1"
    )
    g.add_argument("--model", default=None, help="model name on the server")
    g.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        help="environment variable holding the API key (the key is never written anywhere)",
    )
    g.add_argument("--concurrency", type=int, default=None, help="LLM requests in flight at once")
    g.add_argument(
        "--no-cache", action="store_true", help="do not read or write the persistent LLM cache"
    )
    g.add_argument("--cache", default=None, metavar="PATH", help="SQLite file for the LLM cache")


def add_generation_args(p: argparse.ArgumentParser, *, temperature: bool = True) -> None:
    """-n, -r, -B, --temperature, --seed, --perturber, --embedder (paper defaults)."""
    g = p.add_argument_group("perturbation and scoring (defaults follow the paper)")
    g.add_argument(
        "-n", "--n-perturbations", type=int, default=9, help="perturbations per question (paper: 9)"
    )
    g.add_argument(
        "-r", "--n-replications", type=int, default=5, help="answers per question (paper: 5)"
    )
    g.add_argument(
        "-B", "--n-bootstrap", type=int, default=30, help="bootstrap resamples (paper: 30)"
    )
    if temperature:
        g.add_argument(
            "-t", "--temperature", type=float, default=0.7, help="answer temperature (paper: 0.7)"
        )
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--perturber", choices=["paraphrase", "gaap"], default="paraphrase")
    g.add_argument(
        "--embedder", default="minilm", help="minilm (default), mpnet, or an NLI model folder"
    )


def _parse_optional(kind: type):
    """argparse type for an optional field: ``none`` → None, else ``kind(text)``."""

    def parse(text: str):
        return None if text.strip().lower() in ("none", "") else kind(text)

    parse.__name__ = kind.__name__
    return parse


def add_config_args(
    p: argparse.ArgumentParser, cls: type | None = None, *, exclude: tuple[str, ...] = ()
) -> None:
    """One option per field of ``cls`` (default :class:`~invent_core.config.RunConfig`).

    Generated from :func:`invent_core.config.iter_options`, so a new config
    field is an option of every command at once. Defaults are ``None`` here
    (meaning "the config's default"), so :func:`config_from_args` can tell
    what the user typed.
    """
    from ..config import RunConfig, iter_options

    groups: dict[str, argparse._ArgumentGroup] = {}
    for opt in iter_options(cls or RunConfig):
        if opt.name in exclude:
            continue
        section = opt.path[0] if len(opt.path) > 1 else "run"
        g = groups.get(section)
        if g is None:
            g = groups[section] = p.add_argument_group(f"{section} options (defaults: the paper's)")
        flags = [opt.flag] if opt.flag else []
        if opt.type is bool:  # --adaptive / --no-adaptive
            g.add_argument(
                *flags,
                opt.long_flag,
                dest=opt.name,
                action=argparse.BooleanOptionalAction,
                default=None,
                help=f"{opt.help} (default: {'on' if opt.default else 'off'})",
            )
            continue
        kind = _parse_optional(opt.type) if opt.optional else opt.type
        g.add_argument(
            *flags,
            opt.long_flag,
            dest=opt.name,
            type=kind,
            choices=opt.choices,
            default=None,
            metavar=opt.name.upper() if opt.choices is None else None,
            help=f"{opt.help} (default: {opt.default})",
        )


def config_from_args(args: argparse.Namespace, cls: type | None = None, base: Any = None) -> Any:
    """The config the options describe; an invalid value raises ``ValueError`` naming the option."""
    from ..config import RunConfig, config_from_flat, iter_options

    cls = cls or RunConfig
    given = {k: v for k, v in vars(args).items() if v is not None}
    try:
        return config_from_flat(cls, given, base)
    except ValueError as err:
        msg = str(err)
        for opt in iter_options(cls):  # "RunConfig.temperature must …" → "--temperature must …"
            owner = f".{opt.path[-1]} "
            if owner in msg and opt.name in given:
                msg = msg.replace(msg.split(" ", 1)[0] + " ", f"{opt.long_flag} ", 1)
                break
        raise ValueError(msg) from err


def llm_from_args(args: argparse.Namespace) -> Any:
    """Build the LLM backend the options describe (lazy: the local server starts on first use)."""
    from ..llm import get_llm

    if args.llm != "openai" and (args.base_url or args.model):
        raise ValueError("--base-url and --model go with --llm openai")
    cache: Any = None if args.no_cache else (args.cache or True)
    kwargs: dict[str, Any] = {"cache": cache, "concurrency": args.concurrency}
    if args.llm == "openai":
        api_key = os.environ.get(args.api_key_env) if args.api_key_env else None
        return get_llm(
            "openai", base_url=args.base_url, model=args.model, api_key=api_key, **kwargs
        )
    return get_llm(args.llm, **kwargs)


class ProgressLine:
    """A one-line progress display with ETA on stderr (tqdm when it is a terminal)."""

    def __init__(self, total: int, desc: str, *, quiet: bool = False) -> None:
        self.total, self.desc, self.quiet = total, desc, quiet
        self.t0 = time.perf_counter()
        self.done = 0
        self._bar = None
        if not quiet and sys.stderr.isatty():
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=desc, unit="q")

    def update(self, note: str = "") -> None:
        self.done += 1
        if self.quiet:
            return
        if self._bar is not None:
            self._bar.set_postfix_str(note[:40])
            self._bar.update(1)
            return
        elapsed = time.perf_counter() - self.t0
        eta = elapsed / self.done * (self.total - self.done)
        print(
            f"{self.desc}: {self.done}/{self.total}  elapsed {elapsed:.0f}s  ETA {eta:.0f}s  {note[:50]}",
            file=sys.stderr,
            flush=True,
        )

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
