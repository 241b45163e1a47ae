"""The linear estimator: prediction-powered Horvitz–Thompson with a design-based variance and PPI++ power tuning.

For a total ``theta = sum_i a_i h(y_i)`` over the universe, with a prediction ``f_i`` of h(y_i) on every
pair and people's labels on a stratified sample drawn with inclusion probabilities pi_i:

    theta_hat(lambda) = sum_U a_i lambda f_i + sum_S (a_i / pi_i) (h(y_i) - lambda f_i)

is unbiased for every lambda (Angelopoulos et al. 2023; Horvitz–Thompson in place of the mean for an
unequal-probability design, as Zrnic & Candès 2024 and Fisch et al. 2024 do). lambda = 0 is people alone,
lambda = 1 is PPI. PPI++ (Angelopoulos, Duchi & Zrnic 2024) picks the lambda that minimises the estimated
variance, ``Cov(Y, F) / Var(F)`` of the two Horvitz–Thompson sums, clipped to [0, 1]: with a calibrated
prediction the optimum is near 1, and a judge that predicts nothing gets 0 (people alone) instead of
widening the interval.

The variance is that of a stratified simple random sample without replacement, per variance group g:
``sum_g (1 - n_g/N_g) n_g/(n_g - 1) sum_{i in g} (u_i - mean_g u)^2`` with ``u_i = x_i / pi_i``; for a true
stratum this is the textbook ``N^2 (1 - f) s^2 / n``. Pairs people did not label yet are treated as
missing at random within their stratum (the stratum's weight is spread over its labelled pairs); a
stratum left with fewer than two labels is pooled with its topic (post-stratified by topic), and a topic
with fewer than two labels is refused.

Why not ppi_py in the product: ``ppi_mean_ci`` assumes i.i.d. labelled and unlabelled samples (weights
only re-weight the mean) and has no finite-population, stratified or without-replacement variance, no
per-pair coefficients (one run's P@10 is a weighted total, not a mean), and no census stratum. It serves
as the independent oracle in the tests for the uniform case, where both must agree.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.stats import t as t_dist

from qrelkit.estimate.errors import EstimateError
from qrelkit.estimate.strata import Stratum, size_problem

Pair = tuple[str, str]


@dataclass(frozen=True, eq=False)
class LabelledDesign:
    """The labelled part of the sample as the estimator uses it: universe index, people's grade,
    weight 1/pi (after the non-response adjustment), stratum and variance group of each labelled pair."""

    index: np.ndarray
    grade: np.ndarray
    weight: np.ndarray
    stratum: np.ndarray
    group: np.ndarray
    factor: np.ndarray  # per variance group: (1 - n/N) n/(n - 1), 0 where n < 2

    def _centred(self, x: np.ndarray) -> np.ndarray:
        ind = sparse.csr_matrix((np.ones(len(self.group)), (np.arange(len(self.group)), self.group)))
        counts = np.asarray(ind.sum(axis=0)).ravel()
        u = np.atleast_2d(x) * self.weight
        return u - (u @ ind / counts)[:, self.group]

    def cov(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Estimated covariance of the HT totals ``sum_S w x`` and ``sum_S w y`` for each row of x, y."""
        return (self._centred(x) * self._centred(y)) @ self.factor[self.group]

    def var(self, x: np.ndarray) -> np.ndarray:
        return self.cov(x, x)

    def degrees(self, x: np.ndarray) -> np.ndarray:
        """Satterthwaite's degrees of freedom of the variance estimate of each row: few labels per
        stratum make the estimated variance itself noisy, and a t quantile accounts for that."""
        c = self._centred(x)
        parts = sparse.csr_matrix((np.ones(len(self.group)), (np.arange(len(self.group)), self.group)))
        per_group = ((c * c) @ parts) * self.factor  # [row, group]
        n = np.asarray(parts.sum(axis=0)).ravel()
        denom = (per_group**2 / np.maximum(n - 1, 1)).sum(axis=1)
        total = per_group.sum(axis=1)
        return np.where(denom > 0, total**2 / np.where(denom > 0, denom, 1.0), np.inf)


