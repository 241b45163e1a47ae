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
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from qrelkit import __version__
from qrelkit.errors import UsageError
from qrelkit.judging import JudgingJob, run_job
from qrelkit.plan import Plan
from qrelkit.store import Store

MERGED_QRELS = "qrels.merged.txt"
REPORT = "report.html"


@dataclass(frozen=True)
class JobResult:
    """What a job did and where it stands; ``state`` is ``done`` or ``waiting``."""

    job: str
    workspace: Path
    state: str
    message: str
    method: Optional[str] = None
    model: Optional[str] = None
    pool: dict = field(default_factory=dict, hash=False)
    judge: dict = field(default_factory=dict, hash=False)
    people: dict = field(default_factory=dict, hash=False)
    merged: dict = field(default_factory=dict, hash=False)
    qrels: Optional[Path] = None
    report: Optional[Path] = None
    evaluation: dict = field(default_factory=dict, hash=False)
    rag: dict = field(default_factory=dict, hash=False)  # fill --rag: generate + grade (qrelkit.rag.workspace)

    def to_dict(self) -> dict:
        return {
            "job": self.job, "workspace": str(self.workspace), "state": self.state, "message": self.message,
            "method": self.method, "model": self.model, "pool": self.pool, "judge": self.judge,
            "people": self.people, "merged": self.merged,
            "qrels": str(self.qrels) if self.qrels else None,
            "report": str(self.report) if self.report else None, "evaluation": self.evaluation,
        } | ({"rag": self.rag} if self.rag else {})




def _serve_hint(ws: Path) -> str:
    return (
        f"add annotators with `qrelkit annotate users add NAME -w {ws}`, serve the app with "
        f"`qrelkit annotate serve -w {ws}`, then run this command again to continue"
    )


def _judging_job(job: str, plan: Plan, auto: bool, read_cache: bool) -> JudgingJob:
    """The plan's judging options as a judging job over the LLM's share."""
    return JudgingJob(
        method=plan.method, model=plan.model, command=job, task=plan.task, share="llm", limit=plan.limit,
        concurrency=plan.concurrency, budget=plan.budget, prefilter=plan.prefilter,
        adjudicator="llm" if auto else None, threshold=plan.threshold, read_cache=read_cache, prices=plan.prices,
        engine=plan.engine,
    )


def _finish(store: Store, ws: Path, method: str, model: str, report: bool,
            threshold: int | str) -> tuple[dict, Path, Optional[Path], dict]:
    from qrelkit.merge import merge, write_merged

    result = merge(store, method=method, model=model)
    out = ws / MERGED_QRELS
    write_merged(result, out)
    report_path = None
    evaluation: dict = {}
    if report:
        from qrelkit.evaluate.threshold import resolve_threshold
        from qrelkit.report.report import report_from_store

        # resolved against the merged labels: a collection built from scratch by the
        # answer task has no original qrels, but its new 0/1 labels make it binary
        merged = {(label.qid, label.docid): label.grade for label in result.labels}
        resolved = resolve_threshold(threshold, merged, ws / MERGED_QRELS)
        files = report_from_store(store, ws / REPORT, merged_result=result, threshold=resolved.value)
        report_path = files.html
        evaluation = _evaluation_summary(files.data)
    return result.counts(), out, report_path, evaluation


def _evaluation_summary(data: dict) -> dict:
    """The before/after headline numbers of the report."""
    scores = data.get("scores") or {}
    comp = scores.get("comparison") or {}
    out: dict = {"measure": scores.get("measure")} if scores.get("available") else {}
    for key in ("kendall_tau", "tau_ap", "spearman_rho", "rbo"):
        if key in comp:
            out[key] = comp[key]
    holes = data.get("holes") or {}
    if holes.get("available"):
        out["mean_hole_rate"] = holes.get("mean_hole_rate")
    return out


def _as_plan(plan: Plan | Path | str | None) -> Plan:
    """A plan given as a value, a TOML file or not at all."""
    if isinstance(plan, (str, Path)):
        from qrelkit.plan import load_plan

        return load_plan(plan)
    return plan or Plan()


def _record_plan(store: Store, job: str, plan: Plan) -> None:
    store.set_meta("plan", {"job": job, "plan": plan.to_dict(), "qrelkit_version": __version__})


def _ensure_loaded(store: Store, plan: Plan, need_qrels: bool) -> None:
    from qrelkit.workspace import load_collection

    if plan.topics and plan.docs:
        if need_qrels and not plan.qrels and not store.qrels():
            raise UsageError("fill completes an existing collection: pass --qrels (or use `qrelkit build`)")
        load_collection(store, plan.topics, plan.docs, plan.qrels, plan.runs)
        return
    if not store.topics():
        raise UsageError(
            f"{store.workspace}: empty workspace; pass --topics, --docs{', --qrels' if need_qrels else ''} "
            "and --runs (or a --plan file)"
        )
    if plan.runs:  # runs alone re-point a loaded workspace's runs (moved files) or add new ones
        from qrelkit.workspace import load_runs

        load_runs(store, plan.runs)


