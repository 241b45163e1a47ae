"""The judging pipeline: pending cases -> judge -> judgments, resumably.

Everything done once for all judges lives in the runner's modules or in the
Client: case selection (:mod:`.selection`; a temporary table of the store, paged, so that
memory does not grow with the pair count), preparation — client check,
learning from people, calibration (:mod:`.preparation`, :mod:`.labels`) —,
concurrency (a pool of workers whose calls ``concurrency`` bounds, here) or batches
(:mod:`.batching`), writing verdicts as they are done in small groups (a kill loses
the cases in flight and at most the last 0.25 s of verdicts, whose calls are cached), resuming (a re-run skips pairs this (method, model)
has finished; error verdicts are retried), the escalation budget and the
oracle (:mod:`.escalation`), and the usage record of the command
(:mod:`.summary`).

Provenance of every judgment = the judge's own keys (see each judge module)
plus ``method``, ``model``, ``task`` ({"name", "threshold"}), ``status`` and,
for undecided verdicts, ``reason`` (:meth:`Verdict.to_judgment`); ``budget``
when the budget touched it; ``oracle`` (the reference grade) on escalations
answered in simulation.

Labels of the selected pairs never teach a judge about those pairs: original
qrels of selected pairs (audit mode) are left out of the human labels, and so
is every label of a pair still to be judged.
"""

from __future__ import annotations

import asyncio
import functools
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, Optional, Sequence

from qrelkit.errors import UsageError
from qrelkit.judges import JudgeSpec, build, parse_spec
from qrelkit.judges.base import (
    ERROR,
    AdjudicatingJudge,
    BatchJudge,
    Judge,
    JudgeInput,
    Task,
    Verdict,
)
from qrelkit.judges.learning import Learned
from qrelkit.judging.batching import judge_in_batches
from qrelkit.judging.budget import Budget, parse_budget
from qrelkit.judging.context import RunContext
from qrelkit.judging.escalation import answer_from_oracle, apply_budget, check_budget
from qrelkit.judging.guarded import guard_case, guard_docs
from qrelkit.judging.preparation import check_client, prepare
from qrelkit.judging.selection import open_selection, resolve_task
from qrelkit.judging.summary import JudgeSummary, ProgressUpdate, command_totals, summarise
from qrelkit.llm.availability import case_calls
from qrelkit.llm.client import Client
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Usage

Pair = tuple[str, str]
WORKERS_PER_SLOT = 2  # workers per call slot of the client (see _judge_each)


def _missing(what: str) -> Verdict:
    return Verdict(
        status=ERROR,
        label=None,
        grade=None,
        reason=f"{what} missing from the workspace",
        provenance={"missing": what},
    )


class _Inputs:
    """What a judge gets for a case, or the error verdict when its topic or text is missing.
    Topics are read as cases come (they come topic by topic, so a small cache hits); documents a
    page of cases at a time (:meth:`prefetch`), one query instead of one per case."""

    def __init__(self, store: Store, task: Task, guard: bool = True):
        self.store, self.task, self.guard = store, task, guard
        self.topic_of = functools.lru_cache(maxsize=256)(store.topic)
        self.docs: dict[str, Doc] = {}
        self.guarded: dict[str, Optional[Verdict]] = {}

    def prefetch(self, cases: Sequence[Case]) -> None:
        self.docs = self.store.docs_by_id([c.docid for c in cases])
        if self.guard:  # a page's documents checked together: one call to the guard's e5 stage
            self.guarded = guard_docs(list(self.docs.values()))

    def __call__(self, case: Case) -> JudgeInput | Verdict:
        topic = self.topic_of(case.qid)
        if topic is None:
            return _missing("topic")
        doc = self.docs.get(case.docid) or self.store.doc(case.docid)
        if doc is None:
            return _missing("document text")
        if self.guard:  # a document that addresses the judge goes to people, not to the judge
            guarded = self.guarded[doc.docid] if doc.docid in self.guarded else guard_case(doc)
            if guarded is not None:
                return guarded
        return JudgeInput(case, topic, doc, self.task)


