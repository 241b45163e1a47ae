"""The two jobs users come with, as resumable functions.

``fill``: complete an existing collection. pool (depth k) -> holes ->
(optional prefilter) -> judge -> escalations to people (the app) or to the LLM
adjudicator (``auto``) -> merge -> evaluate -> report.

``build``: a new collection by hybrid pooling. pool -> the top-k_human of each
run goes to people (the app) -> narratives induced from their labels -> the
rest judged (default ``narrative``) -> merge -> evaluate -> report.

Each step reads and writes the workspace store and is idempotent, so calling
the job again after an interruption (or after people have voted) continues
where it stopped: finished cases are not judged again and cached calls cost
nothing. A job that needs people stops with ``state="waiting"`` and a
message saying which command serves the app.

The job itself — method, model, budget, threshold, depths — is stored by the first call and
continued exactly by every later one (:mod:`qrelkit.job.stored`); a judging call holds the workspace's
writer lock (:mod:`qrelkit.store.lock`), so two processes never pay for one case twice.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

from qrelkit import __version__
from qrelkit.errors import UsageError
from qrelkit.job import options as opts
from qrelkit.job.plan import Plan
from qrelkit.job.stored import (  # noqa: F401  (DONE, PARTIAL, WAITING, STATE_KEY, left_over: re-exported)
    DONE,
    PARTIAL,
    STATE_KEY,
    WAITING,
    Job,
    job_changes,
    left_over,
    next_steps,
    record_job,
    record_state,
    resolve_job,
    stored_job,
)
from qrelkit.judging import run_job
from qrelkit.judging.summary import JudgeSummary
from qrelkit.store import Store
from qrelkit.store.lock import writer_lock
from qrelkit.store.waiting import PeopleWaiting

if TYPE_CHECKING:
    from qrelkit.pooling.live import RoundsOutcome

MERGED_QRELS = "qrels.merged.txt"
REPORT = "report.html"


@dataclass(frozen=True)
class JobResult:
    """What a job did and where it stands, in typed parts; :meth:`to_dict` is the one place it
    becomes the ``--json`` object (whose keys are the command-line contract)."""

    job: str
    workspace: Path
    state: str  # done | partial | waiting
    message: str
    stored: Optional[Job] = None
    pool: dict = field(default_factory=dict, hash=False)  # workspace.pool_workspace's counts
    summary: Optional[JudgeSummary] = None
    waiting: Optional[PeopleWaiting] = None
    merged: dict = field(default_factory=dict, hash=False)  # merge.MergeResult.counts()
    qrels: Optional[Path] = None
    report: Optional[Path] = None
    evaluation: dict = field(default_factory=dict, hash=False)
    rag: dict = field(default_factory=dict, hash=False)  # fill --rag: generate + grade (qrelkit.rag.workspace)
    left: dict = field(default_factory=dict, hash=False)  # holes not labelled, per reason (see Left)

    @property
    def method(self) -> Optional[str]:
        return self.stored.method_id if self.stored else None

    @property
    def model(self) -> Optional[str]:
        return self.summary.model if self.summary else self.stored.model_id if self.stored else None

    @property
    def judge(self) -> dict:
        return self.summary.as_dict() if self.summary is not None else {}

    @property
    def people(self) -> dict:
        return self.waiting.to_json() if self.waiting is not None else {}

    def to_dict(self) -> dict:
        return {
            "job": self.job, "workspace": str(self.workspace), "state": self.state, "message": self.message,
            "method": self.method, "model": self.model, "stored_job": self.stored.describe() if self.stored else None,
            "pool": self.pool, "judge": self.judge, "people": self.people, "merged": self.merged,
            "qrels": str(self.qrels) if self.qrels else None,
            "report": str(self.report) if self.report else None, "evaluation": self.evaluation,
            "left": self.left,
        } | ({"rag": self.rag} if self.rag else {})


def _cases(n: int, of: str = "") -> str:
    """``1 case waits`` / ``3 cases wait``, with ``of`` after the noun."""
    return f"1 case{of} waits" if n == 1 else f"{n} cases{of} wait"


def _serve_hint(ws: Path) -> str:
    return (
        f"add annotators with `qrelkit annotate users add NAME -w {ws}`, serve the app with "
        f"`qrelkit annotate serve -w {ws}`, then run `qrelkit {{job}} -w {ws}` to continue"
    )


def _finish(store: Store, ws: Path, job: Job, report: bool, judged: bool) -> tuple[dict, Path, Optional[Path], dict]:
    """Merge the job's labels, write the merged qrels and (with ``report``) the report."""
    from qrelkit.merge import merge, write_merged

    # strict only once the job has judgments: a pool with no holes, or a first run whose every call
    # went unanswered, merges the original and people's labels alone
    result = merge(store, method=job.method_id, model=job.model_id,
                   strict=judged and store.has_judgments(job.method_id, job.model_id))
    out = ws / MERGED_QRELS
    write_merged(result, out)
    report_path = None
    evaluation: dict = {}
    if report:
        from qrelkit.report.report import report_from_store
        from qrelkit.workspace import stored_run_paths

        stored_run_paths(store)  # a run file that is gone is named (exit 2), not skipped by the report's scores
        # the job's threshold as given: `auto` is resolved by the report (against the original qrels, or
        # the merged labels of a collection built from scratch, whose 0/1 answer labels make it binary)
        # and shown as auto — a resolved 2 passed on was shown as "relevant = grade >= 2 (given)"
        files = report_from_store(store, ws / REPORT, merged_result=result, threshold=job.threshold,
                                  depth=job.depth)
        report_path = files.html
        evaluation = files.headline()
        estimates = files.data.get("estimates")
    else:
        from qrelkit.report.estimates import estimates_section, gather

        estimates = estimates_section(gather(store, job.method_id, job.model_id))
    if estimates is not None:  # a people's probability sample: the scores with intervals (qrelkit.estimate.workspace)
        evaluation["estimates"] = estimates
    return result.counts(), out, report_path, evaluation


