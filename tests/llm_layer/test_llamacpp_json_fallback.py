"""llama.cpp's own server as the README shows it, without ``?json=object`` (issue 45, points 1 and 8).

``python -m llama_cpp.server`` (llama-cpp-python 0.3.x) answers HTTP 500 to ``response_format`` of
type ``json_schema``. The start-up check asks for JSON the way the judge will, finds the refusal,
and the job asks with ``json_object`` instead, said once; before, every call failed and every case
went to people. A model id the server does not list stops the job with exit 3 naming the ids it
does list (llama.cpp answers any name with its one model, so provenance recorded a model that never
ran). Real HTTP to the real server, on the embedded GGUF; few cases (the machine is shared).
"""
from __future__ import annotations

import json
import subprocess
import sys
import urllib.request

import pytest

from .conftest import collection

pytestmark = pytest.mark.model

FALLBACK = "refuses json=schema; asking with json=object for this job"


def qk(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qrelkit", *map(str, args)], capture_output=True, text=True,
                          timeout=900)


@pytest.fixture(scope="module")
def server(llama_url):
    return llama_url


@pytest.fixture(scope="module")
def filled(server, tmp_path_factory):
    """`fill` with the plain spec (no ``?json=``), one call at a time (the server answers one at a time)."""
    tmp = tmp_path_factory.mktemp("fallback")
    ws = tmp / "ws"
    p = qk("fill", "-w", ws, *collection(tmp / "c"), "--method", "zero-shot", "--model", f"openai:smollm2@{server}",
           "--concurrency", "1", "--json")
    return ws, p


def test_the_server_refuses_json_schema_with_http_500(server):
    """The premise: if llama.cpp's server learns json_schema, the fallback is no longer exercised here."""
    body = json.dumps({"model": "smollm2", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 1,
                       "response_format": {"type": "json_schema",
                                           "json_schema": {"name": "a", "schema": {"type": "object"}}}}).encode()
    req = urllib.request.Request(server + "/chat/completions", body, {"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(req, timeout=120)
    assert refused.value.code == 500


def test_fill_against_llama_cpp_exits_0(filled):
    _, p = filled
    assert p.returncode == 0, p.stderr[-3000:]


def test_the_fallback_is_said_once(filled):
    _, p = filled
    assert p.stderr.count(FALLBACK) == 1


def test_no_case_failed(filled):
    _, p = filled
    judge = json.loads(p.stdout)["judge"]
    assert judge["errors"] == 0
    assert judge["unanswered"] == 0
    assert judge["judged"] == judge["cases"] == 3


def test_nothing_waits_for_people(filled):
    ws, _ = filled
    status = json.loads(qk("status", "-w", ws, "--json").stdout)
    assert status["escalations_waiting"] == 0


def test_a_model_the_server_does_not_list_exits_3_naming_what_it_serves(server, tmp_path):
    p = qk("fill", "-w", tmp_path / "ws", *collection(tmp_path / "c"), "--method", "zero-shot",
           "--model", f"openai:llama-70b@{server}")
    assert p.returncode == 3, p.stderr[-3000:]
    assert f"model 'llama-70b' is not served at {server}; it serves: smollm2" in p.stderr
    assert "Traceback" not in p.stderr


def test_a_model_the_server_does_not_list_judges_nothing(server, tmp_path):
    ws = tmp_path / "ws"
    qk("fill", "-w", ws, *collection(tmp_path / "c"), "--method", "zero-shot", "--model", f"openai:llama-70b@{server}")
    status = json.loads(qk("status", "-w", ws, "--json").stdout)
    assert status["judgments"] == {}
    assert status["spent"]["calls"] == 0
    assert status["escalations_waiting"] == 0


def test_a_client_outside_a_job_switches_to_json_object_on_the_first_refusal(server):
    """`compare`, `rag` and library use make no start-up check: the first 500 naming json_schema
    switches the backend, and the call is answered."""
    import asyncio

    from qrelkit.llm import Message, make_client

    client = make_client(f"openai:smollm2@{server}", timeout=300, concurrency=1)
    schema = {"type": "object", "properties": {"grade": {"type": "integer", "enum": [0, 1, 2, 3]}},
              "required": ["grade"]}

    async def ask():
        try:
            return await client.complete([Message("user", 'Reply with JSON: {"grade": 2}')], schema=schema,
                                         max_tokens=12)
        finally:
            await client.aclose()

    answer = asyncio.run(ask())
    assert answer.ok, answer.error
    assert client.backend.json_mode == "object"
