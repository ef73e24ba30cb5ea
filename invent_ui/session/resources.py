"""Cached models, shipped demo artefacts and derived results for the dashboard.

Models load once per process with ``st.cache_resource`` (``invent_core`` puts
them on CUDA when there is one). Results are cached in one layer,
``st.cache_data``, keyed by a cheap fingerprint of the run they derive from;
arguments starting with ``_`` (the run, the LLM) are not hashed. A run itself
is computed only on a button press and kept in the session; pressing again
re-reads the LLM's answers from invent_core's persistent cache.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import streamlit as st

import invent_core.evaluation.reference
from invent_core.config import RunConfig, ScoreConfig
from invent_core.embedders import get_embedder
from invent_core.engine.artifact import RunArtifact
from invent_core.env import cache_dir
from invent_core.llm import ServerConfig, get_llm, redact_url
from invent_core.llm.cached import thinking_suffix
from invent_core.llm.endpoints import endpoints_identity, split_base_urls
from invent_core.llm.paraphraser import WithParaphraser
from invent_core.methods.registry import ScoringContext, compute_methods
from invent_core.responses.judge import use_answer_judge
from invent_core.workbench.estimate import ThroughputLog, estimate_run
from invent_ui import assets

from .settings import Settings, secret_fingerprint
from .sidebar import api_key

# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------


@st.cache_resource(show_spinner="Loading the LLM backend…", max_entries=4)
def _llm(
    spec: str,
    base_url: str,
    model: str,
    key_id: str,
    _api_key: str | None,
    engine: str = "auto",
    threads: int = 0,
    thinking: bool = False,
) -> Any:
    if spec == "openai":
        return get_llm(
            spec,
            base_url=base_url or None,
            model=model or None,
            api_key=_api_key,
            thinking=thinking,
        )
    server = ServerConfig(n_threads=threads) if threads > 0 else None  # None: the default
    # the transformers engine's model: loaded once, kept; llama.cpp's server: one per weights
    return get_llm(spec, engine=engine, server_config=server, thinking=thinking)


def llm_for(settings: Settings) -> Any:
    """Return the LLM backend of the sidebar's settings (one object per backend per process).

    With a separate paraphrasing model, the answering model carrying it
    (:class:`~invent_core.llm.paraphraser.WithParaphraser`; both cached).
    """
    key = api_key() if "openai" in (settings.llm, settings.paraphrase_llm) else None
    fp = secret_fingerprint(key)
    engine, threads, think = settings.llm_engine, settings.llm_threads, settings.llm_thinking
    answerer = _llm(
        settings.llm_spec, settings.base_url, settings.model, fp, key, engine, threads, think
    )
    if settings.llm == "openai":  # a served answer judge asks the sidebar's server, no other
        use_answer_judge("openai", answerer)
    spec = settings.paraphrase_spec
    if spec is None:
        return answerer

    base_url = settings.paraphrase_base_url or settings.base_url
    model = settings.paraphrase_model or settings.model
    para = _llm(spec, base_url, model, fp, key, engine, threads, think)
    if para is answerer or (
        "openai" not in (spec, settings.llm_spec) and para.identity == answerer.identity
    ):
        return answerer  # the same weights named twice (the packaged file by its path)
    return WithParaphraser(answerer, para)


@st.cache_data(show_spinner="Identifying the LLM (a model file is hashed once)…", max_entries=8)
def _identity(
    spec: str, base_url: str, model: str, engine: str = "auto", thinking: bool = False
) -> str:
    if spec == "openai":  # the server is not asked: its identity is its URL and model
        url = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        urls = [redact_url(u) for u in split_base_urls(url)]  # several: one identity for all
        named = endpoints_identity(urls, model or os.environ.get("OPENAI_MODEL", ""))
        return named + thinking_suffix(thinking)
    try:
        return _llm(spec, "", "", "", None, engine, thinking=thinking).identity
    except Exception:  # noqa: BLE001 - not installed: the estimate says "time unknown"
        return spec


def llm_identity(settings: Settings) -> str:
    """Return the chosen LLM's cache identity (what the throughput log is keyed by), cheaply."""
    return _identity(
        settings.llm_spec,
        settings.base_url,
        settings.model,
        settings.llm_engine,
        settings.llm_thinking,
    )


