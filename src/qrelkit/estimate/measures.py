"""Measures as functions of per-pair labels: what the estimators need to know about P@10 or nDCG@10.

Every supported measure of a run on a topic is ``F(numerator, denominator)``:

- the numerator is linear in the labels of the run's top k: ``sum_rank coef(rank) * h(grade)``
  (P@k: coef 1/k, h = relevant; RBP: (1-p) p^(rank-1), h = relevant; nDCG@k: 1/log2(rank+1), h = grade as
  gain, as trec_eval; R@k: 1, h = relevant);
- the denominator, where there is one, is built from totals over the topic's whole universe, shared by
  all runs: nDCG's ideal DCG from ``M_g`` = how many pairs have grade >= g (the ideal ranking puts the
  M_3 grade-3 pairs first, and so on, so ``IDCG = sum_g D(M_g)`` with ``D(m)`` the summed discount of
  the first m positions, made piecewise linear between integers so that estimated counts can be
  fractional); R@k's from the number of relevant pairs.

Linear measures (``F = numerator``) are estimated exactly by the linear estimator; ratios by plugging
estimated totals into F, corrected for bias and given a variance by the stratified jackknife
(:mod:`.jackknife`; :func:`ideal_slope`, the gradient of the ideal DCG, is what a first-order
linearisation would use, and why it fails: it is 0 once a count reaches k), whose coverage the tests
and benchmarks/estimates.py measure.

The names are ir_measures' (``P@10``, ``nDCG@10``, ``R@100``, ``RBP(p=0.8)``, ``Judged@10``), parsed by
ir_measures; binary measures take ``rel = threshold`` unless the name sets it (as ``evaluate`` does).
Judged@k depends on which pairs carry a label, not on grades: it is computed exactly on the universe
and reported with an interval of width 0. Other measures (AP, RR, Success, ...) are not linear and have
no estimator here yet: they are refused by name.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Optional

import numpy as np

from qrelkit.estimate.errors import EstimateError

SUPPORTED = ("P@k", "nDCG@k", "R@k", "RBP", "Judged@k")


@dataclass(frozen=True)
class MeasureKind:
    """A measure as the estimators see it.

    ``label`` is what h(grade) is: ``"relevant"`` (grade >= rel), ``"gain"`` (max(grade, 0)) or
    ``"judged"``; ``denominator`` is ``None``, ``"ideal"`` (nDCG's IDCG) or ``"relevant"`` (R@k)."""

    key: str
    cutoff: Optional[int]
    label: str
    rel: int
    denominator: Optional[str]
    persistence: float = 0.0  # RBP's p

    def coefficients(self, length: int) -> np.ndarray:
        """The weight of each rank 1..length in the numerator."""
        k = length if self.cutoff is None else min(length, self.cutoff)
        ranks = np.arange(1, k + 1, dtype=float)
        if self.denominator == "ideal":
            return 1.0 / np.log2(ranks + 1)
        if self.persistence:
            return (1 - self.persistence) * self.persistence ** (ranks - 1)
        if self.denominator == "relevant":
            return np.ones(k)
        return np.full(k, 1.0 / self.cutoff) if self.cutoff else np.ones(k)

    @property
    def linear(self) -> bool:
        return self.denominator is None

    def label_values(self, values: np.ndarray) -> np.ndarray:
        """h(v) for each possible people's grade v."""
        if self.label == "gain":
            return np.maximum(values, 0).astype(float)
        return (values >= self.rel).astype(float)

    def denominator_levels(self, values: np.ndarray) -> tuple[int, ...]:
        """The grade levels g whose counts M_g = #(grade >= g) the denominator needs."""
        if self.denominator == "ideal":
            return tuple(int(g) for g in range(1, int(max(values.max(), 0)) + 1))
        if self.denominator == "relevant":
            return (self.rel,)
        return ()

    def ratio(self, numer: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """F, dF/dnumerator and dF/dcounts (last axis: the levels) for ratio measures;
        numer has shape [..., topics], counts [topics, levels]. A topic whose denominator is 0 scores 0."""
        if self.denominator == "ideal":
            den = ideal_dcg(counts, self.cutoff)
            dden = ideal_slope(counts, self.cutoff)
        else:
            den = counts[..., 0]
            dden = np.ones_like(counts)
        ok = den > 1e-12
        safe = np.where(ok, den, 1.0)
        value = np.where(ok, numer / safe, 0.0)
        d_num = np.where(ok, 1.0 / safe, 0.0) * np.ones_like(numer)
        d_den = np.where(ok, -numer / safe**2, 0.0)
        return value, d_num, d_den[..., None] * dden


def cumulative_discount(m: np.ndarray, k: Optional[int]) -> np.ndarray:
    """D(m): the summed discount 1/log2(r+1) of positions 1..m, linear between integers, capped at k."""
    top = int(k) if k else int(max(np.max(m, initial=0), 0)) + 1
    disc = 1.0 / np.log2(np.arange(2, top + 2, dtype=float))
    cum = np.concatenate([[0.0], np.cumsum(disc)])
    m = np.clip(m, 0.0, float(top))
    lo = np.floor(m).astype(int)
    hi = np.minimum(lo + 1, top)
    return cum[lo] + (m - lo) * (cum[hi] - cum[lo])


def ideal_dcg(counts: np.ndarray, k: Optional[int]) -> np.ndarray:
    return cumulative_discount(counts, k).sum(axis=-1)


def ideal_slope(counts: np.ndarray, k: Optional[int]) -> np.ndarray:
    """dIDCG/dM_g: the discount of the position just past M_g (0 once M_g reaches k)."""
    top = int(k) if k else int(max(np.max(counts, initial=0), 0)) + 1
    pos = np.floor(np.clip(counts, 0.0, float(top))).astype(int) + 1
    return np.where(pos <= top, 1.0 / np.log2(pos + 1.0), 0.0)


def parse_measures(names: Sequence[str], threshold: int) -> tuple[MeasureKind, ...]:
    """The requested measures (ir_measures syntax, comma lists allowed), or an EstimateError naming the
    one that has no estimator."""
    import ir_measures

    out: list[MeasureKind] = []
    for name in [n.strip() for raw in names for n in str(raw).split(",") if n.strip()]:
        try:
            m = ir_measures.parse_measure(name)
        except Exception as e:  # ir_measures raises assorted errors for bad syntax
            raise EstimateError(f"unknown measure {name!r} ({e}); use ir_measures syntax, e.g. P@10, nDCG@10") from None
        out.append(_kind(name, m.NAME, dict(m.params), threshold))
    if not out:
        raise EstimateError("no measures given")
    return tuple(out)


def _kind(key: str, name: str, params: Mapping[str, object], threshold: int) -> MeasureKind:
    cutoff = params.get("cutoff")
    cutoff = int(cutoff) if cutoff is not None else None
    rel = int(params.get("rel", threshold) or threshold)
    extra = {p for p, v in params.items() if p not in ("cutoff", "rel", "p") and v is not None}
    if name == "P" and cutoff and not extra:
        return MeasureKind(key, cutoff, "relevant", rel, None)
    if name == "nDCG" and cutoff and not (extra - {"dcg", "gains", "judged_only"}) and _plain_ndcg(params):
        return MeasureKind(key, cutoff, "gain", 1, "ideal")
    if name == "R" and cutoff and not extra:
        return MeasureKind(key, cutoff, "relevant", rel, "relevant")
    if name == "RBP" and not extra:
        p = float(params.get("p", 0.8) or 0.8)
        return MeasureKind(key, cutoff, "relevant", rel, None, persistence=p)
    if name == "Judged" and cutoff and not extra:
        return MeasureKind(key, cutoff, "judged", rel, None)
    raise EstimateError(f"no estimator for {key!r}: estimates cover {', '.join(SUPPORTED)} "
                        "(with a cut-off); AP, RR and other nonlinear measures are not supported yet")


def _plain_ndcg(params: Mapping[str, object]) -> bool:
    return params.get("dcg") in (None, "log2") and params.get("gains") is None and not params.get("judged_only")


def judged_share(runs: Mapping[str, Mapping[str, Sequence[str]]], names: Sequence[str],
                 topics: Sequence[str], universe: frozenset, k: int) -> np.ndarray:
    """Judged@k per run: the share of each topic's top k inside the universe, averaged over topics."""
    out = np.zeros(len(names))
    for r, name in enumerate(names):
        ranking = runs[name]
        vals = [sum((q, d) in universe for d in list(ranking.get(q, ()))[:k]) / k for q in topics]
        out[r] = float(np.mean(vals)) if vals else 0.0
    return out


def finite(x: float) -> float:
    return float(x) if math.isfinite(x) else float("nan")
