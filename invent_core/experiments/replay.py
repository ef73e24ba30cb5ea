"""Whether today's rewording rules would choose the perturbations a folder's runs hold.

Every new round of rewording rules (``REWORDING_RULES``) used to make every
paraphrase evaluation stale by its number alone, although most rounds change the
verdict on few of a folder's candidates. A saved run keeps every candidate the
gate judged (``candidates``: text, verdict, ask round, chosen index), so the gate
can judge them again at this commit, round by round, with the run's own gate
settings and embedder: when every candidate gets the verdict it got then, the
same requests follow, the same candidates are chosen and the run is the one this
commit would make (with the same LLM replies; the LLM cache gives them). When a
verdict differs, the question's perturbations would differ from that round on.

What this cannot see: a change to the paraphrase prompts or the premise split
(the candidates themselves would differ), and the rewording model's own verdicts
(``llm_verify``; a run that asked it is reported as not replayable). GAAP and
ungated runs have no verdicts to replay.

Shapes: :func:`replay_run` takes one saved run as its JSON dict and returns the
candidates whose verdict changed; :func:`rewording_drift` replays every run of a
folder and returns a :class:`RewordingDrift`; :func:`set_aside` moves the runs it
names out of the way so that the folder's own evaluate call makes only those again.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..config import RunConfig
from ..config.paraphrase import REWORDING_RULES
from ..csv_safe import read_csv, write_csv
from ..embedders import get_embedder
from ..perturb.gate import gate_candidates
from ..perturb.premises import split_premises
from ..questions.mmlu import split_mmlu_stem
from .runs import run_path

__all__ = ["REPLACED", "Flip", "RewordingDrift", "replay_run", "rewording_drift", "set_aside"]

#: Where :func:`set_aside` keeps the runs it takes out of ``runs/`` (nothing is deleted).
REPLACED = "runs-replaced"


@dataclass(frozen=True)
class Flip:
    """One candidate whose verdict is not the one the run saved."""

    round: int
    text: str
    then: bool  # accepted when the run was made
    reason: str | None  # today's reason when rejected now (None: accepted now)
    detail: str = ""


@dataclass(frozen=True)
class RewordingDrift:
    """A folder's runs replayed through today's gate.

    ``changed`` names the runs (file names under ``runs/``) whose perturbations
    today's rules would choose otherwise; ``unavailable`` says why a run could
    not be replayed (file name → why).
    """

    rules: int  # the round replayed with (REWORDING_RULES at this commit)
    replayed: int
    changed: list[str] = field(default_factory=list)
    unavailable: dict[str, str] = field(default_factory=dict)
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # ≤ 5 runs' flips

    @property
    def stale(self) -> bool:
        """Today's rules would give some question other perturbations.

        A run that cannot be replayed is named in ``unavailable``, not counted as changed.
        """
        return bool(self.changed)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with the verdict written out."""
        return asdict(self) | {"stale": self.stale}


def _gated(run: dict[str, Any]) -> RunConfig | None:
    """The run's config when its perturbations went through the paraphrase gate, else None."""
    cfg = RunConfig.from_dict(run["config"])
    if cfg.perturber != "paraphrase" or not cfg.paraphrase.gate.enabled:
        return None
    return cfg


def _gate_question(run: dict[str, Any]) -> tuple[str, str]:
    """(premises, the sentence the gate judged): the stem, less the premises kept word for word.

    The premises were split off when every candidate starts with them (the
    single style with ``premises_kept``); the candidates saved carry them in front.
    """
    stem, _choices = split_mmlu_stem(run["question"])
    premises, ask = split_premises(stem)
    texts = [c.get("text") or "" for c in run.get("candidates") or ()]
    if premises and all(t.startswith(premises + " ") for t in texts if t):
        return premises, ask
    return "", stem


