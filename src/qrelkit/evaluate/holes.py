"""Judged@k, Unjudged@k and Hole@k: how much of a run's top-k the qrels label, and how much of it
new labels find relevant — in one module, because the three are one notion seen before and after.

- ``Judged@k`` / ``Unjudged@k``: the share of a run's top-k (per topic, averaged over the topics the
  qrels label) that has / has not an original label. The denominator is the documents the run
  retrieved in its top-k for that topic (at most k).
- ``Hole@k`` (BRIDGE's Hole@10): the *detected* holes in the top-k — unlabelled pairs that the new
  labels find relevant (grade >= threshold) — divided by k.

Pooling itself (:mod:`qrelkit.pooling.pool`) and pool saturation (:mod:`qrelkit.evaluate.saturation`) read
these; neither defines them again.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from qrelkit.data.qrels import QrelsFile, QrelsLike, as_pairs
from qrelkit.data.runs import Run
from qrelkit.pooling.pool import DEFAULT_DEPTH, _check_depths, _qrels_qids, build_pool, holes

Pair = tuple[str, str]


@dataclass(frozen=True)
class RunHoleRate:
    """Judged@k and Unjudged@k of one run on one topic (see the module doc for the denominator)."""

    run: str
    qid: str
    judged_at_k: float
    unjudged_at_k: float
    depth: int = DEFAULT_DEPTH
    retrieved: int = 0  # documents in the run's top-k for this topic (<= depth)


@dataclass(frozen=True)
class RunHoleSummary:
    """A run's mean Judged@k and Unjudged@k over the topics it was evaluated on;
    ``judged``/``unjudged`` are None when no topic could be evaluated."""

    run: str
    judged: float | None
    unjudged: float | None
    topics: int


def run_hole_rates(runs: Sequence[Run], qrels: QrelsLike, depth: int = DEFAULT_DEPTH) -> list[RunHoleRate]:
    """Per run (in the given order) and topic (sorted), the judged and unjudged
    fractions of the top ``depth``; topics without labels are skipped."""
    _check_depths(depth, None)
    pairs = as_pairs(qrels)  # once: qrels may be a one-shot iterator of Qrel values
    labelled = _qrels_qids(qrels if isinstance(qrels, QrelsFile) else pairs)
    return [rate for run in runs for rate in _rates_of(run, pairs, labelled, depth)]


def _rates_of(run: Run, pairs: Any, labelled: Any, depth: int) -> Iterable[RunHoleRate]:
    """:func:`run_hole_rates` of one run."""
    for qid in sorted(run.by_topic):
        if qid not in labelled:
            continue
        top = run.by_topic[qid][:depth]
        if not top:
            continue
        judged = sum(1 for e in top if (qid, e.docid) in pairs)
        n = len(top)
        yield RunHoleRate(run=run.name, qid=qid, judged_at_k=judged / n,
                          unjudged_at_k=(n - judged) / n, depth=depth, retrieved=n)


def summarize_hole_rates(rates: Iterable[RunHoleRate], runs: Sequence[Run | str] | None = None
                         ) -> list[RunHoleSummary]:
    """Mean rates per run. Runs appear in first-seen order, or in the order of
    ``runs`` when given, which also lists runs that had no evaluable topic."""
    grouped: dict[str, list[RunHoleRate]] = {}
    if runs is not None:
        for r in runs:
            grouped.setdefault(r if isinstance(r, str) else r.name, [])
    for rate in rates:
        grouped.setdefault(rate.run, []).append(rate)
    out = []
    for name, items in grouped.items():
        if not items:
            out.append(RunHoleSummary(run=name, judged=None, unjudged=None, topics=0))
            continue
        n = len(items)
        out.append(RunHoleSummary(
            run=name,
            judged=math.fsum(r.judged_at_k for r in items) / n,
            unjudged=math.fsum(r.unjudged_at_k for r in items) / n,
            topics=n,
        ))
    return out


def holes_report(runs: Sequence[Run], qrels: QrelsLike, depth: int = DEFAULT_DEPTH,
                 new_qrels: QrelsLike | None = None, threshold: int = 2) -> dict[str, Any]:
    """The JSON object behind ``qrelkit holes``: pool size and unlabelled pooled
    pairs (``holes``) over the qrels' topics, and each run's mean Judged@k /
    Unjudged@k; with ``new_qrels`` also BRIDGE's Hole@k (detected holes ÷ k,
    relevant = grade >= ``threshold``). ``topics`` counts the labelled topics
    that some run retrieved for (the topics of that pool)."""
    pairs = as_pairs(qrels)  # once: qrels may be a one-shot iterator of Qrel values
    labelled = _qrels_qids(qrels if isinstance(qrels, QrelsFile) else pairs)
    pool = build_pool(runs, depth=depth, qrels=pairs, topics=labelled)
    summary = summarize_hole_rates(run_hole_rates(runs, pairs, depth), runs)
    out: dict[str, Any] = {
        "depth": depth,
        "pooled": len(pool.cases),
        "holes": len(holes(pool)),
        "runs": {s.run: {f"Judged@{depth}": s.judged, f"Unjudged@{depth}": s.unjudged} for s in summary},
        "topics": len(pool.qids),
    }
    if new_qrels is None:
        out["note"] = (f"Hole@{depth} (detected holes: unlabelled pairs that new labels find relevant) "
                       "needs new qrels: pass --new-qrels QRELS or a workspace with judged holes")
        return out
    for h in hole_rates(runs, pairs, as_pairs(new_qrels), depth, threshold):
        out["runs"].setdefault(h.run, {}).update({f"Hole@{depth}": h.hole_rate, "detected_holes": h.holes})
    return out


@dataclass(frozen=True)
class SystemHoles:
    """One run's top-k against the original and the new qrels (see module doc)."""

    run: str
    depth: int
    unjudged_rate: float  # Unjudged@k: share of the top-k without an original label
    holes: int  # detected holes in the top-k, summed over topics
    hole_rate: Optional[float]  # Hole@k (BRIDGE): detected holes / k; None without new qrels
    judged_after: float  # Judged@k under the original + new qrels
    topics: int = 0  # topics averaged over


