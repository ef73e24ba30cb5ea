"""Options shared by the commands: the LLM backend, the config options, a progress line.

:func:`add_config_args` generates one option per config field
(:func:`invent_core.config.iter_options`), so ``run``, ``score``, ``batch``,
``evaluate`` and ``tsu`` offer every option, and a new field reaches them all.
"""

from __future__ import annotations

import argparse
import os
import sys
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


def _parse_optional(kind: type):
    """Return the argparse type of an optional field: ``none`` → None, else ``kind(text)``."""

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

    cls = cls or RunConfig
    top = "run" if cls is RunConfig else cls.__name__.removesuffix("Config").lower()
    groups: dict[str, argparse._ArgumentGroup] = {}
    for opt in iter_options(cls):
        if opt.name in exclude:
            continue
        section = opt.path[0] if len(opt.path) > 1 else top
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
    """Build the config the options describe.

    Raises
    ------
    ValueError
        For an invalid value, naming the option as typed (``--temperature must be …``).
    """
    from ..config import RunConfig, config_from_flat, iter_options

    cls = cls or RunConfig
    given = {k: v for k, v in vars(args).items() if v is not None}
    try:
        return config_from_flat(cls, given, base)
    except ValueError as err:
        msg = str(err)
        # "ParaphraseConfig.temperature must …" → "--paraphrase-temperature must …"
        for opt in iter_options(cls):
            owner = f"{_owner(cls, opt.path).__name__}.{opt.path[-1]} "
            if msg.startswith(owner):
                msg = f"{opt.long_flag} {msg[len(owner) :]}"
                break
        raise ValueError(msg) from err


def _owner(cls: type, path: tuple[str, ...]) -> type:
    """Return the config class declaring the field at ``path`` (``("gaap", "delta")`` → GaapConfig)."""
    import typing

    for name in path[:-1]:
        cls = typing.get_type_hints(cls)[name]
    return cls


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
    """A one-line progress display on stderr (tqdm when it is a terminal), fed Progress events."""

    def __init__(self, desc: str, *, quiet: bool = False) -> None:
        self.desc, self.quiet = desc, quiet
        self._bar = None

    def __call__(self, event: Any) -> None:
        """Show one :class:`~invent_core.progress.Progress` event (ETA as the event says)."""
        if self.quiet:
            return
        if sys.stderr.isatty():
            self._tqdm(event)
            return
        eta = "" if event.eta_seconds is None else f"  ETA {event.eta_seconds:.0f}s"
        print(
            f"{self.desc}: {event.done}/{event.total}{eta}  {event.note[:50]}",
            file=sys.stderr,
            flush=True,
        )

    def _tqdm(self, event: Any) -> None:
        if self._bar is None:
            from tqdm import tqdm

            self._bar = tqdm(total=event.total, desc=self.desc, unit="q")
        self._bar.set_postfix_str(event.note[:40])
        self._bar.update(event.done - self._bar.n)

    def close(self) -> None:
        """Close the tqdm bar, if one was drawn."""
        if self._bar is not None:
            self._bar.close()