def replay_run(run: dict[str, Any], similarity: Any = None) -> list[Flip]:
    """The candidates of one saved run whose verdict at this commit is not the saved one.

    Rounds are judged in order, each against the perturbations chosen in the
    rounds before (as the gate saw them); the replay stops at the first round
    with a changed verdict, since the rounds after it would not have been asked
    the same way.

    Raises
    ------
    ValueError
        When the run asked the rewording model (``llm_verify``), whose verdicts
        cannot be had without it, or holds no candidates.
    """
    cfg = _gated(run)
    if cfg is None:
        return []
    gate = cfg.paraphrase.gate
    if gate.llm_verify:
        raise ValueError("the rewording model was asked (llm_verify): its verdicts need the LLM")
    records = run.get("candidates") or []
    if not records:
        raise ValueError("the run keeps no candidates (saved before they were kept)")
    if any(not isinstance(r.get("round"), int) for r in records):
        raise ValueError("the run keeps no ask round per candidate (saved before rounds were kept)")
    if similarity is None:
        similarity = get_embedder(cfg.score.embedder)
    premises, question = _gate_question(run)
    cut = len(premises) + 1 if premises else 0
    chosen: list[str] = []
    for round_ in sorted({r["round"] for r in records}):
        recs = [r for r in records if r["round"] == round_]
        texts = [(r.get("text") or "")[cut:] for r in recs]
        judged = gate_candidates(
            texts, question, similarity=similarity, accepted=chosen, config=gate
        )
        flips = [
            Flip(round_, t, bool(r["accepted"]), v.reason, v.detail or "")
            for r, t, v in zip(recs, texts, judged, strict=True)
            if v.accepted != bool(r["accepted"])
        ]
        if flips:
            return flips
        chosen += [t for r, t in zip(recs, texts, strict=True)
                   if r["accepted"] and r.get("index") is not None]  # fmt: skip
    return []


def rewording_drift(folder: str | Path) -> RewordingDrift:
    """Replay every saved run of ``folder`` (its ``runs/``) through today's gate.

    Raises
    ------
    FileNotFoundError
        Naming ``runs/`` when the folder has none.
    """
    runs = Path(folder) / "runs"
    if not runs.is_dir():
        raise FileNotFoundError(f"{runs}: no saved runs to replay")
    changed, unavailable, examples, replayed = [], {}, {}, 0
    for path in sorted(runs.glob("*.json")):
        try:  # each run's own embedder: get_embedder shares one instance per name
            flips = replay_run(json.loads(path.read_text(encoding="utf-8")))
        except (ValueError, KeyError, TypeError) as err:
            unavailable[path.name] = str(err) or type(err).__name__
            continue
        replayed += 1
        if flips:
            changed.append(path.name)
            if len(examples) < 5:
                examples[path.name] = [asdict(f) for f in flips[:3]]
    return RewordingDrift(REWORDING_RULES, replayed, changed, unavailable, examples)


def set_aside(folder: str | Path, names: list[str]) -> list[str]:
    """Take the named runs out of an evaluate folder so that its evaluate call makes them again.

    Each run moves to ``REPLACED/`` (kept, never deleted) and its row leaves
    ``scores.csv``; the folder's own call (``invent evaluate --from FOLDER -o FOLDER``)
    then generates those questions with today's rules and reuses every other row
    and run. Safe to repeat: a name already set aside is skipped. Returns the ids
    whose rows were dropped.

    Raises
    ------
    FileNotFoundError
        Naming ``scores.csv`` or a run that is neither in ``runs/`` nor set aside,
        before anything moves.
    """
    out = Path(folder)
    runs, kept = out / "runs", out / REPLACED
    scores = out / "scores.csv"
    if not scores.is_file():
        raise FileNotFoundError(f"{scores}: not an evaluate folder")
    missing = [n for n in names if not (runs / n).is_file() and not (kept / n).is_file()]
    if missing:
        raise FileNotFoundError(f"{runs}: no run {', '.join(missing)}")
    rows = list(read_csv(scores))
    columns = list(rows[0]) if rows else []
    temperature = RunConfig.from_dict(
        json.loads((out / "config.json").read_text(encoding="utf-8"))["config"]["run"]
    ).temperature
    gone = set(names)
    dropped = [r["id"] for r in rows if run_path(runs, r["id"], temperature).name in gone]
    if dropped:  # the rows first: a row without its run is made again, a run without its row is not
        write_csv(scores, [r for r in rows if r["id"] not in dropped], columns)
    kept.mkdir(exist_ok=True)
    for name in names:
        if (runs / name).is_file():
            (runs / name).replace(kept / name)
    return dropped
