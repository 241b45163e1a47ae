"""Differences between runs and the ranking's tied groups.

Two runs are scored on the same sample, so their difference is estimated as one statistic: the per-pair
influence of run A minus that of run B, with its own PPI++ lambda. The judge's errors on pairs both
runs rank cancel, and so does the sampling noise of those pairs, which makes a difference's interval
much narrower than either score's (and far narrower than two independent intervals would suggest).

Tied groups: runs in order of their estimates; a group starts with its best run and takes every next
run whose difference from that best run has an interval containing 0. A run outside the group is thus
significantly below the group's head at level alpha (unadjusted for the many pairs, as a reading aid;
the wrong-sign rate of these declarations is what benchmarks/estimates.py measures).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from qrelkit.estimate.nonlinear import Fitted
from qrelkit.estimate.ppi import half_width, power_tune


@dataclass(frozen=True)
class Difference:
    """Run ``a`` minus run ``b`` on ``measure``, with its interval."""

    a: str
    b: str
    measure: str
    estimate: float
    low: float
    high: float

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "measure": self.measure, "estimate": self.estimate,
                "low": self.low, "high": self.high}

    @property
    def significant(self) -> bool:
        return self.low > 0 or self.high < 0


def pair_rows(n: int) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.triu_indices(n, k=1)
    return a, b


def estimate_differences(fitted: Fitted, names: Sequence[str], own_lam: np.ndarray,
                         alpha: float) -> tuple[Difference, ...]:
    """Every pair of runs (in input order, a before b) on one measure: lambda tuned on the design strata's
    variance, the interval from the fit's variance groups (a ratio's topics, :mod:`.jackknife`)."""
    a, b = pair_rows(len(names))
    if not len(a):
        return ()
    rows = np.arange(len(names))
    ty, tf = fitted.influence(rows, own_lam, tuning=True)
    dy, df = ty[a] - ty[b], tf[a] - tf[b]
    lam = power_tune(fitted.strata, dy, df, fitted.anticipated(a, dy, df, minus=b, tuning=True))
    est = fitted.value(a, lam) - fitted.value(b, lam)
    zy, zf = fitted.influence(rows, own_lam)
    dy, df = zy[a] - zy[b], zf[a] - zf[b]
    half = half_width(fitted.design, dy, df, lam, alpha, fitted.anticipated(a, dy, df, minus=b))
    return tuple(Difference(names[i], names[j], fitted.kind.key, float(e), float(e - h), float(e + h))
                 for i, j, e, h in zip(a, b, est, half))


def exact_differences(names: Sequence[str], key: str, scores: np.ndarray) -> tuple[Difference, ...]:
    """Differences of a measure known exactly (Judged@k): intervals of width 0."""
    a, b = pair_rows(len(names))
    return tuple(Difference(names[i], names[j], key, float(scores[i] - scores[j]),
                            float(scores[i] - scores[j]), float(scores[i] - scores[j])) for i, j in zip(a, b))


def tied_groups(names: Sequence[str], estimates: Sequence[float], diffs: Sequence[Difference]) -> tuple[tuple[str, ...], ...]:
    """Groups of runs, best first, within which no run is significantly below the group's head."""
    differ = {(d.a, d.b): d for d in diffs}

    def tied(x: str, y: str) -> bool:
        d = differ.get((x, y)) or differ.get((y, x))
        return d is None or not d.significant

    order = sorted(range(len(names)), key=lambda i: (-estimates[i], names[i]))
    groups: list[list[str]] = []
    for i in order:
        if groups and tied(groups[-1][0], names[i]):
            groups[-1].append(names[i])
        else:
            groups.append([names[i]])
    return tuple(tuple(g) for g in groups)
