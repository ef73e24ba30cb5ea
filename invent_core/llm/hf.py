"""The transformers engine: any local Hugging Face causal LM in this process, on CUDA or the CPU.

``--llm hf:PATH`` (a folder with ``config.json`` and weights, or a GGUF file
read by transformers' GGUF loader, de-quantised) and, on a machine whose
torch sees CUDA while the llama.cpp build has no GPU, the packaged models
(:func:`invent_core.llm.inference_engine.choose_engine`). bf16 on CUDA (fp16 where
the GPU has no bf16), fp32 on the CPU. The model is loaded once per process
and kept (:func:`load_model`; the dashboard holds the backend as a cached
resource).

Requests from every thread of a run meet in one queue (:mod:`.hf_batcher`):
whoever finds the engine free decodes everything waiting, up to the
sequences that fit in free memory, so the r replications of n + 1 states
decode side by side. The r replications of a prompt share one prompt
evaluation (the sequences of ``num_return_sequences``).

Reproducibility: each sequence is sampled with its request's own seed
(``Request.effective_seed``), so a request sent alone gives the same text
every time on the same machine, dtype and library versions. In a batch its
neighbours change the padding and the kernels' rounding, so the same request
may give another text; a re-run is reproducible through the LLM cache, keyed
by the weights' sha256, the engine, the dtype and the device type.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .. import env  # noqa: F401 - offline before transformers is imported
from ..errors import LLMError, ModelLoadError
from ..packaged import file_sha256, publish_folder
from .base import Completion, Request
from .cache import LLMCache
from .cached import CachedLLM, Pending, thinking_suffix
from .cancel import current_cancel
from .gguf_file import GGUFFileError, gguf_problem
from .hf_batcher import Batcher, Ticket
from .hf_decode import BatchStats, Row, StaticOptions, decode_batch
from .hf_sampling import SAMPLERS
from .local import LOCAL_MODELS
from .model_files import content_name, folder_problem

#: dtype names accepted by ``--llm-dtype`` / :class:`HFConfig`.
DTYPES = ("auto", "bf16", "fp16", "fp32")
#: KV caches of the decode loop (:class:`HFConfig`): auto = static on CUDA, dynamic on the CPU.
KV_CACHES = ("auto", "static", "dynamic")
#: Most sequences decoded together (then free memory decides): CUDA, CPU.
MAX_BATCH = {"cuda": 256, "cpu": 16}
#: Files that decide what a folder's model answers (hashed into its identity).
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".json", ".model", ".jinja", ".txt")


@dataclass(frozen=True)
class HFConfig:
    """Where and how the transformers engine runs.

    ``device`` "auto" is CUDA when torch sees it, else the CPU; ``dtype``
    "auto" is bf16 on CUDA (fp16 on GPUs without bf16), fp32 on the CPU
    (half precision on a CPU is slow and asked for by mistake: refused).
    ``max_batch`` caps the sequences decoded together (None: ``MAX_BATCH``
    of the device); free memory may lower it, batch by batch. ``kv_cache``
    "auto" is the preallocated static cache on CUDA (about 3x faster per
    decode step on the H200 measured, :mod:`.hf_decode`), the dynamic one on
    the CPU (no gain there, and it drops finished rows); "static" and
    "dynamic" force one. Both draw the same tokens for a row. ``sampling``
    "llamacpp" draws as llama.cpp's server does by default (top-k 40,
    top-p 0.95, min-p 0.05, then the temperature: the two engines answer
    alike); "plain" is the OpenAI API's (and the paper's) temperature-only
    sampling (:mod:`.hf_sampling`).
    ``thinking``: whether a reasoning model's chat template may open a
    ``<think>`` block (``enable_thinking``, for templates that read it; off by default).
    ``cuda_graphs`` "auto": the static path's decode steps replay as CUDA
    graphs on CUDA (:mod:`.hf_graphs`), eager elsewhere; "off": always eager.
    """

    device: str = "auto"
    dtype: str = "auto"
    max_batch: int | None = None
    memory_fraction: float = 0.8  # of the free memory a batch's KV cache and logits may use
    kv_cache: str = "auto"
    sampling: str = "llamacpp"
    thinking: bool = False  # ours: traces are not answers (llm/thinking.py)
    cuda_graphs: str = "auto"

    def __post_init__(self) -> None:
        """Check the names; whether CUDA exists is checked by :meth:`resolve`."""
        if self.dtype not in DTYPES:
            raise ValueError(f"--llm-dtype must be one of {', '.join(DTYPES)}, got {self.dtype!r}")
        if self.device != "auto" and self.device.split(":")[0] not in ("cpu", "cuda"):
            raise ValueError(f"device must be auto, cpu or cuda[:N], got {self.device!r}")
        if self.max_batch is not None and self.max_batch < 1:
            raise ValueError(f"max_batch must be >= 1 or None, got {self.max_batch}")
        if self.sampling not in SAMPLERS:
            raise ValueError(
                f"sampling must be one of {', '.join(SAMPLERS)}, got {self.sampling!r}"
            )
        if self.cuda_graphs not in ("auto", "off"):
            raise ValueError(f"cuda_graphs must be auto or off, got {self.cuda_graphs!r}")
        if self.kv_cache not in KV_CACHES:
            raise ValueError(
                f"kv_cache must be one of {', '.join(KV_CACHES)}, got {self.kv_cache!r}"
            )

    def resolve(self) -> tuple[str, str]:
        """(device, dtype) as they will run, e.g. ("cuda:0", "bf16"); ValueError when impossible."""
        import torch

        cuda = torch.cuda.is_available()
        device = self.device if self.device != "auto" else ("cuda:0" if cuda else "cpu")
        if device == "cuda":
            device = "cuda:0"
        if device.startswith("cuda") and not cuda:
            raise ValueError(
                f"the transformers engine was asked for {device}, but torch sees no CUDA"
            )
        dtype = self.dtype
        if dtype == "auto":
            bf16 = device.startswith("cuda") and torch.cuda.is_bf16_supported()
            dtype = "fp32" if device == "cpu" else ("bf16" if bf16 else "fp16")
        if device == "cpu" and dtype != "fp32":
            raise ValueError(
                f"--llm-dtype {dtype} needs CUDA, and torch sees none here: use fp32 (or auto) on the CPU"
            )
        return device, dtype


@dataclass(frozen=True)
class HFSource:
    """Where the weights are: a folder (``config.json`` + weights) or one GGUF file in a folder."""

    folder: Path
    gguf_file: str | None = None
    name: str = ""  # the model's name for people (the folder's, or its hub repository's)
    sha256: str | None = None  # known digest (the packaged GGUF's verified one)
    model: str = ""  # the name in its identity, read from the files (never the folder's name)

    @property
    def display(self) -> str:
        """The model's name for people."""
        return self.name or (self.gguf_file or self.folder.name)


