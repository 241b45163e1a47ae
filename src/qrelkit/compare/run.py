"""Judge one stored sample with several methods and score each: the comparison itself.

Every method goes through the one judging pipeline (:func:`qrelkit.judging.arun_job`) with
the sample as its cases, so the LLM cache, resuming and retries are the pipeline's: a
second call judges only what is missing, and a method added later judges the same pairs
and pays only for the calls no method made before. Methods run one after another, each
with ``concurrency`` cases in flight (one method at a time keeps each run's latency its own).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Optional

from qrelkit.compare.cost import Cost, cost_of
from qrelkit.compare.methods import AGREEMENT, BUDGETS, CONFIDENCE, at_budget, budget_of, learns, parse, role
from qrelkit.compare.sample import Draw, Sample, check_learnable, ensure_sample
from qrelkit.compare.scores import Scores, score
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


async def judge_method(store: Store, sample: Sample, cases: tuple[Case, ...], spec_text: str, req: CompareRequest,
                       threshold: int, progress: Optional[Callable] = None, label: Optional[str] = None) -> MethodResult:
    """Judge the sample with one method (resumably) and score it."""
    from qrelkit.judging import JudgingJob, arun_job
    from qrelkit.llm.prices import resolve_prices

    job = JudgingJob(method=spec_text, model=req.model, task=req.task, share="judged", concurrency=req.concurrency,
                     threshold=req.threshold, max_attempts=req.max_attempts, prices=req.prices, cases=cases)
    spec = job.spec(store)
    started = time.time()
    summary = await arun_job(store, job, progress)
    new_calls, latency = store.new_call_latency(summary.model, started)
    if new_calls:
        store.record_comparison_run(sample.name, summary.method, summary.model, started,
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
    cases = sample_cases(store, sample)
    results = []
    for text in req.methods:
        results.append(await judge_method(store, sample, cases, text, req, threshold,
                                          progress(text) if progress else None))
    curves = await budget_curves(store, sample, cases, specs, results, req, threshold, progress) if req.curve else ()
    gold = sample.gold
    return Comparison(req.name, req.model, threshold, sample.draw, len(sample),
                      sum(1 for g in gold.values() if g >= threshold), tuple(results), tuple(curves),
                      time.perf_counter() - t0)


async def budget_curves(store: Store, sample: Sample, cases: tuple[Case, ...], specs: list, results: list,
                        req: CompareRequest, threshold: int, progress: Optional[Callable] = None) -> list[Curve]:
    """Each confidence method at every budget, and the smallest budget at which its balanced
    accuracy (on decided cases) reaches the best agreement method's (LARA vs DREAM)."""
    agreement = [r for r in results if r.role == AGREEMENT and r.scores.balanced_accuracy is not None]
    best = max(agreement, key=lambda r: r.scores.balanced_accuracy, default=None)
    curves, seen = [], set()
    for text, spec in zip(req.methods, specs):
        if role(spec) != CONFIDENCE:
            continue
        base = at_budget(spec, req.budgets[0]).main.with_params(budget="0").canonical
        if base in seen:
            continue
        seen.add(base)
        points = []
        for b in req.budgets:
            s = at_budget(spec, b)
            points.append(await judge_method(store, sample, cases, s.canonical, req, threshold,
                                             progress(f"{text} @ {b}") if progress else None, label=f"{text} @ {b}"))
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
