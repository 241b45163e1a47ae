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
(:func:`qrelkit.judging.selection.resolve_task`).
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional

from qrelkit.engines import EngineSpec, parse_engine
from qrelkit.judges import JudgeSpec, parse_prefilter, resolve_method
from qrelkit.judges.spec import is_auto
from qrelkit.judging.budget import Budget, parse_budget
from qrelkit.types import Case

if TYPE_CHECKING:
    from qrelkit.judging.summary import JudgeSummary, ProgressUpdate
    from qrelkit.llm.client import Client
    from qrelkit.store import Store


def has_labels(store: Optional["Store"]) -> bool:
    """Whether a workspace has labelled pairs a judge can learn from (original qrels or people's)."""
    return store is not None and (bool(store.qrels()) or bool(store.people_labels()))


@dataclass(frozen=True)
class JudgingJob:
    """What to judge, with what and how: the options the commands share, as one value.

    ``method``: a spec (text or value), ``auto`` or None (both: :func:`qrelkit.judges.auto_method`
    for ``command``); ``prefilter``: a prefilter spec put in front of it;
    ``adjudicator``: who settles a debate's persistent disagreements unless the
    spec says so (``llm`` for ``--auto``); ``prices``: ``(model, input, output)``
    in $ per million tokens; ``oracle``: simulation labels answering escalations.
    Text values are parsed once, in :meth:`spec`; `fill` and `build` pass values already
    parsed (:class:`qrelkit.job.stored.Job`)."""

    method: Optional[str | JudgeSpec] = None
    model: str = "local"
    command: str = "judge"  # judge | fill | build: what ``auto`` means (qrelkit.judges.AUTO_METHODS)
    task: str = "auto"
    share: str = "llm"
    limit: Optional[int] = None
    concurrency: int = 8
    budget: Optional[str | Budget] = None
    prefilter: Optional[str] = None
    adjudicator: Optional[str] = None
    threshold: int | str = "auto"  # auto: 1 on binary qrels, 2 on graded ones
    read_cache: bool = True
    prices: tuple[tuple[str, float, float], ...] = ()
    max_attempts: Optional[int] = None
    oracle: Optional[Mapping[tuple[str, str], int]] = field(default=None, compare=False, hash=False)
    engine: Optional[str | EngineSpec] = None  # where model calls run (qrelkit.engines): local | ray(...)
    cases: Optional[tuple[Case, ...]] = field(default=None, compare=False, hash=False)  # replaces the selection
    guard: bool = True  # documents that address the judge go to people (qrelkit.judging.guarded)
    resume: bool = True  # an earlier form of the spec this workspace was judged under continues (RunOptions)

    def spec(self, store: Optional["Store"] = None) -> JudgeSpec:
        """The method this job runs, composed and checked (raises UsageError). With ``store``,
        ``auto`` may pick the learned judge (when the workspace has labelled pairs), which then
        spends the job's budget itself."""
        spec = resolve_method(self.method, self.model, self.command, labelled=has_labels(store))
        if self.budget and self.own_budget(spec):
            spec = spec.with_params(budget=str(parse_budget(self.budget)))
        if self.prefilter:
            spec = spec.with_prefilter(parse_prefilter(self.prefilter))
        if self.adjudicator:
            spec = spec.with_adjudicator(self.adjudicator)
        from qrelkit.judging.escalation import check_budget

        check_budget(spec, None if self.own_budget(spec) else self.budget)
        return spec

    def own_budget(self, spec: JudgeSpec) -> bool:
        """An auto-chosen batch judge (learned) takes ``--budget`` into its spec."""
        return is_auto(self.method) and spec.main.name == "learned"

    def engine_spec(self) -> EngineSpec:
        return parse_engine(self.engine)

    def client(self, store: Optional["Store"], engine: Optional[EngineSpec] = None, shared: Any = None) -> "Client":
        """The model client, caching in ``store``, its model served by the job's engine; ``shared``:
        :class:`qrelkit.llm.client.SharedLimits` it shares with other clients of the loop."""
        from qrelkit.engines import make_backend
        from qrelkit.llm import make_client

        # fail_fast: check the server before the first call, stop on a dead one (qrelkit.llm.availability)
        opts: dict[str, Any] = {"concurrency": self.concurrency, "read_cache": self.read_cache, "fail_fast": True}
        if self.prices:
            opts["prices"] = {m: {"input": i, "output": o} for m, i, o in self.prices}
        if self.max_attempts is not None:
            opts["max_attempts"] = self.max_attempts
        if shared is not None:
            opts["shared"] = shared
        backend = make_backend(engine or self.engine_spec(), self.model, self.concurrency)
        return make_client(self.model, store=store, backend=backend, **opts)


async def arun_job(store: "Store", job: JudgingJob,
                   progress: Optional[Callable[["ProgressUpdate"], None]] = None,
                   client: Optional["Client"] = None) -> "JudgeSummary":
    """Judge ``store``'s selected cases as ``job`` says; returns the runner's JudgeSummary.

    ``client``: one the caller made with :meth:`JudgingJob.client` and closes itself (a
    comparison reads each method's own usage from it); by default the job makes and closes one."""
    from qrelkit.judging.runner import RunOptions, arun_judging

    spec = job.spec(store)  # a bad spec fails before a model is loaded
    engine = job.engine_spec()
    budget = None if job.own_budget(spec) else parse_budget(job.budget) if isinstance(job.budget, str) else job.budget
    options = RunOptions(task=job.task, share=job.share, limit=job.limit, concurrency=job.concurrency,
                         budget=budget, threshold=job.threshold, oracle=job.oracle, command=job.command,
                         cases=job.cases, guard=job.guard, resume=job.resume)
    if client is not None:
        return await arun_judging(store, spec, client, options, progress)
    own = job.client(store, engine)
    try:
        return await arun_judging(store, spec, own, options, progress)
    finally:
        await own.aclose()


def run_job(store: "Store", job: JudgingJob,
            progress: Optional[Callable[["ProgressUpdate"], None]] = None) -> "JudgeSummary":
    """:func:`arun_job` in its own event loop (one per run, so the client closes in it)."""
    return asyncio.run(arun_job(store, job, progress))
