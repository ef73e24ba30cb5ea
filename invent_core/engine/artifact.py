"""The run artefact: one scored question as it is shown, saved, reloaded and re-scored.

A :class:`RunArtifact` keeps everything needed to show, reload and re-score a
run without calling the LLM again: the question and its perturbations, the
prompts sent, the raw, cleaned and canonical answers, the run's
:class:`~invent_core.config.RunConfig` (the source of truth), the model
identities and the :class:`~invent_core.paper.scoring.ScoreResult`. Its JSON format
is ``invent.run/2``; runs saved in format ``/1`` (a flat ``settings`` dict) and
before the format had a name load too. :func:`invent_core.engine.pipeline.run_question`
makes one.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..config import RunConfig, ScoreConfig, flat_values, iter_options
from ..csv_safe import atomic_file
from ..paper.scoring import ScoreResult
from ..perturb.gate import copies_warning
from ..provenance import BEFORE_PROVENANCE, provenance
from .adaptive import AdaptiveRecord
from .placement import placement
from .scoring import loaded_embedder, score_with_embedder, validate_responses

__all__ = ["RunArtifact"]


@dataclass
class RunArtifact:
    """A scored question: inputs, prompts, raw and cleaned responses, config and scores.

    Attributes
    ----------
    questions : the original question first, then its n perturbations (m = n + 1).
    prompts : the m answer prompts actually sent.
    raw_responses : m × r answers as the LLM returned them (state-major), a
        reasoning model's thinking taken out.
    thinking : m × r thinking traces taken out of the answers (``""`` where
        none), or ``None`` when no answer had one (:mod:`invent_core.llm.thinking`).
    responses : m × r canonical answers (:func:`invent_core.responses.answers.postprocess`):
        what is embedded, scored and judged.
    config : every option of the run (the source of truth; see :attr:`settings`).
    identities : ``"llm"`` and ``"embedder"``: model names with weight digests;
        ``"paraphrase_llm"``, the model that reworded the question, where an LLM
        perturbed (the answering model unless ``--paraphrase-llm`` named another;
        absent in runs saved before it: read :attr:`paraphrase_identity`).
    score : the ``ScoreResult`` (``None`` only while building).
    timings : seconds per stage ("perturb", "generate", "score", "total"); the
        stages overlap, so perturb + generate may exceed total. ``answer_wait``
        (runs since 2026-11-29): the answers still waited for once every
        perturbation was known; perturb + answer_wait + score is the critical
        path (:func:`~invent_core.engine.answers.critical_path`).
    usage : answer tokens (prompt, completion), answer ``requests`` and ``cached``
        hits, the perturber's ``perturb_requests`` / ``perturb_cached``, and
        ``llm_calls``, every request of the run (a cache hit counts);
        ``answers_while_perturbing`` (runs since 2026-11-29): answers received
        before the last perturbation was known (0 when the stages did not overlap).
    gaap_trace : the perturber's trace as a dict (GAAP's generations), else ``None``.
    extras : free space for baselines to stash extra LLM outputs (JSON-able); the
        run puts ``llm_runtime`` there: how the answering model's requests were
        timed (the stall timeout) and, on the transformers engine, decoded.
    cleaned_responses : m × r answers after cleaning, before the canonical step
        (runs saved before it: the responses).
    unmapped : m × r flags, True where the canonical step found no option /
        number / answer (empty for runs saved before it).
    candidates : the perturber's candidates, accepted or not, with the reason.
    acceptance : the acceptance summary of ``candidates`` (``perturb.gate.summarize``).
    adaptive : what the adaptive budget did (None when it was off).
    reference : Inv-Entropy placed among the shipped reference questions like this
        one (:func:`invent_core.evaluation.reference.placement_record`: percentile,
        P(correct) and interval, k, similarity, the reference questions and
        files); None when not placed (runs saved before it, no matching reference).
    provenance : the code that made the run (:func:`invent_core.provenance.provenance`);
        a rescored run records the code that scored it, with the run's earlier
        provenance under ``"responses_from"``. None for runs saved before it was recorded.
    """

    question: str
    task: str
    choices: list[str] | None
    perturbations: list[str]
    questions: list[str]
    prompts: list[str]
    raw_responses: list[list[str]]
    responses: list[list[str]]
    config: RunConfig = field(default_factory=RunConfig)
    identities: dict[str, str | None] = field(default_factory=dict)
    score: Any = None
    timings: dict[str, float] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    gaap_trace: dict[str, Any] | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    cleaned_responses: list[list[str]] = field(default_factory=list)
    unmapped: list[list[bool]] = field(default_factory=list)
    candidates: list[dict[str, Any]] = field(default_factory=list)
    acceptance: dict[str, Any] | None = None
    adaptive: AdaptiveRecord | None = None
    reference: dict[str, Any] | None = None
    provenance: dict[str, Any] | None = None
    thinking: list[list[str]] | None = None

    FORMAT = "invent.run/2"  # /1 kept a flat ``settings`` dict instead of ``config``
    _READS = (None, "invent.run/1", FORMAT)

    @property
    def paraphrase_identity(self) -> str | None:
        """The model that reworded the question: recorded, else the answering model (old runs).

        ``None`` when no LLM perturbed (GAAP).
        """
        if self.config.perturber == "gaap":
            return None
        return self.identities.get("paraphrase_llm") or self.identities.get("llm")

    @property
    def settings(self) -> dict[str, Any]:
        """Read-only flat view: every option by its flat name, plus llm, embedder identity, task.

        Plus ``paraphrase_llm`` where another model than the answering one reworded.
        """
        para = self.paraphrase_identity
        own = {"paraphrase_llm": para} if para and para != self.identities.get("llm") else {}
        return {
            **flat_values(self.config),
            "llm": self.identities.get("llm"),
            **own,  # only a separate paraphrasing model (--paraphrase-llm)
            "embedder_identity": self.identities.get("embedder"),
            "task": self.task,
        }

    @property
    def degenerate(self) -> str | None:
        """Why the measures say nothing about this question (every perturbation a copy), else None."""
        cfg = self.config
        if cfg.perturber == "gaap":
            hint = "GAAP kept no variant" + (
                " that passed its meaning check: try --no-gaap-meaning-check or --perturber paraphrase"
                if cfg.gaap.meaning_check
                else ": try --perturber paraphrase"
            )
        else:
            hint = "no rewording was accepted: try another paraphrase LLM or --perturber gaap"
        return copies_warning(self.question, self.questions[1:], hint)

    @property
    def measures(self) -> dict[str, float]:
        """Shortcut to ``score.measures``."""
        return dict(self.score.measures) if self.score is not None else {}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: the config nested, the score as ``ScoreResult.to_dict``."""
        d: dict[str, Any] = {name: getattr(self, name) for name in self.__dataclass_fields__}
        d["config"] = self.config.to_dict()
        d["score"] = self.score.to_dict() if self.score is not None else None
        d["adaptive"] = self.adaptive.to_dict() if self.adaptive is not None else None
        d["format"] = self.FORMAT
        d["degenerate"] = self.degenerate  # for a reader of the file; derived again on loading
        return d

    def to_json(self, *, indent: int | None = 1) -> str:
        """JSON text (NaN/inf are not expected; arrays become lists)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, default=_json_default)

    def save(self, path: str | Path) -> Path:
        """Write ``to_json()`` to ``path`` (folders created; written atomically)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_file(path) as f:  # a full disk leaves the old file and no temporary one
            f.write(self.to_json())
        return path

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunArtifact:
        """Inverse of :meth:`to_dict`; runs saved with a flat ``settings`` dict load too."""
        if not isinstance(data, dict):  # ``[1, 2]`` or ``"x"``: valid JSON, but no run
            raise ValueError(f"expected a JSON object, got {type(data).__name__}")
        fmt = data.get("format")
        if fmt not in cls._READS:
            raise ValueError(f"unsupported run format {fmt!r} (expected {cls.FORMAT!r})")
        missing = [k for k in ("question", "questions", "responses") if k not in data]
        if "config" not in data and "settings" not in data:
            missing.append("settings (or config)")
        if missing:
            raise ValueError(f"not a run artifact: missing {', '.join(missing)}")
        skip = ("config", "identities", "score", "adaptive")
        kwargs = {k: data[k] for k in cls.__dataclass_fields__ if k in data and k not in skip}
        kwargs.setdefault("task", "qa")
        kwargs.setdefault("choices", None)
        kwargs.setdefault("perturbations", list(data["questions"][1:]))
        kwargs.setdefault("prompts", [])
        kwargs.setdefault("raw_responses", data["responses"])
        kwargs.setdefault("cleaned_responses", data["responses"])  # saved before canonical answers
        for k in ("timings", "usage", "extras"):
            kwargs[k] = dict(kwargs.get(k) or {})
        config, identities = _config_of(data)
        score = data.get("score")
        if score is not None:
            score = ScoreResult.from_dict(score)
            score.config = config.score  # the run's config is the source of truth
        adaptive = data.get("adaptive")
        adaptive = AdaptiveRecord.from_dict(adaptive) if adaptive is not None else None
        return cls(**kwargs, config=config, identities=identities, score=score, adaptive=adaptive)

    @classmethod
    def from_json(cls, text: str) -> RunArtifact:
        """Inverse of :meth:`to_json`."""
        return cls.from_dict(json.loads(text))

    @classmethod
    def load(cls, path: str | Path) -> RunArtifact:
        """Read a run saved by ``save``."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8-sig")  # an editor's BOM, as score and batch read
        except FileNotFoundError as err:
            raise FileNotFoundError(f"run file {path} does not exist") from err
        try:
            return cls.from_json(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path} is not valid JSON: {err}") from err

    def rescore(
        self,
        config: ScoreConfig | None = None,
        *,
        embedder: Any = None,
        reference_path: str | Path | None = None,
        **changes: Any,
    ) -> RunArtifact:
        """Return a copy scored again from the stored responses — no LLM call.

        Parameters
        ----------
        config
            The scoring options (default: this run's); every field is kept
            unless changed.
        embedder
            ψ by name, or a loaded Similarity object to score with; resolved once,
            for the score and the placement.
        reference_path
            The reference questions the new score is placed among (a folder or
            one file); default the shipped ones.
        **changes
            Scoring options by name on top of ``config``
            (``n_bootstrap=7, affinity="abs_cosine"``).

        Raises
        ------
        ValueError
            For a name that is not a scoring option, or an invalid value.
        """
        known = {opt.name for opt in iter_options(ScoreConfig)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise ValueError(
                f"rescore takes scoring options ({', '.join(sorted(known))}); got {', '.join(unknown)}"
            )
        if isinstance(embedder, str):
            changes["embedder"], embedder = embedder, None
        score_config = replace(config or self.config.score, **changes)
        t0 = time.perf_counter()
        questions, responses = validate_responses(self.questions, self.responses)
        similarity, score_config = loaded_embedder(embedder, score_config)  # score, placement
        score = score_with_embedder(questions, responses, score_config, similarity)
        out = replace(
            self,
            config=replace(self.config, score=score.config),
            identities={**self.identities, "embedder": score.embedder},
            score=score,
            timings={**self.timings, "score": time.perf_counter() - t0},
            provenance={
                **provenance(),
                "responses_from": self.provenance or {"source": BEFORE_PROVENANCE},
            },
        )
        # the placement belongs to the new score
        out.reference = placement(out, embedder=similarity, reference_path=reference_path)
        return out


def _config_of(data: dict[str, Any]) -> tuple[RunConfig, dict[str, str | None]]:
    """(config, identities) of a saved run, new (``config``) or format /1 (flat ``settings``)."""
    if "config" in data:
        return RunConfig.from_dict(data["config"]), dict(data.get("identities") or {})
    settings = dict(data["settings"])
    # format /1 kept affinity, WD ground and MAX variant only in the score's options
    options = (data.get("score") or {}).get("options") or {}
    config = RunConfig.from_settings({**options, **settings})
    return config, {"llm": settings.get("llm"), "embedder": settings.get("embedder_identity")}


def _json_default(obj: Any) -> Any:
    import numpy as np

    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    raise TypeError(f"cannot write {type(obj).__name__} to JSON")
