"""A run whose top k holds no labelled pair in a topic: the variance its correction has but the sample cannot show.

A run's estimate corrects its judge-based score by the Horvitz–Thompson sum of the residuals
``a_i (h(y_i) - lambda f_i)`` over the sampled pairs, where ``a_i`` is the pair's weight in the run's
measure (its *domain*: the run's top k). The design-based variance estimate of that sum is unbiased over
draws, but in a draw where no pair of the domain in a topic was labelled every sampled term is 0 there,
and the estimate of that topic's part is 0: with the uniform design at 5%, a run none of whose top-10
pairs was drawn got estimate 0 (power tuning, seeing no information, fell back to people alone) and an
interval of width 0, though the judge called many of its pairs relevant. This is the survey-sampling
problem of a domain (a subpopulation) with no sampled unit in a stratum, where the variance of the
domain's estimator is not estimable from the domain itself.

The remedy is the *anticipated variance* (Isaki & Fuller 1982; Särndal, Swensson & Wretman 1992,
ch. 6.7), the design variance's expectation under a model of the residuals: for topic t (all its strata
pooled: a sample file does not say which stratum an unsampled pair is in), the stratified simple random
sample's ``N_t^2 (1 - n_t/N_t) / n_t * S_t^2``, with ``S_t^2 <= sum_i a_i^2 e_i^2 / (N_t - 1)`` over the
topic's non-census pairs (the cross term dropped: conservative), and ``e_i^2`` replaced by its expectation
under the calibrated judge's distribution of the pair's people's grade (the prediction the estimator
already uses; it knows the pair's judge grade and how many runs retrieve it):
``E[(h(Y) - lambda f)^2] = E[h^2] - 2 lambda f^2 + lambda^2 f^2`` with ``f = E[h]``. These second moments
are added to the design's for the (run, topic) cells whose domain has no labelled pair, both in power
tuning (so lambda is no longer forced to 0) and in the variance; every other cell keeps its purely
design-based variance unchanged.

Which rows: only a row (a run, or a difference of two runs) whose whole domain holds fewer than
:data:`MIN_LABELLED` labelled pairs or whose design variance is 0 (every labelled pair of its domain has
the same residual), and in it only the topics with no labelled pair. Where the domain has labelled
pairs in some topics, the design-based estimator of the run's total variance is unbiased over draws
(its empty topics are balanced by draws where they are not) and the t quantile's degrees of freedom
account for its noise; completing every empty cell of every run would bias it upward (at the weighted
design's 10%, about a fifth of the (run, topic) cells of DL 2019 have no labelled pair). A variance
floor from the anticipated variance of every cell was tried and dropped: it pools a topic's strata
(a sample file does not say which stratum an unsampled pair is in), so under the weighted design it
overstates the variance of the runs' top k, which are drawn more often: it doubled the intervals at the
weighted design's 10% on DL 2019 (P@10 width 0.118 -> 0.225 in 5 draws). For the same reason the
completed cells' variance is conservative under the weighted design.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from qrelkit.estimate.ppi import LabelledDesign, combined, power_tune

MIN_LABELLED = 2  # a row whose domain has fewer labelled pairs than this has no design variance to speak of
ZERO_VARIANCE = 1e-15  # a design variance at or below this is 0 (rounding)


@dataclass(frozen=True)
class Moments:
    """Anticipated second moments per row (zeros for a row that needs none), added to the design's: of
    the label part (yy), label x prediction (fy) and prediction (ff)."""

    yy: np.ndarray
    fy: np.ndarray
    ff: np.ndarray

    def variance(self, lam: np.ndarray) -> np.ndarray:
        lam = np.reshape(lam, -1)
        return self.yy - 2 * lam * self.fy + lam**2 * self.ff


def degenerate(design: LabelledDesign, zy: np.ndarray, zf: np.ndarray) -> np.ndarray:
    """Rows whose design variance is 0 at PPI++'s lambda: every labelled pair of the row's domain has
    the same residual (e.g. people found none of its few labelled pairs relevant, and the tuning, seeing
    no covariance, chose lambda 0)."""
    return design.var(combined(zy, zf, power_tune(design, zy, zf))) <= ZERO_VARIANCE


@dataclass(frozen=True, eq=False)
class DomainModel:
    """What the anticipated variance needs of a measure: each universe pair's topic, whether it is a
    census pair (exact, no variance), the calibrated E[h] and E[h^2] per pair, and the design."""

    topic: np.ndarray  # [universe pair]
    exact: np.ndarray
    mean_h: np.ndarray
    mean_h2: np.ndarray
    topics: int
    design: LabelledDesign
    topic_s: np.ndarray  # [labelled pair]

    def expansion(self) -> np.ndarray:
        """Per topic: N_t^2 (1 - n_t/N_t) / (n_t (N_t - 1)), 0 where undefined."""
        big = np.bincount(self.topic_s, self.design.weight, minlength=self.topics)
        small = np.bincount(self.topic_s, minlength=self.topics).astype(float)
        ok = (small > 0) & (big > 1)
        safe_small, safe_big = np.where(ok, small, 1.0), np.where(ok, big, 2.0)
        return np.where(ok, safe_big**2 * (1 - safe_small / safe_big) / (safe_small * (safe_big - 1)), 0.0)

    def moments(self, coef: sparse.csr_matrix, zero: np.ndarray) -> Moments:
        """``coef[row, universe pair]``: each pair's weight in the row's estimate (a run's, or a
        difference of two runs'), on the estimate's scale; ``zero``: the rows whose design variance is 0
        (:func:`degenerate`)."""
        coef = sparse.csr_matrix(coef)
        ind = sparse.csr_matrix((np.ones(len(self.topic)), (np.arange(len(self.topic)), self.topic)),
                                shape=(len(self.topic), self.topics))
        labelled = (abs(coef[:, self.design.index]) > 0).astype(float) @ ind[self.design.index]
        labelled = np.asarray(sparse.csr_matrix(labelled).todense())
        rows = (labelled.sum(axis=1) < MIN_LABELLED) | np.asarray(zero, dtype=bool)
        empty = (labelled == 0) & rows[:, None]  # [row, topic]
        sq = coef.multiply(coef).multiply(~self.exact[None, :]).tocsr()
        f2 = self.mean_h**2
        per_topic = [np.asarray((sq.multiply(m[None, :]) @ ind).todense()) for m in (self.mean_h2, f2)]
        k = self.expansion()[None, :] * empty
        yy, ff = ((k * p).sum(axis=1) for p in per_topic)
        return Moments(yy, ff, ff)