def _as_plan(plan: "Plan | Path | str | None") -> "Plan":
    """A plan given as a value, a TOML file or not at all."""
    if isinstance(plan, (str, Path)):
        from qrelkit.job.plan import load_plan

        return load_plan(plan)
    return plan or Plan()


def _plan_given(plan: "Plan | Path | str | None", loaded: "Plan") -> dict[str, Any]:
    """The values a plan file gives (they count as given, like options): those that differ from
    the defaults. No plan: nothing given."""
    if plan is None:
        return {}
    default = Plan()
    return {k: getattr(loaded, k) for k in loaded.__dataclass_fields__
            if k != "prices" and getattr(loaded, k) != getattr(default, k)}


def _record_plan(store: Store, kind: str, plan: "Plan", job: Job) -> None:
    """The plan the report shows: the job's settings and the inputs the workspace holds, over
    what this call said (a bare `fill -w WS` says nothing: its defaults are not the job)."""
    settings = {**plan.to_dict(), **{k: v for k, v in job.settings().items() if k in plan.__dataclass_fields__}}
    loaded = (store.get_meta("inputs") or {}).get("inputs") or {}
    for key in ("topics", "docs", "qrels", "runs"):
        if not settings.get(key) and loaded.get(key):
            settings[key] = loaded[key]
    store.set_meta("plan", {"job": kind, "plan": settings, "qrelkit_version": __version__,
                            "method": job.method_id, "model": job.model_id})


def _ensure_loaded(store: Store, plan: "Plan", need_qrels: bool, on_warning: Callable[[str], None]) -> None:
    from qrelkit.workspace import LoadSettings, load_collection

    if plan.topics and plan.docs:
        if need_qrels and not plan.qrels and not store.qrels():
            raise UsageError("fill completes an existing collection: pass --qrels (or use `qrelkit build`)")
        load_collection(store, plan.topics, plan.docs, plan.qrels, plan.runs,
                        settings=LoadSettings(run_names=plan.run_names, on_warning=on_warning))
        return
    if not store.topics():
        raise UsageError(
            f"{store.workspace}: empty workspace; pass --topics, --docs{', --qrels' if need_qrels else ''} "
            "and --runs (or a --plan file)"
        )
    if plan.runs:  # runs alone re-point a loaded workspace's runs (moved files) or add new ones
        from qrelkit.workspace import load_runs

        load_runs(store, plan.runs, run_names=plan.run_names, on_warning=on_warning)


@dataclass(frozen=True)
class RunSettings:
    """How a job runs this time (none of it changes a label)."""

    auto: bool = False
    report: bool = True
    read_cache: bool = True
    rejudge: bool = False
    wait: bool = False
    progress: Optional[Callable] = None
    rag: bool = False
    stage: Optional[Callable[[str], None]] = None  # told when a long stage starts (the CLI prints it)

    def say(self, text: str) -> None:
        if self.stage is not None:
            self.stage(text)


