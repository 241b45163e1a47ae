"""LLM answers given inside an event loop are written together after Store.FLUSH_SECONDS
(qrelkit.store.llm_calls): read back at once, never after their verdict, written when the client
or the store closes, and when their event loop ends."""
from __future__ import annotations

import asyncio
import sqlite3

import pytest

from qrelkit.llm import Client, Message, ScriptedBackend
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Judgment

SCHEMA = {"type": "object", "properties": {"grade": {"type": "integer"}}, "required": ["grade"]}


def on_disk(ws) -> set[str]:
    with sqlite3.connect(ws / "qrelkit.sqlite") as c:  # another connection: what a kill would leave
        return {k for (k,) in c.execute("SELECT key FROM llm_calls")}


def put(store: Store, key: str) -> None:
    store.cache_put(key, "m", {"prompt": key}, {"text": key}, 3, 1, 0.1, 0.0)


def test_answers_held_for_flush_seconds_are_one_transaction_and_readable_before_it(tmp_path):
    store = Store.create(tmp_path / "ws")
    commits = []
    store._conn.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)

    async def go():
        put(store, "a")
        await asyncio.sleep(0)  # other answers of the same burst come an iteration or two later
        await asyncio.sleep(0)
        for k in ("b", "c"):
            put(store, k)
        assert store.cache_get("b") == {"text": "b"}  # held in memory, read from there
        assert on_disk(tmp_path / "ws") == set()
        n = len(commits)
        await asyncio.sleep(3 * Store.FLUSH_SECONDS)  # a later timer than the flush's: it has fired
        return n, on_disk(tmp_path / "ws")

    before, written = asyncio.run(go())
    assert written == {"a", "b", "c"}
    assert len(commits) == before + 1
    store.close()


def test_answers_held_when_a_loop_ends_are_written_as_it_ends(tmp_path):
    store = Store.create(tmp_path / "ws")

    async def first():
        put(store, "a")  # the loop ends long before FLUSH_SECONDS

    async def second():
        put(store, "b")
        raise KeyboardInterrupt  # Ctrl-C: the loop ends by an exception

    asyncio.run(first())
    assert on_disk(tmp_path / "ws") == {"a"}
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(second())
    assert on_disk(tmp_path / "ws") == {"a", "b"}
    store.close()


def test_a_client_closing_writes_the_answers_its_store_holds(tmp_path):
    store = Store.create(tmp_path / "ws")
    client = Client(ScriptedBackend(lambda m, p: '{"grade": 1}'), store=store, max_attempts=1)

    async def go():
        res = await client.complete([Message("user", "q")], schema=SCHEMA, version="v1")
        held = on_disk(tmp_path / "ws")
        await client.aclose()
        return res, held, on_disk(tmp_path / "ws")

    res, held, closed = asyncio.run(go())
    assert res.ok and held == set() and len(closed) == 1
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
