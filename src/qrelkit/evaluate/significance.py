"""Significance decisions for every pair of systems, and whether two qrels
versions lead to the same decisions.

Why: a change of qrels matters most when it changes conclusions ("A is
significantly better than B"), not only scores. Each pair of systems is tested
on its per-topic scores (paired, two-sided Wilcoxon signed-rank or paired
t-test, scipy), p-values are corrected for the many pairs with statsmodels'
``multipletests`` (Benjamini-Hochberg by default, or Bonferroni), and a pair's
decision is +1 (first system significantly better), -1 (significantly worse)
or 0 (no significant difference). Two versions are then compared with the
Matthews correlation (scikit-learn, multiclass form) between their decision
vectors, plus the counts of agreements, reversals and one-sided findings.

Wilcoxon detail: zero differences are dropped (``zero_method="wilcox"``,
scipy's default); a pair whose per-topic differences are all zero has p = 1.
The exact distribution is used for pairs without zero or tied differences
(up to 50 topics), the normal approximation with tie correction otherwise.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from qrelkit.errors import UsageError

TESTS = ("wilcoxon", "ttest")
CORRECTIONS = {"bh": "fdr_bh", "fdr_bh": "fdr_bh", "bonferroni": "bonferroni", "none": None}


@dataclass(frozen=True)
class PairTest:
    """One pair of systems (``a`` listed before ``b``)."""

    a: str
    b: str
    mean_diff: float
    p_value: float
    p_adjusted: float
    decision: int  # +1 a better, -1 b better, 0 not significant


@dataclass(frozen=True)
class PairwiseSignificance:
    label: str
    measure: str
    test: str
    correction: str
    alpha: float
    pairs: tuple[PairTest, ...]

    @property
    def decisions(self) -> np.ndarray:
        return np.array([p.decision for p in self.pairs], dtype=int)

    def to_dict(self) -> dict:
        d = self.decisions
        return {
            "qrels": self.label,
            "measure": self.measure,
            "test": self.test,
            "correction": self.correction,
            "alpha": self.alpha,
            "pairs": len(self.pairs),
            "significant": int((d != 0).sum()),
        }


@dataclass(frozen=True)
class DecisionAgreement:
    """How two versions' significance decisions relate, pair by pair."""

    matthews: float
    pairs: int
    same: int  # identical decision (including both "not significant")
    both_significant_same_direction: int
    reversed: int  # significant both times, opposite directions
    only_a: int  # significant only under version a
    only_b: int

    def to_dict(self) -> dict:
        return {
            "matthews_corrcoef": None if np.isnan(self.matthews) else float(self.matthews),
            "pairs": self.pairs,
            "same": self.same,
            "both_significant_same_direction": self.both_significant_same_direction,
            "reversed": self.reversed,
            "only_a": self.only_a,
            "only_b": self.only_b,
        }


def pairwise_significance(
    per_topic: np.ndarray,
    systems: Sequence[str],
    test: str = "wilcoxon",
    correction: str = "bh",
    alpha: float = 0.05,
    label: str = "",
    measure: str = "",
) -> PairwiseSignificance:
    """Test every pair of systems on their per-topic scores ``[system, topic]``."""
    from scipy.stats import ttest_rel
    from statsmodels.stats.multitest import multipletests

    if test not in TESTS:
        raise UsageError(f"unknown test {test!r}; choose from {', '.join(TESTS)}")
    if correction not in CORRECTIONS:
        raise UsageError(f"unknown correction {correction!r}; choose from {', '.join(CORRECTIONS)}")
    x = np.asarray(per_topic, float)
    n = x.shape[0]
    i, j = np.triu_indices(n, 1)
    if not len(i):
        return PairwiseSignificance(label, measure, test, correction, alpha, ())
    diffs = x[i] - x[j]  # [pair, topic]
    mean_diff = diffs.mean(axis=1) if diffs.shape[1] else np.zeros(len(i))
    nonzero = np.any(diffs != 0, axis=1)
    p = np.ones(len(i))
    if nonzero.any() and diffs.shape[1] >= 2:
        d = diffs[nonzero]
        with np.errstate(all="ignore"):
            if test == "wilcoxon":
                pv = _wilcoxon_rows(d)
            else:
                pv = np.asarray(ttest_rel(x[i][nonzero], x[j][nonzero], axis=1).pvalue, float)
        p[nonzero] = np.where(np.isnan(pv), 1.0, pv)
    method = CORRECTIONS[correction]
    if method is None:
        adj = p.copy()
    else:
        adj = multipletests(p, alpha=alpha, method=method)[1]
    decision = np.where(adj < alpha, np.sign(mean_diff), 0).astype(int)
    pairs = tuple(
        PairTest(systems[a], systems[b], float(md), float(pv), float(pa), int(dc))
        for a, b, md, pv, pa, dc in zip(i, j, mean_diff, p, adj, decision)
    )
    return PairwiseSignificance(label, measure, test, correction, alpha, pairs)


