"""Turning a judge's raw scores into probabilities people can budget against.

A judge's raw confidence (the log-odds of "yes" against "no", or a query
likelihood gain) is rarely calibrated: a small model may say "yes" to almost
everything, so "closest to P(yes) = 0.5" picks cases it is sure about for the
wrong reasons. A logistic regression fitted on the human labels available so
far maps scores (and optional cheap features, e.g. document length) to
P(relevant); the cases whose *calibrated* probability is closest to 0.5 are
the ones worth a person's time (LARA, Takehi et al. 2025).

Degenerate data: with fewer than :data:`MIN_PER_CLASS` labels of either class
there is nothing to fit, and the raw score is read as log-odds as it is
(``fitted: false`` in the record), so the judge's own default decision — "yes"
more likely than "no", or a likelihood gain above 0 — stands until people
have said enough.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

MIN_PER_CLASS = 2
C = 10.0  # weak regularisation: a handful of features, and separable data must not blow up


def sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@dataclass(frozen=True)
class Calibrator:
    """P(relevant | features) = sigmoid(intercept + coef · features)."""

    features: tuple[str, ...]
    coef: tuple[float, ...]
    intercept: float
    n: int
    relevant: int
    fitted: bool

    def probability(self, x: Sequence[float]) -> float:
        return sigmoid(self.intercept + sum(c * v for c, v in zip(self.coef, x)))

    def as_dict(self) -> dict:
        return {
            "features": list(self.features),
            "coef": [round(c, 6) for c in self.coef],
            "intercept": round(self.intercept, 6),
            "n": self.n,
            "relevant": self.relevant,
            "fitted": self.fitted,
        }


def identity(features: Sequence[str], n: int = 0, relevant: int = 0) -> Calibrator:
    """The raw score read as log-odds (other features ignored)."""
    coef = (1.0,) + (0.0,) * (len(features) - 1)
    return Calibrator(tuple(features), coef, 0.0, n, relevant, False)


def fit(x: Sequence[Sequence[float]], y: Sequence[int], features: Sequence[str]) -> Calibrator:
    """Logistic regression (scikit-learn) of labels on features; identity when it cannot be fitted."""
    pos = sum(1 for v in y if v)
    neg = len(y) - pos
    if pos < MIN_PER_CLASS or neg < MIN_PER_CLASS:
        return identity(features, len(y), pos)
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=C, solver="lbfgs", max_iter=1000)
    model.fit(np.asarray(x, dtype=float).reshape(len(y), -1), np.asarray(y, dtype=int))
    return Calibrator(
        tuple(features),
        tuple(float(c) for c in model.coef_[0]),
        float(model.intercept_[0]),
        len(y),
        pos,
        True,
    )


def uncertain_first(probabilities: Sequence[Optional[float]], k: int) -> list[int]:
    """Indices of the ``k`` probabilities closest to 0.5 (None never chosen; ties by index)."""
    ranked = sorted(
        (i for i, p in enumerate(probabilities) if p is not None),
        key=lambda i: (abs(probabilities[i] - 0.5), i),  # type: ignore[operator]
    )
    return ranked[: max(0, k)]


def allowance(cap: int, total: int, done_after: int, escalated: int) -> int:
    """Escalations a batch may make so that the budget is spent evenly over the selection.

    After ``done_after`` of ``total`` cases, at most ``floor(cap * done_after / total)``
    escalations should have been made; what earlier batches left unused carries over,
    and the last batch brings the total up to ``cap``."""
    if total <= 0:
        return 0
    target = cap if done_after >= total else (cap * done_after) // total
    return max(0, target - escalated)
