"""`qrelkit rag generate | grade` and `ragalign` as real subprocesses against a fake HTTP server."""
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
from fakeserver import free_port, serve

DISTINCT_K2 = 7  # distinct (topic, top-2) contexts of the conftest collection
DISTINCT_ANSWERS = 6  # distinct (topic, answer) pairs those contexts produce


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("srv") / "requests.log"
    log.write_text("")
    with serve("rag.fake_rag_server", log, delay=0.3) as url:
        yield f"openai:fake@{url}", log


def qrelkit(*args: object) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, "-m", "qrelkit", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=300)


def requests(log: Path, since: int = 0) -> list[str]:
    return log.read_text().splitlines()[since:]


def gen_args(c: dict, model: str, ws: Path) -> list:
    return ["rag", "generate", "--runs", c["runs"], "--topics", c["topics"], "--docs", c["docs"], "--k", "2",
            "--model", model, "-w", ws, "--json"]


def test_generate_makes_one_request_per_distinct_context(server, collection):
    model, log = server
    n0 = len(requests(log))
    r = qrelkit(*gen_args(collection, model, collection["dir"] / "ws"))
    assert r.returncode == 0, r.stderr
    assert len(requests(log, n0)) == DISTINCT_K2


def test_generate_writes_one_answer_per_system_and_topic(server, collection):
    model, _ = server
    ws = collection["dir"] / "ws"
    qrelkit(*gen_args(collection, model, ws))
    lines = (ws / "answers.jsonl").read_text().splitlines()
    assert len(lines) == 9


def test_a_rerun_sends_nothing(server, collection):
    model, log = server
    ws = collection["dir"] / "ws"
    qrelkit(*gen_args(collection, model, ws))
    n1 = len(requests(log))
    out = json.loads(qrelkit(*gen_args(collection, model, ws)).stdout)
    assert len(requests(log, n1)) == 0
    assert out["resumed"] == 9


def test_resume_after_sigkill_repeats_at_most_the_calls_in_flight(server, collection):
    model, log = server
    ws = collection["dir"] / "ws"
    n0 = len(requests(log))
    proc = subprocess.Popen([sys.executable, "-m", "qrelkit", *map(str, gen_args(collection, model, ws)),
                             "--concurrency", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    done = 0
    deadline = time.time() + 120
    while time.time() < deadline and done < 2:
        try:
            with sqlite3.connect(ws / "qrelkit.sqlite", timeout=5) as c:
                done = c.execute("SELECT COUNT(*) FROM rag_answers").fetchone()[0]
        except sqlite3.Error:
            pass
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert 2 <= done < 9, "the run should have been killed part-way"
    r = qrelkit(*gen_args(collection, model, ws)[:-1], "--concurrency", "2", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["answers"] == 9
    sent = Counter(requests(log, n0))
    assert len(sent) == DISTINCT_K2
    assert sum(n - 1 for n in sent.values()) <= 2  # only the calls in flight at the kill were paid twice


def test_grade_then_ragalign_reads_the_graded_file(server, collection):
    model, log = server
    ws = collection["dir"] / "ws"
    qrelkit(*gen_args(collection, model, ws))
    n1 = len(requests(log))
    g = qrelkit("rag", "grade", "--answers", ws / "answers.jsonl", "--topics", collection["topics"],
                "--model", model, "-w", ws, "--json")
    assert g.returncode == 0, g.stderr
    assert len(requests(log, n1)) == DISTINCT_ANSWERS
    r = qrelkit("ragalign", "--runs", collection["runs"], "--qrels", collection["qrels"], "--k", "2",
                "--threshold", "1", "--generation", ws / "answers.graded.jsonl", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["versions"]["qrels"]["correct_rate"] == pytest.approx(4 / 9)


def test_ragalign_reads_the_workspace_grades(server, collection):
    model, _ = server
    ws = collection["dir"] / "ws"
    qrelkit(*gen_args(collection, model, ws))
    qrelkit("rag", "grade", "-w", ws, "--topics", collection["topics"], "--model", model)
    r = qrelkit("ragalign", "-w", ws, "--runs", collection["runs"], "--qrels", collection["qrels"], "--k", "2",
                "--threshold", "1", "--json")
    assert r.returncode == 0, r.stderr
    assert list(json.loads(r.stdout)["generators"]) == ["openai:fake"]


@pytest.mark.parametrize("args, message", [
    (["rag", "grade", "--answers", "{d}/topics.jsonl", "--topics", "{d}/topics.jsonl", "--model", "openai:x@http://127.0.0.1:9/v1"],
     "topics.jsonl:1: missing key(s) system, answer"),
    (["rag", "generate", "--runs", "{d}/runs", "--topics", "{d}/topics.jsonl", "--model", "openai:x@http://127.0.0.1:9/v1"],
     "pass --docs FILE"),
    (["rag", "generate", "--runs", "{d}/runs", "--topics", "{d}/nope.jsonl", "--docs", "{d}/docs.jsonl",
      "--model", "local"], "nope.jsonl"),
    (["ragalign", "--runs", "{d}/runs", "--qrels", "{d}/qrels.txt"], "pass --generation FILE"),
])
def test_bad_input_is_one_line_and_exit_2(collection, args, message):
    r = qrelkit(*(a.format(d=collection["dir"]) for a in args))
    assert r.returncode == 2
    assert message in r.stderr
    assert "Traceback" not in r.stderr


def test_fill_with_rag_puts_the_rag_section_in_the_report(server, collection):
    model, _ = server
    ws = collection["dir"] / "ws"
    r = qrelkit("fill", "-w", ws, "--topics", collection["topics"], "--docs", collection["docs"], "--qrels",
                collection["qrels"], "--runs", collection["runs"], "--model", model, "--method", "zero-shot",
                "--rag", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["rag"]["grade"]["graded"] == 9
    report = json.loads((ws / "report.json").read_text())
    assert set(report["rag"]["generators"]["openai:fake"]["versions"]) == {"original", "merged"}


def test_an_unreachable_server_is_one_line_and_exit_2(collection):
    r = qrelkit("rag", "generate", "--runs", collection["runs"], "--topics", collection["topics"], "--docs",
                collection["docs"], "--model", f"openai:x@http://127.0.0.1:{free_port()}/v1",
                "--out", collection["dir"] / "a.jsonl")
    assert r.returncode == 2
    assert "nothing was generated: all 9 failed, e.g. " in r.stderr
