"""Judge one stored sample with several methods and score each: the comparison itself.

Every method goes through the one judging pipeline (:func:`qrelkit.judging.arun_job`) with
the sample as its cases, so the LLM cache, resuming and retries are the pipeline's: a
second call judges only what is missing, and a method added later judges the same pairs
and pays only for the calls no method made before.

The methods run at once, in one event loop (:func:`judge_all`): each has its own client, so
each counts its own calls, tokens and latency, but the clients share one set of call slots
(at most ``concurrency`` calls in flight for the whole comparison) and their in-flight
requests (a prompt two methods ask at the same moment is sent once:
:class:`qrelkit.llm.client.SharedLimits`), and one cache. A method's latency figures are
then its own calls' and its own wall time while the others ran beside it.
"""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Optional

from qrelkit.compare.cost import Cost, cost_of
from qrelkit.compare.methods import AGREEMENT, BUDGETS, CONFIDENCE, at_budget, budget_of, learns, parse, role
from qrelkit.compare.sample import Draw, Sample, check_learnable, ensure_sample
from qrelkit.compare.scores import Scores, score
from qrelkit.llm.client import SharedLimits
from qrelkit.store.comparisons import RunCost
from qrelkit.types import Case

if TYPE_CHECKING:
    from qrelkit.store import Store

Pair = tuple[str, str]


@dataclass(frozen=True)
class CompareRequest:
    """What ``qrelkit compare`` was asked: methods, model, the sample and how to judge."""

    methods: tuple[str, ...]
    model: str = "local"
    name: str = "default"
    draw: Draw = Draw(200)
    explicit_draw: bool = True
    sample_file: Optional[Path] = None
    concurrency: int = 8
    task: str = "graded"
    threshold: int | str = "auto"
    max_attempts: Optional[int] = None
    prices: tuple[tuple[str, float, float], ...] = ()
    curve: bool = True  # budget curves for confidence methods
    budgets: tuple[str, ...] = BUDGETS


@dataclass(frozen=True)
class MethodResult:
    """One method (at one budget) on the sample."""

    method: str  # as asked
    canonical: str
    model: str
    role: str  # single | confidence | agreement
    budget: Optional[str]
    scores: Scores
    cost: Cost
    new_calls: int  # calls of this invocation that reached the model
    calibration: dict = field(default_factory=dict, hash=False)  # what the method learnt or calibrated, this run
    narrative_calls: int = 0  # this run's calls inducing narratives (RCL's instructor), apart from the cases'

    def to_dict(self) -> dict:
        return {"method": self.method, "canonical": self.canonical, "model": self.model, "role": self.role,
                "budget": self.budget, **self.scores.to_dict(), **self.cost.to_dict(), "new_calls": self.new_calls,
                "calibration": self.calibration, "narrative_calls": self.narrative_calls}


@dataclass(frozen=True)
class Curve:
    """A confidence method over escalation budgets, and where it matches the best agreement method."""

    method: str
    points: tuple[MethodResult, ...]
    target: Optional[str]  # the agreement method matched
    target_balanced_accuracy: Optional[float]
    matching_budget: Optional[str]  # smallest budget of the curve reaching the target; None: none does

    def to_dict(self) -> dict:
        return {"method": self.method, "points": [p.to_dict() for p in self.points], "target": self.target,
                "target_balanced_accuracy": self.target_balanced_accuracy, "matching_budget": self.matching_budget}


@dataclass(frozen=True)
class Comparison:
    name: str
    model: str
    threshold: int
    draw: Draw
    cases: int
    relevant: int
    methods: tuple[MethodResult, ...]
    curves: tuple[Curve, ...] = ()
    seconds: float = 0.0
    extra: dict = field(default_factory=dict, hash=False)

    def to_dict(self) -> dict:
        return {"comparison": self.name, "model": self.model, "threshold": self.threshold,
                "draw": self.draw.to_dict(), "cases": self.cases, "relevant": self.relevant,
                "methods": [m.to_dict() for m in self.methods], "budget_curves": [c.to_dict() for c in self.curves],
                "seconds": round(self.seconds, 3), **self.extra}


