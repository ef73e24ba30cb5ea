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
``auto:N``), ``threads`` (an integer in range), ``seconds`` (a number > 0), ``on_off``
(``--thinking on``), ``spec`` (a model: a name, ``gguf:FILE``, ``hf:PATH`` or ``openai``).

The dashboard's sidebar generates its model widgets from the same fields
(:mod:`invent_ui.session.llm_fields`): ``label`` names the widget, ``applies``
says when it means something (``("served", "llm")``: only while ``llm`` is
``openai``; ``("local", "llm")``: only while it is not), ``low``/``high`` bound
a number, ``unset`` says what 0 (or blank) stands for, ``advanced`` puts it in
the sidebar's Advanced expander, and ``ui=False`` (with ``ui_why``) keeps a
field out of the dashboard. ``ui_name`` is the name a field has in the
dashboard's saved settings when that differs from the field's.
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
#: The most CPU threads llama.cpp takes (its ``GGML_MAX_N_THREADS``; ``--threads``).
MAX_THREADS = 512


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
        kind="spec",
        label="LLM backend",
    )
    base_url: str | None = opt(
        None,
        "OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1; repeat it for several "
        "servers of the same model (each request goes to the least busy one; one that fails "
        "is taken out and retried later)",
        kind="urls",
        label="Server URL (…/v1)",
        applies=("served", "llm"),
    )
    model: str | None = opt(
        None, "model name on the server", label="Model", applies=("served", "llm")
    )
    paraphrase_llm: str | None = opt(
        None,
        "the model that rewords the question (the paraphrase perturber and the gate's "
        "extra rounds), as --llm (default: the answering model)",
        metavar="SPEC",
        kind="spec",
        label="Paraphrasing model",
    )
    paraphrase_base_url: str | None = opt(
        None,
        "for --paraphrase-llm openai: its server (default: --base-url)",
        kind="urls",
        label="Paraphrasing server URL (…/v1)",
        applies=("served", "paraphrase_llm"),
    )
    paraphrase_model: str | None = opt(
        None,
        "for --paraphrase-llm openai: its model (default: --model)",
        label="Paraphrasing model name",
        applies=("served", "paraphrase_llm"),
    )
    llm_engine: Engine = opt(
        "auto",
        "what runs local/qwen0.5b/qwen1.5b: auto (default: transformers on the GPU when "
        "torch sees CUDA and llama.cpp sees no GPU, else llama.cpp), llamacpp or transformers",
        metavar="{auto,llamacpp,transformers}",
        label="LLM engine",
        applies=("local", "llm"),
    )
    llm_dtype: Dtype = opt(
        "auto",
        "the transformers engine's dtype (auto: bf16 on CUDA, fp32 on the CPU)",
        metavar="{auto,bf16,fp16,fp32}",
        label="transformers dtype",
        applies=("local", "llm"),
        advanced=True,
    )
    threads: int | None = opt(
        None,
        "CPU threads of the embedded llama.cpp server (local, qwen0.5b, qwen1.5b, gguf:; "
        "default: llama.cpp's choice, all cores). On a machine busy with other work, 1 is "
        "often faster; not part of the answers' cache key",
        kind="threads",
        metavar="N",
        label="llama.cpp threads",
        unset="all cores",
        low=1,
        high=MAX_THREADS,
        applies=("local", "llm"),
        ui_name="llm_threads",  # the dashboard's saved settings named it so before LLMChoice
    )
    thinking: bool = opt(
        False,
        "let a reasoning model (Qwen3, DeepSeek-R1) think before answering (default off: "
        "enable_thinking=false where the server or chat template takes it); <think> traces are "
        "always kept out of the answers, and on is part of the cache key",
        kind="on_off",
        label="Let a reasoning model think",
        ui_name="llm_thinking",  # as threads
    )
    concurrency: int | str | None = opt(
        None,
        "LLM requests in flight at once (1 … 256), or auto (the default for --llm openai: "
        "grows while the latency holds, halves on HTTP 429, 503 or a timeout; auto:N caps it "
        "at N, default 64); local models: their server's slots",
        kind="concurrency",
        metavar="{N,auto,auto:N}",
        label="Requests in flight (N, auto or auto:N)",
        advanced=True,
    )
    stall_timeout: float | None = opt(
        None,
        "fail a request only when no token has come for this long (default on the embedded "
        "llama.cpp: 30 s per 0.5 GB of weights, times the load per core when above 1; --llm "
        "openai: off, a 60 s total deadline instead). A slow reply on a busy machine "
        "completes; a dead server fails at once. Recorded in the run",
        kind="seconds",
        metavar="SECONDS",
        label="Stall timeout (seconds)",
        unset="the default",
        advanced=True,
    )
    api_key_env: str | None = opt(
        None,
        "the environment variable holding the API key, read from it only: unset or empty "
        "is refused (default: $OPENAI_API_KEY when set, else no key); the key is never written "
        "anywhere",
        metavar="VARIABLE",
        ui=False,
        ui_why="a variable named in a browser would hand the server's environment to whoever "
        "opens the dashboard; there the key is typed for the session or is $OPENAI_API_KEY",
    )
    no_cache: bool = opt(
        False,
        "do not read or write the persistent LLM cache",
        kind="flag",
        ui=False,
        ui_why="the dashboard's Cancel and 'ask again' keep and re-use the answers in the cache",
    )
    cache: str | None = opt(
        None,
        "SQLite file for the LLM cache",
        metavar="PATH",
        ui=False,
        ui_why="a path typed in a browser would let it choose where the server writes; the "
        "dashboard's cache is the server's ($INVENT_CACHE)",
    )

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
        threads = self.threads
        if threads is not None and (isinstance(threads, bool) or threads < 1):
            raise ValueError(f"{o}.threads must be at least 1 (or none), got {threads!r}")
        if threads is not None and threads > MAX_THREADS:  # llama.cpp's own limit
            raise ValueError(f"{o}.threads must be at most {MAX_THREADS}, got {threads!r}")
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
