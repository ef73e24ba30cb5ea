"""Our baselines against LM-Polygraph's estimators, fed the same statistics (no LLM, no NLI model).

    /work/venv-lmpg/bin/python scripts/crosscheck_lm_polygraph.py \\
        docs/results/evaluate-arithmetic-100 docs/results/evaluate-sciq-140-1.5b \\
        -o docs/crosscheck_lm_polygraph.md

Run it with a Python that has ``lm-polygraph`` (a separate virtualenv made with
``--system-site-packages`` and ``pip install lm-polygraph``; nothing of it goes
into the repository or the tests' environment).

Each folder's samples are read as ``export-samples`` writes them
(:func:`invent_core.samples.read_source`: the answers, the labels, the scoring
settings). No NLI model can be downloaded here, so LM-Polygraph's estimators are
fed OUR statistics — the answers' weight matrix ``W`` of our embedder
(:attr:`ScoringContext.response_weights`), our entailment clusters, our P(True)
probabilities — and their mathematics is compared with ours on the same numbers:

- Semantic Entropy: ``SemanticEntropy(class_probability_estimation="frequency")``
  on our clusters; ours is the discrete semantic entropy of the same clusters.
- LexSim: ``LexicalSimilarity("rougeL")`` on the answers (theirs −mean, ours 1 − mean).
- P(True): ``PTrue`` on our frequency-weighted P(True) (theirs −p, ours 1 − p).
- DegMat, LUQ: fed ``W`` as the entailment matrix (``contra = 1 − W``; LUQ's logits
  ``log W`` and ``log(1 − W)``, so its softmax gives back ``W``).
- KLE: fed ``W/2`` and ``(1 − W)/2`` (their graph ``E + Eᵀ + ½(2 − E − Eᵀ − C − Cᵀ)``
  is then ``W``), at their defaults and at our t = 1; and their ``vn_entropy`` on
  our unit-trace heat kernel.
- EigValLaplacian, Eccentricity: fed ``W``; we have no such method: set against our
  Kernel Entropy (−mean pairwise affinity), rank agreement only.
- NumSemSets: fed our same-cluster matrix; ours is the number of our clusters.

Per method: Spearman ρ, the share of questions with equal values (within 1e-9,
after the stated shift of scale), each one's AUROC against the folder's labels,
and, for every difference larger than rounding, its reason — measured where it
can be (e.g. LexSim without the stemmer).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import spearmanr

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from invent_core.config import ScoreConfig  # noqa: E402
from invent_core.engine.artifact import RunArtifact  # noqa: E402
from invent_core.evaluation.metrics import auroc_score  # noqa: E402
from invent_core.methods.context import ScoringContext  # noqa: E402
from invent_core.methods.degmat import degree_uncertainty  # noqa: E402
from invent_core.methods.graph import heat_kernel, laplacian, unit_trace  # noqa: E402
from invent_core.methods.kernel_entropy import predictive_kernel_entropy  # noqa: E402
from invent_core.methods.kle import kernel_language_entropy  # noqa: E402
from invent_core.methods.lexsim import lexical_similarity  # noqa: E402
from invent_core.methods.luq import compute as luq_compute  # noqa: E402
from invent_core.methods.luq import split_sentences  # noqa: E402
from invent_core.methods.semantic_entropy import (  # noqa: E402
    cluster_by_equivalence,
    discrete_semantic_entropy,
)
from invent_core.provenance import provenance_line  # noqa: E402
from invent_core.samples import read_source  # noqa: E402

#: Two values this close are the same number (float rounding).
EQUAL = 1e-9


@dataclass(frozen=True)
class Question:
    """What both sides read for one question: the answers, W, our clusters, P(True), the label."""

    answers: list[str]
    weights: np.ndarray  # (r, r) our answers' weight matrix
    clusters: list[int]
    p_true: float | None  # frequency-weighted P(True) of the answers (None: not stored)
    luq: float  # our LUQ on the run's context
    correct: int


def _p_true(run: RunArtifact | None, answers: Sequence[str]) -> float | None:
    """Our frequency-weighted P(True) from the run's stored judgements (None when absent)."""
    table = ((run.extras if run else {}) or {}).get("p_true", {}).get("answers", {})
    if not table or any(a not in table for a in answers):
        return None
    return float(np.mean([table[a]["p_true"] for a in answers]))