def hole_rates(
    runs: Sequence[Any], original: Any, new: Any = None, depth: int = 10, threshold: int = 2
) -> tuple[SystemHoles, ...]:
    """Unjudged@k per run against ``original`` (:func:`run_hole_rates`,
    the one definition); with ``new`` also Hole@k."""
    _check_depths(depth, None)
    orig = as_pairs(original)
    newp = as_pairs(new) if new is not None else {}
    topics = sorted({q for q, _ in orig})
    labelled = set(topics)
    out = []
    for run in runs:
        # a run's rates at a time: all runs' per-topic rates were 660,000 records at 10^6 pooled pairs
        (u,) = summarize_hole_rates(_rates_of(run, orig, labelled, depth), [run])
        hole, judged_after = [], []
        count = 0
        for q in topics:
            top = run.by_topic.get(q, ())[:depth]
            if not top:
                continue
            found = [e for e in top if (q, e.docid) not in orig and newp.get((q, e.docid), -1) >= threshold]
            hole.append(len(found) / depth)
            judged_after.append(sum(1 for e in top if (q, e.docid) in orig or (q, e.docid) in newp) / len(top))
            count += len(found)
        out.append(SystemHoles(
            run.name, depth, u.unjudged if u.unjudged is not None else 0.0, count,
            _mean(hole) if new is not None else None, _mean(judged_after), u.topics,
        ))
    return tuple(out)


def hole_at_k(runs: Sequence[Any], original: Any, new: Any, depth: int = 10, threshold: int = 2) -> dict[str, float]:
    """Hole@k per run name (see module doc), for the ``holes`` command."""
    return {h.run: h.hole_rate for h in hole_rates(runs, original, new, depth, threshold)}


def _mean(x: list) -> float:
    return float(np.mean(x)) if x else 0.0
