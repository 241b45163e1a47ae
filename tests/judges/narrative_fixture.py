"""A workspace judged by ``narrative`` before issue 16 (commit aa66a8b), kept to prove that its id
still means what it meant: ``tests/fixtures/narrative-before-16/qrelkit.sqlite.gz`` was written by
:func:`build` with that commit's library (``PYTHONPATH=<aa66a8b>/src python -m
tests.judges.narrative_fixture``). The answers are a pure function of the request, so a re-run
that sends the same prompts gets the same answers — and, since they are cached in the
workspace, makes no model call at all.
"""

from __future__ import annotations

import gzip
import hashlib
import shutil
import sqlite3
import sys
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "narrative-before-16"
METHOD = "narrative"  # its id then: docs=6, the only reading there was
OLD_ID = "narrative(doc_tokens=400,docs=6,example_tokens=120,icl=0,instructor=same,seed=0,select=random,variant=all)"


def answer(messages, params):
    text = "\n".join(m.content for m in messages)
    h = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)
    if "You write guidance" in messages[0].content:
        return f"Narrative: N{h % 1000} about the query.\nInstructions: I{h % 97}"
    return {"reason": "because", "grade": h % 4}


def client(store=None):
    from qrelkit.llm import Client, ScriptedBackend

    return Client(ScriptedBackend(answer, model_id="scripted"), store=store, backoff_base=0.0)


def build(out: Path) -> None:
    from qrelkit.judging.runner import run_judging
    from qrelkit.store import Store
    from qrelkit.types import Case, Doc, Qrel, Topic

    shutil.rmtree(out, ignore_errors=True)
    ws = out / "workspace"
    store = Store.create(ws)
    store.upsert_topics([Topic("q1", "fox jumps"), Topic("q2", "dog barks")])
    judged = [(f"q{1 + i % 2}", f"l{i}", 3 if i % 3 == 0 else 0) for i in range(20)]
    store.upsert_docs([Doc(d, f"judged {d} grade {g} " + "words " * (30 + 20 * i)) for i, (_, d, g) in enumerate(judged)])
    store.upsert_docs([Doc(f"h{i}", f"hole {i} text") for i in range(6)])
    store.upsert_qrels([Qrel(q, d, g) for q, d, g in judged])
    store.upsert_cases([Case(f"q{1 + i % 2}", f"h{i}", "llm", i + 1) for i in range(6)])
    run_judging(store, METHOD, client(store), task="graded")
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