def check_source(path: str | os.PathLike, *, option: str = "--llm hf:") -> HFSource:
    """The :class:`HFSource` ``path`` names, checked by content; ValueError naming option and path.

    A GGUF file: its header, length and architecture (:func:`.gguf_file.gguf_problem`);
    a folder: config.json, the weights and the tokenizer (:func:`.model_files.folder_problem`).
    """
    p = Path(path).expanduser()
    try:
        exists, is_file = p.exists(), p.is_file()
    except OSError as err:  # e.g. a name longer than the system allows
        raise ValueError(f"{option}{path}: cannot be read ({err.strerror or err})") from None
    if not exists:
        raise ValueError(f"{option}{path}: no such file or folder")
    if is_file:
        with open(p, "rb") as fh:
            if fh.read(4) != b"GGUF":
                raise ValueError(f"{option}{path}: not a GGUF file (no GGUF magic) nor a folder")
        try:
            info = gguf_problem(p, engine="transformers")
        except GGUFFileError as err:
            raise ValueError(f"{option}{path}: {err.reason}") from None
        return HFSource(p.resolve().parent, p.name, name=p.stem, model=info.name or "GGUF")
    if not (p / "config.json").is_file():
        raise ValueError(
            f"{option}{path}: the folder has no config.json (not a Hugging Face model)"
        )
    problem = folder_problem(p)
    if problem is not None:
        raise ValueError(f"{option}{path}: {problem}")
    folder = p.resolve()
    return HFSource(folder, None, name=_folder_name(folder), model=content_name(folder))


