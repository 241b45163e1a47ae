"""The runner pages pending cases from the store and commits verdicts in groups:
what it judges, the order, the summary and resuming are what they were with lists."""

from __future__ import annotations

import os
import signal

import pytest

from qrelkit.judging.runner import _Recorder, run_judging
from qrelkit.judging.selection import select_cases
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Topic

from .conftest import make_client

N = 1300  # more than two pages of 512


def grade_of(messages, params):
    text = messages[-1].content
    n = int(text.split("number ")[1].split()[0])
    return {"reason": "scripted", "grade": n % 4}


@pytest.fixture
def ws(tmp_path):
    store = Store.create(tmp_path / "ws")
    store.upsert_topics([Topic(f"q{i}", f"query {i}") for i in range(7)])
    store.upsert_docs([Doc(f"d{i:04d}", f"passage number {i} end") for i in range(N)])
    store.upsert_cases([Case(f"q{i % 7}", f"d{i:04d}", "llm", i % 10 + 1) for i in range(N)])
    yield store
    store.close()


def test_selection_pages_in_the_order_of_select_cases(ws):
    sel = ws.selection(share="llm", judged=False)
    pages = list(sel.pending_pages("m", "x", page=512))
    sel.drop()
    assert [len(p) for p in pages] == [512, 512, N - 1024]
    assert [c for p in pages for c in p] == select_cases(ws, "llm")


def test_selection_with_limit_counts_only_its_cases(ws):
    sel = ws.selection(share="llm", judged=False, limit=100)
    assert len(sel) == 100
    assert sel.pending_count("m", "x") == 100
    sel.drop()


def test_paged_run_judges_every_case_once_and_summarises_in_sql(ws):
    client = make_client(grade_of, store=ws)
    s = run_judging(ws, "zeroshot", client, task="graded", concurrency=16)
    assert s.cases == N
    assert s.judged == N
    assert s.calls == N
    assert s.relevant == sum(1 for i in range(N) if i % 4 >= 2)
    assert len(ws.judgments()) == N
    assert client.backend.requests and len(client.backend.requests) == N


def test_rerun_of_a_paged_run_calls_nothing(ws):
    run_judging(ws, "zeroshot", make_client(grade_of, store=ws), task="graded", concurrency=8)
    again = make_client(grade_of, store=ws)
    s = run_judging(ws, "zeroshot", again, task="graded", concurrency=8)
    assert s.new == 0
    assert again.usage.calls == 0
    assert s.judged == N


def test_limit_then_rest_judges_the_rest_only(ws):
    first = run_judging(ws, "zeroshot", make_client(grade_of, store=ws), task="graded", limit=600)
    assert (first.cases, first.new) == (600, 600)
    rest = run_judging(ws, "zeroshot", make_client(grade_of, store=ws), task="graded")
    assert (rest.cases, rest.new, rest.judged) == (N, N - 600, N)


def test_ctrl_c_mid_run_keeps_every_verdict_recorded_before_it(ws):
    calls = {"n": 0}

    def stopped(messages, params):
        calls["n"] += 1
        if calls["n"] == 701:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C: asyncio.run cancels the run
        return grade_of(messages, params)

    with pytest.raises(KeyboardInterrupt):
        run_judging(ws, "zeroshot", make_client(stopped, store=ws), task="graded", concurrency=1)
    kept = len(ws.judgments())
    assert kept in (700, 701)  # the buffered group is written when the run stops
    assert ws.command_runs("judge")[-1].status == "interrupted"
    rest = make_client(grade_of, store=ws)
    s = run_judging(ws, "zeroshot", rest, task="graded")
    assert s.new == N - kept
    assert s.judged == N


def test_recorder_commits_in_groups():
    class CountingStore:
        def __init__(self):
            self.commits = []

        def put_judgments(self, js):
            self.commits.append(len(js))

    class Client:
        usage = None

    from qrelkit.judges.base import GRADED, Task, Verdict

    store = CountingStore()
    rec = _Recorder(store, Client(), "m", "x", Task(GRADED, 2), 200, None)
    rec.GROUP_SECONDS = 3600.0
    for i in range(200):
        rec(Case("q", f"d{i}"), Verdict(status="auto", label=1, grade=2))
    rec.flush()
    assert store.commits == [64, 64, 64, 8]
