"""Assessors as rankers: an upper bound that systems can be compared with.

Why: if a person's grades, read as a ranking of the documents they judged,
score nDCG@10 = 0.8 against the primary qrels, a system at 0.75 is close to
human agreement, not "25% short of perfect". Each assessor's grades (or the
secondary assessors' grades per pair combined by ``max``, ``min`` or ``mean``,
as the shelf-life study does) order each topic's judged documents; ties are
broken at random and the scores averaged over ``shuffles`` tie orders; the
per-topic scores (ir_measures, against the primary qrels) give a mean ± std
over the topics judged. The best system's mean ± std is the comparison row.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from qrelkit.data.qrels import as_pairs
from qrelkit.errors import UsageError
from qrelkit.evaluate.systems import DEFAULT_THRESHOLD, evaluate_runs, resolve_measures
from qrelkit.types import RunEntry

Pair = tuple[str, str]
RANKER_MEASURES = ("nDCG@10", "P@10", "RR@10", "R@100")
AGGREGATIONS = ("max", "min", "mean")


@dataclass(frozen=True)
class RankerScore:
    measure: str
    mean: float
    std: float


@dataclass(frozen=True)
class AssessorRanker:
    assessor: str
    topics: int
    shuffles: int
    scores: tuple[RankerScore, ...]




def aggregate_grades(labels: Sequence[Mapping[Pair, int]], how: str, rounded: bool = True) -> dict[Pair, float]:
    """Each pair's grades from every assessor who judged it, combined by ``max``,
    ``min`` or ``mean`` (as qrels rounded half up, so 1.5 -> 2; as a ranker's
    score, ``rounded=False``, the plain mean)."""
    grades: dict[Pair, list[int]] = {}
    for lab in labels:
        for p, g in lab.items():
            grades.setdefault(p, []).append(int(g))
    if how == "max":
        return {p: max(v) for p, v in grades.items()}
    if how == "min":
        return {p: min(v) for p, v in grades.items()}
    if how == "mean":
        if not rounded:
            return {p: sum(v) / len(v) for p, v in grades.items()}
        return {p: int(math.floor(sum(v) / len(v) + 0.5)) for p, v in grades.items()}
    raise UsageError(f"unknown aggregation {how!r}; use max, min or mean")


@dataclass(frozen=True)
class _PseudoRun:
    name: str
    by_topic: Mapping[str, tuple[RunEntry, ...]]


def assessors_as_rankers(
    assessors: Sequence[tuple[str, Any]],
    primary: Mapping[Pair, int],
    measures: Sequence[str] = RANKER_MEASURES,
    shuffles: int = 10,
    seed: int = 0,
    threshold: int = DEFAULT_THRESHOLD,
    topics: Optional[Sequence[str]] = None,
) -> tuple[AssessorRanker, ...]:
    """Each assessor's grades as a ranking of the documents they judged, scored
    against the primary qrels; per topic averaged over ``shuffles`` random tie
    orders, then mean and standard deviation over the topics they judged."""
    specs = resolve_measures(measures, threshold)
    rng = np.random.default_rng(seed)
    wanted = set(topics) if topics is not None else None
    out = []
    for name, lab in assessors:
        lab = as_pairs(lab)
        by_topic: dict[str, list[tuple[str, float]]] = {}
        for (q, d), g in sorted(lab.items()):
            if wanted is None or q in wanted:
                by_topic.setdefault(q, []).append((d, float(g)))
        mine = sorted(by_topic)
        if not mine:
            out.append(AssessorRanker(name, 0, shuffles, ()))
            continue
        pseudo = []
        for s in range(max(1, shuffles)):
            run: dict[str, tuple[RunEntry, ...]] = {}
            for q in mine:
                docs = by_topic[q]
                noise = rng.random(len(docs))
                order = sorted(range(len(docs)), key=lambda i: (-docs[i][1], noise[i]))
                n = len(order)
                # distinct decreasing scores fix the order, so pytrec_eval's docid tie-break never applies
                run[q] = tuple(RunEntry(q, docs[i][0], r + 1, float(n - r)) for r, i in enumerate(order))
            pseudo.append(_PseudoRun(f"{name}#{s}", run))
        ts = evaluate_runs(pseudo, primary, specs, threshold, topics=mine)
        scores = []
        for sp in specs:
            per_topic = ts.of(sp.key).mean(axis=0)  # average over shuffles
            scores.append(RankerScore(
                sp.key, float(per_topic.mean()), float(per_topic.std(ddof=1)) if len(per_topic) > 1 else 0.0
            ))
        out.append(AssessorRanker(name, len(mine), max(1, shuffles), tuple(scores)))
    return tuple(out)


def aggregated_rankers(
    assessors: Sequence[tuple[str, Any]],
    primary: Mapping[Pair, int],
    measures: Sequence[str] = RANKER_MEASURES,
    shuffles: int = 10,
    seed: int = 0,
    threshold: int = DEFAULT_THRESHOLD,
    topics: Optional[Sequence[str]] = None,
) -> tuple[AssessorRanker, ...]:
    """The secondary assessors combined per pair by max, min and (unrounded)
    mean, each as one ranker (named ``aggregated max``, ``aggregated min``, ...)."""
    labels = [as_pairs(lab) for _, lab in assessors]
    combined = [(f"aggregated {how}", aggregate_grades(labels, how, rounded=False)) for how in AGGREGATIONS]
    return assessors_as_rankers(combined, primary, measures, shuffles, seed, threshold, topics)


def best_system(scores: Any, measures: Sequence[Any]) -> tuple[RankerScore, ...]:
    """The best system's mean ± std over topics per measure (``scores``: TopicScores)."""
    out = []
    for s in measures:
        m = scores.means(s.key)
        i = int(np.argmax(m))
        per_topic = scores.of(s.key)[i]
        out.append(RankerScore(s.key, float(m[i]), float(per_topic.std(ddof=1)) if len(per_topic) > 1 else 0.0))
    return tuple(out)