def _settings(options: dict, progress: Optional[Callable], stage: Optional[Callable[[str], None]]) -> RunSettings:
    """The how-to-run keywords of fill/build (``auto``, ``report``, ``read_cache``, ``rejudge``,
    ``wait``, ``rag``), taken out of ``options``; the rest are the job's options."""
    names = [f.name for f in dataclasses.fields(RunSettings) if f.name not in ("progress", "stage")]
    given = {k: options.pop(k) for k in names if k in options}
    return RunSettings(**given, progress=progress, stage=stage)


def _start(store: Store, kind: str, plan_arg: Any, plan: "Plan", options: dict,
           run: RunSettings) -> tuple[Job, dict]:
    """Load the inputs, resolve and store the job, pool: the first steps of both jobs (idempotent).
    ``plan`` is ``plan_arg`` read (before the workspace was opened: a bad plan changes nothing)."""
    from qrelkit.workspace import pool_workspace

    given = {**_plan_given(plan_arg, plan), **{k: v for k, v in options.items() if v is not None}}
    if run.auto:
        given["auto"] = True
    effective = plan.override(**{k: v for k, v in options.items() if k in plan.__dataclass_fields__})
    if effective.topics and effective.docs:
        run.say(f"reading the collection ({effective.docs})")
    else:
        store.require_loaded()  # a load that did not finish: one line, before anything else is said
    _ensure_loaded(store, effective, need_qrels=kind == "fill", on_warning=lambda note: run.say(f"warning: {note}"))
    before = stored_job(store)
    job = resolve_job(store, kind, effective, given, rejudge=run.rejudge)
    if run.rejudge and before:
        changes = job_changes(before, job)
        run.say("--rejudge: a new job; " + ("; ".join(changes) if changes else "the same settings as the stored job")
                + " (every option not given again is kept)")
    record_job(store, job, rejudge=run.rejudge)
    _record_plan(store, kind, effective, job)
    if _in_rounds(job):
        return job, {}  # the pool grows as the rounds of judging go (_build_in_rounds)
    run.say(f"pooling the runs ({job.pool or f'depth {job.depth}'})")
    pool = pool_workspace(store, depth=job.depth, human_depth=job.human_depth, people=job.people, pool=job.pool)
    if pool.get("no_text"):
        run.say(f"{pool['no_text']} pooled pairs have no document text: they are not judged and not sent to "
                f"people (list them with `qrelkit status -w {store.workspace} --missing-text`)")
    return job, pool


def _judge_merge_report(store: Store, ws: Path, job: Job, pool: dict, run: RunSettings,
                        rounds: Optional["RoundsOutcome"] = None) -> JobResult:
    """The steps both jobs share once the pool is ready: judge the LLM's share, stop for people
    if anything waits for them (unless ``auto``), else merge, evaluate and report. The state is
    ``waiting`` (people have work), ``partial`` (holes left, :func:`left_over`) or ``done``.
    ``rounds``: MTF's rounds judged the share already; their calls count, their unsettled pairs are left."""
    sampled = store.people_sample_design() is not None  # `qrelkit sample -w`: the judge labels the sample too
    summary = run_job(store, job.judging(run.read_cache, sampled), run.progress)
    # this job's escalations (by the method and model its run judged under): those of a job a
    # --rejudge replaced are not merged, so the new job does not wait for them
    waiting = store.waiting_for_people(summary.method, summary.model)
    left = left_over(store, job, summary)
    if rounds is not None:
        summary = dataclasses.replace(summary, **(summary.usage + rounds.usage).as_dict())
        left = {**left, **_rounds_left(rounds, left)}
    if len(waiting) and not job.auto:
        from qrelkit.annotate.tasks import sync_tasks

        sync_tasks(store)
        msg = f"{_cases(len(waiting))} for people; " + _serve_hint(ws).format(job=job.kind)
        record_state(store, job, WAITING, left, waiting, msg)
        return JobResult(job.kind, ws, WAITING, msg, job, pool, summary, waiting, left=left)
    record_state(store, job, PARTIAL if left else DONE, left, waiting, next_steps(ws, job, left))
    run.say("merging the labels" + (" and writing the report" if run.report else ""))
    merged, out, rep, evaluation = _finish(store, ws, job, run.report, judged=summary.cases > 0)
    msg = ("nothing to judge: the pool has no holes; " if summary.cases == 0 else "") + f"merged qrels in {out}"
    msg += f"; report in {rep}" if rep else ""
    msg += _estimates_note(ws, evaluation.get("estimates"))
    if left:
        msg += ". Partial: " + next_steps(ws, job, left)
    return JobResult(job.kind, ws, PARTIAL if left else DONE, msg, job, pool, summary, waiting, merged, out, rep,
                     evaluation, left=left)


