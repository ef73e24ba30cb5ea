"""Cached models, demo artefacts and computed results for the dashboard.

Models load once per process (``st.cache_resource``; ``invent_core`` puts them on
CUDA when there is one). Runs are computed only on a button press and kept per
settings in a process-wide store, so display-only controls never recompute.
Arguments starting with ``_`` are not hashed by Streamlit: each such function
also takes a cheap fingerprint that is.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path
from typing import Any

import streamlit as st

from . import assets
from .settings import Settings, run_fingerprint, secret_fingerprint
from .sidebar import api_key

# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------


@st.cache_resource(show_spinner="Loading the LLM backend…", max_entries=4)
def _llm(spec: str, base_url: str, model: str, key_id: str, _api_key: str | None) -> Any:
    from invent_core.llm import get_llm

    if spec == "openai":
        return get_llm(spec, base_url=base_url or None, model=model or None, api_key=_api_key)
    return get_llm(spec)


def llm_for(settings: Settings) -> Any:
    """The LLM backend of the sidebar's settings (one object per backend per process)."""
    key = api_key() if settings.llm == "openai" else None
    return _llm(settings.llm, settings.base_url, settings.model, secret_fingerprint(key), key)


@st.cache_resource(show_spinner="Loading the embedder…", max_entries=4)
def embedder(name: str) -> Any:
    """The shared embedder object (its text → vector cache lives as long as the process)."""
    from invent_core.embedders import get_embedder

    emb = get_embedder(name)
    load = getattr(emb, "load", None)
    if callable(load):
        load()
    return emb


# ---------------------------------------------------------------------------
# Shipped demo artefacts
# ---------------------------------------------------------------------------


def _mtime(path: Path) -> float:
    return path.stat().st_mtime if path.exists() else 0.0


@st.cache_resource(show_spinner=False, max_entries=2)
def _load_run(path: str, mtime: float) -> Any:
    from invent_core.pipeline import RunArtifact

    return RunArtifact.load(path)


def demo_run() -> Any | None:
    """The shipped demo run (``assets/demo_run.json``), or None when it is absent."""
    if not assets.DEMO_RUN.exists():
        return None
    return _load_run(str(assets.DEMO_RUN), _mtime(assets.DEMO_RUN))


@st.cache_data(show_spinner=False, max_entries=8)
def _load_json(path: str, mtime: float) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def demo_json(path: Path) -> Any | None:
    """A shipped JSON artefact (GAAP trace, evaluation, TSU sweep), or None when absent."""
    if not path.exists():
        return None
    return _load_json(str(path), _mtime(path))


def load_run_bytes(data: bytes) -> Any:
    """A run from an uploaded JSON file (``RunArtifact.to_json`` format)."""
    from invent_core.pipeline import RunArtifact

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"the run file is not UTF-8 text: {err}") from err
    try:
        return RunArtifact.from_json(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"the run file is not valid JSON: {err}") from err


# ---------------------------------------------------------------------------
# Results kept per settings
# ---------------------------------------------------------------------------


class ResultStore:
    """A small process-wide LRU of computed results (runs, GAAP results, sweeps)."""

    def __init__(self, capacity: int = 32) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, Any] = OrderedDict()

    def get(self, key: str) -> Any | None:
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        return None

    def put(self, key: str, value: Any) -> Any:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)
        return value


@st.cache_resource(show_spinner=False)
def store() -> ResultStore:
    return ResultStore()


@st.cache_resource(show_spinner=False, max_entries=16)
def rescored(fingerprint: str, embedder_name: str, n_bootstrap: int, seed: int, _run: Any) -> Any:
    """``_run`` rescored with another embedder (no LLM call); its ScoreResult."""
    out = _run.rescore(embedder=embedder(embedder_name), n_bootstrap=n_bootstrap, seed=seed)
    return getattr(out, "score", out)


@st.cache_resource(show_spinner="Computing the methods on this run…", max_entries=32)
def method_results(
    fingerprint: str, names: tuple[str, ...], llm_id: str, _run: Any, _llm: Any
) -> dict:
    """The registry's methods ``names`` on a run (errors recorded per method, not raised)."""
    from invent_core.registry import ScoringContext, compute_methods

    ctx = ScoringContext.from_run(_run, llm=_llm)
    return compute_methods(ctx, list(names))


def fingerprint(run: Any) -> str:
    return run_fingerprint(run)


# ---------------------------------------------------------------------------
# Evaluation payloads (see invent_ui.experiments)
# ---------------------------------------------------------------------------


def payload_key(payload: Any) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[
        :16
    ]


@st.cache_resource(show_spinner="Bootstrapping the metrics…", max_entries=8)
def evaluation(key: str, n_boot: int, seed: int, _payload: Any) -> Any:
    """``evaluate_scores`` of an evaluation payload (paired bootstrap, cached per payload)."""
    from invent_core.evaluation.metrics import evaluate_scores

    from .experiments import eval_arrays

    correct, table = eval_arrays(_payload)
    return evaluate_scores(table, correct, n_boot=n_boot, seed=seed)


def work_dir(*parts: str) -> Path:
    """A folder under invent's cache dir for the dashboard's runs and uploads."""
    from invent_core._env import cache_dir

    path = cache_dir().joinpath("dashboard", *parts)
    path.mkdir(parents=True, exist_ok=True)
    return path
