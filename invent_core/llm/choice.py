"""An :class:`~invent_core.config.LLMChoice` made a backend, and its identity without a network.

The one place where the command line's LLM options and the dashboard's model
choice become backends: :func:`build_llm` (the answering model, carrying a
separate paraphrasing model unless both name the same weights) and
:func:`choice_identity` (what the estimate, the reference check and the
throughput log key on, computed without asking any server). The key of a
served model is read here, from the variable the choice names and no other
(:func:`~.specs.api_key_from`), unless the caller passes one (a key typed in
the dashboard's session).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..config.llm import SERVED, LLMChoice
from .cached import thinking_suffix
from .endpoints import endpoints_identity, split_base_urls
from .http_transport import redact_url
from .local import ServerConfig
from .paraphraser import WithParaphraser
from .specs import api_key_from, default_model, get_llm, served_url

__all__ = ["build_llm", "build_one", "choice_identity", "paraphrase_identity"]


def build_one(choice: LLMChoice, *, api_key: str | None = None, nice: int | None = None) -> Any:
    """The answering model of ``choice`` alone (lazy: a local server starts on first use).

    A served model's key: ``api_key`` when given, else the choice's variable's.
    ``nice``: the niceness of an embedded llama.cpp server's threads
    (:class:`~invent_core.llm.local.ServerConfig`; None: its default, the
    caller's priority, as the command line runs it).
    """
    cache: Any = None if choice.no_cache else (choice.cache or True)
    kwargs: dict[str, Any] = {"cache": cache, "concurrency": choice.concurrency,
                              "thinking": choice.thinking,
                              "stall_timeout": choice.stall_timeout}  # fmt: skip
    if _served(choice.llm):
        key = api_key if api_key is not None else api_key_from(choice.api_key_env)
        return get_llm(SERVED, base_url=choice.base_url, model=choice.model, api_key=key, **kwargs)
    server = {"n_threads": choice.threads} if choice.threads is not None else {}
    server |= {"nice": nice} if nice is not None else {}
    return get_llm(choice.llm, engine=choice.llm_engine, dtype=choice.llm_dtype,
                   server_config=ServerConfig(**server), **kwargs)  # fmt: skip


def build_llm(
    choice: LLMChoice,
    *,
    api_key: str | None = None,
    build: Callable[[LLMChoice], Any] | None = None,
) -> Any:
    """The backend ``choice`` describes: the answering model, carrying its paraphraser.

    ``build`` makes one model from a choice without a paraphraser (default
    :func:`build_one`; the dashboard passes its cached one). A paraphraser that
    names the same weights as the answering model (the packaged file by its path)
    is the answering model itself, not a second backend.
    """
    one = build or (lambda c: build_one(c, api_key=api_key))
    answerer = one(choice.answerer())
    para_choice = choice.paraphraser()
    if para_choice is None:
        return answerer
    para = one(para_choice)
    served = _served(para_choice.llm) or _served(choice.llm)
    if para is answerer or (not served and para.identity == answerer.identity):
        return answerer
    return WithParaphraser(answerer, para)


def choice_identity(choice: LLMChoice | None, llm: Any = None) -> str | None:
    """The answering model's identity, asking no server (None for no choice).

    A served model: its URL(s) without credentials and its model name, or
    ``"openai"`` when no model is named (asking the server which one it serves
    would contact it). Another: the backend's ``identity`` (``llm`` when already
    built, else built now: a model file is hashed, nothing is loaded).
    """
    if choice is None:
        return None
    if _served(choice.llm):
        model = choice.model or default_model()
        if not model:
            return SERVED
        urls = [redact_url(u) for u in split_base_urls(served_url(choice.base_url))]
        return endpoints_identity(urls, model) + thinking_suffix(choice.thinking)
    built = llm if llm is not None else build_one(choice.answerer())
    return str(built.identity)


def paraphrase_identity(choice: LLMChoice, llm: Any = None) -> str | None:
    """A separate paraphrasing model's identity, as :func:`choice_identity` (None: none)."""
    return choice_identity(choice.paraphraser(), getattr(llm, "paraphraser", None))


def _served(spec: str) -> bool:
    return spec.strip().lower() == SERVED
