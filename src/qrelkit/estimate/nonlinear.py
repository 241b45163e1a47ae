"""One measure fitted on the sample: its totals as functions of lambda, and their linearisation.

A run's score is ``mean over topics of F(numerator, denominator totals)`` (:mod:`.measures`). Each total
is estimated by the linear estimator of :mod:`.ppi`, so as a function of PPI++'s lambda it is
``A + lambda B``: A holds the census pairs exactly and the people's labels weighted by 1/pi, B the
judge's calibrated predictions on the universe minus their weighted values on the sample. A linear
measure (P@k, RBP) is then a straight line in lambda and its variance is exact. A ratio (nDCG@k, R@k)
is estimated by plugging the totals into F; its variance comes from the first-order (delta-method)
linearisation: each labelled pair's influence is the gradient of F times its contribution to each total,
so that ``z = zy - lambda zf`` is again a linear statistic of the sample and the design variance of
:mod:`.ppi` applies. The influence is split into zy (the people's labels) and zf (the predictions) so
that lambda can be tuned per run, and per pair of runs for differences. The ideal DCG is built from
estimated counts per grade, never from the top k of pseudo-labels, which biases it upward.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qrelkit.estimate.frame import Frame
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
    """A measure's totals ``A + lambda B`` (numerator, [run, topic]) and ``C + lambda D`` (denominator
    counts, [topic, level]), with the sample's coefficients for the influence."""

    kind: MeasureKind
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    d: np.ndarray
    coef_s: np.ndarray  # [run, labelled pair]
    hy: np.ndarray  # [labelled pair]
    hf: np.ndarray
    gy: np.ndarray  # [labelled pair, level]
    gf: np.ndarray
    topic_s: np.ndarray

    def value(self, rows: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """Estimates for runs ``rows`` at ``lam`` (one lambda per row)."""
        numer = self.a[rows] + lam[:, None] * self.b[rows]
        if self.kind.linear:
            return numer.mean(axis=1)
        counts = self.c[None] + lam[:, None, None] * self.d[None]
        return self.kind.ratio(numer, counts)[0].mean(axis=1)

    def influence(self, rows: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(zy, zf), ``[row, labelled pair]``: each labelled pair's first-order effect on the estimate,
        through its label and through its prediction, evaluated at ``lam``."""
        n_topics = self.a.shape[1]
        coef = self.coef_s[rows]
        if self.kind.linear:
            return coef * self.hy / n_topics, coef * self.hf / n_topics
        numer = self.a[rows] + lam[:, None] * self.b[rows]
        counts = self.c[None] + lam[:, None, None] * self.d[None]
        _, d_num, d_den = self.kind.ratio(numer, counts)
        dn = d_num[:, self.topic_s] * coef / n_topics
        dd = d_den[:, self.topic_s, :] / n_topics
        zy = dn * self.hy + np.einsum("rsg,sg->rs", dd, self.gy)
        zf = dn * self.hf + np.einsum("rsg,sg->rs", dd, self.gf)
        return zy, zf


def fit_measure(frame: Frame, kind: MeasureKind, inp: Inputs) -> Fitted:
    design = inp.design
    h = kind.label_values(inp.values)
    coef = frame.coefficients(kind)
    coef_s = np.asarray(coef[:, design.index].todense())
    hy, hf = h[_value_index(inp.values, design.grade)], inp.own @ h
    exact_h, pred_h = _split(inp, h)
    a = frame.per_topic(kind, exact_h) + _sample_topic_sum(frame, design, coef_s * design.weight * hy)
    b = frame.per_topic(kind, pred_h) - _sample_topic_sum(frame, design, coef_s * design.weight * hf)
    levels = kind.denominator_levels(inp.values)
    n_s = len(design.index)
    gy, gf = np.zeros((n_s, max(len(levels), 1))), np.zeros((n_s, max(len(levels), 1)))
    c = np.zeros((len(frame.topics), max(len(levels), 1)))
    d = np.zeros_like(c)
    for j, g in enumerate(levels):
        hg = (inp.values >= g).astype(float)
        gy[:, j], gf[:, j] = hg[_value_index(inp.values, design.grade)], inp.own @ hg
        eg, pg = _split(inp, hg)
        c[:, j] = frame.topic_sum(eg) + _sample_topic_sum(frame, design, design.weight * gy[:, j])
        d[:, j] = frame.topic_sum(pg) - _sample_topic_sum(frame, design, design.weight * gf[:, j])
    return Fitted(kind, a, b, c, d, coef_s, hy, hf, gy, gf, frame.topic[design.index])


def _value_index(values: np.ndarray, grades: np.ndarray) -> np.ndarray:
    return np.searchsorted(values, grades)


def _split(inp: Inputs, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per universe pair: h of the exact (census) label, and the predicted h of every other pair."""
    expected = inp.every @ h
    return np.where(inp.exact, expected, 0.0), np.where(inp.exact, 0.0, expected)


def _sample_topic_sum(frame: Frame, design: LabelledDesign, x: np.ndarray) -> np.ndarray:
    """Sum ``x[..., labelled pair]`` per topic."""
    flat = x.ndim == 1
    x2 = np.atleast_2d(x)
    out = np.zeros((x2.shape[0], len(frame.topics)))
    np.add.at(out.T, frame.topic[design.index], x2.T)
    return out[0] if flat else out
