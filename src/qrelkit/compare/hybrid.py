"""The RCL paper's LLM rows, measured on its hybrid pool: people label part of the pool, the LLM the rest.

The paper (its §2.1–2.2, Tables 1–3) pools the official runs at depth 10 and gives people
either the top 3 of every run (``depth``: ``depth(k_human=3)``) or a 10 % sample of the pool
stratified by the full qrels' grades (``stratified``: ``stratified(rate=0.1)``, an oracle, so
simulation only); the people's labels are the reference's. The LLM judges the rest of the
pool, learning from the people's labels (ICL examples, RCL narratives). Two figures per row,
each averaged over ``repeat`` executions (seed ``e`` for the stratified sample and for every
example draw and narrative reading, so executions differ where the paper's do):

- per-query F1 of the LLM's binary labels against the reference on the pairs it judged,
  averaged over topics (an undecided case is left out and counted; a topic with no relevant
  pair on either side scores 1);
- the MCC between significance decisions (AP@1000, two-sided Wilcoxon, Benjamini–Hochberg,
  every pair of runs: :mod:`qrelkit.compare.rcl`) under the hybrid qrels and under the full
  qrels. Hybrid qrels: the reference on the depth-10 pool, except the pairs the LLM judged,
  which carry its label (relevant = the threshold grade); a pair it left undecided is unjudged.

Each (allocation, execution) is a workspace of its own under ``WS/rcl/NAME/`` holding only
what the paper's LLM may see: the topics, the documents, the people's labels as qrels and
the LLM's cases; its judgments and narratives stay there, so a second call resumes. Every
call is cached in the main workspace (one cache for all), and every (allocation, execution,
method) runs at once in one event loop through :func:`qrelkit.compare.run.run_method`.

``topics`` (a seeded subset) and ``per_topic`` (a seeded sample of each topic's LLM share) make
a small run possible; the LLM share left out keeps the reference's labels, so its MCC sits
nearer the people-only ceiling than the paper's, which judges the whole LLM share.
The scores of a method's labels in such a pool, for a comparison's sample
(``benchmarks/judges.py --experiment hybrid`` and ``benchmarks/hybrid_paper.py``), are here too:
:func:`hybrid_figures` gives per-topic F1 of the hybrid labels (the method's where it decided,
the reference's where it escalated; :func:`qrelkit.evaluate.agreement.compare_labels`) and the
MCC of the significance decisions under them; :func:`pool_mcc` the people-only ceiling.
"""
from __future__ import annotations

import random
import statistics
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

from qrelkit.types import Case, Qrel

if TYPE_CHECKING:
    from qrelkit.store import Store

Pair = tuple[str, str]
ALLOCATIONS = {"depth": "depth(k_human=3)", "stratified": "stratified(rate=0.1)"}


@dataclass(frozen=True)
class HybridRequest:
    """The rows to measure, as ``(row, spec, allocation)``, and how."""

    rows: tuple[tuple[str, str, str], ...]
    model: str = "local"
    name: str = "default"
    repeat: int = 1
    topics: Optional[int] = None  # a seeded subset of the reference's topics
    per_topic: Optional[int] = None  # a seeded sample of each topic's LLM share
    seed: int = 0
    depth: int = 10
    measure: str = "AP@1000"
    concurrency: int = 8
    max_attempts: Optional[int] = None


@dataclass(frozen=True)
class Unit:
    """One allocation in one execution: who labels what."""

    allocation: str
    execution: int
    people: tuple[Case, ...]
    sample: tuple[Case, ...]  # what the LLM judges
    pool: tuple[Pair, ...]  # the depth-k pool's labelled pairs


@dataclass(frozen=True)
class Measured:
    """One row under one allocation, over the executions."""

    row: str
    spec: str
    allocation: str
    f1: Optional[float]
    f1_std: Optional[float]
    mcc: Optional[float]
    mcc_std: Optional[float]
    executions: int
    cases: int  # LLM cases per execution
    people: int  # people's labels per execution
    undecided: int  # over every execution
    calls_per_case: float
    new_calls: int
    per_query_f1: tuple[tuple[int, str, float], ...]  # (execution, qid, F1)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["per_query_f1"] = [list(x) for x in self.per_query_f1]
        return d


