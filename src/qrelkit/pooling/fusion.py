"""Static pools: depth-k, and Take@N over a fused ranking (RRF, RBP, CombMNZ).

A static strategy orders a topic's candidates once, from the runs alone; a pool of
``n`` per topic is the first ``n`` of that order, and a budget cuts the same order
(so a bigger budget only ever adds pairs).

- ``depth(k=10)``: every run's top k (today's pool). Cut by ``n`` or a budget, the
  shallowest pairs come first: by best rank in any run, then by how many runs have the
  pair in their top k, then by docid.
- ``rrf(k=60)``: reciprocal rank fusion, sum over runs of ``1 / (k + rank)``.
- ``rbp(p=0.8, agg=sum)``: each run gives a document its RBP weight
  ``(1 - p) * p ** (rank - 1)``; runs' weights are summed (``agg=max``: the largest).
- ``combmnz(norm=minmax)``: Fox and Shaw's CombMNZ, the sum of the runs' scores times
  the number of runs that retrieved the document. ``norm=minmax`` first maps each run's
  scores on the topic to [0, 1] (a run whose scores are all equal gives 1.0); ``norm=none``
  fuses raw scores.

These follow trectools 0.0.50 (``TrecPoolMaker.make_pool``, strategy ``rrf`` and
``rbp``, default ``topX=10``, ``rrf_den=60``, ``rbp_p=0.8``, ``rbp_strategy=sum``;
``fusion.combos(strategy="mnz")``): every retrieved document of every run is fused,
and the pool is the top ``topX`` per topic. Where they differ, and why:

- rank is the position in trec_eval order (score descending, ties by docid descending),
  as everywhere in qrelkit; trectools reads the file's rank column, which is the same for
  a well-formed run.
- ties in the fused value are broken by docid ascending, as trectools' fusion module
  does (its pool maker leaves them to pandas' sort); sums are exact (:func:`math.fsum`),
  so equal multisets of terms tie whatever the run order.
- trectools' CombMNZ fuses raw scores (``norm=none`` here); the default here is
  ``minmax`` because TREC runs' scores live on unrelated scales (in the 37 official
  DL 2019 runs they range from -73 to 253, several entirely negative), where a raw sum
  ranks by which system prints larger numbers.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Optional

from qrelkit.job.options import MAX_DEPTH
from qrelkit.pooling.spec import PoolSpec, Relevant, Strategy, TopicLists, register
from qrelkit.specs import Param, choice, integer, number


def top_fused(contributions: dict[str, list[float]], quota: int, agg=math.fsum) -> list[str]:
    """The ``quota`` docids with the largest aggregated value, ties by docid ascending."""
    fused = {d: agg(v) for d, v in contributions.items()}
    return sorted(fused, key=lambda d: (-fused[d], d))[:quota]


def by_rank(lists: TopicLists, weight) -> dict[str, list[float]]:
    """Every retrieved document's per-run ``weight(rank)``, rank 1-based."""
    out: dict[str, list[float]] = defaultdict(list)
    for docs in lists.docids:
        for rank, d in enumerate(docs, start=1):
            out[d].append(weight(rank))
    return out


@register
class Depth(Strategy):
    NAME = "depth"
    PARAMS = {"k": Param(10, integer(1, MAX_DEPTH), "each run's top-k per topic")}
    default_n = None

    def candidates(self, spec: PoolSpec, lists: TopicLists) -> int:
        return len({d for docs in lists.docids for d in docs[: spec["k"]]})

    def order(self, spec: PoolSpec, lists: TopicLists, quota: int, relevant: Optional[Relevant]) -> list[str]:
        best: dict[str, int] = {}
        runs: Counter = Counter()
        for docs in lists.docids:
            for rank, d in enumerate(docs[: spec["k"]], start=1):
                best[d] = min(rank, best.get(d, rank))
                runs[d] += 1
        return sorted(best, key=lambda d: (best[d], -runs[d], d))[:quota]


@register
class ReciprocalRank(Strategy):
    NAME = "rrf"
    PARAMS = {"k": Param(60, integer(0), "the constant in 1 / (k + rank) (Cormack et al. 2009: 60)")}

    def order(self, spec: PoolSpec, lists: TopicLists, quota: int, relevant: Optional[Relevant]) -> list[str]:
        k = spec["k"]
        return top_fused(by_rank(lists, lambda r: 1.0 / (k + r)), quota)


@register
class RankBiased(Strategy):
    NAME = "rbp"
    PARAMS = {
        "p": Param(0.8, number(0.0, 1.0), "RBP persistence: a document at rank r weighs (1-p) p^(r-1)"),
        "agg": Param("sum", choice("sum", "max"), "how the runs' weights combine (trectools' rbp_strategy)"),
    }

    def order(self, spec: PoolSpec, lists: TopicLists, quota: int, relevant: Optional[Relevant]) -> list[str]:
        p = spec["p"]
        weights = by_rank(lists, lambda r: (1.0 - p) * p ** (r - 1))
        return top_fused(weights, quota, math.fsum if spec["agg"] == "sum" else max)


@register
class CombMNZ(Strategy):
    NAME = "combmnz"
    PARAMS = {"norm": Param("minmax", choice("minmax", "none"), "per-run score normalisation on each topic")}
    needs_scores = True

    def order(self, spec: PoolSpec, lists: TopicLists, quota: int, relevant: Optional[Relevant]) -> list[str]:
        if lists.scores is None:
            raise ValueError("combmnz fuses scores: read the runs with their scores")
        values: dict[str, list[float]] = defaultdict(list)
        for docs, scores in zip(lists.docids, lists.scores):
            for d, s in zip(docs, normalised(scores, spec["norm"])):
                values[d].append(s)
        return top_fused(values, quota, lambda v: len(v) * math.fsum(v))


def normalised(scores: Iterable[float], norm: str) -> list[float]:
    scores = list(scores)
    if norm == "none" or not scores:
        return scores
    lo, hi = min(scores), max(scores)
    return [(s - lo) / (hi - lo) if hi > lo else 1.0 for s in scores]
