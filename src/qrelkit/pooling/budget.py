"""A total judging budget split over topics: equal shares, leftovers passed on.

The rule, stated once: every topic with candidates gets ``budget // T`` pairs, and the
first ``budget % T`` topics in qid order one more. A topic with fewer candidates than
its share takes all it has, and what it leaves is split the same way over the topics
that still have candidates, until the budget is spent or every candidate is in.

Equal shares because a collection's measures average over topics, each counting the same,
so a topic starved of judgments distorts every system's mean; leftovers are passed on
so that no budget is left unspent while some topic still has pairs to judge.
"""
from __future__ import annotations

from collections.abc import Mapping


def split_budget(budget: int, available: Mapping[str, int]) -> dict[str, int]:
    """Pairs per topic (every key of ``available``) for a ``budget`` over all topics."""
    quota = {q: 0 for q in available}
    open_ = sorted(q for q, n in available.items() if n > 0)
    left = budget
    while left > 0 and open_:
        share, extra = divmod(left, len(open_))
        for i, q in enumerate(open_):
            give = min(share + (i < extra), available[q] - quota[q])
            quota[q] += give
            left -= give
        open_ = [q for q in open_ if quota[q] < available[q]]
    return quota