def _estimates_note(ws: Path, estimates: Optional[dict]) -> str:
    """What the closing line says of the estimates (none without a people's sample)."""
    if estimates is None:
        return ""
    if not estimates.get("available"):
        return f"; no estimates: {estimates.get('reason')}"
    runs = len({r["run"] for r in estimates.get("runs", [])})
    favoured = list(dict.fromkeys(f["run"] for f in estimates.get("favoured") or []))
    return (f"; estimates with {100 * (1 - estimates['alpha']):g}% intervals for {runs} runs from "
            f"{estimates['sample']['labelled']} people's labels (`qrelkit estimate -w {ws}`)"
            + (f"; the judge favours {', '.join(favoured)} (see the report's Estimates)" if favoured else ""))


def fill(
    workspace: Path | str,
    plan: "Plan | Path | str | None" = None,
    *,
    progress: Optional[Callable] = None,
    stage: Optional[Callable[[str], None]] = None,
    **options,
) -> JobResult:
    """Complete an existing collection (see module docstring).

    ``plan`` is a :class:`Plan` or a TOML plan file. ``rag``: also generate answers
    from every run's top-10 and grade them (:mod:`qrelkit.rag.workspace`), so the
    report shows retrieval–generation alignment before and after.

    ``options`` are the option table's (:data:`qrelkit.job.options.OPTIONS`): topics, docs, qrels,
    runs, depth, method, model, task, budget, concurrency, prefilter, limit, threshold, engine,
    and how to run it: ``auto``, ``report``, ``read_cache``, ``rejudge``, ``wait``, ``rag``. The first
    call stores the job; later calls continue it
    (:mod:`qrelkit.job.stored`). The people's share is empty in this job (``human_depth`` 0): every hole
    goes to the judge, and people only see what the judge escalates.
    """
    run = _settings(options, progress, stage)
    ws = Path(workspace)
    opts.check_given(options)  # a bad option (a typo in the method) is refused before the workspace is made
    loaded = _as_plan(plan)  # a bad plan is refused before the workspace is made
    with writer_lock(ws, "fill", wait=run.wait, on_wait=run.say), Store.create(ws) as store:
        job, pool = _start(store, "fill", plan, loaded, options, run)
        rag_summary = _rag(store, job, run) if run.rag else {}
        result = _judge_merge_report(store, ws, job, pool, run)
        return dataclasses.replace(result, rag=rag_summary) if rag_summary else result


def _rag(store: Store, job: Job, run: RunSettings) -> dict:
    from qrelkit.rag.workspace import rag_in_workspace

    client = job.judging(run.read_cache).client(store)
    return rag_in_workspace(store, client, concurrency=job.concurrency)


def build(
    workspace: Path | str,
    plan: "Plan | Path | str | None" = None,
    *,
    progress: Optional[Callable] = None,
    stage: Optional[Callable[[str], None]] = None,
    **options,
) -> JobResult:
    """A new collection by hybrid pooling (see module docstring).

    People judge their share (``people``, a strategy of :mod:`qrelkit.pooling.allocation`;
    by default the top ``human_depth`` = 3 of every run) through the app; once
    their labels are in, the rest of the pool is judged by ``method`` (default
    ``narrative``: relevance narratives induced from the people's labels).
    """
    run = _settings(options, progress, stage)
    ws = Path(workspace)
    opts.check_given(options)  # a bad option (a typo in the method) is refused before the workspace is made
    loaded = _as_plan(plan)  # a bad plan is refused before the workspace is made
    with writer_lock(ws, "build", wait=run.wait, on_wait=run.say), Store.create(ws) as store:
        job, pool = _start(store, "build", plan, loaded, options, run)
        if _in_rounds(job):
            return _build_in_rounds(store, ws, job, run)
        from qrelkit.annotate.tasks import sync_tasks

        waiting = store.waiting_for_people()
        if waiting.people_share:
            sync_tasks(store)
            share = _cases(len(waiting.people_share), " of the people's share")
            msg = (f"{share} for people; "
                   + _serve_hint(ws).format(job="build"))
            record_state(store, job, WAITING, {}, waiting, msg)
            return JobResult("build", ws, WAITING, msg, job, pool, None, waiting)
        return _judge_merge_report(store, ws, job, pool, run)


