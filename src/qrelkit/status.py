"""Where a workspace stands, step by step, as one JSON-ready dict.

`qrelkit status` and the resumable jobs (`fill`, `build`) read this to know
what is left: pending cases per share, escalations waiting for people, votes
cast, and what has been spent so far.
"""
from __future__ import annotations

from qrelkit.store import Store


def workspace_status(store: Store) -> dict:
    one = lambda sql, p=(): store.query(sql, p)[0][0]  # noqa: E731
    pool = store.get_meta("pool") or {}
    cases = {
        "pooled": one("SELECT COUNT(*) FROM cases"),
        "holes": one("SELECT COUNT(*) FROM cases WHERE judged=0"),
        "people_share": one("SELECT COUNT(*) FROM cases WHERE judged=0 AND share='people'"),
        "llm_share": one("SELECT COUNT(*) FROM cases WHERE judged=0 AND share='llm'"),
    }
    # A hole is pending for the judge when no LLM method has a final verdict for it yet.
    cases["pending_judge"] = one(
        "SELECT COUNT(*) FROM cases c WHERE judged=0 AND share='llm' AND NOT EXISTS ("
        "SELECT 1 FROM judgments j WHERE j.qid=c.qid AND j.docid=c.docid AND j.source!='human' "
        "AND j.status NOT IN ('error'))"
    )
    human_decided = {
        (q, d) for q, d in store.query("SELECT qid, docid FROM judgments WHERE source='human'")
    }
    waiting = [
        (q, d)
        for q, d in store.query("SELECT DISTINCT qid, docid FROM judgments WHERE status IN ('escalate','error')")
        if (q, d) not in human_decided
    ]
    people_pending = one(
        "SELECT COUNT(*) FROM cases c WHERE judged=0 AND share='people' AND NOT EXISTS ("
        "SELECT 1 FROM judgments j WHERE j.qid=c.qid AND j.docid=c.docid AND j.source='human')"
    )
    by_status = {s: n for s, n in store.query("SELECT status, COUNT(*) FROM judgments GROUP BY status ORDER BY status")}
    methods = [
        {"method": m, "model": mo, "judgments": n}
        for m, mo, n in store.query(
            "SELECT method, model, COUNT(*) FROM judgments GROUP BY method, model ORDER BY method, model"
        )
    ]
    totals = {"calls": 0, "cache_hits": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0}
    for run in store.command_runs():
        for k in totals:
            totals[k] += run["totals"].get(k, 0) or 0
    return {
        "workspace": str(store.workspace),
        "topics": one("SELECT COUNT(*) FROM topics"),
        "docs": store.doc_count(),
        "qrels": one("SELECT COUNT(*) FROM qrels"),
        "runs": one("SELECT COUNT(*) FROM runs"),
        "pool": pool,
        "cases": cases,
        "judgments": by_status,
        "methods": methods,
        "escalations_waiting": len(waiting),
        "people_pending": people_pending,
        "votes": one("SELECT COUNT(*) FROM annot_votes"),
        "spent": totals,
    }
