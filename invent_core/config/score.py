"""How responses become the Inv measures: :class:`ScoreConfig` and its kinds.

``AffinityKind``, ``WDGround`` and ``MaxVariant`` are the ``Literal`` choices
of the scoring options; GAAP's fitness reuses ``AffinityKind``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .checks import MAX_BOOTSTRAP, check_choice, check_float, check_int, opt
from .flat import config_to_dict, dataclass_from_dict

AffinityKind = Literal["shifted_cosine", "abs_cosine", "exp_cosine"]
WDGround = Literal["index", "discrete", "released_code"]
MaxVariant = Literal["paper", "released_code"]
#: ψ_y, how two answers are compared (invent_core.responses.same describes each)
AnswerSimilarity = Literal["rules", "embedding", "canonical", "lexical", "judge"]
#: how states that repeat a question (padding by duplication) are scored
Padding = Literal["distinct", "paper"]
#: how the baselines that cluster or weight answers compare two of them
BaselineAnswers = Literal["rules", "embedding"]


#: What a config saved before these options existed was scored with (the paper's ways).
BEFORE_OPTIONS: dict[str, str] = {"answer_similarity": "embedding", "padding": "paper"}


@dataclass(frozen=True)
class ScoreConfig:
    """How responses become the Inv measures (Algorithm 1 minus the LLM calls)."""

    embedder: str = opt(
        "minilm",
        "ψ: minilm (paper's SBERT-small), mpnet (SBERT-large) or an NLI model folder",
    )  # paper §3 "Implementation details": SBERT-small by default
    n_bootstrap: int = opt(
        30, "B, bootstrap resamples", flag="-B"
    )  # paper, Appendix "Replication and Bootstrapping" (S = 30)
    seed: int = opt(
        0, "seeds perturbation, answer replications and the bootstrap"
    )  # ours: one seed at the edge
    affinity: AffinityKind = opt(
        "exp_cosine",
        "a(·,·) from cosine: exp_cosine (ours, exp((cos-1)/τ), the default), shifted_cosine "
        "(the paper's (1+cos)/2) or abs_cosine (the released code's |cos|)",
    )  # ours, by evidence (docs/RESULTS.md "Kernel study"); the paper's §3 is (1 + cos) / 2
    kernel_tau: float = opt(
        0.25, "τ of the exp_cosine affinity exp((cos-1)/τ); smaller is sharper"
    )  # ours: see random_walk.affinity_from_cosine for the measured Δ per τ
    wd_ground: WDGround = opt(
        "index", "WD-px-py ground metric (the paper names none)"
    )  # ours; see measures.wd_px_py
    max_variant: MaxVariant = opt(
        "paper", "MAX-py-x: the paper's definition or the released code's"
    )  # paper §3 "Baselines" (iv)

    answer_similarity: AnswerSimilarity = opt(
        "rules",
        "ψ_y, how answers are compared: rules (canonical forms, then words, then the "
        "embedder's cosine for what they leave undecided; ours), embedding (the paper's "
        "cosine), canonical (equal canonical answers only), lexical (ROUGE-L) or judge (the "
        "rules, then --answer-judge for what they leave undecided, once per distinct pair, "
        "cached)",
    )  # ours, where the paper and common sense disagree: MiniLM's cosine makes different
    # names and numbers look alike. Chosen on the tuning halves of the five evaluations with
    # saved runs (mean Inv-Entropy AUROC with distinct padding: rules 0.698, embedding 0.689,
    # lexical 0.690, canonical 0.685; the paper's embedding + padded copies 0.686), read on
    # the report halves (rules 0.799, the paper's way 0.771): docs/RESULTS.md "Answer
    # similarity and padding". Each difference is inside its interval; the profiles "paper"
    # and "released-code" keep the cosine. Re-measured 2026-11-30 on the evaluations re-made
    # with today's gate, the same rule puts embedding first (tuning mean 0.670, rules 0.658;
    # report 0.720, rules 0.722); of 31 option − default differences 1 excludes zero
    # uncorrected, 0 under Holm. The rules stay for what the ranking cannot see: they are
    # the answer verdicts the baselines share, measured on labelled pairs (docs/method.md).
    answer_judge: str = opt(
        "local",
        "who decides the pairs the rules leave undecided under --answer-similarity judge: an "
        "LLM spec (local, qwen1.5b, gguf:…, hf:…, a served model) or nli:/path (a local NLI "
        "model folder, both directions entailed)",
    )  # ours: the packaged model is offline and its answers are cached, so a re-score is free
    padding: Padding = opt(
        "distinct",
        "states that repeat a question: distinct (score each question once, entropies put "
        "on the scale of n + 1 states; ours) or paper (score the copies as the paper pads)",
    )  # ours, where the paper and common sense disagree: padded copies make the score depend
    # on how many rewordings survived the gate (the count alone scored AUROC 0.66 on MMLU);
    # "distinct" makes a question with 5 or 9 distinct states read the same for the same
    # answers. Measured on the tuning halves (docs/RESULTS.md "Answer similarity and
    # padding"): no consistent difference in AUROC; the profiles "paper" and
    # "released-code" keep the paper's padding.
    baseline_answers: BaselineAnswers = opt(
        "rules",
        "how Semantic Entropy, DegMat, LUQ, KLE and Kernel Entropy compare answers: rules "
        "(never merge answers whose canonical forms differ: numbers, letters, yes/no; ours) "
        "or embedding (their judge or the embedder's cosine alone, as published)",
    )  # ours: "8" and "10", "B" and "C" are never one meaning (the baselines at their best)

    def __post_init__(self) -> None:
        o = "ScoreConfig"
        if not isinstance(self.embedder, str) or not self.embedder.strip():
            raise ValueError(f"{o}.embedder must be a non-empty name, got {self.embedder!r}")
        check_int(o, "n_bootstrap", self.n_bootstrap, low=1, high=MAX_BOOTSTRAP)
        check_int(o, "seed", self.seed, low=0)
        check_choice(o, "affinity", self.affinity, AffinityKind)
        check_float(o, "kernel_tau", self.kernel_tau, low=1e-3, high=10.0)
        check_choice(o, "wd_ground", self.wd_ground, WDGround)
        check_choice(o, "max_variant", self.max_variant, MaxVariant)
        check_choice(o, "answer_similarity", self.answer_similarity, AnswerSimilarity)
        if not isinstance(self.answer_judge, str) or not self.answer_judge.strip():
            raise ValueError(
                f"{o}.answer_judge must be an LLM spec or nli:/path, got {self.answer_judge!r}"
            )
        check_choice(o, "padding", self.padding, Padding)
        check_choice(o, "baseline_answers", self.baseline_answers, BaselineAnswers)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the options."""
        return config_to_dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScoreConfig:
        """Inverse of :meth:`to_dict`; unknown keys are an error naming them.

        A config saved before an option existed reads as made the way that option's
        absence meant (:data:`BEFORE_OPTIONS`: answers compared by the embedder's cosine,
        padded copies scored), not with today's defaults: a saved run re-scored "as it
        was made" keeps its numbers.
        """
        return dataclass_from_dict(cls, {**BEFORE_OPTIONS, **data})
