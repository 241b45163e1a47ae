"""Everything that changes between two qrels versions of the same runs:
score deltas and rank shifts, rank correlations with bootstrap intervals, and
whether significance decisions survive.

Why one function: these figures are always read together (a high tau with
many reversed significance decisions tells a different story than either
alone), and they must be computed on exactly the same systems and topics.
Version ``a`` is the reference ("before"), ``b`` the new one ("after").
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from qrelkit.errors import UsageError
from qrelkit.evaluate.correlation import (
    TOP_K,
    Alignment,
    RankingCorrelation,
    align,
    correlate,
    meta_evaluation,
)
from qrelkit.evaluate.significance import (
    DecisionAgreement,
    PairwiseSignificance,
    decision_agreement,
    pairwise_significance,
)
from qrelkit.evaluate.systems import SystemShift, TopicScores, score_shifts


@dataclass(frozen=True)
class VersionComparison:
    version_a: str
    version_b: str
    measure: str
    shifts: tuple[SystemShift, ...]
    correlation: RankingCorrelation
    significance_a: PairwiseSignificance
    significance_b: PairwiseSignificance
    decisions: DecisionAgreement
    meta: dict = field(default_factory=dict)  # correlation.meta_evaluation of the two leaderboards
    alignment: Alignment = Alignment((), (), (), "worst")

    def to_dict(self) -> dict:
        corr = self.correlation.to_dict()
        return {
            "a": self.version_a,
            "b": self.version_b,
            "measure": self.measure,
            "topics": corr["topics"],
            "kendall_tau": corr["kendall_tau"],
            "tau_ap": corr["tau_ap"],
            "spearman_rho": corr["spearman_rho"],
            "rbo": corr["rbo"],
            "rbo_p": corr["rbo_p"],
            "ci": corr["ci"],
            "bootstrap": corr["bootstrap"],
            "seed": corr["seed"],
            "systems": [
                {
                    "system": s.system, "score_a": s.score_a, "score_b": s.score_b, "delta": s.delta,
                    "rank_a": s.rank_a, "rank_b": s.rank_b, "rank_shift": s.rank_shift,
                }
                for s in self.shifts
            ],
            "significance": {
                "test": self.significance_a.test,
                "correction": self.significance_a.correction,
                "alpha": self.significance_a.alpha,
                "significant_a": self.significance_a.to_dict()["significant"],
                "significant_b": self.significance_b.to_dict()["significant"],
                **self.decisions.to_dict(),
            },
            **self.meta,
            **self.alignment.to_dict(),
        }


@dataclass(frozen=True)
class ComparisonSettings:
    """How two qrels versions' leaderboards are compared (the keywords of :func:`compare_versions`)."""

    measure: str = "nDCG@10"
    rbo_p: float = 0.9
    bootstrap: int = 1000
    seed: int = 0
    test: str = "wilcoxon"
    correction: str = "bh"
    alpha: float = 0.05
    on_missing: str = "worst"
    absent: tuple[Sequence[str], Sequence[str]] = ((), ())
    top_k: int = TOP_K


def compare_versions(
    a: TopicScores,
    b: TopicScores,
    settings: "Optional[ComparisonSettings]" = None,
    **given: Any,
) -> VersionComparison:
    """Compare two versions on the systems and topics they share.

    ``absent``: the systems each version's leaderboard does not hold (a run that retrieved none of
    its topics), settled by ``on_missing`` (:func:`qrelkit.evaluate.correlation.align`); ``worst``
    keeps them as scored, 0 on every topic, which is what comparisons did before the option."""
    s = settings if settings is not None else ComparisonSettings(**given)
    measure, rbo_p, bootstrap = s.measure, s.rbo_p, s.bootstrap
    seed, test, correction = s.seed, s.test, s.correction
    alpha, on_missing, absent = s.alpha, s.on_missing, s.absent
    top_k = s.top_k
    shared = [s for s in a.systems if s in b.systems]
    alignment = align(shared, absent[0], absent[1], on_missing, (a.label, b.label))
    systems = list(alignment.systems)
    b_topics = set(b.topics)
    topics = [t for t in a.topics if t in b_topics]
    if len(systems) < 2:
        raise UsageError("need at least two systems scored under both qrels versions to compare rankings")
    if not topics:
        raise UsageError(f"qrels versions {a.label!r} and {b.label!r} share no topics")
    sa, sb = a.subset(systems, topics), b.subset(systems, topics)
    pa, pb = sa.of(measure), sb.of(measure)
    corr = correlate(pa, pb, measure, p=rbo_p, bootstrap=bootstrap, seed=seed)
    sig_a = pairwise_significance(pa, systems, test, correction, alpha, a.label, measure)
    sig_b = pairwise_significance(pb, systems, test, correction, alpha, b.label, measure)
    return VersionComparison(
        a.label, b.label, measure, score_shifts(sa, sb, measure), corr, sig_a, sig_b, decision_agreement(sig_a, sig_b),
        meta_evaluation(pa.mean(axis=1), pb.mean(axis=1), top_k), alignment,
    )