def _wilcoxon_rows(d: np.ndarray) -> np.ndarray:
    """Two-sided Wilcoxon p-value of each row of paired differences.

    The method is chosen per row and explicitly, so that results do not depend
    on the other rows or on scipy's changing "auto" rules: the exact null
    distribution when the row has no zero and no tied differences and at most
    50 topics, the normal approximation (with tie correction) otherwise.

    Rows go a block at a time (:data:`BLOCK_VALUES` values): scipy's ranking
    makes about ten temporary copies of what it is given, so the 190 pairs of
    20 systems over 7,523 topics peaked at 113 MB inside one call, growing with
    the topics (benchmarks/scale.py, 10^6 pairs). Rows are independent, so the p-values are the same."""
    p = np.ones(len(d))
    step = max(1, BLOCK_VALUES // max(1, d.shape[1]))
    for start in range(0, len(d), step):
        p[start:start + step] = _wilcoxon_block(d[start:start + step])
    return p


BLOCK_VALUES = 1 << 17  # 1 MB of differences per call to scipy (about 10 MB of temporaries)


def _wilcoxon_block(d: np.ndarray) -> np.ndarray:
    from scipy.stats import wilcoxon

    a = np.abs(d)
    srt = np.sort(np.where(a == 0, np.nan, a), axis=1)
    ties = np.any(srt[:, 1:] == srt[:, :-1], axis=1)
    zeros = np.any(a == 0, axis=1)
    exact = ~ties & ~zeros & (d.shape[1] <= 50)
    p = np.ones(len(d))
    for mask, method in ((exact, "exact"), (~exact, "asymptotic")):
        if mask.any():
            with warnings.catch_warnings():  # small-sample notes; the choice above is deliberate
                warnings.simplefilter("ignore")
                res = wilcoxon(d[mask], axis=1, zero_method="wilcox", alternative="two-sided", method=method)
            p[mask] = np.asarray(res.pvalue, float)
    return p


def decision_agreement(a: PairwiseSignificance, b: PairwiseSignificance) -> DecisionAgreement:
    """Compare two versions' decisions over the same system pairs."""
    from sklearn.metrics import matthews_corrcoef

    if [(p.a, p.b) for p in a.pairs] != [(p.a, p.b) for p in b.pairs]:
        raise UsageError("significance results cover different system pairs; evaluate the same systems")
    da, db = a.decisions, b.decisions
    if not len(da):
        return DecisionAgreement(float("nan"), 0, 0, 0, 0, 0, 0)
    if len(set(da.tolist()) | set(db.tolist())) < 2:
        mcc = 1.0  # every decision identical and constant: perfect agreement, MCC undefined
    else:
        mcc = float(matthews_corrcoef(da, db))
    sig_a, sig_b = da != 0, db != 0
    return DecisionAgreement(
        matthews=mcc,
        pairs=int(len(da)),
        same=int((da == db).sum()),
        both_significant_same_direction=int((sig_a & sig_b & (da == db)).sum()),
        reversed=int((sig_a & sig_b & (da != db)).sum()),
        only_a=int((sig_a & ~sig_b).sum()),
        only_b=int((~sig_a & sig_b).sum()),
    )


# ------------------------------------------------- one system, two qrels versions
@dataclass(frozen=True)
class SystemDifference:
    """One system's per-topic scores under two qrels versions (e.g. the primary
    assessors' and an aggregation of the secondary ones)."""

    system: str
    mean_a: float
    mean_b: float
    t_p_value: float  # paired t-test over topics
    t_p_bonferroni: float  # ... Bonferroni-corrected over the systems (the shelf-life paper's test)
    wilcoxon_p_value: float  # Wilcoxon signed-rank test over topics
    wilcoxon_p_bonferroni: float
    significant: bool  # t_p_bonferroni < alpha

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def system_differences(
    a: np.ndarray, b: np.ndarray, systems: Sequence[str], alpha: float = 0.05
) -> tuple[SystemDifference, ...]:
    """Per system (row of ``[system, topic]`` matrices ``a`` and ``b``): is its
    score different under the two versions? Paired t-test and Wilcoxon over
    topics, each Bonferroni-corrected over the systems. A system whose scores
    do not change on any topic has p = 1 (there is nothing to test)."""
    from scipy.stats import ttest_rel
    from statsmodels.stats.multitest import multipletests

    a, b = np.asarray(a, float), np.asarray(b, float)
    d = a - b
    moved = np.any(d != 0, axis=1) & (d.shape[1] >= 2)
    pt, pw = np.ones(len(systems)), np.ones(len(systems))
    if moved.any():
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = np.asarray(ttest_rel(a[moved], b[moved], axis=1).pvalue, float)
        pt[moved] = np.where(np.isnan(t), 1.0, t)
        pw[moved] = _wilcoxon_rows(d[moved])
    bt = multipletests(pt, alpha=alpha, method="bonferroni")[1] if len(systems) else pt
    bw = multipletests(pw, alpha=alpha, method="bonferroni")[1] if len(systems) else pw
    return tuple(
        SystemDifference(s, float(a[i].mean()), float(b[i].mean()), float(pt[i]), float(bt[i]), float(pw[i]),
                         float(bw[i]), bool(bt[i] < alpha))
        for i, s in enumerate(systems)
    )