def llm_identities(settings: Settings) -> dict[str, str | None]:
    """``llm_identity`` and ``paraphrase_identity`` for :func:`invent_core.workbench.estimate.estimate_run`."""
    spec, para = settings.paraphrase_spec, None
    if spec is not None:
        base_url = settings.paraphrase_base_url or settings.base_url
        model = settings.paraphrase_model or settings.model
        para = _identity(spec, base_url, model, settings.llm_engine, settings.llm_thinking)
    return {"llm_identity": llm_identity(settings), "paraphrase_identity": para}


@st.cache_resource(show_spinner="Loading the embedder…", max_entries=4)
def embedder(name: str) -> Any:
    """Return the shared embedder object (its text → vector cache lives with the process)."""
    emb = get_embedder(name)
    load = getattr(emb, "load", None)
    if callable(load):
        load()
    return emb


# ---------------------------------------------------------------------------
# Shipped demo artefacts (regenerated by scripts/make_demo_*.py)
# ---------------------------------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=2)
def _load_run(path: str, mtime: float) -> Any:
    return RunArtifact.load(path)


def demo_run() -> Any:
    """Return the shipped demo run (``assets/demo_run.json``)."""
    return _load_run(str(assets.DEMO_RUN), assets.DEMO_RUN.stat().st_mtime)


@st.cache_data(show_spinner=False, max_entries=8)
def _load_json(path: str, mtime: float) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def demo_pair() -> list[dict[str, Any]]:
    """The home page's pair (``assets/demo_pair.json``): each entry's ``run`` is a RunArtifact."""
    payload = demo_json(assets.DEMO_PAIR)
    pair = [{**item, "run": RunArtifact.from_dict(item["run"])} for item in payload["pair"]]
    return [{**item, "rule": payload["rule"], "source": payload["source"]} for item in pair]


def demo_json(path: Path) -> Any:
    """Return a shipped JSON artefact (GAAP trace, evaluation, TSU sweep)."""
    return _load_json(str(path), path.stat().st_mtime)


def load_run_bytes(data: bytes, name: str = "the run file") -> Any:
    """Return a run from an uploaded JSON file (``RunArtifact.to_json`` format).

    ``name`` is the uploaded file's name, for the messages.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{name} is not UTF-8 text: {err}") from err
    try:
        return RunArtifact.from_json(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{name} is not valid JSON: {err}") from err
    except ValueError as err:
        raise ValueError(f"{name}: {err}") from err


# ---------------------------------------------------------------------------
# Results derived from a run (st.cache_data: the only result cache)
# ---------------------------------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=16)
def rescored(fingerprint: str, config: dict[str, Any], _run: Any) -> Any:
    """Return the ScoreResult of ``_run`` rescored with ``config`` (a ScoreConfig dict; no LLM)."""
    score_config = ScoreConfig.from_dict(config)
    return _run.rescore(score_config, embedder=embedder(score_config.embedder)).score


@st.cache_data(show_spinner="Computing the methods on this run…", max_entries=32)
def method_results(
    fingerprint: str, names: tuple[str, ...], llm_id: str, _run: Any, _llm: Any
) -> dict:
    """Return the registry's methods ``names`` on a run (errors recorded per method, not raised)."""
    ctx = ScoringContext.from_run(_run, llm=_llm)
    return compute_methods(ctx, list(names))


@st.cache_data(show_spinner=False, max_entries=16)
def reference(config: dict[str, Any], llm_identity: str | None) -> Any:
    """Return the shipped reference for a run's settings (a RunConfig dict), or None.

    Cached: the home page and Explore show it on every rerun, and the lookup
    reads every file in ``assets/reference``.
    """
    # looked up through the module at each call: a test counts the lookups there
    return invent_core.evaluation.reference.for_settings(
        RunConfig.from_dict(config), llm_identity=llm_identity
    )


def work_dir(*parts: str) -> Path:
    """Return a folder under invent's cache dir for the dashboard's runs and uploads."""
    path = cache_dir().joinpath("dashboard", *parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def expected_range(settings: Any, run_config: Any, n_questions: int = 1) -> Any:
    """The estimate's ``(low, high)`` seconds for a job (:class:`invent_ui.jobs.background.Job`), or None."""
    try:
        est = estimate_run(
            run_config,
            llm_identity=llm_identity(settings),
            throughput=ThroughputLog(),
            n_questions=n_questions,
        )
    except Exception:  # noqa: BLE001 - an estimate is never worth failing a run for
        return None
    return None if est.low is None else (est.low, est.high)