def _paged(pages: Iterable[Sequence[Case]], inputs: _Inputs) -> Iterator[Case]:
    """The cases of ``pages`` one by one, each page's documents read when the page is reached."""
    for page in pages:
        inputs.prefetch(page)
        yield from page


def _pages(cases: Sequence[Case], size: int = 512) -> Iterator[Sequence[Case]]:
    return (cases[i:i + size] for i in range(0, len(cases), size))


class _Recorder:
    """Writes verdicts as they come, in small transactions, and tells the ``progress`` callback.

    One commit per verdict cost more than the rest of the store's work at 10^5 pairs;
    verdicts are now committed together every ``GROUP`` verdicts or ``GROUP_SECONDS``,
    whichever comes first, and whatever is left when the run ends or is stopped
    (:meth:`flush`). A kill loses at most the verdicts of the last fraction of a second,
    whose calls are already in the call cache: a re-run redoes them without paying."""

    GROUP = 64
    GROUP_SECONDS = 0.25

    def __init__(self, store: Store, client: Client, method: str, model: str, task: Task, total: int,
                 progress: Optional[Callable[[ProgressUpdate], None]]):
        self.store, self.client, self.method, self.model, self.task = store, client, method, model, task
        self.total, self.progress = total, progress
        self.usage0 = client.usage
        self.done = self.escalations = self.errors = 0
        self.unanswered = 0  # cases not recorded: the server gave no answer (the next run retries them)
        self.already = 0  # cases of the selection an earlier run judged
        self.buffer: list[Any] = []
        self.flushed_at = time.monotonic()

    def stage(self, text: str) -> None:
        """A long step inside judging (a batch judge scoring): the progress callback hears its name."""
        if self.progress is not None:
            usage = self.client.usage - self.usage0
            self.progress(ProgressUpdate(self.done, self.total, usage, self.escalations, self.errors, stage=text,
                                         already=self.already))

    def emit(self) -> None:
        if self.progress is not None:
            usage = self.client.usage - self.usage0
            self.progress(ProgressUpdate(self.done, self.total, usage, self.escalations, self.errors,
                                         already=self.already))

    def __call__(self, case: Case, v: Verdict) -> None:
        self.buffer.append(v.to_judgment(case, self.method, self.model, self.task))
        if len(self.buffer) >= self.GROUP or time.monotonic() - self.flushed_at >= self.GROUP_SECONDS:
            self.flush()
        self.done += 1
        self.escalations += int(v.escalated)
        self.errors += int(v.status == ERROR)
        self.emit()  # every case: a library caller's callback may act on a count (tests/engines/test_ray.py)

    def flush(self) -> None:
        if self.buffer:
            self.store.put_judgments(self.buffer)
            self.buffer = []
        self.flushed_at = time.monotonic()


async def _judge_each(judge: Judge, cases: Iterable[Case], client: Client, concurrency: int,
                      make_input: Callable[[Case], JudgeInput | Verdict], record: _Recorder) -> None:
    """Case by case, at most ``concurrency`` calls in flight; a failure cancels the other workers.

    The workers share one iterator over ``cases`` (the selection's pages, read as they are
    needed), so nothing but the cases in flight and one page is held.

    When the client itself holds calls to ``concurrency`` or fewer (a job's client is made with
    the job's concurrency), there are twice as many workers as call slots: a worker whose
    request is already in flight for another case (a duplicate passage; the client sends it
    once) waits without holding a slot, and a worker has its next case's prompt ready when a
    slot frees, instead of the server waiting for that work (benchmarks/llm_throughput.py
    --judge: 5,000 LLMJudge cases, 64 in flight, 10 % of them duplicates, lost 0.7 s of 14 to
    workers waiting for a duplicate's answer). A client allowing more than ``concurrency``
    calls (library use) gets ``concurrency`` workers, so that the bound still holds."""
    it = iter(cases)

    async def worker() -> None:
        for case in it:  # next() runs between awaits, so no two workers take one case
            inp = make_input(case)
            with case_calls() as calls:
                v = inp if isinstance(inp, Verdict) else await judge(inp, client)
            if not (v.status == ERROR and calls.unanswered):  # a server that did not answer: the next
                record(case, v)                                # run retries the case; people never see it
            else:
                record.unanswered += 1

    n = min(WORKERS_PER_SLOT * concurrency if client.concurrency <= concurrency else concurrency,
            max(1, record.total))
    workers: list[asyncio.Future] = []
    try:
        # The first ``concurrency`` workers one loop turn apart, so that each one's request is
        # written while the next prepares its case; started together, every worker prepared
        # its first case (~0.2 ms each) before the first request left, 0.1 s at 256 in flight.
        for i in range(n):
            workers.append(asyncio.ensure_future(worker()))
            if i < concurrency:
                await asyncio.sleep(0)
        await asyncio.gather(*workers)
    except BaseException:
        for w in workers:
            w.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        raise


