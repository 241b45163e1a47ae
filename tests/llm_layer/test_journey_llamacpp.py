"""The README's journey against a real OpenAI-compatible server that qrelkit did not write:
llama-cpp-python's own (``python -m llama_cpp.server``) serving the embedded GGUF.

`fill` with a debate and a `--limit`, then the bare continuation `fill -w WS`: the exit codes,
the job's state, no new call on the continuation, and no label that came from a failed call
(the 135M model's answers are weak; what is checked is the protocol, not the labels). A URL
where nothing listens stops with exit 3 and leaves nothing for people.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import collection, free_port

pytestmark = pytest.mark.model

DECIDED = {"consensus", "auto", "adjudicated", "dropped"}


def qk(*args, check=True) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "qrelkit", *map(str, args)], capture_output=True, text=True,
                       timeout=900)
    if check and p.returncode != 0:
        raise AssertionError(f"qrelkit {' '.join(map(str, args))} exited {p.returncode}:\n{p.stderr[-3000:]}")
    return p


@pytest.fixture(scope="module")
def llama_server(llama_url):
    return f"openai:smollm2@{llama_url}?json=object"


@pytest.fixture(scope="module")
def journey(llama_server, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("journey")
    ws = tmp / "ws"
    first = qk("fill", "-w", ws, *collection(tmp / "c"), "--method", "debate(rounds=1, doc_tokens=200)",
               "--model", llama_server, "--limit", "1", "--json")
    again = qk("fill", "-w", ws, "--json")
    return ws, json.loads(first.stdout), json.loads(again.stdout)


def test_the_first_fill_judges_its_limit_and_says_where_it_stands(journey):
    _, first, _ = journey
    assert first["judge"]["cases"] == 1
    assert first["state"] in ("waiting", "partial")
    assert first["left"].get("limit") == 2


def test_the_bare_continuation_makes_no_new_call_and_keeps_the_job(journey):
    _, first, again = journey
    assert again["method"] == first["method"]
    assert again["judge"]["calls"] - again["judge"]["cache_hits"] == 0
    assert again["state"] == first["state"]


def test_no_label_comes_from_a_failed_call(journey):
    ws, _, _ = journey
    escalations = json.loads(qk("escalations", "-w", ws, "--json").stdout)["escalations"]
    failed = {(e["qid"], e["docid"]) for e in escalations if e["status"] == "error"}
    qk("export", "-w", ws, "--out", ws / "now.qrels")
    prov = [json.loads(line) for line in (ws / "now.qrels.provenance.jsonl").read_text().splitlines()]
    llm = [p for p in prov if p["source"] == "llm"]
    assert all(p["status"] in DECIDED for p in llm)
    assert not failed & {(p["qid"], p["docid"]) for p in llm}


def test_a_url_where_nothing_listens_stops_with_exit_3_and_nothing_for_people(tmp_path):
    ws = tmp_path / "ws"
    p = qk("fill", "-w", ws, *collection(tmp_path / "c"), "--method", "debate(rounds=1)",
           "--model", f"openai:smollm2@http://127.0.0.1:{free_port()}/v1", check=False)
    assert p.returncode == 3
    assert "is the server running" in p.stderr
    assert "Traceback" not in p.stderr
    status = json.loads(qk("status", "-w", ws, "--json").stdout)
    assert status["escalations_waiting"] == 0