def with_seed(spec: str, seed: int) -> str:
    """The row's spec for execution ``seed``: its judge's seed set, when it has one."""
    from qrelkit.judges import describe, parse_spec

    s = parse_spec(spec)
    if "seed" not in {p.name for m in describe() if m.name == s.main.name for p in m.params}:
        return s.canonical
    return s.with_main(s.main.with_params(seed=str(seed))).canonical


def chosen_topics(reference: Mapping[Pair, int], n: Optional[int], seed: int) -> list[str]:
    qids = sorted({q for q, _ in reference})
    return qids if not n or n >= len(qids) else sorted(random.Random(seed).sample(qids, n))


def split(runs: Sequence[Any], reference: Mapping[Pair, int], allocation: str, execution: int,
          topics: Sequence[str], req: HybridRequest) -> Unit:
    """The pool under ``allocation`` (execution ``e``'s seed), the people's cases and the LLM's sample."""
    from qrelkit.pooling.allocation import parse_allocation
    from qrelkit.pooling.pool import build_pool

    text = ALLOCATIONS[allocation]
    if allocation == "stratified":
        text = f"{text.rstrip(')')},seed={execution})"
    all_topics = sorted({q for q, _ in reference})
    pool = build_pool(runs, depth=req.depth, qrels=reference, topics=all_topics, people=parse_allocation(text),
                      reference=reference)
    labelled = [c for c in pool.cases if (c.qid, c.docid) in reference]
    wanted = set(topics)
    people = [c for c in labelled if c.share == "people" and c.qid in wanted]
    sample: list[Case] = []
    for q in sorted(wanted):
        cs = sorted((c for c in labelled if c.qid == q and c.share == "llm"), key=lambda c: c.docid)
        if req.per_topic and req.per_topic < len(cs):
            cs = sorted(random.Random(f"{req.seed}|{q}").sample(cs, req.per_topic), key=lambda c: c.docid)
        sample.extend(cs)
    return Unit(allocation, execution, tuple(people), tuple(sample), tuple((c.qid, c.docid) for c in labelled))


def unit_store(main: Store, unit: Unit, reference: Mapping[Pair, int], name: str) -> Store:
    """The unit's own workspace (made on first use, reopened after): only what its LLM may see."""
    from qrelkit.store import Store

    path = Path(main.workspace) / "rcl" / name / f"{unit.allocation}-e{unit.execution}"
    store = Store.create(path)
    qids = {c.qid for c in unit.sample + unit.people}
    topics = main.topics()
    store.upsert_topics([topics[q] for q in sorted(qids) if q in topics])
    docs = [main.doc(d) for d in sorted({c.docid for c in unit.sample + unit.people})]
    store.upsert_docs([d for d in docs if d is not None])
    store.upsert_qrels([Qrel(c.qid, c.docid, reference[(c.qid, c.docid)]) for c in unit.people])
    store.upsert_cases([Case(c.qid, c.docid, "llm", c.best_rank, c.runs, False) for c in unit.sample])
    store.upsert_cases([Case(c.qid, c.docid, "people", c.best_rank, c.runs, True) for c in unit.people])
    return store


def per_query_f1(gold: Mapping[Pair, int], labels: Mapping[Pair, int], threshold: int = 2) -> dict[str, float]:
    """F1 of the decided binary ``labels`` against ``gold`` per query (the RCL paper's figure)."""
    from sklearn.metrics import f1_score

    by_q: dict[str, tuple[list, list]] = {}
    for k, lab in sorted(labels.items()):
        t, p = by_q.setdefault(k[0], ([], []))
        t.append(int(gold[k] >= threshold))
        p.append(int(lab))
    # zero_division=1: a topic where neither the reference nor the LLM finds a relevant pair
    # is perfect agreement (1), not 0; one positive on either side alone still gives 0
    return {q: float(f1_score(t, p, zero_division=1.0)) for q, (t, p) in sorted(by_q.items())}


