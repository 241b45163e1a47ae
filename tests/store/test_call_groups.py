"""LLM answers given inside an event loop are written together at the loop's next iteration
(qrelkit.store.llm_calls): read back at once, never after their verdict, written on close."""
from __future__ import annotations

import asyncio
import sqlite3

from qrelkit.store import Store
from qrelkit.types import Case, Doc, Judgment


def on_disk(ws) -> set[str]:
    with sqlite3.connect(ws / "qrelkit.sqlite") as c:  # another connection: what a kill would leave
        return {k for (k,) in c.execute("SELECT key FROM llm_calls")}


def put(store: Store, key: str) -> None:
    store.cache_put(key, "m", {"prompt": key}, {"text": key}, 3, 1, 0.1, 0.0)


def test_answers_of_one_iteration_are_one_transaction_and_readable_before_it(tmp_path):
    store = Store.create(tmp_path / "ws")
    commits = []
    store._conn.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)

    async def go():
        for k in ("a", "b", "c"):
            put(store, k)
        assert store.cache_get("b") == {"text": "b"}  # held in memory, read from there
        assert on_disk(tmp_path / "ws") == set()
        n = len(commits)
        await asyncio.sleep(0)  # the next iteration writes them
        return n

    before = asyncio.run(go())
    assert on_disk(tmp_path / "ws") == {"a", "b", "c"}
    assert len(commits) == before + 1
    store.close()


def test_a_verdict_write_writes_the_answers_first(tmp_path):
    store = Store.create(tmp_path / "ws")
    store.upsert_docs([Doc("d1", "text")])
    store.upsert_cases([Case("q1", "d1", "llm", 1)])

    async def go():
        put(store, "k1")
        store.put_judgments([Judgment("q1", "d1", "zero-shot", "m", 1, 2, "answer", "llm")])
        return on_disk(tmp_path / "ws")

    assert asyncio.run(go()) == {"k1"}
    store.close()


def test_outside_an_event_loop_an_answer_is_written_at_once_and_close_writes_what_is_held(tmp_path):
    store = Store.create(tmp_path / "ws")
    put(store, "now")
    assert on_disk(tmp_path / "ws") == {"now"}

    async def held():
        put(store, "later")
        store.close()  # before the loop gets to it

    asyncio.run(held())
    assert on_disk(tmp_path / "ws") == {"now", "later"}


def test_documents_by_id_in_one_call(tmp_path):
    store = Store.create(tmp_path / "ws")
    store.upsert_docs([Doc(f"d{i}", f"text {i}") for i in range(1200)])
    got = store.docs_by_id([f"d{i}" for i in range(0, 1200, 2)] + ["missing", "d0"])
    assert len(got) == 600 and got["d998"].text == "text 998" and "missing" not in got
    store.close()
