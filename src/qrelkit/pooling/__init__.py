"""Pooling strategies: which pairs of each topic get judged, registered by name, configured by spec.

    depth(k=10)                 every run's top k (today's pool, ``--depth K``)
    rrf(n=10, k=60)             Take@N of reciprocal rank fusion
    rbp(n=10, p=0.8, agg=sum)   Take@N of RBP-weighted fusion
    combmnz(n=10, norm=minmax)  Take@N of CombMNZ score fusion
    mtf(n=10, batch=1)          move-to-front: runs that keep finding relevant documents are read deeper
    ...(budget=N)               instead of n per topic, N pairs over all topics (equal shares, leftovers passed on)

One concept per module: :mod:`~qrelkit.pooling.spec` (registry, parsing),
:mod:`~qrelkit.pooling.fusion` (the static orders, with their trectools definitions),
:mod:`~qrelkit.pooling.mtf` (move-to-front on one topic, and how it runs in rounds),
:mod:`~qrelkit.pooling.rounds` (MTF over all topics, a round of judging at a time),
:mod:`~qrelkit.pooling.live` (those rounds in a workspace, judged by `build`'s judge and people),
:mod:`~qrelkit.pooling.budget` (the split rule), :mod:`~qrelkit.pooling.build` (cases).
"""
from __future__ import annotations

from qrelkit.pooling import fusion, mtf  # noqa: F401  (register the strategies)
from qrelkit.pooling.budget import split_budget
from qrelkit.pooling.build import choose, holes_pool, oracle, pool_summary, strategy_pool, topic_lists
from qrelkit.pooling.mtf import MoveToFront
from qrelkit.pooling.rounds import MtfRounds
from qrelkit.pooling.spec import REGISTRY, PoolSpec, Strategy, TopicLists, parse_pool, resolve_pool

__all__ = [
    "REGISTRY", "PoolSpec", "Strategy", "TopicLists", "parse_pool", "resolve_pool",
    "MoveToFront", "MtfRounds", "split_budget",
    "choose", "holes_pool", "oracle", "pool_summary", "strategy_pool", "topic_lists",
]