def _folder_name(folder: Path) -> str:
    """A model folder's name; in a Hugging Face cache (``models--Org--Name/snapshots/<hash>``) ``Org/Name``."""
    if folder.parent.name == "snapshots" and folder.parent.parent.name.startswith("models--"):
        return folder.parent.parent.name.removeprefix("models--").replace("--", "/")
    return folder.name


# -- the weights' digest -------------------------------------------------------------


def weights_digest(source: HFSource) -> str:
    """sha256 of the model: the GGUF file's, or of a folder's files (names and digests).

    Each file is hashed once and again only when it changed
    (:func:`invent_core.packaged.file_sha256`).
    """
    if source.sha256:
        return source.sha256
    if source.gguf_file:
        return file_sha256(source.folder / source.gguf_file)
    h = hashlib.sha256()
    for f in sorted(source.folder.iterdir()):
        if f.is_file() and f.suffix in _WEIGHT_SUFFIXES:
            h.update(f"{f.name}\0{file_sha256(f)}\n".encode())
    return h.hexdigest()


# -- loading, once per process -------------------------------------------------------


@dataclass
class Loaded:
    """A model on its device with its tokenizer, and what loading it cost."""

    model: Any
    tokenizer: Any
    device: str
    dtype: str
    seconds: float
    eos: set[int]
    digest: str = ""  # weights_digest of the files it was loaded from


_LOADED: dict[tuple[str, str | None, str, str], Loaded] = {}
_LOAD_LOCK = threading.Lock()


def load_model(source: HFSource, device: str, dtype: str) -> Loaded:
    """The model and tokenizer of ``source`` on ``device`` in ``dtype``, loaded once per process.

    Loaded again when the files changed since (their digest, re-checked by a
    stat per file): a model is never used under the digest of other weights.
    """
    key = (str(source.folder), source.gguf_file, device, dtype)
    with _LOAD_LOCK:
        digest = weights_digest(source)
        known = _LOADED.get(key)
        if known is None or known.digest != digest:
            _LOADED.pop(key, None)  # the old weights are no longer on disk: let them go
            loaded = _load(source, device, dtype)
            if weights_digest(source) != digest:
                raise ModelLoadError(
                    f"{_where(source)} changed while it was loading; run again once it is written"
                )
            _LOADED[key] = replace(loaded, digest=digest)
        return _LOADED[key]


def loaded_digest(source: HFSource, device: str, dtype: str) -> str | None:
    """The digest of the weights in memory for ``source`` (None: not loaded); reloads nothing."""
    with _LOAD_LOCK:
        known = _LOADED.get((str(source.folder), source.gguf_file, device, dtype))
    return None if known is None else known.digest


def _where(source: HFSource) -> Path:
    return source.folder / (source.gguf_file or "")