def read_questions(folder: Path) -> list[Question]:
    """Every labelled sample of an evaluate folder, with our statistics computed on it."""
    out = []
    for s in read_source(folder):
        if s.correct is None:
            continue
        run_file = s.source.get("run")
        run = RunArtifact.load(folder / "runs" / run_file) if run_file else None
        ctx = ScoringContext(
            s.questions,
            s.responses,
            config=ScoreConfig.from_dict(s.settings.get("score", {})),
            extras=dict(run.extras) if run else {},
            task=s.task,
            choices=s.choices,
        )
        answers = list(ctx.original_responses)
        w = np.asarray(ctx.response_weights[0], dtype=np.float64)
        ids = cluster_by_equivalence(answers, ctx.same_answer)
        out.append(Question(answers, w, ids, _p_true(run, answers), luq_compute(ctx), s.correct))
    return out


# -- feeding LM-Polygraph ----------------------------------------------------------------------


def _classes(ids: Sequence[int]) -> dict[str, Any]:
    """Our clusters in LM-Polygraph's ``semantic_classes_entail`` layout (a batch of one)."""
    to_sample = [[j for j, c in enumerate(ids) if c == k] for k in range(max(ids) + 1)]
    return {"class_to_sample": [to_sample], "sample_to_class": [list(ids)]}


def _same_cluster(ids: Sequence[int]) -> np.ndarray:
    a = np.asarray(ids)
    return (a[:, None] == a[None, :]).astype(np.float64)


def feed(q: Question) -> dict[str, Any]:
    """LM-Polygraph's ``stats`` for one question, made of our statistics."""
    w = np.clip(q.weights, 1e-12, 1 - 1e-12)
    return {
        "sample_texts": [q.answers],
        "semantic_classes_entail": _classes(q.clusters),
        "semantic_matrix_entail": q.weights[None],
        "semantic_matrix_contra": (1.0 - q.weights)[None],
        "semantic_matrix_entail_logits": np.log(w)[None],
        "semantic_matrix_contra_logits": np.log(1.0 - w)[None],
        "p_true": [q.p_true if q.p_true is not None else math.nan],
    }


def kle_feed(q: Question) -> dict[str, Any]:
    """KLE's stats: ``W/2`` and ``(1 − W)/2`` so that their weighted graph is ``W`` itself."""
    return {
        "semantic_matrix_entail": (q.weights / 2)[None],
        "semantic_matrix_contra": ((1.0 - q.weights) / 2)[None],
    }


def nss_feed(q: Question) -> dict[str, Any]:
    """NumSemSets' stats: entailment 1 within one of our clusters, contradiction 1 across."""
    same = _same_cluster(q.clusters)
    return {"sample_texts": [q.answers], "semantic_matrix_entail": same[None],
            "semantic_matrix_contra": (1.0 - same)[None]}  # fmt: skip


# -- the comparisons ------------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    """One method compared: ours, theirs (already on our scale), the shift, and why they differ."""

    method: str
    theirs_name: str
    shift: str  # how theirs was put on our scale
    ours: np.ndarray
    theirs: np.ndarray
    reason: str  # why values differ beyond rounding ("" when they do not)


def _one(estimator: Any, stats: dict[str, Any]) -> float:
    return float(np.asarray(estimator(stats), dtype=np.float64)[0])


def _vn(est_mod: Any, k: np.ndarray) -> float:
    return float(est_mod.vn_entropy(k, normalize=False, scale=False, jitter=0.0))