def _needs_selection(judge: Judge) -> bool:
    """Does the judge see the whole selection (batches, learning, calibration), or one case at a time?"""
    return isinstance(judge, BatchJudge) or judge.needs_labels or any(j.learns for j in judge.chain())


def resumed_spec(store: Store, spec: JudgeSpec, model: str) -> JudgeSpec:
    """``spec``, or the spec as it was before its defaults changed (:meth:`JudgeSpec.as_before`)
    when this workspace was judged under that one: its judgments, or a judging run of it with
    this model. A new default (debate's prompt v2) never re-judges a workspace's old work; the
    user opts in by writing the parameter out (``debate(prompt=v2)``)."""
    earlier = spec.earlier()
    if not earlier:
        return spec
    runs = [r for r in store.command_runs() if "method" in r.args]  # judge, fill or build
    for before in earlier:  # the most recent form first (one per changed default)
        old = before.canonical
        if store.has_finished(old, model) or any(r.args.get("method") == old and r.args.get("model") == model
                                                 for r in runs):
            return before
    return spec


@dataclass(frozen=True)
class RunOptions:
    """Which cases a run covers and how: the runner's options as one value.

    ``share``: ``llm`` (holes left to the LLM, the default), ``people``, ``all``
    (every unjudged case) or ``judged`` (audit mode: re-judge labelled pairs).
    ``budget`` ("N" or "P%") caps escalations to people (see :mod:`qrelkit.judging.budget`).
    ``oracle`` (``{(qid, docid): grade}``, simulation) answers escalations from reference labels:
    the answer is noted in the escalation's provenance as ``oracle`` and, for batch judges,
    teaches the later batches; no label is written. ``cases`` replaces the selection.
    ``guard`` (on by default) sends a case whose document addresses the judge to people
    (:mod:`qrelkit.judging.guarded`). ``resume`` (on by default): a spec whose defaults changed
    continues under the earlier form this workspace was judged under (:func:`resumed_spec`); a
    job (fill, build) settles its method id once, when it is made, and runs it as it is."""

    task: str = "auto"
    share: str = "llm"
    limit: Optional[int] = None
    concurrency: int = 8
    budget: Optional[str | Budget] = None
    threshold: int | str = "auto"
    cases: Optional[Sequence[Case]] = field(default=None, compare=False, hash=False)
    oracle: Optional[Mapping[Pair, int]] = field(default=None, compare=False, hash=False)
    command: str = "judge"  # the command the user ran (judge, fill, build): its record's name
    guard: bool = True
    resume: bool = True


async def arun_judging(
    store: Store,
    method_spec: str | JudgeSpec,
    client: Client,
    options: Optional[RunOptions] = None,
    progress: Optional[Callable[[ProgressUpdate], None]] = None,
) -> JudgeSummary:
    """Judge the selected cases; see :func:`run_judging`."""
    t0 = time.perf_counter()
    o = options or RunOptions()
    spec = parse_spec(method_spec) if isinstance(method_spec, str) else method_spec
    if o.resume:
        spec = resumed_spec(store, spec, client.model_id)
    method, model = spec.canonical, client.model_id
    tsk = resolve_task(store, o.task, o.threshold)
    bud = parse_budget(o.budget) if not isinstance(o.budget, Budget) else o.budget
    if o.concurrency < 1:
        raise UsageError("--concurrency must be >= 1")
    judge = build(spec, defer_adjudication=bud is not None)
    check_client(judge, client)
    check_budget(spec, bud)
    sel = open_selection(store, o.share, o.limit, o.cases)
    run = RunContext(store, spec, judge, client, sel, tsk, bud, o.oracle, t0, {
        "method": method, "model": model, "task": tsk.name, "threshold": o.threshold, "share": o.share,
        "limit": o.limit, "concurrency": o.concurrency, "budget": str(bud) if bud else None,
        "oracle": len(o.oracle) if o.oracle is not None else None, "guard": "on" if o.guard else "off",
    }, command=o.command)
    try:
        with store.checkpoints_aside():  # no disk sync inside the per-call commits (StoreCore)
            return await _judge_selection(run, progress)
    finally:
        sel.drop()


