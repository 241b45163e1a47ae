"""From runs and a pooling strategy to the pool's cases.

:func:`choose` gives each topic's chosen docids in the order the strategy reads them;
:func:`strategy_pool` turns them into the :class:`~qrelkit.pooling.pool.Pool` every later stage
reads, with the same case fields as a depth pool: ``best_rank`` is the pair's best rank
in any run and ``runs`` the runs that retrieved it (within the top k for ``depth``; at
any depth for the fused strategies and MTF, whose candidates are every retrieved
document). ``Pool.depth`` is k for ``depth(k)`` and otherwise the deepest best rank
in the pool, the furthest down any run a case was taken from.

``depth(k=K)`` with no cut is exactly :func:`qrelkit.pooling.pool.build_pool` at depth K (it is
delegated there), so ``--depth K`` and ``--pool 'depth(k=K)'`` are the same pool.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Optional

from qrelkit.data.qrels import QrelsLike, as_pairs
from qrelkit.errors import UsageError
from qrelkit.pooling.budget import split_budget
from qrelkit.pooling.pool import Pool, build_pool
from qrelkit.pooling.spec import PoolSpec, TopicLists
from qrelkit.types import Case

Oracle = Callable[[str, str], bool]  # (qid, docid) -> relevant


def oracle(labels: Mapping[tuple[str, str], int], threshold: int) -> Oracle:
    """Relevant = grade >= ``threshold``; a pair without a label is not relevant (as trec_eval scores it)."""
    return lambda qid, docid: labels.get((qid, docid), -1) >= threshold


def topic_lists(runs: Sequence[Any], topics: Optional[set[str]] = None, scores: bool = False) -> dict[str, TopicLists]:
    """Per topic (those in ``topics`` when given), each run's list; entries may be
    ``RunEntry`` values or plain docids (then without scores)."""
    grouped: dict[str, tuple[list, list, list]] = {}
    for run in runs:
        for qid, entries in run.by_topic.items():
            if not entries or (topics is not None and qid not in topics):
                continue
            names, docids, values = grouped.setdefault(qid, ([], [], []))
            names.append(run.name)
            docids.append(tuple(e if isinstance(e, str) else e.docid for e in entries))
            if scores:
                if isinstance(entries[0], str):
                    raise UsageError(f"pool strategy fuses scores, but run {run.name} was read without them")
                values.append(tuple(e.score for e in entries))
    return {q: TopicLists(tuple(n), tuple(d), tuple(v) if scores else None) for q, (n, d, v) in grouped.items()}


def quotas(spec: PoolSpec, lists: Mapping[str, TopicLists]) -> dict[str, int]:
    """Pairs per topic: ``n``, or the topic's share of ``budget`` (:mod:`qrelkit.pooling.budget`)."""
    strategy = spec.strategy
    available = {q: strategy.candidates(spec, tl) for q, tl in lists.items()}
    if spec["budget"] is not None:
        return split_budget(spec["budget"], available)
    n = spec["n"] if spec["n"] is not None else strategy.default_n
    return {q: a if n is None else min(n, a) for q, a in available.items()}


def choose(spec: PoolSpec, runs: Sequence[Any], topics: Any = None,
           relevant: Optional[Oracle] = None) -> dict[str, tuple[str, ...]]:
    """Each topic's chosen docids, in the order the strategy reads them (topics sorted)."""
    strategy = spec.strategy
    if strategy.needs_labels and relevant is None:
        raise UsageError(f"pool {spec} reads deeper where relevant documents are found, so it needs labels "
                         "(a label oracle: reference qrels in a simulation, or rounds of judging)")
    lists = topic_lists(runs, qids_of(topics), strategy.needs_scores)
    quota = quotas(spec, lists)
    out = {}
    for q in sorted(lists):
        judge = (lambda d, q=q: relevant(q, d)) if relevant is not None else None
        out[q] = tuple(strategy.order(spec, lists[q], quota[q], judge))
    return out


