"""One measure fitted on the sample: its totals as functions of lambda, and their influence.

A run's score is ``mean over topics of F(numerator, denominator counts)`` (:mod:`.measures`).

The numerator is estimated by the linear estimator of :mod:`.ppi`; as a function of PPI++'s lambda it
is ``A + lambda B``: A holds the census pairs exactly and the people's labels weighted by 1/pi, B the
judge's calibrated predictions on the universe minus their weighted values on the sample. A linear
measure (P@k, RBP) is a straight line in lambda with an exact design variance, ``z = zy - lambda zf``
(zy: through the people's labels, zf: through the predictions, so that lambda can be tuned per run, and
per pair of runs for differences).

A ratio (nDCG@k, R@k) divides the numerator by a denominator built from counts per topic (nDCG's ideal
DCG from ``M_g``, how many pairs reach grade g; R@k's relevant pairs):

- the counts are prediction-powered too, with lambda 1: the calibrated predictions summed over the
  universe plus the weighted residuals (people's indicator minus prediction) of the sample, census exact.
  Unbiased for any prediction, and the better the prediction the smaller the count's variance, which is
  what drives the ratio's bias. They are then raised to the *floor*, the number of pairs that the census
  and the people's labels show to reach the level: a fact, so the projection can only reduce the error
  (without it a residual sum can make a count 0 or negative, and a ratio explode);
- the ratio's estimate is the plug-in minus the jackknife's bias estimate, its variance the jackknife's
  (:mod:`.jackknife`, which says why: the ideal DCG is a kinked, saturating function of the counts).

Measured on DL 2019 (the benchmarks/estimates.py grid and docs/estimates.md): the plug-in with the
people's counts alone and a first-order (delta-method) variance covered 0.58 at 926 weighted labels (a
bias of 1.7 standard errors); an earlier constant skew correction of the counts, tuned on that one
setting, covered 0.69-0.83 elsewhere. Prediction-powered counts, the floor and the jackknife need no
constant.

A run whose top k holds (almost) no labelled pair has no design variance to show; :mod:`.domain` adds
the anticipated one (:meth:`Fitted.anticipated`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from qrelkit.estimate.domain import DomainModel, Moments, degenerate
from qrelkit.estimate.frame import Frame
from qrelkit.estimate.jackknife import RatioParts, jackknife
from qrelkit.estimate.measures import MeasureKind
from qrelkit.estimate.ppi import LabelledDesign


@dataclass(frozen=True, eq=False)
class Inputs:
    """What every measure's fit shares: the possible people's grades ``values``, predicted distributions
    over them for every universe pair (``every``; census pairs hold their label as certain) and for each
    labelled pair by cross-fitting (``own``), which pairs are exact (``exact``), and the design."""

    values: np.ndarray
    every: np.ndarray
    own: np.ndarray
    exact: np.ndarray
    design: LabelledDesign


@dataclass(frozen=True, eq=False)
class Fitted:
    """A measure's numerator ``A + lambda B`` ([run, topic]), with the sample's coefficients for the
    influence; for a ratio, the denominator's counts and their floor ([topic, level]) and each labelled
    pair's residual and indicator per level ([pair, level])."""

    kind: MeasureKind
    a: np.ndarray
    b: np.ndarray
    coef_s: np.ndarray  # [run, labelled pair]
    hy: np.ndarray  # [labelled pair]
    hf: np.ndarray
    topic_s: np.ndarray
    design: LabelledDesign
    counts: np.ndarray
    floors: np.ndarray
    resid: np.ndarray
    ind: np.ndarray
    coef_u: sparse.csr_matrix  # [run, universe pair]: the pair's weight in the run's estimate
    domain: DomainModel
    strata: LabelledDesign  # the design's own strata: the jackknife's bias (``design``: its variance groups)

    def anticipated(self, rows: np.ndarray, zy: np.ndarray, zf: np.ndarray, minus: np.ndarray | None = None,
                    tuning: bool = False) -> Moments:
        """Anticipated moments (:mod:`.domain`) of runs ``rows`` (or of the differences rows - minus) whose
        influences are ``zy``, ``zf`` (from :meth:`influence` with the same ``tuning``)."""
        coef = self.coef_u[rows] if minus is None else self.coef_u[rows] - self.coef_u[minus]
        return self.domain.moments(coef, degenerate(self.strata if tuning else self.design, zy, zf))

    def _parts(self, rows: np.ndarray) -> RatioParts:
        coef = self.coef_s[rows]
        return RatioParts(self.kind, self.a[rows], self.b[rows], self.counts, self.floors, coef * self.hy,
                          coef * self.hf, self.resid, self.ind, self.topic_s)

    def value(self, rows: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """Estimates for runs ``rows`` at ``lam`` (one lambda per row); a ratio's is bias-corrected."""
        lam = np.reshape(lam, -1)
        numer = self.a[rows] + lam[:, None] * self.b[rows]
        if self.kind.linear:
            return numer.mean(axis=1)
        plug = self.kind.ratio(numer, np.maximum(self.counts, self.floors))[0].mean(axis=1)
        _, _, bias_y, bias_f = jackknife(self._parts(rows), self.strata)
        return plug - (bias_y + lam * bias_f)

    def influence(self, rows: np.ndarray, lam: np.ndarray, tuning: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(zy, zf), ``[row, labelled pair]``: each labelled pair's effect on the estimate through its
        label and through its prediction (exact for a linear measure, the jackknife's for a ratio, where
        they do not depend on ``lam``)."""
        if not self.kind.linear:  # tuning: the strata's replicates (PPI++'s lambda), else the variance's
            zy, zf, _, _ = jackknife(self._parts(rows), self.strata if tuning else self.design)
            return zy, zf
        coef = self.coef_s[rows] / self.a.shape[1]
        return coef * self.hy, coef * self.hf


def fit_measure(frame: Frame, kind: MeasureKind, inp: Inputs, variance: LabelledDesign | None = None) -> Fitted:
    """The measure's fit; ``variance``: the same sample with other variance groups (a ratio's topics,
    :func:`~qrelkit.estimate.ppi.collapsed`) for its variance, its bias staying the design strata's."""
    design = inp.design
    h = kind.label_values(inp.values)
    coef_s = np.asarray(frame.coefficients(kind)[:, design.index].todense())
    at = np.searchsorted(inp.values, design.grade)
    hy, hf = h[at], inp.own @ h
    expected = inp.every @ h
    exact_h, pred_h = np.where(inp.exact, expected, 0.0), np.where(inp.exact, 0.0, expected)
    a = frame.per_topic(kind, exact_h) + _sample_topic_sum(frame, design, coef_s * design.weight * hy)
    b = frame.per_topic(kind, pred_h) - _sample_topic_sum(frame, design, coef_s * design.weight * hf)
    levels = kind.denominator_levels(inp.values)
    shape = (len(frame.topics), max(len(levels), 1))
    counts, floors = np.zeros(shape), np.zeros(shape)
    resid, ind = np.zeros((len(hy), shape[1])), np.zeros((len(hy), shape[1]))
    for j, g in enumerate(levels):
        counts[:, j], floors[:, j], resid[:, j], ind[:, j] = _count(frame, inp, (inp.values >= g).astype(float))
    coef_u = _estimate_scale(frame, kind, counts, floors)
    domain = DomainModel(frame.topic, inp.exact, expected, inp.every @ h**2, len(frame.topics), design,
                         frame.topic[design.index])
    return Fitted(kind, a, b, coef_s, hy, hf, frame.topic[design.index], variance or design, counts, floors, resid,
                  ind, coef_u, domain, design)


def _estimate_scale(frame: Frame, kind: MeasureKind, counts: np.ndarray, floors: np.ndarray) -> sparse.csr_matrix:
    """Each pair's weight in each run's estimate: the numerator's coefficient over the topics (and, for a
    ratio, over the topic's estimated denominator)."""
    per_topic = np.full(len(frame.topics), 1.0 / len(frame.topics))
    if not kind.linear:
        ones = np.ones((1, len(frame.topics)))
        per_topic = per_topic * kind.ratio(ones, np.maximum(counts, floors))[1][0]
    return frame.coefficients(kind).multiply(per_topic[frame.topic][None, :]).tocsr()


def _count(frame: Frame, inp: Inputs, hg: np.ndarray) -> tuple[np.ndarray, ...]:
    """One level's count per topic (before the floor), its floor, and each labelled pair's residual and
    indicator, for the indicator ``hg`` of the people's grades (see the module docstring)."""
    design = inp.design
    expected = inp.every @ hg
    census = frame.topic_sum(np.where(inp.exact, expected, 0.0))
    predicted = frame.topic_sum(np.where(inp.exact, 0.0, expected))
    labelled = hg[np.searchsorted(inp.values, design.grade)]
    resid = labelled - inp.own @ hg
    count = census + predicted + _sample_topic_sum(frame, design, design.weight * resid)
    floor = census + _sample_topic_sum(frame, design, labelled)
    return count, floor, resid, labelled


def _sample_topic_sum(frame: Frame, design: LabelledDesign, x: np.ndarray) -> np.ndarray:
    """Sum ``x[..., labelled pair]`` per topic."""
    flat = x.ndim == 1
    x2 = np.atleast_2d(x)
    out = np.zeros((x2.shape[0], len(frame.topics)))
    np.add.at(out.T, frame.topic[design.index], x2.T)
    return out[0] if flat else out
