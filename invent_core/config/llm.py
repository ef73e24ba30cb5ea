"""Which model answers (and which rewords): :class:`LLMChoice`, one frozen config.

The command line's LLM options and the dashboard's model choice are this one
object: the CLI generates its options from the fields (their ``help`` and
``kind``), the sidebar fills the same fields, and
:func:`invent_core.llm.choice.build_llm` / ``choice_identity`` turn it into a
backend and its identity, so building, the paraphraser's fallback and the
identity are written once. The key itself is never a field: only the name of
the variable that holds it (the dashboard passes a key typed in the session to
``build_llm`` directly).

``kind`` tells the CLI generator how an option is typed on the command line:
``urls`` (repeatable, joined by commas), ``concurrency`` (``N``, ``auto``,
``auto:N``), ``threads`` (an integer in range), ``seconds`` (a number > 0), ``on_off`` (``--thinking on``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from .checks import check_bool, check_choice, opt

#: What runs a packaged model (``--llm-engine``).
Engine = Literal["auto", "llamacpp", "transformers"]
#: The transformers engine's dtype (``--llm-dtype``).
Dtype = Literal["auto", "bf16", "fp16", "fp32"]
#: The spec of a model served over the OpenAI protocol.
SERVED = "openai"


@dataclass(frozen=True)
class LLMChoice:
    """The answering model, the paraphrasing model, and how both are run and reached."""

    llm: str = opt(
        "local",
        "local (default: packaged Qwen2.5-0.5B, no key), qwen1.5b if installed, "
        "gguf:FILE (any GGUF file on the embedded llama.cpp), "
        "openai (any OpenAI-compatible server, with --base-url), or hf:PATH (a local "
        "Hugging Face model folder or GGUF file, run by transformers in this process)",
        metavar="SPEC",
    )
    llm_engine: Engine = opt(
        "auto",
        "what runs local/qwen0.5b/qwen1.5b: auto (default: transformers on the GPU when "
        "torch sees CUDA and llama.cpp sees no GPU, else llama.cpp), llamacpp or transformers",
        metavar="{auto,llamacpp,transformers}",
    )
    llm_dtype: Dtype = opt(
        "auto",
        "the transformers engine's dtype (auto: bf16 on CUDA, fp32 on the CPU)",
        metavar="{auto,bf16,fp16,fp32}",
    )
    paraphrase_llm: str | None = opt(
        None,
        "the model that rewords the question (the paraphrase perturber and the gate's "
        "extra rounds), as --llm (default: the answering model)",
        metavar="SPEC",
    )
    paraphrase_base_url: str | None = opt(
        None, "for --paraphrase-llm openai: its server (default: --base-url)", kind="urls"
    )
    paraphrase_model: str | None = opt(
        None, "for --paraphrase-llm openai: its model (default: --model)"
    )
    base_url: str | None = opt(
        None,
        "OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1; repeat it for several "
        "servers of the same model (each request goes to the least busy one; one that fails "
        "is taken out and retried later)",
        kind="urls",
    )
    model: str | None = opt(None, "model name on the server")
    api_key_env: str | None = opt(
        None,
        "the environment variable holding the API key, read from it only: unset or empty "
        "is refused (default: $OPENAI_API_KEY when set, else no key); the key is never written "
        "anywhere",
        metavar="VARIABLE",
    )
    concurrency: int | str | None = opt(
        None,
        "LLM requests in flight at once (1 … 256), or auto (the default for --llm openai: "
        "grows while the latency holds, halves on HTTP 429, 503 or a timeout; auto:N caps it "
        "at N, default 64); local models: their server's slots",
        kind="concurrency",
        metavar="{N,auto,auto:N}",
    )
    thinking: bool = opt(
        False,
        "let a reasoning model (Qwen3, DeepSeek-R1) think before answering (default off: "
        "enable_thinking=false where the server or chat template takes it); <think> traces are "
        "always kept out of the answers, and on is part of the cache key",
        kind="on_off",
    )
    threads: int | None = opt(
        None,
        "CPU threads of the embedded llama.cpp server (local, qwen0.5b, qwen1.5b, gguf:; "
        "default: llama.cpp's choice, all cores). On a machine busy with other work, 1 is "
        "often faster; not part of the answers' cache key",
        kind="threads",
        metavar="N",
    )
    stall_timeout: float | None = opt(
        None,
        "fail a request only when no token has come for this long (default on the embedded "
        "llama.cpp: 30 s per 0.5 GB of weights, times the load per core when above 1; --llm "
        "openai: off, a 60 s total deadline instead). A slow reply on a busy machine "
        "completes; a dead server fails at once. Recorded in the run",
        kind="seconds",
        metavar="SECONDS",
    )
    no_cache: bool = opt(False, "do not read or write the persistent LLM cache", kind="flag")
    cache: str | None = opt(None, "SQLite file for the LLM cache", metavar="PATH")

    def __post_init__(self) -> None:
        o = "LLMChoice"
        for name in ("llm", "paraphrase_llm", "base_url", "paraphrase_base_url", "model",
                     "paraphrase_model", "api_key_env", "cache"):  # fmt: skip
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise ValueError(f"{o}.{name} must be text, got {value!r}")
            if name != "llm" and value is not None and not value.strip():
                object.__setattr__(self, name, None)  # a blank field is "not given"
        if not self.llm.strip():
            raise ValueError(f"{o}.llm must name a model, got {self.llm!r}")
        check_choice(o, "llm_engine", self.llm_engine, Engine)
        check_choice(o, "llm_dtype", self.llm_dtype, Dtype)
        check_bool(o, "thinking", self.thinking)
        check_bool(o, "no_cache", self.no_cache)
        if self.threads is not None and (isinstance(self.threads, bool) or self.threads < 1):
            raise ValueError(f"{o}.threads must be at least 1 (or none), got {self.threads!r}")
        stall = self.stall_timeout
        if stall is not None and (isinstance(stall, bool) or not 0 < stall < float("inf")):
            raise ValueError(f"{o}.stall_timeout must be a number of seconds > 0, got {stall!r}")

    def answerer(self) -> LLMChoice:
        """The answering model's choice alone (no paraphrasing model)."""
        return dataclasses.replace(
            self, paraphrase_llm=None, paraphrase_base_url=None, paraphrase_model=None
        )

    def paraphraser(self) -> LLMChoice | None:
        """The paraphrasing model's own choice, or None when it is the answering model.

        Its server and model default to the answering model's (``--paraphrase-base-url``
        → ``--base-url``); engine, threads, thinking, cache and key variable are shared.
        """
        if self.paraphrase_llm is None:
            return None
        base_url = self.paraphrase_base_url or self.base_url
        model = self.paraphrase_model or self.model
        if (self.paraphrase_llm, base_url, model) == (self.llm, self.base_url, self.model):
            return None
        return dataclasses.replace(self.answerer(), llm=self.paraphrase_llm, base_url=base_url,
                                   model=model)  # fmt: skip

    @property
    def served(self) -> bool:
        """Whether any model of this choice is reached over the network (spec ``openai``)."""
        return SERVED in (self.llm.strip().lower(), (self.paraphrase_llm or "").strip().lower())

    def replace(self, **changes: Any) -> LLMChoice:
        """A copy with ``changes`` (checked again)."""
        return dataclasses.replace(self, **changes)
