"""Where a workspace stands, step by step, as one JSON-ready dict.

`qrelkit status` and the resumable jobs (`fill`, `build`) read this to know
what is left: pending cases per share, escalations waiting for people, votes
cast, and what has been spent so far.
"""
from __future__ import annotations

from qrelkit.judging.guarded import guarded_cases
from qrelkit.store import Store
from qrelkit.types import Usage


def workspace_status(store: Store) -> dict:
    counts = store.counts()
    cases = {
        "pooled": counts.pooled,
        "holes": counts.holes,
        "people_share": counts.people_share,
        "llm_share": counts.llm_share,
        # a hole is pending for the judge when no LLM method has a final verdict for it yet
        "pending_judge": store.pending_for_judge(),
        # pooled pairs whose document has no text: never judged, never sent to people
        "no_text": store.cases_without_text(),
    }
    # over-budget escalations are not for people (see qrelkit.store.waiting)
    waiting = store.waiting_for_people()
    methods = [{"method": m.method, "model": m.model, "judgments": m.judgments} for m in store.method_counts()]
    store.reconcile_commands()  # a killed command's spend, recovered from the call cache
    runs = store.command_runs()
    spent = sum((run.usage for run in runs), Usage())
    # attempts are requests the backends received: a retried call shows here, not in calls
    totals = {**spent.as_dict(), "attempts": spent.attempts, "retries": spent.retries}
    return {
        "workspace": str(store.workspace),
        # a load killed half-way leaves a partial corpus: said first, and every reading command refuses
        "load": {"state": store.load_state(), "message": store.load_message()},
        "topics": counts.topics,
        "docs": counts.docs,
        "qrels": counts.qrels,
        "runs": counts.runs,
        "pool": store.get_meta("pool") or {},
        "cases": cases,
        "judgments": store.status_counts(),
        "methods": methods,
        "escalations_waiting": len(waiting.escalations),
        # escalations the guard made: documents that address the judge (qrelkit.judging.guarded)
        "guarded": len(guarded_cases(store)),
        "people_pending": len(waiting.people_share),
        "votes": store.vote_count(),
        # the people's probability sample (`qrelkit sample`, --people 'sample(...)'): pairs that still wait
        "sample": _sample_status(store),
        "spent": totals,
        "commands": {st: sum(r.status == st for r in runs) for st in ("running", "interrupted")},
        "job": job_summary(store),
    }


def job_summary(store: Store) -> dict | None:
    """The workspace's stored job (qrelkit.job.stored), as `status` and the report show it."""
    from qrelkit.job.stored import stored_job

    job = stored_job(store)
    if not job:
        return None
    keys = ("kind", "method", "model_id", "model", "task", "budget", "threshold", "depth", "limit", "auto",
            "concurrency", "engine", "legacy")
    return {k: job.get(k) for k in keys if k in job}


def _sample_status(store: Store) -> dict | None:
    """The stored people's sample: how it was drawn and how many of its pairs still wait for people."""
    design = store.people_sample_design()
    if design is None:
        return None
    return {"spec": design.get("spec"), "design": design.get("design"), **store.sample_counts().to_json()}
