"""Generate and grade inside a workspace, as one step of a job (``qrelkit fill --rag``).

Why a step of its own: a job already has the workspace's topics, documents and
runs, and its report computes RAGAlign from the graded answers stored there;
this step only has to make those answers, with the job's client (its model,
prices, cache). It is skipped, with the reason, when no topic has gold
answers, because nothing could be graded.
"""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from qrelkit.rag.files import answer_record, grade_record, write_jsonl
from qrelkit.rag.generate import DEFAULT_K, agenerate
from qrelkit.rag.grade import agrade

if TYPE_CHECKING:
    from qrelkit.llm.client import Client
    from qrelkit.store import Store

ANSWERS = "answers.jsonl"
GRADED = "answers.graded.jsonl"


def workspace_runs(store: Store) -> list:
    """The workspace's runs whose files are still there."""
    from qrelkit.data import read_run

    return [read_run(r.path) for r in store.runs() if Path(r.path).exists()]


def rag_in_workspace(store: Store, client: Client, *, k: int = DEFAULT_K, concurrency: int = 8) -> dict:
    """Answers of every workspace run from its top-k, graded; files written next to the database."""
    topics = store.topics()
    if not any(t.answers for t in topics.values()):
        return {"skipped": "no topic has gold answers"}
    runs = workspace_runs(store)
    if not runs:
        return {"skipped": "the workspace has no readable runs"}

    async def go():
        try:
            answers, gen = await agenerate(runs, topics, store.doc, client, k=k, store=store, concurrency=concurrency)
            grades, grd = await agrade(answers, topics, client, store=store, concurrency=concurrency)
            return answers, gen, grades, grd
        finally:
            await client.aclose()

    answers, gen, grades, grd = asyncio.run(go())
    ws = Path(store.workspace)
    write_jsonl(ws / ANSWERS, (answer_record(a) for a in answers))
    write_jsonl(ws / GRADED, (grade_record(g) for g in grades if g.ok))
    return {"answers": str(ws / ANSWERS), "graded": str(ws / GRADED), "generate": gen.as_dict(),
            "grade": grd.as_dict()}
