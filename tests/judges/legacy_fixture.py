"""A workspace made by an earlier qrelkit, kept as a fixture so that refactors prove they resume it.

``tests/fixtures/legacy-41e3b2f/`` holds the SQLite file this module's :func:`build` wrote with
qrelkit at commit 41e3b2f (``python -m tests.judges.legacy_fixture``), and the merged qrels each
judging job exported. Stored method ids, cache keys and canonical spec strings must never change:
a re-run of :data:`JOBS` with the same scripted answers must make no model call and export the same
qrels. The answers below are a pure function of the request, so they are the same in every version.

:func:`build` uses the library API of that commit (it is how the fixture was made, not a test); the
tests only use what every version keeps: ``Store.open``, ``run_judging``, ``merge``, ``write_merged``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import sqlite3
import sys
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "legacy-41e3b2f"
MODEL = "scripted"
TASK = "graded"

# (method spec, share, budget): run in this order; a person votes after the first one.
JOBS = (
    ("debate(adjudicator=llm)", "llm", "1"),
    ("zero-shot", "all", None),
    ("likelihood", "llm", None),
    ("prefilter(keep=0.9)+zero-shot", "llm", None),
    ("icl", "llm", None),
    ("confidence(batch=4,score=likelihood)", "llm", None),
)


def _h(*parts: str) -> int:
    return int(hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:8], 16)


def answer(messages, params) -> dict:
    """A deterministic reply in the shape the request's schema asks for."""
    system, text = messages[0].content, "\n".join(m.content for m in messages)
    h = _h(text)
    props = (params.get("schema") or {}).get("properties", {})
    if "possibly_relevant" in props:
        return {"possibly_relevant": h % 3 != 0}
    if "IS relevant" in system:  # the debate agent arguing for relevance
        return {"evidence": [], "reasoning": "for", "grade": h % 4}
    if "NOT relevant" in system:
        return {"evidence": [], "reasoning": "against", "grade": (h >> 4) % 4}
    out = {k: "because" for k, v in props.items() if v.get("type") == "string"}
    out["grade"] = h % 4
    return out


def score(prefix: str, continuation: str) -> float:
    return -((_h(prefix, continuation) % 1000) / 100.0) - len(continuation.split())


def client(store=None):
    """The Client the fixture was made with (answers only; caching and accounting are real)."""
    from qrelkit.llm import Client, ScriptedBackend

    return Client(ScriptedBackend(answer, model_id=MODEL, score_fn=score), store=store, backoff_base=0.0)


def qrels_name(method: str) -> str:
    """File name of the merged qrels a job exported (method specs contain '(', ',', '=')."""
    return "merged-" + "".join(c if c.isalnum() else "_" for c in method) + ".qrels"


def build(out: Path) -> None:
    """Make the fixture with today's library: demo collection, pool, judging jobs, one vote, exports."""
    from qrelkit.annotate.auth import add_user
    from qrelkit.annotate.settings import AnnotateSettings
    from qrelkit.annotate.tasks import sync_tasks
    from qrelkit.annotate.votes import cast_vote
    from qrelkit.demo import demo_paths
    from qrelkit.judges import canonical
    from qrelkit.judging.runner import run_judging
    from qrelkit.merge import merge, write_merged
    from qrelkit.store import Store
    from qrelkit.workspace import load_collection, pool_workspace

    shutil.rmtree(out, ignore_errors=True)
    ws = out / "workspace"
    p = demo_paths()
    store = Store.create(ws)
    rel = os.path.relpath  # from the checkout's root: no path of this machine in the fixture
    load_collection(store, rel(p.topics), rel(p.docs), rel(p.qrels), [rel(r) for r in p.runs])
    pool_workspace(store, depth=5, human_depth=1)
    for i, (method, share, budget) in enumerate(JOBS):
        run_judging(store, method, client(store), task=TASK, share=share, budget=budget)
        if i == 0:
            sync_tasks(store, votes_needed=1, attention_share=0.0)
            add_user(store, "ann")
            (uid,) = store.query("SELECT id FROM annot_users WHERE name='ann'")[0]
            waiting = store.judgments(method=canonical(method), status="escalate")
            for_people = [j for j in waiting if json.loads(j.provenance)["budget"]["for_people"]]
            settings = AnnotateSettings(votes=1, attention=0.0, task=TASK)
            cast_vote(store, settings, uid, for_people[0].qid, for_people[0].docid, 3)
    for method, _, _ in JOBS:
        side = write_merged(merge(store, canonical(method), MODEL), out / qrels_name(method))
        side.unlink()  # the tests compare judgments in the database instead: smaller
    store.close()
    db = ws / "qrelkit.sqlite"
    with sqlite3.connect(db) as c:
        c.execute("PRAGMA journal_mode=DELETE")
    sqlite3.connect(db, isolation_level=None).execute("VACUUM")
    with open(db, "rb") as f, gzip.open(out / "qrelkit.sqlite.gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    shutil.rmtree(ws)


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else FIXTURE)