def labelled_design(strata: Sequence[Stratum], index: Mapping[Pair, int], people: Mapping[Pair, int]) -> LabelledDesign:
    """Weights and variance groups of the labelled sample pairs (module docstring)."""
    by_topic: dict[str, list[int]] = {}
    for h, s in enumerate(strata):
        problem = size_problem(s)
        if problem:
            raise EstimateError(f"the sample's probabilities do not describe a stratified draw: {problem}")
        by_topic.setdefault(s.qid, []).append(h)
    rows: list[tuple[int, int, float, int, int]] = []  # index, grade, weight, stratum, group
    sizes: list[tuple[int, int]] = []  # per group: N, n
    for qid, hs in by_topic.items():
        labelled = {h: [p for p in strata[h].drawn if p in people] for h in hs}
        if all(len(labelled[h]) >= 2 or len(labelled[h]) == strata[h].size for h in hs):
            for h in hs:
                g = len(sizes)
                sizes.append((strata[h].size, len(labelled[h])))
                w = strata[h].size / len(labelled[h])
                rows += [(index[p], people[p], w, h, g) for p in labelled[h]]
            continue
        total = sum(strata[h].size for h in hs)
        n = sum(len(v) for v in labelled.values())
        if n < 2:
            raise EstimateError(f"too few people's labels in topic {qid}: {n} of its "
                                f"{sum(len(strata[h].drawn) for h in hs)} sampled pairs are labelled; "
                                "at least 2 per topic are needed")
        g = len(sizes)
        sizes.append((total, n))
        rows += [(index[p], people[p], total / n, h, g) for h in hs for p in labelled[h]]
    arr = np.array(rows, dtype=float).reshape(-1, 5)
    big_n, small_n = np.array(sizes, dtype=float).T
    factor = np.where(small_n >= 2, (1 - small_n / big_n) * small_n / np.maximum(small_n - 1, 1), 0.0)
    return LabelledDesign(arr[:, 0].astype(int), arr[:, 1].astype(int), arr[:, 2], arr[:, 3].astype(int),
                          arr[:, 4].astype(int), factor)


def collapsed(design: LabelledDesign, topic: np.ndarray) -> LabelledDesign:
    """The same sample and weights with one variance group per topic (``topic``: each labelled pair's
    topic): the collapsed-strata variance (Cochran 1977, 5A.12; Wolter 2007, 2.5), the textbook remedy
    when a stratum's own spread is an unreliable estimate of its variance. With the weights unchanged
    the estimate is the same; the variance adds the spread between the topic's strata, so it is
    conservative, never smaller in expectation than the stratified one (:mod:`.jackknife` says why
    ratio measures use it)."""
    ids = np.unique(topic, return_inverse=True)[1]
    n = np.bincount(ids).astype(float)
    big = np.bincount(ids, design.weight)
    factor = np.where(n >= 2, (1 - n / np.maximum(big, n)) * n / np.maximum(n - 1, 1), 0.0)
    return LabelledDesign(design.index, design.grade, design.weight, design.stratum, ids, factor)


def power_tune(design: LabelledDesign, zy: np.ndarray, zf: np.ndarray, extra=None) -> np.ndarray:
    """PPI++'s lambdas per row, ``[row, component]``: the least-squares coefficients of the HT sum of
    zy on those of the prediction components ``zf[k]`` (``zf`` is ``[row, pair]`` for one component, or
    ``[component, row, pair]``), each clipped to [0, 1]. ``extra``: anticipated second moments
    (:class:`qrelkit.estimate.domain.Moments`) of cells the sample cannot show, added to the first
    component's."""
    zf = zf if zf.ndim == 3 else zf[None]
    k = zf.shape[0]
    sff = np.empty((zy.shape[0], k, k))
    sfy = np.empty((zy.shape[0], k))
    for i in range(k):
        sfy[:, i] = design.cov(zy, zf[i])
        for j in range(i, k):
            sff[:, i, j] = sff[:, j, i] = design.cov(zf[i], zf[j])
    if extra is not None:
        sfy[:, 0] += extra.fy
        sff[:, 0, 0] += extra.ff
    ridge = 1e-9 * np.maximum(np.trace(sff, axis1=1, axis2=2), 1e-30)
    lam = np.linalg.solve(sff + ridge[:, None, None] * np.eye(k), sfy[..., None])[..., 0]
    return np.clip(lam, 0.0, 1.0)


def combined(zy: np.ndarray, zf: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """``zy - sum_k lam_k zf_k`` per row."""
    zf = zf if zf.ndim == 3 else zf[None]
    return zy - np.einsum("rk,krn->rn", np.atleast_2d(lam).reshape(zy.shape[0], -1), zf)


def variance(design: LabelledDesign, zy: np.ndarray, zf: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """Estimated variance of the HT sum of ``zy - lam zf`` per row."""
    return np.maximum(design.var(combined(zy, zf, lam)), 0.0)


def half_width(design: LabelledDesign, zy: np.ndarray, zf: np.ndarray, lam: np.ndarray, alpha: float,
               extra=None) -> np.ndarray:
    """Half the width of the (1 - alpha) interval: a t quantile with Satterthwaite's degrees of freedom
    times the design standard error; ``extra`` (see :func:`power_tune`) adds its anticipated variance."""
    z = combined(zy, zf, lam)
    df = np.maximum(design.degrees(z), 1.0)
    lam = np.asarray(lam)
    var = design.var(z) + (0.0 if extra is None else extra.variance(lam[:, 0] if lam.ndim == 2 else lam))
    return t_dist.ppf(1 - alpha / 2, df) * np.sqrt(np.maximum(var, 0.0))