def _in_rounds(job: Job) -> bool:
    """Does this job's pool grow in rounds of judging (``build --pool 'mtf(...)'``)?"""
    from qrelkit.pooling import parse_pool

    return job.kind == "build" and job.pool is not None and parse_pool(job.pool).strategy.needs_labels


def _build_in_rounds(store: Store, ws: Path, job: Job, run: RunSettings) -> JobResult:
    """``build`` with MTF: replay and continue the rounds (:mod:`qrelkit.pooling.live`), each judging
    its pairs of the LLM's share, then wait for people or merge as any build does."""
    from qrelkit.judging.selection import resolve_task
    from qrelkit.pooling import parse_pool
    from qrelkit.pooling.allocation import resolve_people
    from qrelkit.pooling.live import known_labels, record_pool, run_rounds

    spec, people = parse_pool(job.pool), resolve_people(job.people, job.human_depth)
    if people.name != "depth" or job.budget is not None:
        raise UsageError(f"--pool {spec} grows the pool round by round, so people's share is each run's top "
                         "k_human (--human-depth) and --budget is not taken (it ranks a fixed pool's escalations)")
    task = resolve_task(store, job.task, job.threshold)
    judging = job.judging(run.read_cache)
    run.say(f"pooling the runs in rounds of judging ({spec})")
    outcome = run_rounds(
        store, spec, people["k_human"],
        labels=lambda: known_labels(store, job.method_id, job.model_id, task),
        judge=lambda cases: run_job(store, dataclasses.replace(judging, cases=tuple(cases), limit=None),
                                    run.progress).usage,
        limit=job.limit)
    pool = record_pool(store, outcome, people)
    waiting = store.waiting_for_people()
    if waiting.people_share:
        from qrelkit.annotate.tasks import sync_tasks

        sync_tasks(store)
        share = _cases(len(waiting.people_share), " of the people's share")
        msg = (f"{share} for people; MTF round {outcome.rounds}: {outcome.unsettled} of {outcome.quota} pairs "
               "still without a label; " + _serve_hint(ws).format(job="build"))
        record_state(store, job, WAITING, _rounds_left(outcome, {}), waiting, msg)
        return JobResult("build", ws, WAITING, msg, job, pool, None, waiting,
                         left=_rounds_left(outcome, {}))
    return _judge_merge_report(store, ws, job, pool, run, rounds=outcome)


def _rounds_left(outcome: "RoundsOutcome", left: dict[str, int]) -> dict[str, int]:
    """What MTF's rounds leave: pairs past --limit (never pooled) and the quota's pairs without a label."""
    out = {}
    if outcome.cut:
        out["limit"] = left.get("limit", 0) + outcome.cut
    if outcome.unsettled:
        out["unsettled"] = outcome.unsettled
    return out


def recovered(merged_qrels: Path | str, partial_qrels: Path | str, full_qrels: Path | str, threshold: int = 2) -> dict:
    """How many of the labels hidden from ``partial`` (but known in ``full``)
    were filled, and how well: the demo's and leave-out experiments' scorecard."""
    from qrelkit.data import load_qrels

    merged = load_qrels(str(merged_qrels)).pairs
    partial = load_qrels(str(partial_qrels)).pairs
    full = load_qrels(str(full_qrels)).pairs
    hidden = {k: g for k, g in full.items() if k not in partial}
    filled = {k: merged[k] for k in hidden if k in merged}
    hidden_rel = {k for k, g in hidden.items() if g >= threshold}
    tp = sum(1 for k in hidden_rel if filled.get(k, -1) >= threshold)
    fp = sum(1 for k, g in filled.items() if g >= threshold and hidden[k] < threshold)
    tn = sum(1 for k, g in filled.items() if g < threshold and hidden[k] < threshold)
    neg = sum(1 for k in filled if hidden[k] < threshold)
    rel_filled = sum(1 for k in filled if hidden[k] >= threshold)
    recall = tp / len(hidden_rel) if hidden_rel else None
    spec = tn / neg if neg else None
    bal = (tp / rel_filled + spec) / 2 if rel_filled and spec is not None else None
    return {
        "hidden": len(hidden), "hidden_relevant": len(hidden_rel), "filled": len(filled),
        "recovered_relevant": tp, "false_relevant": fp, "recall": recall, "balanced_accuracy": bal,
    }