def pairs(qs: list[Question], est: Any, kle_mod: Any) -> list[Pair]:
    """Every method of the module docstring on the questions ``qs``."""

    def col(fn: Callable[[Question], float]) -> np.ndarray:
        return np.array([fn(q) for q in qs], dtype=np.float64)

    se, lex = (
        est.SemanticEntropy(class_probability_estimation="frequency"),
        est.LexicalSimilarity("rougeL"),
    )
    lex_nostem = est.LexicalSimilarity("rougeL")
    lex_nostem.scorer = type(lex.scorer)(["rougeL"], use_stemmer=False)
    deg, luq, pt = est.DegMat(), est.LUQ(), est.PTrue()
    kle_default, kle_t1 = est.KernelLanguageEntropy(), est.KernelLanguageEntropy(t=1.0, scale=False)
    eig, ecc, nss = est.EigValLaplacian(), est.Eccentricity(), est.NumSemSets()
    lex_theirs = col(lambda q: _one(lex, feed(q)) + 1.0)
    lex_plain = col(lambda q: _one(lex_nostem, feed(q)) + 1.0)
    lex_ours = col(lambda q: 1.0 - lexical_similarity(q.answers))
    left = np.abs(lex_ours - lex_plain) > EQUAL
    # their tokeniser keeps a–z and 0–9 only; ours is \w+, which keeps "σ" and "E_i" whole
    ascii_only = all(not q.answers or any(not a.isascii() or "_" in a for a in q.answers)
                     for q, off in zip(qs, left, strict=True) if off)  # fmt: skip
    lex_reason = ("their ROUGE-L stems words (Porter), ours does not; with the stemmer off "
                  f"their value differs from ours on {int(left.sum())} of {len(qs)} questions")  # fmt: skip
    if left.any():
        lex_reason += (", each with a non-ASCII letter or an underscore in an answer: their "
                       "tokeniser keeps only a–z and 0–9 (it drops 'σ' and splits 'E_i'), ours "
                       "keeps every word character" if ascii_only else
                       ", not all explained by non-ASCII text: UNEXPLAINED")  # fmt: skip
    luq_ours, luq_theirs = col(lambda q: q.luq), col(lambda q: _one(luq, feed(q)))
    multi = np.array([any(len(split_sentences(a)) > 1 for a in q.answers) for q in qs])
    same_single = bool(np.all(np.abs(luq_ours - luq_theirs)[~multi] <= EQUAL))
    many = f"{int(multi.sum())} question{' has' if multi.sum() == 1 else 's have'}"
    luq_reason = (f"{many} an answer of several sentences, which our LUQ "
                  "scores sentence by sentence (as the LUQ paper does) and theirs as a whole; "
                  "on the other questions the values are equal" if same_single
                  else "UNEXPLAINED beyond answers of several sentences")  # fmt: skip
    has_pt = [q for q in qs if q.p_true is not None]
    out = [
        Pair("Semantic Entropy", "SemanticEntropy (frequency)", "none",
             col(lambda q: discrete_semantic_entropy(q.clusters)), col(lambda q: _one(se, feed(q))),
             "their 'mean' estimate −mean_j log p(c_j) is the frequency entropy Σ −p log p"),
        Pair("LexSim", "LexicalSimilarity_rougeL", "theirs + 1", lex_ours, lex_theirs,
             lex_reason),
        Pair("DegMat", "DegMat_NLI_score_entail", "none", col(lambda q: degree_uncertainty(q.weights)),
             col(lambda q: _one(deg, feed(q))), ""),
        Pair("LUQ", "LUQ", "none", luq_ours, luq_theirs, luq_reason),
        Pair("KLE", "KernelLanguageEntropy (defaults t = 0.3, unit diagonal, scaled by log r)",
             "none", col(lambda q: kernel_language_entropy(q.weights, t=1.0)),
             col(lambda q: _one(kle_default, kle_feed(q))),
             "their defaults: t = 0.3 (ours 1), the kernel normalised to a unit diagonal (ours: "
             "unit trace) and the entropy divided by log r"),
        Pair("KLE", "KernelLanguageEntropy (t = 1, not scaled)", "none",
             col(lambda q: kernel_language_entropy(q.weights, t=1.0)),
             col(lambda q: _one(kle_t1, kle_feed(q))),
             "same t; the only difference left is the normalisation (their unit diagonal ÷ r, "
             "our unit trace)"),
        Pair("KLE", "vn_entropy on our unit-trace heat kernel", "none",
             col(lambda q: kernel_language_entropy(q.weights, t=1.0)),
             col(lambda q: _vn(kle_mod, unit_trace(heat_kernel(laplacian(q.weights), t=1.0)))), ""),
        Pair("Kernel Entropy", "EigValLaplacian_NLI_score_entail", "none",
             col(lambda q: predictive_kernel_entropy(q.weights)), col(lambda q: _one(eig, feed(q))),
             "another formula (Σ max(0, 1 − λ) of the normalised Laplacian against −mean "
             "affinity): rank agreement only"),
        Pair("Kernel Entropy", "Eccentricity_NLI_score_entail", "none",
             col(lambda q: predictive_kernel_entropy(q.weights)), col(lambda q: _one(ecc, feed(q))),
             "another formula (spread of the answers' spectral embedding): rank agreement only"),
        Pair("number of clusters", "NumSemSets", "none", col(lambda q: float(max(q.clusters) + 1)),
             col(lambda q: _one(nss, nss_feed(q))), ""),
    ]  # fmt: skip
    if has_pt:
        sub = [q.p_true for q in has_pt]
        out.append(Pair("P(True)", "PTrue", "theirs + 1", 1.0 - np.array(sub),
                        np.array([_one(pt, {"p_true": [p]}) + 1.0 for p in sub]), ""))  # fmt: skip
    return out


