"""`fill` without --auto: a debate that will not agree waits for people, and the
same command continues once they have voted in the app.

The model is a scripted OpenAI-compatible server on 127.0.0.1 (real HTTP);
its debate agents agree or disagree according to a keyword in the document
(tests/judges/fake_openai.py).
"""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fakeserver import free_port, serve


def _wait(url: str) -> None:
    deadline = time.time() + 30
    while True:
        try:
            urllib.request.urlopen(url, timeout=1).read()
            return
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.1)


@contextmanager
def serving(ws: Path) -> Iterator[str]:
    """`qrelkit annotate serve` for ``ws`` on 127.0.0.1; yields its base URL, stops it after."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "qrelkit", "annotate", "serve", "-w", str(ws), "--host",
                               "127.0.0.1", "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait(f"http://127.0.0.1:{port}/static/annotate.css")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()


def qk(*args, check=True):
    p = subprocess.run([sys.executable, "-m", "qrelkit", *map(str, args)], capture_output=True, text=True,
                       timeout=300)
    if check and p.returncode != 0:
        raise AssertionError(f"qrelkit {' '.join(map(str, args))} exited {p.returncode}:\n{p.stderr[-3000:]}")
    return p


@pytest.fixture
def model_server(tmp_path):
    log = tmp_path / "requests.log"
    with serve("judges.fake_openai", log) as url:
        yield f"openai:fake@{url}", log


def _collection(d: Path) -> list:
    d.mkdir()
    (d / "topics.jsonl").write_text(json.dumps({"qid": "1", "text": "what is a passage"}) + "\n")
    docs = {"a": "old judged doc", "b": "a passage agree3 that plainly answers it", "c": "gap3 is a passage the agents argue over",
            "e": "agree0 nothing here"}
    (d / "docs.jsonl").write_text("".join(json.dumps({"docid": k, "text": v}) + "\n" for k, v in docs.items()))
    (d / "qrels.txt").write_text("1 0 a 2\n")
    (d / "run.txt").write_text("".join(f"1 Q0 {doc} {i} {10 - i} sys\n" for i, doc in enumerate("abce", 1)))
    return ["--topics", d / "topics.jsonl", "--docs", d / "docs.jsonl", "--qrels", d / "qrels.txt", "--runs", d / "run.txt"]


def test_fill_waits_for_people_then_continues(model_server, tmp_path):
    from qrelkit.annotate.client import AnnotatorClient

    model, log = model_server
    ws = tmp_path / "ws"
    args = ["fill", "-w", ws, *_collection(tmp_path / "c"), "--method", "debate(rounds=2)", "--model", model, "--json"]
    first = json.loads(qk(*args).stdout)
    assert first["state"] == "waiting"
    assert first["people"]["escalations"] == 1  # the gap3 document: the agents never agree
    assert "qrelkit annotate serve" in first["message"]
    esc = json.loads(qk("escalations", "-w", ws, "--json").stdout)["escalations"]
    assert [(e["qid"], e["docid"]) for e in esc] == [("1", "c")] and len(esc[0]["history"]) == 2
    calls_after_judging = len(log.read_text().splitlines())
    assert calls_after_judging == 2 + 2 + 4  # two agreements in round 1, one disagreement over 2 rounds

    # still waiting: running again judges nothing new and asks for people again
    again = json.loads(qk(*args).stdout)
    assert again["state"] == "waiting" and len(log.read_text().splitlines()) == calls_after_judging

    tokens = [json.loads(qk("annotate", "users", "add", n, "-w", ws, "--json").stdout)["token"] for n in "xyz"]
    with serving(ws) as url:
        for token in tokens:
            client = AnnotatorClient(url, token)
            case = client.next()
            assert case["docid"] == "c" and case["history"]  # people see the debate
            assert client.vote("1", "c", 3).status_code == 200
            assert client.next() is None or client.next().get("done")

    done = json.loads(qk(*args).stdout)
    assert done["state"] == "done" and len(log.read_text().splitlines()) == calls_after_judging
    prov = {(p["qid"], p["docid"]): p for p in map(json.loads, Path(done["qrels"] + ".provenance.jsonl").read_text().splitlines())}
    assert prov[("1", "a")]["source"] == "original"
    assert prov[("1", "c")]["source"] == "human" and prov[("1", "c")]["grade"] == 3
    assert prov[("1", "b")]["source"] == "llm" and prov[("1", "b")]["status"] == "consensus" and prov[("1", "b")]["grade"] == 3
    assert prov[("1", "e")]["grade"] == 0
