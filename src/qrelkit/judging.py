"""A judging job: everything one run of a judge needs, decided in one place.

`qrelkit judge`, `fill`, `build` and ``benchmarks/judges.py`` all judge cases
the same way: resolve the method (``auto`` or none -> :func:`qrelkit.judges.auto_method`),
put a prefilter in front of it and hand persistent disagreements to the LLM
adjudicator when asked (both as values, see :class:`qrelkit.judges.JudgeSpec`),
refuse a second human budget, make the model client (its model served where the
job's engine says: in-process or by Ray actors, :mod:`qrelkit.engines`), run the runner in one
event loop and close the client inside it (its connections belong to that
loop). :func:`run_job` is that sequence; the commands only say which job.

The task (``auto``) is resolved by the runner, by one rule for every command
(:func:`qrelkit.judges.runner.resolve_task`).
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

from qrelkit.engines import EngineSpec
from qrelkit.judges import JudgeSpec, parse_prefilter, parse_spec, resolve_method
from qrelkit.judges.spec import is_auto
from qrelkit.types import Case


def has_labels(store: Any) -> bool:
    """Whether a workspace has labelled pairs a judge can learn from (original qrels or people's)."""
    return store is not None and (bool(store.qrels()) or bool(store.people_labels()))


@dataclass(frozen=True)
class JudgingJob:
    """What to judge, with what and how: the options the commands share, as one value.

    ``method``: a spec, ``auto`` or None (both: :func:`qrelkit.judges.auto_method`
    for ``command``); ``prefilter``: a prefilter spec put in front of it;
    ``adjudicator``: who settles a debate's persistent disagreements unless the
    spec says so (``llm`` for ``--auto``); ``prices``: ``(model, input, output)``
    in $ per million tokens; ``oracle``: simulation labels answering escalations."""

    method: Optional[str | JudgeSpec] = None
    model: str = "local"
    command: str = "judge"  # judge | fill | build: what ``auto`` means (qrelkit.judges.AUTO_METHODS)
    task: str = "auto"
    share: str = "llm"
    limit: Optional[int] = None
    concurrency: int = 8
    budget: Optional[str] = None
    prefilter: Optional[str] = None
    adjudicator: Optional[str] = None
    threshold: int | str = "auto"  # auto: 1 on binary qrels, 2 on graded ones
    read_cache: bool = True
    prices: tuple[tuple[str, float, float], ...] = ()
    max_attempts: Optional[int] = None
    oracle: Optional[Mapping[tuple[str, str], int]] = field(default=None, compare=False, hash=False)
    engine: Optional[str | EngineSpec] = None  # where model calls run (qrelkit.engines): local | ray(...)
    cases: Optional[tuple[Case, ...]] = field(default=None, compare=False, hash=False)  # replaces the selection

    def spec(self, store: Any = None) -> JudgeSpec:
        """The method this job runs, composed and checked (raises UsageError). With ``store``,
        ``auto`` may pick the learned judge (when the workspace has labelled pairs), which then
        spends the job's budget itself."""
        from qrelkit.engines import parse_engine
        from qrelkit.judges.runner import check_budget

        spec = resolve_method(self.method, self.model, self.command, labelled=has_labels(store))
        if self.budget and self.own_budget(spec):
            spec = parse_spec(f"{spec.name}(budget={self.budget})")
        if self.prefilter:
            spec = spec.with_prefilter(parse_prefilter(self.prefilter))
        if self.adjudicator:
            spec = spec.with_adjudicator(self.adjudicator)
        check_budget(spec, None if self.own_budget(spec) else self.budget)
        parse_engine(self.engine)  # a bad engine spec fails here too, before anything starts
        return spec

    def own_budget(self, spec: JudgeSpec) -> bool:
        """An auto-chosen batch judge (learned) takes ``--budget`` into its spec."""
        return is_auto(self.method) and spec.main.name == "learned"

    def client(self, store: Any) -> Any:
        """The model client, caching in ``store``, its model served by the job's engine."""
        from qrelkit.engines import make_backend, parse_engine
        from qrelkit.llm import make_client

        opts: dict[str, Any] = {"concurrency": self.concurrency, "read_cache": self.read_cache}
        if self.prices:
            opts["prices"] = {m: {"input": i, "output": o} for m, i, o in self.prices}
        if self.max_attempts is not None:
            opts["max_attempts"] = self.max_attempts
        backend = make_backend(parse_engine(self.engine), self.model, self.concurrency)
        return make_client(self.model, store=store, backend=backend, **opts)


async def arun_job(store: Any, job: JudgingJob, progress: Optional[Callable] = None) -> Any:
    """Judge ``store``'s selected cases as ``job`` says; returns the runner's JudgeSummary."""
    from qrelkit.judges.runner import arun_judging

    spec = job.spec(store)  # a bad spec fails before a model is loaded
    client = job.client(store)
    try:
        return await arun_judging(
            store, spec, client, task=job.task, share=job.share, limit=job.limit, concurrency=job.concurrency,
            budget=None if job.own_budget(spec) else job.budget, progress=progress, threshold=job.threshold, oracle=job.oracle,
            cases=job.cases,
        )
    finally:
        await client.aclose()


def run_job(store: Any, job: JudgingJob, progress: Optional[Callable] = None) -> Any:
    """:func:`arun_job` in its own event loop (one per run, so the client closes in it)."""
    return asyncio.run(arun_job(store, job, progress))
