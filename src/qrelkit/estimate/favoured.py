"""Judge-favoured runs: runs whose score under the judge's labels exceeds their people-corrected estimate
by more than other runs' does: the signature of a system that shares the judge's preferences.

The statistic. A judge inflates everyone's scores (the Llama-3.3-70B labels add 0.29 to P@10 on DL 2019),
and a weak run, with more non-relevant pairs in its top k, gives the judge more room: a raw excess
``gap = labels-only - estimate`` flags weak runs and, measured on DL 2019, none of ten runs re-ranked by
the judge's own labels. What marks a system that shares the judge's preferences is that the judge calls
*relevant a larger share of the run's non-relevant pairs*: ``favour = gap / (1 - estimate)`` (1 when
every pair people reject is one the judge accepts, as for a run re-ranked by the judge). Its interval
follows from the estimate's (favour decreases in the estimate: the estimate's upper end gives favour's
lower end).

"More than other runs'". Favour grows with a run's quality (a strong run's non-relevant pairs are near
misses the judge accepts more often: on DL 2019 the official runs' favour rises about 0.7-1.0 per unit of
nDCG@10 or P@10), so a run is compared with what runs *of its quality* get: a robust line of favour on
the estimate, fitted by reweighted least trimmed squares (Rousseeuw) on the best-fitting ``COVERAGE``
(three quarters) of the runs, so that up to a quarter of favoured runs cannot drag it; ``expected`` is
the line at the run's estimate. A run is flagged when its excess over ``expected`` is beyond both the
spread of the runs around the line and its own interval: ``z = excess / sqrt(sigma^2 + se^2)`` (sigma the
runs' residual sd around the line, which holds their own noise too, so this errs on the side of not
flagging; se the run's favour standard error), a one-sided p-value, adjusted for the number of runs by
Holm's method, below ``alpha``; and the judge must inflate it at all and more than most runs (its
labels-only score above the estimate's interval, its favour's lower end above ``expected`` and above the
other runs' median favour). So when no run is favoured, the chance that any is flagged is about ``alpha``
or less, whatever the number of runs. The median condition is there because the line is straight and
favour is not: on DL 2019 a steep line through the middle runs passed below the weakest ones in one of
five development draws and flagged five BM25-like runs whose favour was below most runs'; a run the
judge inflates less than most runs is not favoured, whatever its quality.

The rule before this one (the lower end of the favour interval above the upper quartile of the other
runs' favour) flagged 5-10 of DL 2019's 37 official runs when no copy was among them: the upper quartile
of any set of runs is exceeded by someone. The measured figures of both are in docs/estimates.md. Fewer
than ``MIN_RUNS`` runs give no line to compare with: nothing is flagged. No run metadata is needed (the
``--judge-model`` circularity check stays separate).

Contract (stable; ``qrelkit estimate --json``'s ``favoured`` list and the report read it):
:func:`favoured_runs` gives one :class:`Favoured` per run of one measure; ``Favoured.to_dict`` is a
``favoured`` entry of the JSON object (which lists the flagged runs only).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

if TYPE_CHECKING:
    from qrelkit.estimate.estimators import EstimateRow, Estimates

COVERAGE = 0.75  # the share of runs the robust line is fitted on: at most a quarter may be favoured
MIN_RUNS = 5
MAX_CANDIDATES = 5000  # pairs of runs tried as starting lines (all of them up to 100 runs)


@dataclass(frozen=True)
class Favoured:
    """One run on one measure: the gap (labels-only minus estimate) and its interval, the favour (the
    gap as a share of the run's non-relevant room) and its interval, the favour runs of its quality get
    (``expected``), the Holm-adjusted p-value of its excess, and whether that flags it."""

    run: str
    measure: str
    gap: float
    gap_low: float
    gap_high: float
    favour: float
    favour_low: float
    favour_high: float
    expected: float
    p_value: float
    flagged: bool

    def to_dict(self) -> dict:
        return {"run": self.run, "measure": self.measure, "gap": self.gap, "low": self.gap_low,
                "high": self.gap_high, "favour": self.favour, "favour_low": self.favour_low,
                "favour_high": self.favour_high, "expected": self.expected, "p_value": self.p_value,
                "flagged": self.flagged}


def favoured_runs(rows: Sequence["EstimateRow"], alpha: float = 0.05) -> tuple[Favoured, ...]:
    """The check over the rows of one measure (every run's estimate, interval and labels-only score)."""
    est = np.array([r.estimate for r in rows])
    point = np.array([_favour(r.labels_only, r.estimate) for r in rows])
    lower = np.array([_favour(r.labels_only, r.high) for r in rows])
    upper = np.array([_favour(r.labels_only, r.low) for r in rows])
    expected = np.full(len(rows), np.nan)
    p = np.ones(len(rows))
    if len(rows) >= MIN_RUNS:
        a, b, sigma = robust_line(est, point)
        expected = a + b * est
        se = (upper - lower) / (2 * stats.norm.ppf(1 - alpha / 2))
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (point - expected) / np.sqrt(sigma ** 2 + se ** 2)
        p = holm(np.where(np.isnan(z), 1.0, stats.norm.sf(z)))
    return tuple(Favoured(r.run, r.measure, r.labels_only - r.estimate, r.labels_only - r.high,
                          r.labels_only - r.low, float(point[i]), float(lower[i]), float(upper[i]),
                          float(expected[i]), float(p[i]),
                          bool(p[i] <= alpha and lower[i] > expected[i] and r.labels_only > r.high
                               and lower[i] > float(np.median(np.delete(point, i)))))
                 for i, r in enumerate(rows))


def judge_favoured(estimates: "Estimates", measure: str) -> tuple[Favoured, ...]:
    """The check on one measure of an :class:`~qrelkit.estimate.estimators.Estimates`."""
    return favoured_runs([r for r in estimates.rows if r.measure == measure], estimates.alpha)


def robust_line(x: np.ndarray, y: np.ndarray, coverage: float = COVERAGE, steps: int = 20) -> tuple[float, float, float]:
    """Reweighted least trimmed squares: the line through two points whose ``coverage`` best-fitting runs
    have the least squared residuals, refined by C-steps, then refitted on the runs within 2.5 sigma
    (sigma made consistent for the trimming). Returns intercept, slope and the refit's residual sd."""
    n = len(x)
    h = max(int(np.ceil(coverage * n)), 3)
    i, j = np.triu_indices(n, k=1)
    if len(i) > MAX_CANDIDATES:
        pick = np.random.default_rng(0).choice(len(i), MAX_CANDIDATES, replace=False)
        i, j = i[pick], j[pick]
    keep = x[i] != x[j]
    i, j = i[keep], j[keep]
    if not len(i):
        return float(np.median(y)), 0.0, float(stats.median_abs_deviation(y, scale="normal"))
    slope = (y[j] - y[i]) / (x[j] - x[i])
    icpt = y[i] - slope * x[i]
    trimmed = np.sort((y[None, :] - icpt[:, None] - slope[:, None] * x[None, :]) ** 2, axis=1)[:, :h].sum(axis=1)
    best = int(np.argmin(trimmed))
    a, b = float(icpt[best]), float(slope[best])
    for _ in range(steps):
        idx = np.argsort((y - a - b * x) ** 2)[:h]
        b, a = _fit(x[idx], y[idx])
    r = y - a - b * x
    beta = h / n
    q = stats.norm.ppf((1 + beta) / 2)
    factor = 1 - 2 * q * stats.norm.pdf(q) / beta if beta < 1 else 1.0
    sigma = float(np.sqrt(np.sort(r ** 2)[:h].mean() / factor))
    ok = np.abs(r) <= 2.5 * sigma if sigma > 0 else np.ones(n, dtype=bool)
    b, a = _fit(x[ok], y[ok])
    r = y - a - b * x
    return a, b, float(np.sqrt((r[ok] ** 2).sum() / max(int(ok.sum()) - 2, 1)))


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error over the runs)."""
    order = np.argsort(p)
    m = len(p)
    adjusted = np.maximum.accumulate(np.minimum((m - np.arange(m)) * p[order], 1.0))
    out = np.empty(m)
    out[order] = adjusted
    return out


def _fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Least-squares slope and intercept (a flat line when x does not vary)."""
    if np.ptp(x) == 0:
        return 0.0, float(np.mean(y))
    b, a = np.polyfit(x, y, 1)
    return float(b), float(a)


def _favour(labels_only: float, estimate: float) -> float:
    """The share of the run's non-relevant mass that the judge's labels count (see above)."""
    room = 1.0 - min(estimate, 1.0)
    return (labels_only - estimate) / room if room > 1e-9 else 0.0