def _load(source: HFSource, device: str, dtype: str) -> Loaded:
    """Load once; any failure is a :class:`ModelLoadError` naming the files (no traceback)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    t0 = time.perf_counter()
    kw = {"gguf_file": source.gguf_file} if source.gguf_file else {}
    torch_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[dtype]
    try:
        tok = AutoTokenizer.from_pretrained(str(source.folder), **kw)
        model = AutoModelForCausalLM.from_pretrained(  # straight onto the device (accelerate)
            str(source.folder), dtype=torch_dtype, device_map=device, **kw
        )
    except Exception as err:  # noqa: BLE001 - safetensors, tokenizers, torch: all named here
        raise ModelLoadError(
            f"the transformers engine could not load {_where(source)}: {type(err).__name__}: {err}"
        ) from err
    if not tok("Hello", add_special_tokens=False)["input_ids"]:
        raise ModelLoadError(
            f"the tokenizer of {_where(source)} encodes a prompt to no tokens (no vocabulary?)"
        )
    model.to(device).eval()
    tok.padding_side = "left"
    eos = _eos_ids(tok, model)
    if tok.pad_token_id is None:
        tok.pad_token_id = min(eos)
    return Loaded(model, tok, device, dtype, time.perf_counter() - t0, eos)


def _eos_ids(tok: Any, model: Any) -> set[int]:
    """Token ids that end a reply: the tokenizer's and the generation config's EOS, the chat end."""
    ids: set[int] = set()
    for v in (tok.eos_token_id, getattr(model.generation_config, "eos_token_id", None)):
        ids.update(v if isinstance(v, list) else [v] if v is not None else [])
    for t in ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<end_of_turn>"):
        i = tok.convert_tokens_to_ids(t)
        if isinstance(i, int) and i != tok.unk_token_id and i >= 0:
            ids.add(i)
    if not ids:
        raise ModelLoadError("the model's tokenizer names no end-of-sequence token")
    return ids


def unload_all() -> None:
    """Forget every loaded model (tests; frees the memory once nothing else holds them)."""
    with _LOAD_LOCK:
        _LOADED.clear()


# -- the backend ---------------------------------------------------------------------


class HFLLM(CachedLLM):
    """The LLM Protocol on a transformers model in this process (see the module docstring).

    Parameters
    ----------
    source
        The weights (:func:`check_source` for a user's path).
    config
        Device, dtype, batch cap; checked here (CUDA asked where there is none
        is a ``ValueError`` before anything loads).
    cache
        The persistent LLM cache, or None.
    prefers_single_paraphrase
        True for the small packaged models (one rewording per request).
    """

    def __init__(
        self,
        source: HFSource,
        *,
        config: HFConfig | None = None,
        cache: LLMCache | None = None,
        prefers_single_paraphrase: bool = False,
    ) -> None:
        self.source = source
        self.config = config or HFConfig()
        self.device, self.dtype = self.config.resolve()
        self.cache = cache
        self.prefers_single_paraphrase = prefers_single_paraphrase
        self.stats = BatchStats()  # every batch decoded by this backend, summed
        self.batch_sizes: list[int] = []  # sequences per batch, in order
        self._batcher = Batcher(self._run_groups, self._capacity)

    def __repr__(self) -> str:
        """Show the model and where it runs."""
        return f"HFLLM({self.label!r})"

    @property
    def identity(self) -> str:
        """Cache identity: weights' sha256, engine, dtype and device type, plus the model's name.

        The digest is of the files as they are now (a stat per file; hashed
        again when one changed); the name is read from the files
        (:attr:`HFSource.model`), so a renamed copy keeps its cached answers.
        """
        kind = self.device.split(":")[0]
        return (
            f"transformers:sha256={weights_digest(self.source)};dtype={self.dtype};device={kind}"
            f";sampling={self.config.sampling}|model={self.source.model or self.source.display}"
            f"{thinking_suffix(self.thinking)}"
        )

    @property
    def thinking(self) -> bool:
        """Whether a reasoning model may think (:attr:`HFConfig.thinking`)."""
        return self.config.thinking

    @property
    def label(self) -> str:
        """What runs the model, for people: ``"Qwen2.5-Coder-0.5B · transformers · cuda:0 · bf16"``."""
        return f"{self.source.display} · transformers · {self.device} · {self.dtype}"

    @property
    def concurrency(self) -> int:
        """Requests in flight at once (the pool's slots): the batch cap."""
        return self.config.max_batch or MAX_BATCH[self.device.split(":")[0]]

    @property
    def static(self) -> bool:
        """Whether batches decode on the preallocated static KV cache (:class:`HFConfig`)."""
        if self.config.kv_cache == "auto":
            return self.device.startswith("cuda")
        return self.config.kv_cache == "static"

    @property
    def graphs(self) -> bool:
        """Whether static decode steps replay as CUDA graphs: CUDA and the static cache only."""
        import torch

        on_cuda = self.device.startswith("cuda") and torch.cuda.is_available()
        return self.static and on_cuda and self.config.cuda_graphs == "auto"

    @property
    def runtime(self) -> dict[str, Any]:
        """How the latest batch decoded, for a run's record (``decode_path``, capture seconds)."""
        return {
            "decode_path": self.stats.path or ("static" if self.static else "dynamic"),
            "graph_capture_seconds": round(self.stats.capture_seconds, 3),
        }

    @property
    def units_in_flight(self) -> int | None:
        """Questions generated at once: one on the CPU; on CUDA the default (many, to fill batches)."""
        return 1 if self.device == "cpu" else None

    @property
    def loaded(self) -> Loaded:
        """The model on its device (loaded on first use, once per process)."""
        return load_model(self.source, self.device, self.dtype)

    def _answer(self, pending: Pending) -> None:
        """Decode the requests not cached in batches, checking Cancel before each.

        Requests with the same messages share one prompt evaluation. Each
        batch's completions are cached as soon as it ends, so a cancelled run
        keeps them. ``concurrency`` is unused: the batch cap and free memory decide.
        """
        requests = pending.requests
        token = current_cancel()  # the batch may be decoded by another thread
        digest = _digest_of(pending.identity or self.identity)
        for chunk in self._chunks(requests, pending.todo):
            self._check_cancel(pending.count)
            self._same_weights(digest, self.loaded.digest)  # reloads files that changed
            groups = [[requests[i] for i in g] for g in chunk]
            results = self._batcher.submit(Ticket(groups, token))
            self._same_weights(digest, loaded_digest(self.source, self.device, self.dtype))
            for g, comps in zip(chunk, results, strict=True):
                for i, c in zip(g, comps, strict=True):
                    pending.answered(i, c)
            pending.count.add(sum(len(g) for g in chunk))

    def _same_weights(self, expected: str, loaded: str | None) -> None:
        """Refuse answers of weights other than the identity's (files changed during the call)."""
        if loaded != expected:
            raise LLMError(
                f"the files of {_where(self.source)} changed while this run was answering; "
                "no answer of the changed files was cached under the old ones' identity: run again"
            )

    def _chunks(self, requests: list[Request], todo: list[int]) -> list[list[list[int]]]:
        """Indices to ask, grouped by prompt, packed into chunks of at most one batch."""
        if not todo:
            return []
        groups: dict[Any, list[int]] = {}
        for i in todo:
            groups.setdefault(requests[i].messages, []).append(i)
        room = self._capacity()
        chunks: list[list[list[int]]] = [[]]
        used = 0
        for g in groups.values():
            for j in range(0, len(g), room):
                part = g[j : j + room]
                if used + len(part) > room and chunks[-1]:
                    chunks.append([])
                    used = 0
                chunks[-1].append(part)
                used += len(part)
        return chunks

    def _capacity(self) -> int:
        """Sequences one batch may hold: the cap, lowered to what free memory holds."""
        cap = self.concurrency
        ld = self.loaded
        cfg = ld.model.config
        layers = getattr(cfg, "num_hidden_layers", 1)
        heads = getattr(cfg, "num_key_value_heads", None) or getattr(cfg, "num_attention_heads", 1)
        head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
        width = {"bf16": 2, "fp16": 2, "fp32": 4}[self.dtype]
        per_seq = 2 * layers * heads * head_dim * width * 1024 + 16 * cfg.vocab_size  # 1024 tokens
        free = _free_memory(self.device)
        return max(1, min(cap, int(free * self.config.memory_fraction) // per_seq))

    def _encode(self, messages: Any) -> list[int]:
        """The chat prompt's token ids (the model's own chat template; plain lines without one)."""
        tok = self.loaded.tokenizer
        msgs = [dict(m) for m in messages]
        template = getattr(tok, "chat_template", None)
        if template:
            # a reasoning model's template (Qwen3) thinks unless told not to; others ignore it
            switch = (
                {"enable_thinking": self.thinking} if "enable_thinking" in str(template) else {}
            )
            text = tok.apply_chat_template(
                msgs, add_generation_prompt=True, tokenize=False, **switch
            )
        else:
            text = "".join(m["content"] + "\n" for m in msgs)
        return list(tok(text, add_special_tokens=False)["input_ids"])

    def _run_groups(self, groups: list[list[Request]]) -> list[list[Completion]]:
        """Decode the groups as one batch (the engine's lock is held by the batcher)."""
        ld = self.loaded
        prompts = [self._encode(g[0].messages) for g in groups]
        rows = [
            Row(
                prompt=p,
                seed=r.effective_seed,
                temperature=float(r.temperature),
                max_tokens=int(r.max_tokens),
                stop=r.stop,
                top_logprobs=(r.top_logprobs or 1) if r.logprobs else 0,
                frequency_penalty=float(r.frequency_penalty or 0.0),
            )
            for p, g in enumerate(groups)
            for r in g
        ]
        t0 = time.perf_counter()
        decoded = decode_batch(
            ld.model,
            ld.tokenizer,
            prompts,
            rows,
            eos=ld.eos,
            stats=self.stats,
            static=self.static,
            chain=SAMPLERS[self.config.sampling],
            options=StaticOptions(graphs=self.graphs),
        )
        latency = time.perf_counter() - t0
        self.batch_sizes.append(len(rows))
        it = iter(zip(rows, decoded, strict=True))
        out = []
        for g in groups:
            comps = []
            for _ in g:
                row, d = next(it)
                usage = {
                    "prompt_tokens": len(prompts[row.prompt]),
                    "completion_tokens": len(d.tokens),
                }
                comps.append(
                    Completion(d.text or "", usage, latency, d.logprobs, False, d.finish_reason)
                )
            out.append(comps)
        return out

    def close(self) -> None:
        """Nothing to release: the model stays loaded for the process (:func:`unload_all`)."""


def _digest_of(identity: str) -> str:
    """The weights' sha256 in a transformers identity (``transformers:sha256=…;dtype=…``)."""
    return identity.removeprefix("transformers:sha256=").split(";", 1)[0]


def _free_memory(device: str) -> int:
    """Bytes free for a batch on ``device``: the GPU's free memory, else the machine's available."""
    if device.startswith("cuda"):
        import torch

        return int(torch.cuda.mem_get_info(torch.device(device))[0])
    import psutil

    return int(psutil.virtual_memory().available)


def preload(source: HFSource, device: str, dtype: str, model: Any, tokenizer: Any) -> None:
    """Hand the engine a model built in memory (the benchmark's random-weight shapes)."""
    model.eval()
    tokenizer.padding_side = "left"
    eos = _eos_ids(tokenizer, model)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token_id = min(eos)
    key = (str(source.folder), source.gguf_file, device, dtype)
    with _LOAD_LOCK:
        _LOADED[key] = Loaded(model, tokenizer, device, dtype, 0.0, eos, weights_digest(source))


def packaged_source(name: str) -> HFSource:
    """The packaged GGUF ``name`` ("qwen0.5b", "qwen1.5b") for the transformers engine.

    Its identity digest is the sha256 verified on disk, as for llama.cpp.
    """
    spec = LOCAL_MODELS[name]
    path = spec.path()
    label = spec.description.split(" ")[0].removesuffix("-Instruct")
    return HFSource(path.parent, path.name, name=label, sha256=spec.verified_sha256())


def packaged_tokenizer(name: str = "qwen0.5b") -> Path:
    """A folder holding the packaged model's tokenizer (saved from its GGUF once; a few MB).

    What a random-weight model of a Qwen2.5 shape is given (tests, ``benchmarks/bench_gpu.py``).
    """
    from transformers import AutoTokenizer

    source = packaged_source(name)
    folder = source.folder / "tokenizer"
    if not (folder / "tokenizer_config.json").is_file():
        tok = AutoTokenizer.from_pretrained(str(source.folder), gguf_file=source.gguf_file)
        tmp = folder.with_name(f".tokenizer.{os.getpid()}")
        tok.save_pretrained(str(tmp))
        publish_folder(tmp, folder, finished="tokenizer_config.json")
    return folder
