"""The options of a served model (several ``--base-url``, ``--concurrency auto``), its progress note, and ``int_in``."""

from __future__ import annotations

import argparse
import os
import re
from typing import Any


def add_server_args(g: Any) -> None:
    """--base-url, --model, --api-key-env, --concurrency, --stall-timeout: how a model is reached."""
    from ..llm.concurrency import MAX_CONCURRENCY

    g.add_argument(
        "--base-url",
        default=None,
        action=AppendUrl,
        help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1; repeat it for several "
        "servers of the same model (each request goes to the least busy one; one that fails "
        "is taken out and retried later)",
    )
    g.add_argument("--model", default=None, help="model name on the server")
    g.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        help="environment variable holding the API key (the key is never written anywhere)",
    )
    g.add_argument(
        "--concurrency",
        type=concurrency_arg,
        default=None,
        metavar="{N,auto,auto:N}",
        help=f"LLM requests in flight at once (1 … {MAX_CONCURRENCY}), or auto (the default for "
        "--llm openai: grows while the latency holds, halves on HTTP 429, 503 or a timeout; "
        "auto:N caps it at N, default 64); local models: their server's slots",
    )
    g.add_argument(
        "--stall-timeout",
        type=seconds_arg,
        default=None,
        metavar="SECONDS",
        help="fail a request only when no token has come for this long (default on the embedded "
        "llama.cpp: 30 s per 0.5 GB of weights, times the load per core when above 1; --llm "
        "openai: off, a 60 s total deadline instead). A slow reply on a busy machine "
        "completes; a dead server fails at once. Recorded in the run",
    )


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
    from ..llm.concurrency import MAX_CONCURRENCY, parse_concurrency

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
    """OpenAI's own API with no key: refused now, not after five connection attempts.

    Only where no server is named (no ``--base-url``, ``--paraphrase-base-url`` or
    ``$OPENAI_BASE_URL``): a local server (vLLM, llama.cpp) may need no key.
    """
    named = args.base_url or os.environ.get("OPENAI_BASE_URL")
    env = getattr(args, "api_key_env", None) or "OPENAI_API_KEY"
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


def check_urls(args: argparse.Namespace) -> None:
    """Each URL of ``--base-url`` / ``--paraphrase-base-url`` is an http(s) address."""
    from ..llm.endpoints import split_base_urls, url_problem

    for option in ("--base-url", "--paraphrase-base-url"):
        value = getattr(args, option[2:].replace("-", "_"), None)
        for url in split_base_urls(value) if value else ():
            problem = url_problem(url)
            if problem is not None:  # shown without what precedes an @ (a user and password)
                shown = re.sub(r"//[^/]*@", "//…@", url)
                raise ValueError(f"{option} {shown!r}: {problem}")
