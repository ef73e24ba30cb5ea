"""The metrics of a saved evaluation again, from its ``scores.csv``: no LLM call, no run read.

:func:`recompute_evaluation` reads ``config.json`` and ``scores.csv`` of an
``evaluate`` folder, evaluates the saved per-question scores with today's
metrics (1,000 resamples by default, a 95 % interval per metric, the paired
block), and rewrites ``results.{csv,md,tex,json}``. The reviewer's layer
(``relabels.jsonl``, :mod:`.relabel`) is applied; ``labels=`` adds a relabel file to it. The scores themselves are
left as they are, so ``config.json`` keeps the provenance of the code that made
them — or says it was "made before provenance was recorded" rather than
inventing a commit — and records the recomputation beside it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..evaluation.metrics import N_BOOTSTRAP
from ..provenance import BEFORE_PROVENANCE, provenance
from .config import ExperimentConfig
from .evaluation import evaluation_table, judged_evaluation, write_evaluation
from .folder import read_evaluation
from .reading import measured, sample_guess_rate
from .relabel import Relabel, RelabelSummary, apply_relabels, noted, read_relabels, with_layer
from .result import ExperimentResult, write_text
from .sample import draw_examples

__all__ = [
    "model_spec",
    "record_model",
    "recompute_evaluation",
    "relabelled_evaluation",
    "blind_guess",
]


def _old_provenance(meta: dict) -> dict:
    """The provenance of the saved scores, or a block that says none was recorded."""
    if meta.get("provenance", {}).get("source") not in (None, BEFORE_PROVENANCE):
        return meta["provenance"]
    version = (meta.get("versions") or {}).get("invent_core")
    return {"version": version, "commit": None, "dirty": None, "source": BEFORE_PROVENANCE}


def blind_guess(cfg: ExperimentConfig, rows) -> float | None:
    """A blind guess's accuracy on the rows' questions (None: free text, or the sample is gone)."""
    ids = {str(r["id"]) for r in rows}
    try:
        examples, _ = draw_examples(cfg)
    except (OSError, ValueError):  # an uploaded file no longer there: free text assumed
        return None
    return sample_guess_rate([ex for ex in examples if ex.id in ids])


def relabelled_evaluation(
    rows: Sequence[Mapping[str, Any]],
    methods: Sequence[str],
    cfg: ExperimentConfig,
    relabels: Sequence[Relabel],
    *,
    source: str = "",
) -> tuple[list[dict[str, Any]], Any, Any, RelabelSummary]:
    """The judged rows with a layer applied, and their metrics again.

    Returns (rows, Evaluation, Judgement, what the layer did); reads and writes no
    file (the dashboard's at-once view of a relabel).
    """
    judged, layer = apply_relabels(rows, relabels, source=source)
    evaluation, judgement = judged_evaluation(judged, list(methods), cfg, blind_guess(cfg, judged))
    return judged, evaluation, judgement, layer


def recompute_evaluation(
    folder: str | Path, *, n_bootstrap: int = N_BOOTSTRAP, labels: str | Path | None = None
) -> ExperimentResult:
    """Rewrite ``results.*`` of an evaluate ``folder`` from its ``scores.csv``.

    ``labels``: a relabel file added to the folder's layer before the metrics apply it
    (read and checked before anything is written).

    Raises
    ------
    FileNotFoundError
        Naming ``config.json`` or ``scores.csv`` when the folder lacks it.
    """
    ev = read_evaluation(folder, relabels=False)  # the layer is applied below, with ``labels``
    out, meta = ev.path, dict(ev.meta)
    if labels is not None:
        read_relabels(labels)  # a bad line is refused before the layer or any result is written
    cfg = ExperimentConfig.from_dict(meta["config"])
    cfg = dataclasses.replace(cfg, n_bootstrap_metrics=n_bootstrap)
    rows, methods = list(ev.rows), list(ev.methods)
    judged, layer = with_layer(out, ev.judged, labels)
    evaluation, judgement = judged_evaluation(judged, methods, cfg, blind_guess(cfg, judged))
    result = ExperimentResult(
        judged,
        methods,
        evaluation=evaluation,
        judgement=judgement,
        failed=[r for r in rows if r.get("error")],
        sample=meta.get("sample", ""),
        relabels=layer,
    )
    block = measured(cfg, evaluation)
    result.table = noted(
        evaluation_table(evaluation, judgement, methods, block, len(result.degenerate)), layer
    )
    result.files = write_evaluation(out, cfg, result)
    meta |= {
        "config": cfg.to_dict(),
        "provenance": _old_provenance(meta),
        "results_recomputed": {
            **provenance(),
            "from": "scores.csv",
            "n_bootstrap": n_bootstrap,
        },
    }
    write_text(out / "config.json", json.dumps(meta, indent=2, default=str))
    return result


def model_spec(identity: str | None) -> str | None:
    """The spec a person types (``qwen1.5b``) from an identity (``local:sha256=…|model=qwen1.5b``)."""
    if not identity:
        return None
    for part in identity.split("|"):
        if part.startswith("model="):
            return part.removeprefix("model=")
    return identity


def _one_identity(values: set[str], what: str, folder: Path) -> str | None:
    known = {v for v in values if v}
    if len(known) > 1:
        raise ValueError(
            f"{folder / 'runs'}: the runs name {len(known)} {what}s: {', '.join(sorted(known))}"
        )
    return next(iter(known), None)


def record_model(folder: str | Path) -> dict[str, Any]:
    """Name the model in ``config.json`` from its runs' recorded identities (spec and identity).

    An evaluation made when ``config.json`` kept ``llm: null`` names its model only in
    each saved run; this copies that identity into ``config.llm`` (and
    ``config.paraphrase_llm`` when a separate model paraphrased) and writes a
    ``model`` block saying where it came from. A folder without runs says it is not
    recorded rather than guessing. Returns the ``model`` block.

    Raises
    ------
    FileNotFoundError
        Naming ``config.json`` when the folder lacks it.
    ValueError
        When the runs name more than one answering (or paraphrasing) model.
    """
    out = Path(folder)
    if not (out / "config.json").is_file():
        raise FileNotFoundError(f"{out / 'config.json'}: not found (not an evaluate folder)")
    meta = json.loads((out / "config.json").read_text(encoding="utf-8"))
    runs = [
        json.loads(p.read_text(encoding="utf-8")) for p in sorted((out / "runs").glob("*.json"))
    ]
    ids = [r.get("identities") or {} for r in runs]
    llm = _one_identity({i.get("llm") for i in ids}, "answering model", out)
    para = _one_identity({i.get("paraphrase_llm") for i in ids}, "paraphrasing model", out)
    cfg = meta.setdefault("config", {})
    if llm is None:
        block = {"llm": None, "paraphrase_llm": None,
                 "source": "not recorded: no saved run names the model"}  # fmt: skip
    else:
        cfg["llm"] = cfg.get("llm") or llm
        if para and para != llm:
            cfg["paraphrase_llm"] = cfg.get("paraphrase_llm") or para
        block = {
            "llm": {"spec": model_spec(cfg["llm"]), "identity": cfg["llm"]},
            "paraphrase_llm": (
                {"spec": model_spec(cfg["paraphrase_llm"]), "identity": cfg["paraphrase_llm"]}
                if cfg.get("paraphrase_llm")
                else None
            ),
            "source": "the saved runs' recorded identities (config.json kept none when it was made)",
        }
    meta["model"] = block
    write_text(out / "config.json", json.dumps(meta, indent=2, default=str))
    return block