def sample_cases(store: Store, sample: Sample) -> tuple[Case, ...]:
    """The sample as cases, keeping a pooled pair's place in the pool (confidence reads it)."""
    pooled = {(c.qid, c.docid): c for c in store.cases()}
    return tuple(pooled.get((q, d), Case(q, d, "llm", 0, (), True)) for q, d, _ in sample.pairs)


@dataclass(frozen=True)
class Bench:
    """What every method of one comparison is judged with: the workspace, the sample (and its
    pairs as cases), the relevance threshold and the call limits the methods share."""

    store: Store
    sample: Sample
    cases: tuple[Case, ...]
    threshold: int
    shared: SharedLimits = field(default_factory=SharedLimits, compare=False)


async def judge_method(bench: Bench, spec_text: str, req: CompareRequest, progress: Optional[Callable] = None,
                       label: Optional[str] = None) -> MethodResult:
    """Judge the sample with one method (resumably) and score it."""
    from qrelkit.llm.prices import resolve_prices

    store, sample, threshold = bench.store, bench.sample, bench.threshold
    job = _job(spec_text, req, bench.cases)
    spec = job.spec(store)
    summary, new_calls, latency = await run_method(store, job, progress, bench.shared)
    if new_calls:
        store.record_comparison_run(sample.name, summary.method, summary.model, time.time() - summary.seconds,
                                    RunCost(summary.seconds, summary.new, new_calls, latency, req.concurrency))
    gold = sample.gold
    js = [j for j in store.judgments(method=summary.method, model=summary.model) if (j.qid, j.docid) in gold]
    labels = {(j.qid, j.docid): j.label for j in js}
    statuses = {(j.qid, j.docid): j.status for j in js}
    prices = resolve_prices(summary.model, {m: {"input": i, "output": o} for m, i, o in req.prices} or None)
    run = store.comparison_cost(sample.name, summary.method, summary.model)
    return MethodResult(
        method=label or spec_text, canonical=summary.method, model=summary.model, role=role(spec),
        budget=budget_of(spec), scores=score(gold, labels, statuses, threshold, seed=sample.draw.seed),
        cost=cost_of(js, prices, run), new_calls=new_calls, calibration=dict(summary.calibration or {}),
        narrative_calls=summary.narrative_calls,
    )


def _job(spec_text: str, req: CompareRequest, cases: tuple[Case, ...], share: str = "judged"):
    from qrelkit.judging import JudgingJob

    return JudgingJob(method=spec_text, model=req.model, task=req.task, share=share, concurrency=req.concurrency,
                      threshold=req.threshold, max_attempts=req.max_attempts, prices=req.prices, cases=cases)


async def run_method(store: Store, job, progress: Optional[Callable] = None, shared: Optional[SharedLimits] = None,
                     cache: Optional[Store] = None):
    """One method's judging run with its own client (limits ``shared`` with the loop's other
    methods, answers cached in ``cache``, by default ``store``): (summary, calls that reached
    the model, their summed latency)."""
    from qrelkit.judging import arun_job

    job.spec(store)  # a bad spec fails before a client is made
    client = job.client(cache or store, shared=shared)
    try:
        summary = await arun_job(store, job, progress, client=client)
    finally:
        await client.aclose()
    u = client.usage
    return summary, u.calls - u.cache_hits - u.errors, u.latency


async def judge_all(jobs: list) -> list:
    """Await every coroutine of ``jobs`` at once, in order; the first failure cancels the rest."""
    async with asyncio.TaskGroup() as tg:
        tasks = [tg.create_task(j) for j in jobs]
    return [t.result() for t in tasks]


