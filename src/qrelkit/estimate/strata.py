"""Strata: how a budget is split over topics and weight classes, and how a sample's strata are read back.

Every design draws a *stratified simple random sample without replacement*: the universe is cut into
strata (a topic, and within a topic classes of pairs with similar weight), stratum h gets n_h of the
budget, and n_h of its N_h pairs are drawn at random. Why this design:

- each pair's first-order inclusion probability is exactly ``pi = n_h / N_h``, and the design has an
  exactly unbiased variance estimator, ``sum_h N_h^2 (1 - n_h/N_h) s_h^2 / n_h``; no approximation
  (unlike fixed-size unequal-probability designs such as Pareto or systematic pps), no repeated pairs
  (unlike draws with replacement, which waste labels and lose the finite-population correction), and a
  fixed size (unlike Poisson sampling);
- stratifying by topic removes the between-topic variance, and weight classes give Neyman-like
  allocation: n_h in proportion to the stratum's total weight (the Dalenius–Hodges cum-sqrt idea).

A sample file stores only ``qid docid probability``. The strata are read back as the groups of equal
``(qid, probability)``: n_h is the group's row count and N_h = n_h / pi. Two strata of one topic that
happen to share a probability read back as one; that is the same draw with a proportional allocation,
whose variance estimate is then slightly conservative, never too small.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

MAX_CLASSES = 4  # weight classes per topic; more only pays with many labels per topic
MIN_PER_STRATUM = 2  # a stratum needs two draws for its variance


def apportion(total: int, weights: Sequence[float], lower: Sequence[int], upper: Sequence[int]) -> list[int]:
    """Integers ``n_j`` summing to ``total``, proportional to ``weights`` within ``lower <= n_j <= upper``.

    Bounds are settled first (a share that falls outside its bound is fixed at it and the rest is
    re-shared), then the remaining units go by largest remainder, ties to the first index, so the
    result is deterministic."""
    n = len(weights)
    fixed: dict[int, int] = {}
    while True:
        free = [j for j in range(n) if j not in fixed]
        left = total - sum(fixed.values())
        wsum = sum(weights[j] for j in free)
        share = {j: (left * weights[j] / wsum if wsum > 0 else left / max(len(free), 1)) for j in free}
        low = [j for j in free if share[j] < lower[j]]
        high = [j for j in free if share[j] > upper[j]]
        if not low and not high:
            break
        for j in low:
            fixed[j] = lower[j]
        for j in high:
            fixed[j] = upper[j]
    out = [fixed.get(j, 0) for j in range(n)]
    base = {j: min(upper[j], max(lower[j], math.floor(share[j]))) for j in free}
    for j in free:
        out[j] = base[j]
    rest = total - sum(out)
    order = sorted(free, key=lambda j: (-(share[j] - base[j]), j))
    for j in order:
        if rest <= 0:
            break
        if out[j] < upper[j]:
            out[j] += 1
            rest -= 1
    return out


def weight_classes(weights: np.ndarray, draws: int) -> list[np.ndarray]:
    """Split one topic's pairs (by position) into at most ``MAX_CLASSES`` classes of similar weight, each
    holding about the same total weight, so that each can get ``MIN_PER_STRATUM`` draws."""
    order = np.lexsort((np.arange(len(weights)), weights))
    k = max(1, min(MAX_CLASSES, draws // (2 * MIN_PER_STRATUM), len(weights) // MIN_PER_STRATUM))
    if k == 1 or np.ptp(weights) == 0:
        return [order]
    cum = np.cumsum(weights[order])
    cuts = np.searchsorted(cum, cum[-1] * np.arange(1, k) / k, side="right")
    parts = [p for p in np.split(order, cuts) if len(p)]
    merged: list[np.ndarray] = []
    for p in parts:  # a class too small for two draws joins its neighbour
        if merged and len(merged[-1]) < MIN_PER_STRATUM:
            merged[-1] = np.concatenate([merged[-1], p])
        else:
            merged.append(p)
    if len(merged) > 1 and len(merged[-1]) < MIN_PER_STRATUM:
        last = merged.pop()
        merged[-1] = np.concatenate([merged[-1], last])
    return merged


@dataclass(frozen=True)
class Stratum:
    """One stratum as a sample describes it: a topic, its pairs' inclusion probability, the pairs drawn
    (``drawn``, n_h) and the number of pairs it covers (``size``, N_h = n_h / probability)."""

    qid: str
    probability: float
    drawn: tuple[tuple[str, str], ...]
    size: int


def strata_of(pairs: Sequence[tuple[str, str, float]]) -> tuple[Stratum, ...]:
    """Read the strata back from ``(qid, docid, probability)`` rows (see the module docstring).
    N_h is rounded to the nearest integer; :func:`size_problem` says when that rounding hides a sample
    that is not a stratified draw."""
    groups: dict[tuple[str, float], list[tuple[str, str]]] = {}
    for qid, docid, p in pairs:
        groups.setdefault((qid, float(p)), []).append((qid, docid))
    return tuple(
        Stratum(qid, p, tuple(members), int(round(len(members) / p)))
        for (qid, p), members in sorted(groups.items())
    )


def size_problem(stratum: Stratum) -> str | None:
    """Why a read-back stratum cannot come from drawing n_h of N_h pairs, or None."""
    exact = len(stratum.drawn) / stratum.probability
    if abs(exact - stratum.size) > 1e-6 * max(1.0, exact):
        return (f"topic {stratum.qid}: {len(stratum.drawn)} pairs with probability {stratum.probability!r} "
                f"imply {exact:.4f} pairs in their stratum, not a whole number")
    return None


def stratum_sizes(strata: Sequence[Stratum]) -> Mapping[str, int]:
    """Pairs covered per topic (sum of N_h): what the universe must hold outside the census."""
    out: dict[str, int] = {}
    for s in strata:
        out[s.qid] = out.get(s.qid, 0) + s.size
    return out
