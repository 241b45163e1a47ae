"""Depth-k pooling, the hybrid human/LLM split, holes and per-run judged rates.

A pool is the union over runs of each topic's top-k, counted in trec_eval
order (see :mod:`qrelkit.data.runs`), because that is what the evaluation
will look at. Every pooled pair becomes a :class:`~qrelkit.types.Case`;
pairs that already have a label are kept too, flagged ``judged=True``, so one
pool serves both hole filling (``holes(pool)``) and audit mode (re-judging
labelled pairs) and callers filter instead of re-pooling.

Hybrid split: a case goes to people when some run ranks it at or above
``human_depth`` (the top of the rankings decides system order the most, so
that is where human labels pay off); the rest goes to the LLM. The defaults
k=10, k_human=3 follow the literature on hybrid pools. ``human_depth=None``
sends everything to the LLM; a ``human_depth`` above ``depth`` sends
everything to people. Other allocations of the people's share (a stratified
sample) are strategies of :mod:`qrelkit.pooling.allocation`, passed as ``people``.

The per-run rates (Judged@k, Unjudged@k, Hole@k) are :mod:`qrelkit.evaluate.holes`'; how they are
counted:

Judged rates follow ir_measures' ``Judged@k`` (installed version 0.4.x): the
fraction of a run's top-k for a topic that has a label, where a topic with
fewer than k retrieved documents is divided by the number retrieved, not by
k (older ir_measures releases divided by k). ``Unjudged@k`` is the unjudged
fraction with the same denominator, so the two add up to 1. It is not
``Hole@k``: BRIDGE's Hole@k counts only *detected* holes (unlabelled pairs
that new labels find relevant) and needs new qrels, see
:mod:`qrelkit.evaluate.saturation`. Unlike
ir_measures, the top-k is taken in trec_eval order (ties by docid
descending; ir_measures breaks ties by docid ascending), consistent with the
pool. Only topics that have labels in the qrels are evaluated, and among them
only those the run retrieved something for; this is trec_eval's default
(without ``-c``): a topic a run returned nothing for has no holes to report.
ir_measures instead scores such a topic Judged@k = 0 and includes it in its
mean, so for runs that skip labelled topics its Judged@k is lower.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from qrelkit.data.qrels import QrelsFile, QrelsLike, as_pairs
from qrelkit.data.runs import Run
from qrelkit.errors import UsageError
from qrelkit.types import Case

if TYPE_CHECKING:
    from qrelkit.pooling.allocation import Allocation

DEFAULT_DEPTH = 10
DEFAULT_HUMAN_DEPTH = 3


@dataclass(frozen=True)
class Pool:
    """The cases of a pool, sorted by (qid, best_rank, docid), and how it was built."""

    cases: tuple[Case, ...]
    depth: int
    human_depth: int | None
    runs: tuple[str, ...]
    people: str = ""  # the canonical people's-share spec, when one was given

    @property
    def qids(self) -> tuple[str, ...]:
        return tuple(sorted({c.qid for c in self.cases}))

    def __len__(self) -> int:
        return len(self.cases)


def _qid_set(topics: Any) -> set[str]:
    if isinstance(topics, Mapping):
        return {str(q) for q in topics}
    if isinstance(topics, str):
        return {topics}
    return {str(getattr(t, "qid", t)) for t in topics}


def _qrels_qids(qrels: QrelsLike | None) -> set[str]:
    if isinstance(qrels, QrelsFile):
        return set(qrels.qids)
    return {q for q, _ in as_pairs(qrels)}


def _check_depths(depth: int, human_depth: int | None) -> None:
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise UsageError(f"pool depth must be a positive integer, got {depth!r}")
    if human_depth is not None and (
        isinstance(human_depth, bool) or not isinstance(human_depth, int) or human_depth < 0
    ):
        raise UsageError(f"human depth must be a non-negative integer, got {human_depth!r}")


def build_pool(
    runs: Sequence[Run],
    depth: int = DEFAULT_DEPTH,
    human_depth: int | None = None,
    qrels: QrelsLike | None = None,
    topics: Any = None,
    people: "Allocation | None" = None,
    reference: Mapping[tuple[str, str], int] | None = None,
) -> Pool:
    """Pool the top ``depth`` of every run per topic.

    ``qrels`` (a QrelsFile, a ``{(qid, docid): grade}`` mapping or Qrel values)
    sets each case's ``judged`` flag; ``topics`` (qids, Topic values or a dict
    keyed by qid) restricts the pool to those topics. All pooled pairs are
    returned, judged or not; see :func:`holes`. A run's entries may be docids
    in trec_eval order instead of ``RunEntry`` values (a
    :class:`qrelkit.data.rankings.Ranking`'s ``docids``): only order counts here.
    ``people`` (an :class:`~qrelkit.pooling.allocation.Allocation`) replaces the
    ``human_depth`` split; ``reference`` is what a reference-stratified
    allocation stratifies by.
    """
    _check_depths(depth, human_depth)
    names = [r.name for r in runs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise UsageError(f"runs must have distinct names; repeated: {', '.join(dupes)}")
    allowed = None if topics is None else _qid_set(topics)
    pairs = as_pairs(qrels)
    best: dict[tuple[str, str], int] = {}
    contributors: dict[tuple[str, str], list[str]] = {}  # lists: a third of a set's memory
    for run in runs:
        for qid, entries in run.by_topic.items():
            if allowed is not None and qid not in allowed:
                continue
            for position, entry in enumerate(entries[:depth], start=1):
                key = (qid, entry if isinstance(entry, str) else entry.docid)
                if key not in best or position < best[key]:
                    best[key] = position
                runs_of = contributors.setdefault(key, [])
                if not runs_of or runs_of[-1] != run.name:  # a run pools a pair once
                    runs_of.append(run.name)
    cases = []
    for (qid, docid), rank in best.items():
        top = human_depth is not None and rank <= human_depth
        cases.append(Case(
            qid=qid,
            docid=docid,
            share="people" if top else "llm",
            best_rank=rank,
            runs=tuple(sorted(contributors[(qid, docid)])),
            judged=(qid, docid) in pairs,
        ))
    cases.sort(key=lambda c: (c.qid, c.best_rank, c.docid))
    if people is not None:
        return Pool(cases=people.allocate(cases, reference, runs), depth=depth, human_depth=None,
                    runs=tuple(names), people=str(people))
    return Pool(cases=tuple(cases), depth=depth, human_depth=human_depth, runs=tuple(names))


def holes(pool: Pool | Iterable[Case]) -> tuple[Case, ...]:
    """The pooled pairs without a label, in pool order."""
    cases = pool.cases if isinstance(pool, Pool) else pool
    return tuple(c for c in cases if not c.judged)