class Combined:
    """One progress line for methods judged at once: their cases done and to do, summed."""

    def __init__(self, update: Optional[Callable]):
        self.update, self.last = update, {}

    def __call__(self, name: str) -> Optional[Callable]:
        if self.update is None:
            return None

        def cb(p) -> None:
            from qrelkit.judging.summary import ProgressUpdate

            self.last[name] = p
            ps = list(self.last.values())
            usage = ps[0].usage
            for x in ps[1:]:
                usage = usage + x.usage
            stage = p.stage
            self.update(ProgressUpdate(sum(x.done for x in ps), sum(x.total for x in ps), usage,
                                       sum(x.escalations for x in ps), sum(x.errors for x in ps), stage=stage))
        return cb


def reference_threshold(req: CompareRequest, reference: Mapping[Pair, int]) -> int:
    from qrelkit.relevance import resolve_threshold

    return resolve_threshold(req.threshold, reference, "the reference").value


async def acompare(store: Store, req: CompareRequest, reference: Mapping[Pair, int],
                   progress: Optional[Callable[[str], Callable]] = None) -> Comparison:
    """The comparison of ``req.methods`` on the workspace's stored sample (drawn on first use).

    ``progress(method)`` may return the pipeline's progress callback for that method."""
    t0 = time.perf_counter()
    specs = [parse(m) for m in req.methods]  # a bad spec fails before anything is drawn or judged
    sample = ensure_sample(store, req.name, reference, req.draw, req.sample_file, req.explicit_draw)
    threshold = reference_threshold(req, reference)
    check_learnable(store, sample, [m for m, s in zip(req.methods, specs) if learns(s)], threshold)
    bench = Bench(store, sample, sample_cases(store, sample), threshold)
    each = Combined(progress("methods") if progress else None)
    results = await judge_all([judge_method(bench, text, req, each(text)) for text in req.methods])
    curves = await budget_curves(bench, specs, results, req, progress) if req.curve else ()
    gold = sample.gold
    return Comparison(req.name, req.model, threshold, sample.draw, len(sample),
                      sum(1 for g in gold.values() if g >= threshold), tuple(results), tuple(curves),
                      time.perf_counter() - t0)


async def budget_curves(bench: Bench, specs: list, results: list, req: CompareRequest,
                        progress: Optional[Callable] = None) -> list[Curve]:
    """Each confidence method at every budget, and the smallest budget at which its balanced
    accuracy (on decided cases) reaches the best agreement method's (LARA vs DREAM)."""
    agreement = [r for r in results if r.role == AGREEMENT and r.scores.balanced_accuracy is not None]
    best = max(agreement, key=lambda r: r.scores.balanced_accuracy, default=None)
    curves, seen = [], set()
    each = Combined(progress("budget curves") if progress else None)
    for text, spec in zip(req.methods, specs):
        if role(spec) != CONFIDENCE:
            continue
        base = at_budget(spec, req.budgets[0]).main.with_params(budget="0").canonical
        if base in seen:
            continue
        seen.add(base)
        points = await judge_all([judge_method(bench, at_budget(spec, b).canonical, req, each(f"{text} @ {b}"),
                                               label=f"{text} @ {b}") for b in req.budgets])
        match = None
        if best is not None:
            match = next((p.budget for p in points if p.scores.balanced_accuracy is not None
                          and p.scores.balanced_accuracy >= best.scores.balanced_accuracy), None)
        curves.append(Curve(text, tuple(points), best.method if best else None,
                            best.scores.balanced_accuracy if best else None, match))
    return curves


def compare(store: Store, req: CompareRequest, reference: Mapping[Pair, int],
            progress: Optional[Callable[[str], Callable]] = None) -> Comparison:
    """:func:`acompare` in its own event loop."""
    import asyncio

    return asyncio.run(acompare(store, req, reference, progress))


__all__ = ["CompareRequest", "Comparison", "Curve", "MethodResult", "acompare", "compare"]
