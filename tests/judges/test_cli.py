"""`qrelkit judge` / `qrelkit escalations` as real subprocesses against a fake server:
kill a run part-way, re-run, and get what an uninterrupted run gets."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from fakeserver import serve

from qrelkit.store import Store
from qrelkit.types import Case, Doc, Topic

from .fake_openai import GRADES

KEYS = list(GRADES)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("srv") / "requests.log"
    log.write_text("")
    with serve("judges.fake_openai", log, delay=0.15) as url:
        yield url, log


def make_ws(path: Path, n: int = 18) -> Path:
    with Store.create(path) as s:
        s.upsert_topics([Topic(f"q{i}", f"query {i}") for i in range(3)])
        s.upsert_docs([Doc(f"d{i}", f"passage {KEYS[i % len(KEYS)]} number {i}") for i in range(n)])
        s.upsert_cases([Case(f"q{i % 3}", f"d{i}", "llm", i + 1) for i in range(n)])
    return path


def qrelkit(*args: str, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.run(
        [sys.executable, "-m", "qrelkit", *args], capture_output=True, text=True, env=env, timeout=300, **kw
    )


def final(ws: Path) -> dict:
    with Store.open(ws) as s:
        out = {}
        for j in s.judgments():
            prov = json.loads(j.provenance)
            out[(j.qid, j.docid)] = (
                j.label,
                j.grade,
                j.status,
                j.round,
                j.calls,
                j.method,
                j.model,
                json.dumps(prov.get("history"), sort_keys=True),
            )
        return out


def log_lines(log: Path) -> list[str]:
    return log.read_text().split()


def test_kill_and_resume_equals_uninterrupted_run(server, tmp_path):
    url, log = server
    model = f"openai:fake@{url}"
    args = ["--method", "debate", "--model", model, "--concurrency", "2"]

    ref = make_ws(tmp_path / "ref")
    r = qrelkit("judge", "-w", str(ref), *args, "--json")
    assert r.returncode == 0, r.stderr
    ref_summary = json.loads(r.stdout)
    assert ref_summary["cases"] == 18 and ref_summary["escalations"] == 9 and ref_summary["errors"] == 0
    ref_requests = Counter(log_lines(log))
    n0 = len(log_lines(log))

    ws = make_ws(tmp_path / "ws")
    proc = subprocess.Popen(
        [sys.executable, "-m", "qrelkit", "judge", "-w", str(ws), *args, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    db = ws / "qrelkit.sqlite"
    deadline = time.time() + 120
    done_before_kill = 0
    while time.time() < deadline:
        try:
            with sqlite3.connect(db, timeout=5) as c:
                done_before_kill = c.execute("SELECT COUNT(*) FROM judgments").fetchone()[0]
        except sqlite3.Error:
            pass
        if done_before_kill >= 4:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert 4 <= done_before_kill < 18, "the run should have been killed part-way"
    with sqlite3.connect(db) as c:
        finished = {(q, d) for q, d in c.execute("SELECT qid, docid FROM judgments")}
    assert len(finished) < 18

    n1 = len(log_lines(log))
    r = qrelkit("judge", "-w", str(ws), *args, "--json")
    assert r.returncode == 0, r.stderr
    rerun_requests = log_lines(log)[n1:]
    resumed = json.loads(r.stdout)
    assert resumed["cases"] == 18 and resumed["escalations"] == 9
    assert resumed["new"] == 18 - len(finished)

    # same final judgments as the uninterrupted run
    assert final(ws) == final(ref)

    # calls: everything the killed run finished was answered from the cache or skipped;
    # only calls in flight at the kill can reach the server twice
    ws_requests = Counter(log_lines(log)[n0:])
    assert set(ws_requests) == set(ref_requests)
    repeated = sum(n - 1 for n in ws_requests.values())
    assert repeated <= 2 * 2  # at most the calls in flight (concurrency 2, two agents each)
    with Store.open(ws) as s:
        runs = s.command_runs("judge")
    assert [r.status for r in runs] == ["interrupted", "done"]  # the killed run never finished
    # the re-run made calls only for unfinished cases; those the killed run had answered were cache hits
    assert resumed["calls"] == sum(int(v[4]) for k, v in final(ws).items() if k not in finished)
    # ... and every call that did not reach the server is counted as a cache hit
    assert resumed["calls"] - resumed["cache_hits"] == len(rerun_requests)


def test_escalations_lists_history_and_cli_errors(server, tmp_path):
    url, _ = server
    ws = make_ws(tmp_path / "ws", n=6)
    r = qrelkit("judge", "-w", str(ws), "--method", "debate", "--model", f"openai:fake@{url}", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    for key in (
        "method",
        "model",
        "cases",
        "judged",
        "relevant",
        "escalations",
        "errors",
        "escalation_ratio",
        "calls",
        "cache_hits",
        "prompt_tokens",
        "completion_tokens",
        "cost_usd",
    ):
        assert key in out
    assert out["model"] == "openai:fake" and out["escalations"] == 3
    r = qrelkit("escalations", "-w", str(ws), "--json")
    assert r.returncode == 0, r.stderr
    esc = json.loads(r.stdout)["escalations"]
    assert len(esc) == 3
    e = esc[0]
    assert {"qid", "docid", "query", "method", "reason", "history"} <= set(e)
    assert e["query"].startswith("query ") and e["history"][0]["agents"][0]["stance"] == "relevant"
    # the table form goes to stderr, stdout stays clean
    r = qrelkit("escalations", "-w", str(ws))
    assert r.returncode == 0 and r.stdout == "" and "escalation" in r.stderr
    # user errors: one line, exit 2
    for bad in (
        ["--method", "debate(rounds=zero)"],
        ["--share", "nobody"],
        ["--budget", "many"],
        ["--model", "nonsense:x"],
    ):
        r = qrelkit("judge", "-w", str(ws), *(["--method", "debate", "--model", f"openai:fake@{url}"] + bad))
        assert r.returncode == 2, (bad, r.stderr)
        assert "Traceback" not in r.stderr and "error" in r.stderr.lower()
    r = qrelkit("judge", "-w", str(tmp_path / "nowhere"), "--method", "debate")
    assert r.returncode == 2 and "not a qrelkit workspace" in r.stderr
