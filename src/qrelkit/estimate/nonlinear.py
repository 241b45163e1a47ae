"""One measure fitted on the sample: its totals as functions of lambda, and their linearisation.

A run's score is ``mean over topics of F(numerator, denominator counts)`` (:mod:`.measures`).

The numerator is estimated by the linear estimator of :mod:`.ppi`; as a function of PPI++'s lambda it
is ``A + lambda B``: A holds the census pairs exactly and the people's labels weighted by 1/pi, B the
judge's calibrated predictions on the universe minus their weighted values on the sample. A linear
measure (P@k, RBP) is a straight line in lambda with an exact design variance.

A ratio (nDCG@k, R@k) plugs the numerator and the denominator's counts into F; its variance comes from
the first-order (delta-method) linearisation of F in the numerator, so that ``z = zy - lambda zf`` is
again a linear statistic of the sample (zy: through the people's labels, zf: through the predictions,
so that lambda can be tuned per run, and per pair of runs for differences).

The denominator's counts (nDCG's ideal DCG: how many pairs reach each grade; R@k's relevant pairs) come
from the people's labels alone (Horvitz–Thompson, census exact), never from the top k of pseudo-labels,
which biases the ideal upward. Measured on DL 2019 with the Llama-3.3-70B labels (926 labels, weighted
design, 30 draws; ``/tmp``-free: benchmarks/estimates.py reproduces the final figures):

- the judge does not help here: its predictions of which deep pairs are grade 3 are poor, power tuning
  gave the counts lambda 0.1-0.2, and a lambda of 1 left the bias below unchanged;
- a floor: a topic has at least as many pairs of a grade as people labelled so (a pointwise gain);
- a skew correction: a relevant pair outside every run's top k is rare and, when drawn, carries a large
  weight 1/pi, so a count's estimate is usually a little low and now and then far too high. The ideal DCG
  saturates at k pairs, keeping the lows and clipping the highs: plugged in as it was, the count made
  the ideal 4% too small and nDCG@10 0.03 too high, and 95% intervals covered 57% of the time. Adding
  ``SKEW`` = 1.5 design standard errors of the count before the plug-in took the bias to 0.18 standard
  errors (1.0: 0.39, 2.0: over-corrected) and coverage to 0.93. A measured correction, not a theorem;
- the counts' own first-order term is left out of the variance: the ideal DCG is a kinked function of
  the counts, and its linearisation cancelled against the numerator's, understating the spread (the
  estimates' standard deviation was 1.08 times the standard error with it, 1.03 without).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qrelkit.estimate.frame import Frame
from qrelkit.estimate.measures import MeasureKind
from qrelkit.estimate.ppi import LabelledDesign

SKEW = 1.5  # the counts' upward correction, in design standard errors of the count (see above)


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
    """A measure's numerator ``A + lambda B`` ([run, topic]) and denominator counts ([topic, level], with
    the corrections above), with the sample's coefficients for the influence."""

    kind: MeasureKind
    a: np.ndarray
    b: np.ndarray
    counts: np.ndarray
    coef_s: np.ndarray  # [run, labelled pair]
    hy: np.ndarray  # [labelled pair]
    hf: np.ndarray
    topic_s: np.ndarray

    def value(self, rows: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """Estimates for runs ``rows`` at ``lam`` (one lambda per row)."""
        numer = self.a[rows] + np.reshape(lam, (-1, 1)) * self.b[rows]
        if self.kind.linear:
            return numer.mean(axis=1)
        return self.kind.ratio(numer, self.counts)[0].mean(axis=1)

    def influence(self, rows: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(zy, zf), ``[row, labelled pair]``: each labelled pair's first-order effect on the estimate
        through its label and through its prediction, at ``lam``."""
        n_topics = self.a.shape[1]
        coef = self.coef_s[rows] / n_topics
        if not self.kind.linear:
            numer = self.a[rows] + np.reshape(lam, (-1, 1)) * self.b[rows]
            coef = coef * self.kind.ratio(numer, self.counts)[1][:, self.topic_s]
        return coef * self.hy, coef * self.hf


def fit_measure(frame: Frame, kind: MeasureKind, inp: Inputs) -> Fitted:
    design = inp.design
    h = kind.label_values(inp.values)
    coef_s = np.asarray(frame.coefficients(kind)[:, design.index].todense())
    hy, hf = h[np.searchsorted(inp.values, design.grade)], inp.own @ h
    expected = inp.every @ h
    exact_h, pred_h = np.where(inp.exact, expected, 0.0), np.where(inp.exact, 0.0, expected)
    a = frame.per_topic(kind, exact_h) + _sample_topic_sum(frame, design, coef_s * design.weight * hy)
    b = frame.per_topic(kind, pred_h) - _sample_topic_sum(frame, design, coef_s * design.weight * hf)
    levels = kind.denominator_levels(inp.values)
    counts = np.zeros((len(frame.topics), max(len(levels), 1)))
    for j, g in enumerate(levels):
        counts[:, j] = _count(frame, inp, (inp.values >= g).astype(float))
    return Fitted(kind, a, b, counts, coef_s, hy, hf, frame.topic[design.index])


def _count(frame: Frame, inp: Inputs, hg: np.ndarray) -> np.ndarray:
    """Per topic: how many pairs have h = 1, from the census and the people's sample, corrected (above)."""
    design = inp.design
    census = frame.topic_sum(np.where(inp.exact, inp.every @ hg, 0.0))
    labelled = hg[np.searchsorted(inp.values, design.grade)]
    estimate = census + _sample_topic_sum(frame, design, design.weight * labelled)
    floor = census + _sample_topic_sum(frame, design, labelled)
    per_topic = np.zeros((len(frame.topics), len(labelled)))
    per_topic[frame.topic[design.index], np.arange(len(labelled))] = labelled
    spread = np.sqrt(np.maximum(design.var(per_topic), 0.0))
    return np.maximum(estimate + SKEW * spread, floor)


def _sample_topic_sum(frame: Frame, design: LabelledDesign, x: np.ndarray) -> np.ndarray:
    """Sum ``x[..., labelled pair]`` per topic."""
    flat = x.ndim == 1
    x2 = np.atleast_2d(x)
    out = np.zeros((x2.shape[0], len(frame.topics)))
    np.add.at(out.T, frame.topic[design.index], x2.T)
    return out[0] if flat else out