def _pooled(store: Store, job: str, plan: Plan, human_depth: Optional[int], people: Optional[str] = None) -> dict:
    """The first steps of both jobs: record the plan, load the inputs, pool (idempotent)."""
    from qrelkit.workspace import pool_workspace

    _record_plan(store, job, plan)
    _ensure_loaded(store, plan, need_qrels=job == "fill")
    return pool_workspace(store, depth=plan.depth, human_depth=human_depth, people=people)


def _judge_merge_report(job: str, store: Store, ws: Path, plan: Plan, pool: dict, auto: bool, report: bool,
                        read_cache: bool, progress: Optional[Callable]) -> JobResult:
    """The steps both jobs share once the pool is ready: judge the LLM's share,
    stop for people if anything waits for them (unless ``auto``), else merge,
    evaluate and report."""
    judge = run_job(store, _judging_job(job, plan, auto, read_cache), progress).as_dict()
    method_id, model_id = judge["method"], judge["model"]
    waiting = store.waiting_for_people().to_json()
    if waiting["waiting"] and not auto:
        from qrelkit.annotate.tasks import sync_tasks

        sync_tasks(store)
        msg = f"{waiting['waiting']} cases wait for people; " + _serve_hint(ws)
        return JobResult(job, ws, "waiting", msg, method_id, model_id, pool, judge, waiting)
    merged, out, rep, evaluation = _finish(store, ws, method_id, model_id, report, plan.threshold)
    msg = f"merged qrels in {out}" + (f"; report in {rep}" if rep else "")
    return JobResult(job, ws, "done", msg, method_id, model_id, pool, judge, waiting, merged, out, rep, evaluation)


def fill(
    workspace: Path | str,
    plan: Plan | Path | str | None = None,
    *,
    auto: bool = False,
    report: bool = True,
    read_cache: bool = True,
    progress: Optional[Callable] = None,
    rag: bool = False,
    **options,
) -> JobResult:
    """Complete an existing collection (see module docstring).

    ``plan`` is a :class:`Plan` or a TOML plan file. ``rag``: also generate answers
    from every run's top-10 and grade them (:mod:`qrelkit.rag.workspace`), so the
    report shows retrieval–generation alignment before and after.

    ``options`` override the plan: topics, docs, qrels, runs, depth, method,
    model, task, budget, concurrency, prefilter, limit, threshold, engine. The people's
    share is empty in this job (``human_depth`` 0): every hole goes to the judge,
    and people only see what the judge escalates.
    """
    plan = _as_plan(plan).override(**options)
    ws = Path(workspace)
    with Store.create(ws) as store:
        pool = _pooled(store, "fill", plan, human_depth=0)
        rag_summary = _rag(store, plan, read_cache) if rag else {}
        result = _judge_merge_report("fill", store, ws, plan, pool, auto, report, read_cache, progress)
        return dataclasses.replace(result, rag=rag_summary) if rag_summary else result


def _rag(store: Store, plan: Plan, read_cache: bool) -> dict:
    from qrelkit.rag.workspace import rag_in_workspace

    client = _judging_job("fill", plan, False, read_cache).client(store)
    return rag_in_workspace(store, client, concurrency=plan.concurrency)


def build(
    workspace: Path | str,
    plan: Plan | Path | str | None = None,
    *,
    auto: bool = False,
    report: bool = True,
    read_cache: bool = True,
    progress: Optional[Callable] = None,
    **options,
) -> JobResult:
    """A new collection by hybrid pooling (see module docstring).

    People judge their share (``people``, a strategy of :mod:`qrelkit.allocation`;
    by default the top ``human_depth`` = 3 of every run) through the app; once
    their labels are in, the rest of the pool is judged by ``method`` (default
    ``narrative``: relevance narratives induced from the people's labels).
    """
    plan = _as_plan(plan).override(**options)
    ws = Path(workspace)
    with Store.create(ws) as store:
        pool = _pooled(store, "build", plan, human_depth=plan.human_depth, people=plan.people)
        from qrelkit.annotate.tasks import sync_tasks

        waiting = store.waiting_for_people().to_json()
        if waiting["people_share"]:
            sync_tasks(store)
            msg = f"{waiting['people_share']} cases of the people's share wait for people; " + _serve_hint(ws)
            return JobResult("build", ws, "waiting", msg, None, None, pool, {}, waiting)
        return _judge_merge_report("build", store, ws, plan, pool, auto, report, read_cache, progress)


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