def mean_std(vals: Sequence[Optional[float]]) -> tuple[Optional[float], Optional[float]]:
    vs = [v for v in vals if v is not None]
    if not vs:
        return None, None
    return statistics.fmean(vs), (statistics.stdev(vs) if len(vs) > 1 else None)


@dataclass(frozen=True)
class _Judged:
    row: str
    spec: str
    unit: Unit
    labels: dict  # (qid, docid) -> 0/1, the decided cases
    calls: int  # over the sample (cached calls counted: what the method costs)
    new_calls: int


async def _judge(store: Store, row: str, spec: str, unit: Unit, req: HybridRequest, progress: Any,
                 shared: Any, cache: Store) -> _Judged:
    from qrelkit.compare.run import run_method
    from qrelkit.judging import JudgingJob

    job = JudgingJob(method=with_seed(spec, unit.execution), model=req.model, task="graded", share="llm",
                     concurrency=req.concurrency, max_attempts=req.max_attempts, cases=unit.sample)
    summary, new_calls, _ = await run_method(store, job, progress, shared, cache)
    wanted = {(c.qid, c.docid) for c in unit.sample}
    js = [j for j in store.judgments(method=summary.method, model=summary.model) if (j.qid, j.docid) in wanted]
    labels = {(j.qid, j.docid): int(j.label) for j in js if j.label is not None}
    return _Judged(row, spec, unit, labels, sum(j.calls for j in js), new_calls)


async def ameasure(main: Store, runs: Sequence[Any], reference: Mapping[Pair, int], req: HybridRequest,
                   threshold: int, progress: Any = None) -> list[Measured]:
    """Every row under its allocation in every execution, judged at once; scored per row."""
    from qrelkit.compare.run import Combined, judge_all
    from qrelkit.llm.client import SharedLimits

    topics = chosen_topics(reference, req.topics, req.seed)
    allocations = list(dict.fromkeys(a for _, _, a in req.rows))
    units = [split(runs, reference, a, e, topics, req) for e in range(req.repeat) for a in allocations]
    shared, each, stores = SharedLimits(), Combined(progress), []
    try:
        jobs = []
        for u in units:
            stores.append(unit_store(main, u, reference, req.name))
            jobs += [_judge(stores[-1], row, spec, u, req, each(f"{row} {a} e{u.execution}"), shared, main)
                     for row, spec, a in req.rows if a == u.allocation]
        judged = await judge_all(jobs)
    finally:
        for s in stores:
            s.close()
    return score_rows(judged, runs, reference, req, threshold)


def score_rows(judged: Sequence[_Judged], runs: Sequence[Any], reference: Mapping[Pair, int], req: HybridRequest,
               threshold: int) -> list[Measured]:
    from qrelkit.compare.rcl import decisions
    from qrelkit.evaluate.significance import decision_agreement
    from qrelkit.evaluate.systems import prepare_runs

    all_topics = sorted({q for q, _ in reference})
    prepared = prepare_runs(runs)
    full = decisions(prepared, reference, all_topics, req.measure, threshold)
    groups: dict[tuple[str, str], list[tuple[_Judged, dict, float]]] = {}
    for j in judged:
        sample = {(c.qid, c.docid) for c in j.unit.sample}
        f1 = per_query_f1(reference, j.labels, threshold)
        hybrid = {k: reference[k] for k in j.unit.pool if k not in sample}
        hybrid.update({k: threshold if lab else 0 for k, lab in j.labels.items()})
        mcc = decision_agreement(full, decisions(prepared, hybrid, all_topics, req.measure, threshold)).matthews
        groups.setdefault((j.row, j.unit.allocation), []).append((j, f1, mcc))
    out = []
    for (row, alloc), rs in groups.items():
        f1m, f1s = mean_std([statistics.fmean(f.values()) if f else None for _, f, _ in rs])
        mm, ms = mean_std([m for _, _, m in rs])
        n = sum(len(j.unit.sample) for j, _, _ in rs)
        out.append(Measured(
            row, rs[0][0].spec, alloc, f1m, f1s, mm, ms, len(rs), len(rs[0][0].unit.sample),
            len(rs[0][0].unit.people), n - sum(len(j.labels) for j, _, _ in rs),
            sum(j.calls for j, _, _ in rs) / max(1, n), sum(j.new_calls for j, _, _ in rs),
            tuple((j.unit.execution, q, v) for j, f, _ in rs for q, v in f.items())))
    return out


