"""Flips: how often a judge's label changes between an untouched pair and its probe, with an interval.

A flip is a pair whose untouched and altered versions the judge both decided, with different
binary labels; a pair with either verdict undecided (escalated, error) is not counted, and is
reported apart. The rate is flips over the decided pairs, with a Wilson score interval
(scipy's ``binomtest(...).proportion_ci(method="wilson")``): it stays inside [0, 1] and keeps its
coverage at the small counts an audit has (50 pairs, a handful of flips), where the normal
approximation does not (tests/audit/test_flips.py checks the coverage by simulation).

The judge's relevant rate on the untouched pairs is the baseline a flip rate is read against: a
judge that already calls 40 % of the non-relevant pairs relevant has fewer left to flip.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Mapping, Optional, Sequence

CONFIDENCE = 0.95
Pair = tuple[str, str]


@dataclass(frozen=True)
class Rate:
    """A proportion with its Wilson interval; all None when nothing was counted."""

    k: int
    n: int
    rate: Optional[float]
    low: Optional[float]
    high: Optional[float]


def wilson(k: int, n: int, confidence: float = CONFIDENCE) -> Rate:
    if n == 0:
        return Rate(0, 0, None, None, None)
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    return Rate(k, n, k / n, float(ci.low), float(ci.high))


@dataclass(frozen=True)
class ProbeResult:
    """One probe over its pairs: flips against the untouched pairs, and both relevant rates."""

    probe: str
    family: str
    base: str  # the untouched pairs' class: nonrelevant | relevant
    pairs: int
    decided: int  # pairs whose untouched and altered verdicts are both decided
    flips: int
    to_relevant: int
    to_nonrelevant: int
    flip_rate: Rate
    baseline_relevant: Rate  # the judge on the untouched pairs (decided ones)
    probe_relevant: Rate  # the judge on the altered pairs (decided ones)

    def to_dict(self) -> dict:
        out = asdict(self)
        for key in ("flip_rate", "baseline_relevant", "probe_relevant"):
            r = out.pop(key)
            out[key], out[f"{key}_low"], out[f"{key}_high"] = r["rate"], r["low"], r["high"]
        return out


def count(probe: str, family: str, base: str, pairs: Sequence[tuple[Pair, Pair]],
          labels: Mapping[Pair, Optional[int]]) -> ProbeResult:
    """``pairs``: (untouched, altered) keys; ``labels``: the judge's binary label per key (None:
    undecided, missing: not judged)."""
    before = [labels.get(a) for a, _ in pairs]
    after = [labels.get(b) for _, b in pairs]
    both = [(x, y) for x, y in zip(before, after) if x is not None and y is not None]
    up = sum(1 for x, y in both if x == 0 and y == 1)
    down = sum(1 for x, y in both if x == 1 and y == 0)
    seen_before = [x for x in before if x is not None]
    seen_after = [y for y in after if y is not None]
    return ProbeResult(probe, family, base, len(pairs), len(both), up + down, up, down, wilson(up + down, len(both)),
                       wilson(sum(seen_before), len(seen_before)), wilson(sum(seen_after), len(seen_after)))
