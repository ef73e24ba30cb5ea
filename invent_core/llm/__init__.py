"""LLM backends: the embedded packaged model (default) and any OpenAI-compatible server.

Importing this package imports neither ``openai`` nor ``xllamacpp``; they load
on the first request. The modules, from the bottom up:

- :mod:`.base` — the LLM Protocol, :class:`Request`, :class:`Completion`, seeds;
- :mod:`.cache` — the persistent completion cache (SQLite);
- :mod:`.cancel` — how Cancel reaches a backend (the run's token, per thread);
- :mod:`.cached` — the base class of the backends: cache, progress count, Cancel;
- :mod:`.replies`, :mod:`.retry`, :mod:`.http_transport` — reading OpenAI-protocol
  replies, retrying failed requests, the HTTP client;
- :mod:`.openai_compat` — any OpenAI-compatible server; :mod:`.local` — the
  packaged GGUF (or a user's, :mod:`.gguf_file`) on an embedded llama.cpp server;
- :mod:`.hf` (with :mod:`.hf_batcher`, :mod:`.hf_decode`) — the transformers engine;
- :mod:`.specs` — ``get_llm(spec)``; :mod:`.inference_engine` — which engine runs a packaged model;
- :mod:`.pool`, :mod:`.lazy`, :mod:`.paraphraser`, :mod:`.names` — what runs use around a backend.
"""

from __future__ import annotations

from .base import LLM, Completion, Message, Request, replication_seed, user, yes_probability
from .cache import LLMCache, cache_key, default_cache_path, resolve_cache
from .cancel import sending_for
from .hf import HFLLM, HFConfig
from .http_transport import redact_url
from .inference_engine import ENGINES, choose_engine
from .lazy import LazyLLM
from .local import LocalLLM, ServerConfig, installed_local_models
from .openai_compat import OpenAICompatLLM
from .retry import RetryPolicy
from .specs import DEFAULT_LLM, available_llms, get_llm, resolve_llm, spec_problem

__all__ = [
    "LazyLLM",
    "LLM",
    "Completion",
    "LLMCache",
    "LocalLLM",
    "Message",
    "OpenAICompatLLM",
    "Request",
    "RetryPolicy",
    "ServerConfig",
    "available_llms",
    "cache_key",
    "default_cache_path",
    "ENGINES",
    "HFConfig",
    "HFLLM",
    "choose_engine",
    "get_llm",
    "resolve_llm",
    "DEFAULT_LLM",
    "installed_local_models",
    "redact_url",
    "resolve_cache",
    "sending_for",
    "spec_problem",
    "replication_seed",
    "user",
    "yes_probability",
]