def strategy_pool(spec: PoolSpec, runs: Sequence[Any], qrels: QrelsLike | None = None, topics: Any = None,
                  human_depth: Optional[int] = None, people: Any = None,
                  reference: Optional[Mapping[tuple[str, str], int]] = None,
                  relevant: Optional[Oracle] = None) -> Pool:
    """The pool ``spec`` chooses, as cases (arguments as :func:`qrelkit.pooling.pool.build_pool`;
    ``relevant`` is the label oracle MTF reads by)."""
    if spec.is_plain_depth:
        return build_pool(runs, depth=spec["k"], human_depth=human_depth, qrels=qrels, topics=topics,
                          people=people, reference=reference)
    names = [r.name for r in runs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise UsageError(f"runs must have distinct names; repeated: {', '.join(dupes)}")
    chosen = choose(spec, runs, topics, relevant)
    pairs = as_pairs(qrels)
    depth = spec["k"] if spec.name == "depth" else None
    best, contributors = _provenance(runs, chosen, depth)
    cases = [
        Case(qid=q, docid=d, share="people" if human_depth is not None and best[q, d] <= human_depth else "llm",
             best_rank=best[q, d], runs=tuple(sorted(contributors[q, d])), judged=(q, d) in pairs)
        for q, docs in chosen.items() for d in docs
    ]
    cases.sort(key=lambda c: (c.qid, c.best_rank, c.docid))
    deepest = depth if depth is not None else max((c.best_rank for c in cases), default=0)
    if people is not None:
        return Pool(cases=people.allocate(cases, reference, runs), depth=deepest, human_depth=None, runs=tuple(names),
                    people=str(people))
    return Pool(cases=tuple(cases), depth=deepest, human_depth=human_depth, runs=tuple(names))


def _provenance(runs: Sequence[Any], chosen: Mapping[str, Sequence[str]], depth: Optional[int]):
    """Best rank and retrieving runs of every chosen pair (within the top ``depth`` when given)."""
    wanted = {q: set(docs) for q, docs in chosen.items()}
    best: dict[tuple[str, str], int] = {}
    contributors: dict[tuple[str, str], list[str]] = {}
    for run in runs:
        for qid, entries in run.by_topic.items():
            if qid not in wanted:
                continue
            for rank, e in enumerate(entries[:depth], start=1):
                d = e if isinstance(e, str) else e.docid
                if d in wanted[qid]:
                    key = (qid, d)
                    best[key] = min(rank, best.get(key, rank))
                    contributors.setdefault(key, []).append(run.name)
    return best, contributors


def qids_of(topics: Any) -> Optional[set[str]]:
    if topics is None:
        return None
    if isinstance(topics, str):
        return {topics}
    return {str(getattr(t, "qid", t)) for t in topics}


def pool_summary(spec: PoolSpec, runs: Sequence[Any], qrels: Mapping[tuple[str, str], int],
                 topics: Any = None, relevant: Optional[Oracle] = None) -> dict[str, Any]:
    """What ``qrelkit holes --pool SPEC`` reports of the pool: its spec, size, unlabelled pairs, topics."""
    pool = strategy_pool(spec, runs, qrels=qrels, topics=topics, relevant=relevant)
    return {"pool": str(spec), "pooled": len(pool), "holes": sum(1 for c in pool.cases if not c.judged),
            "topics": len(pool.qids)}


def holes_pool(text: str, runs: Sequence[Any], qrels: Mapping[tuple[str, str], int], threshold: int,
               saturation: bool = False) -> tuple[int, dict[str, Any]]:
    """``qrelkit holes --pool SPEC``: the depth pool growth uses, and the pool's counts
    over the qrels' topics (MTF reads by ``qrels``, relevant = grade >= ``threshold``).

    Pool growth adds runs one at a time and counts the holes each brings; that needs a
    pool that only grows as runs join, which depth-k is and Take@N of a fusion is not
    (a new run can push a pair out of the top N), so --saturation takes only depth(k)."""
    from qrelkit.pooling.spec import parse_pool

    spec = parse_pool(text)
    if saturation and not spec.is_plain_depth:
        raise UsageError(f"--saturation grows a depth-k pool run by run; {spec} is not one (a fused or budgeted "
                         "pool can lose pairs as runs join): use --pool 'depth(k=K)' or leave --pool out")
    relevant = oracle(qrels, threshold) if spec.strategy.needs_labels else None
    counts = pool_summary(spec, runs, qrels, topics={q for q, _ in qrels}, relevant=relevant)
    return (spec["k"] if spec.is_plain_depth else 0), counts
