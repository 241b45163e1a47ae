"""The workspace store: migrations, idempotent upserts, concurrent writers."""
from __future__ import annotations

import multiprocessing as mp
import sqlite3

import pytest

from qrelkit.errors import UsageError
from qrelkit.store import DB_NAME, SCHEMA_VERSION, Store
from qrelkit.types import Case, Doc, Judgment, Qrel, Topic


def test_create_sets_wal_and_schema(tmp_path):
    with Store.create(tmp_path / "ws") as s:
        assert s.schema_version == SCHEMA_VERSION
        assert s.query("PRAGMA journal_mode")[0][0] == "wal"
    # reopening does not re-run migrations (would fail on CREATE TABLE)
    with Store.open(tmp_path / "ws") as s:
        assert s.schema_version == SCHEMA_VERSION


def test_open_missing_workspace_is_user_error(tmp_path):
    with pytest.raises(UsageError, match="not a qrelkit workspace"):
        Store.open(tmp_path / "nope")


def test_newer_schema_refused(tmp_path):
    Store.create(tmp_path).close()
    con = sqlite3.connect(tmp_path / DB_NAME)
    con.execute(f"PRAGMA user_version={SCHEMA_VERSION + 5}")
    con.close()
    with pytest.raises(UsageError, match="newer than this qrelkit"):
        Store.open(tmp_path)


def test_upserts_are_idempotent(tmp_path):
    with Store.create(tmp_path) as s:
        s.upsert_topics([Topic("1", "q one", ("a",), "narr")])
        s.upsert_topics([Topic("1", "q one", ("a",), "narr")])
        assert s.topics() == {"1": Topic("1", "q one", ("a",), "narr", None)}
        s.upsert_docs(Doc(f"d{i}", f"text {i}") for i in range(12000))
        assert s.doc_count() == 12000
        assert s.doc("d11999") == Doc("d11999", "text 11999", None)
        assert s.doc("missing") is None
        s.upsert_qrels([Qrel("1", "d1", 2), Qrel("1", "d2", -1)])
        s.upsert_qrels([Qrel("1", "d1", 3)])  # a refresh replaces, never duplicates
        assert s.qrels() == {("1", "d1"): 3, ("1", "d2"): -1}
        cases = [Case("1", "d1", "llm", 2, ("a", "b"), True), Case("1", "d5", "people", 1, ("a",), False)]
        assert s.upsert_cases(cases) == (2, 0)
        assert s.upsert_cases(cases) == (0, 2)
        assert s.cases() == sorted(cases, key=lambda c: (c.qid, c.best_rank, c.docid))
        assert s.cases(share="people") == [cases[1]]
        assert s.cases(judged=True) == [cases[0]]


def test_judgments_upsert_by_natural_key(tmp_path):
    with Store.create(tmp_path) as s:
        j = Judgment("1", "d1", "debate(rounds=2)", "local", None, None, "error", evidence=("x",))
        s.put_judgments([j])
        assert not s.has_finished("debate(rounds=2)", "local")  # errors are retried
        s.put_judgments([Judgment("1", "d1", "debate(rounds=2)", "local", 1, 2, "consensus", round=1)])
        got = s.judgments()
        assert len(got) == 1 and got[0].status == "consensus" and got[0].grade == 2
        assert s.has_finished("debate(rounds=2)", "local")


def test_cache_roundtrip_and_meta(tmp_path):
    with Store.create(tmp_path) as s:
        assert s.cache_get("k") is None
        s.cache_put("k", "m", {"messages": []}, {"text": "hi"}, 3, 4, 0.1, 0.002)
        assert s.cache_get("k") == {"text": "hi"}
        s.set_meta("pool", {"depth": 10})
        assert s.get_meta("pool") == {"depth": 10}
        rid = s.start_command("judge", {"method": "x"})
        s.finish_command(rid, {"calls": 3})
        assert s.command_runs("judge")[0].totals == {"calls": 3}


def _writer(ws: str, tag: str, n: int) -> None:
    s = Store.open(ws)
    for i in range(n):
        s.put_judgments([Judgment("q", f"{tag}-{i}", "m", "x", 1, 1, "auto")])
        s.upsert_cases([Case("q", f"{tag}-{i}", "llm", i + 1)])
    s.close()


def test_two_processes_writing_lose_nothing(tmp_path):
    Store.create(tmp_path).close()
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), t, 150)) for t in ("a", "b")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    with Store.open(tmp_path) as s:
        assert len(s.judgments()) == 300
        assert len(s.cases()) == 300