# --- a comparison's sample scored in a hybrid pool (benchmarks/judges.py, hybrid_paper.py) ---

@dataclass(frozen=True)
class HybridFigures:
    balanced_accuracy: Optional[float]  # of the hybrid labels
    per_topic_f1: Optional[float]
    mcc: Optional[float]
    significant_pairs: int  # under the hybrid qrels

    def to_dict(self) -> dict:
        return asdict(self)


def decided_labels(store: Store, method: str, model: str, gold: Mapping[Pair, int]) -> dict[Pair, tuple[int, int]]:
    """The sample pairs a method decided: ``{pair: (binary label, grade)}``."""
    out = {}
    for j in store.judgments(method=method, model=model):
        k = (j.qid, j.docid)
        if k in gold and j.label is not None:
            out[k] = (int(j.label), int(j.grade) if j.grade is not None else 2 * int(j.label))
    return out


def full_decisions(prepared: Any, full: Mapping[Pair, int], topics: Sequence[str], measure: str) -> Any:
    from qrelkit.compare.rcl import decisions

    return decisions(prepared, full, topics, measure)


def hybrid_figures(prepared: Any, reference_decisions: Any, pool_labels: Mapping[Pair, int],
                   gold: Mapping[Pair, int], decided: Mapping[Pair, tuple[int, int]], topics: Sequence[str],
                   measure: str, threshold: int = 2) -> HybridFigures:
    """``pool_labels``: the reference's labels on the pool; ``gold``: the reference on the method's
    share; ``decided``: :func:`decided_labels`; ``reference_decisions``: :func:`full_decisions`."""
    from qrelkit.compare.rcl import decisions
    from qrelkit.evaluate.agreement import compare_labels
    from qrelkit.evaluate.significance import decision_agreement

    hybrid = {k: decided[k][1] if k in decided else g for k, g in gold.items()}
    ag = compare_labels(gold, hybrid, threshold, binary_labels={k: v[0] for k, v in decided.items()})
    sig = decisions(prepared, {**pool_labels, **hybrid}, topics, measure)
    mcc = decision_agreement(reference_decisions, sig).to_dict()["matthews_corrcoef"]
    return HybridFigures(ag.balanced_accuracy, ag.per_topic_f1, mcc, int((sig.decisions != 0).sum()))


def pool_mcc(prepared: Any, reference_decisions: Any, pool_labels: Mapping[Pair, int], topics: Sequence[str],
             measure: str) -> float:
    """The ceiling: the reference's own labels on the whole pool."""
    from qrelkit.compare.rcl import decisions
    from qrelkit.evaluate.significance import decision_agreement

    sig = decisions(prepared, pool_labels, topics, measure)
    return decision_agreement(reference_decisions, sig).to_dict()["matthews_corrcoef"]


def decided_accuracy(gold: Mapping[Pair, int], decided: Mapping[Pair, tuple[int, int]],
                     threshold: int = 2) -> Optional[float]:
    """Plain accuracy of the decided labels (beside balanced accuracy it shows a method that
    labels every pair one way: accuracy at the base rate, balanced accuracy 0.5)."""
    if not decided:
        return None
    return sum(int(gold[k] >= threshold) == v[0] for k, v in decided.items()) / len(decided)
