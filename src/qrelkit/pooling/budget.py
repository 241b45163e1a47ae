"""A total judging budget split over topics: equal shares, leftovers passed on.

The rule, stated once: every topic gets the same number of pairs L, or all its candidates
when it has fewer, with L as large as the budget allows (what a topic too small for its
share leaves is passed on to the others); the pairs still left after that, fewer than the
topics with more than L candidates, go one each to those topics in qid order. So the
budget is spent whole unless every candidate is in, and topics that could take more end
within one pair of each other.

Equal shares because a collection's measures average over topics, each counting the same,
so a topic starved of judgments distorts every system's mean; leftovers are passed on
so that no budget is left unspent while some topic still has pairs to judge.
"""
from __future__ import annotations

from collections.abc import Mapping


def split_budget(budget: int, available: Mapping[str, int]) -> dict[str, int]:
    """Pairs per topic (every key of ``available``) for a ``budget`` over all topics."""
    if budget >= sum(available.values()):
        return dict(available)
    lo, hi = 0, max(available.values())  # the largest level L that the budget can give everyone
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sum(min(n, mid) for n in available.values()) <= budget:
            lo = mid
        else:
            hi = mid - 1
    quota = {q: min(n, lo) for q, n in available.items()}
    left = budget - sum(quota.values())
    for q in sorted(q for q, n in available.items() if n > lo)[:left]:
        quota[q] += 1
    return quota