def _auroc(correct: np.ndarray, u: np.ndarray) -> str:
    """AUROC of ``u`` as an uncertainty, on values rounded to 1e-9.

    Rounded because many questions tie (the same answers): without it, float noise of
    1e-16 orders the tied questions and two equal columns get different AUROCs.
    """
    ok = np.isfinite(u)
    if not ok.sum() or len(set(correct[ok])) != 2:
        return "–"
    return f"{auroc_score(correct[ok], np.round(u[ok], 9)):.4f}"


def row(p: Pair, correct: np.ndarray) -> list[str]:
    """One table row: Spearman ρ, equal share, AUROC both ways, largest difference, reason."""
    diff = np.abs(p.ours - p.theirs)
    equal = int(np.sum(diff <= EQUAL))
    rho = spearmanr(p.ours, p.theirs).statistic if np.ptp(p.ours) and np.ptp(p.theirs) else math.nan
    largest = float(np.max(diff)) if len(diff) else 0.0
    reason = p.reason if largest > EQUAL else "equal to rounding"
    if largest > EQUAL and not reason:
        reason = "UNEXPLAINED"
    return [p.method, p.theirs_name, p.shift, f"{rho:.4f}" if math.isfinite(rho) else "–",
            f"{equal} of {len(diff)}", _auroc(correct, p.ours), _auroc(correct, p.theirs),
            f"{largest:.2e}", reason]  # fmt: skip


def _table(rows: list[list[str]]) -> list[str]:
    head = ["ours", "LM-Polygraph", "scale", "Spearman ρ", "equal (1e-9)", "AUROC ours",
            "AUROC theirs", "largest |Δ|", "why they differ"]  # fmt: skip
    cells = ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in [head, *rows]]
    return [cells[0], "|" + "---|" * len(head), *cells[1:]]


def report(folders: list[Path], version: str) -> str:
    """The whole of docs/crosscheck_lm_polygraph.md."""
    import lm_polygraph.estimators as est
    from lm_polygraph.estimators import kernel_language_entropy as kle_mod

    lines = ["# Baselines cross-checked against LM-Polygraph", "",
             f"Generated by `scripts/crosscheck_lm_polygraph.py`; {provenance_line('scripts/crosscheck_lm_polygraph.py')}; "
             f"lm-polygraph {version}. Do not edit by hand.", "",
             "LM-Polygraph's estimators are fed our statistics (the answers' weight matrix of our "
             "embedder, our entailment clusters, our P(True)), since no NLI model can be downloaded "
             "here: what is compared is the mathematics on the same numbers, not their NLI against "
             "our embedder. AUROC: the value as an uncertainty against the folder's labels "
             "(right = 1), on values rounded to 1e-9 so that float noise does not order tied questions. \"scale\": how their value was put on ours before comparing.", ""]  # fmt: skip
    for folder in folders:
        qs = read_questions(folder)
        correct = np.array([q.correct for q in qs])
        lines += [
            f"## {folder.name}",
            "",
            f"{len(qs)} labelled questions, {int(correct.sum())} right.",
            "",
        ]
        lines += _table([row(p, correct) for p in pairs(qs, est, kle_mod)])
        lines += [""]
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the report for the folders given."""
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("folders", nargs="+", type=Path)
    p.add_argument("-o", "--out", type=Path, default=ROOT / "docs" / "crosscheck_lm_polygraph.md")
    args = p.parse_args(argv)
    print(provenance_line("scripts/crosscheck_lm_polygraph.py"))
    for f in args.folders:
        if not (f / "scores.csv").is_file() or not (f / "runs").is_dir():
            p.error(f"{f}: not an evaluate folder with saved runs (scores.csv and runs/)")
    try:
        import importlib.metadata as md

        version = md.version("lm-polygraph")
    except Exception:  # noqa: BLE001 — any failure means it is not usable here
        p.error("lm-polygraph is not installed in this Python (see --help)")
    text = report(args.folders, version)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