async def _judge_selection(run: RunContext, progress: Optional[Callable[[ProgressUpdate], None]]) -> JudgeSummary:
    """Judge the pending cases of ``sel`` (a :class:`qrelkit.store.Selection`), record the command."""
    store, spec, judge, client, sel, tsk, bud, oracle = (
        run.store, run.spec, run.judge, run.client, run.selection, run.task, run.budget, run.oracle)
    args = run.args
    method, model, concurrency = spec.canonical, client.model_id, args["concurrency"]
    # whole-selection judges get lists, as before; the others stream the pending cases page by page
    n_pending = sel.pending_count(method, model)
    whole = _needs_selection(judge) and n_pending > 0
    selected = sel.cases() if whole else []
    pending = list(sel.pending(method, model)) if whole else []
    run_id = store.start_command(run.command, args)
    record = _Recorder(store, client, method, model, tsk, n_pending, progress)
    record.already = len(sel) - n_pending
    status, calibration, learned = "failed", {}, Learned()
    try:
        if whole and progress is not None:
            progress(ProgressUpdate(0, n_pending, Usage(), 0, 0,
                                    stage=f"preparing the judge ({judge.NAME}: labelled pairs, signals)"))
        calibration, learned = await prepare(judge, store, tsk, selected, pending, client)
        make_input = _Inputs(store, tsk, guard=args.get("guard", "on") == "on")
        record.emit()
        if isinstance(judge, BatchJudge):
            if pending:
                calibration.update(
                    await judge_in_batches(run, selected, pending, make_input, record, record.stage)
                )
        else:
            pages = _pages(pending) if whole else sel.pending_pages(method, model)
            await _judge_each(judge, _paged(pages, make_input), client, concurrency, make_input, record)
            record.flush()
            if bud is not None:
                adjudicating = next((j for j in judge.chain() if isinstance(j, AdjudicatingJudge)), None)
                await apply_budget(store, sel, bud, adjudicating, client, method, model, tsk)
            if oracle is not None:
                answer_from_oracle(store, sel, method, model, oracle)
        status = "done"
    except (KeyboardInterrupt, asyncio.CancelledError):
        status = "interrupted"  # stopped by the user, not a failure: `status` says so
        raise
    finally:
        try:  # a disk that refuses these writes stops here with its one line (store.faults)
            record.flush()
            store.flush_calls()  # the last answers, whether or not a verdict group followed them
            used: Usage = client.usage - record.usage0
            for j in judge.chain():
                used = used + j.extra_usage()
            summary = summarise(run, used, record.done, calibration, learned, record.unanswered)
            store.finish_command(run_id, command_totals(client.usage_dict(), summary), status=status)
        finally:
            for j in judge.chain():
                await j.aclose()
    if store.write_failed is not None:  # an answer the cache could not keep: said, not dropped
        raise store.write_failed
    return summary


def run_judging(
    store: Store,
    method_spec: str | JudgeSpec,
    client: Client,
    progress: Optional[Callable[[ProgressUpdate], None]] = None,
    **options: Any,
) -> JudgeSummary:
    """Judge a workspace's pending cases with one method and one model; ``options`` are
    :class:`RunOptions`' fields.

    Resumable: pairs this (method, model) already finished are skipped; error
    verdicts are retried. Runs its own event loop; inside a running loop use
    :func:`arun_judging`.
    """
    return asyncio.run(arun_judging(store, method_spec, client, RunOptions(**options), progress))
