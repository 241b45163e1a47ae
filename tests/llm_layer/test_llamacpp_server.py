"""One code path: the same judge prompt through llama.cpp's own OpenAI-compatible server and in-process."""

from __future__ import annotations

import asyncio
import importlib.util
import subprocess
import sys

import pytest

from qrelkit.llm import Message, make_client
from qrelkit.llm.local import default_model_path

from .conftest import free_port, stop, wait_ready

pytestmark = pytest.mark.model

SCHEMA = {
    "type": "object",
    "properties": {"relevant": {"type": "boolean"}, "grade": {"type": "integer", "enum": [0, 1, 2, 3]}},
    "required": ["relevant", "grade"],
}
CASES = [
    ("how do cats purr", "Cats purr by vibrating the muscles of the larynx."),
    ("capital of australia", "The Great Barrier Reef is the largest coral reef system in the world."),
    ("python list sorting", "Use sorted(xs) or xs.sort(); both take a key function."),
]


def judge(query: str, doc: str) -> list[Message]:
    return [
        Message("system", "You are a relevance assessor. Reply with JSON."),
        Message(
            "user",
            f"Query: {query}\nDocument: {doc}\n"
            "Is the document relevant to the query? Give a grade from 0 (not) to 3 (perfect).",
        ),
    ]


@pytest.fixture(scope="module")
def llama_server():
    for mod in ("sse_starlette", "starlette_context", "pydantic_settings"):
        if importlib.util.find_spec(mod) is None:
            pytest.skip(f"llama_cpp.server needs {mod} (llama-cpp-python[server])")
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(default_model_path()),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "2048",
            "--n_threads",
            "2",
            "--n_threads_batch",
            "2",
            "--model_alias",
            "smollm2",
            "--verbose",
            "False",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_ready(f"http://127.0.0.1:{port}/v1/models", proc, 90)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        stop(proc)


def test_same_label_through_server_and_in_process(llama_server):
    # llama.cpp servers take the schema as json_object+schema; their default
    # repeat_penalty (1.1) is turned off to match the OpenAI semantics used in-process.
    remote = make_client(f"openai:smollm2@{llama_server}?json=object&body.repeat_penalty=1.0", timeout=120)
    local = make_client("local", timeout=120)

    async def both():
        out = []
        for q, d in CASES:
            r = await remote.complete(judge(q, d), schema=SCHEMA, max_tokens=40)
            loc = await local.complete(judge(q, d), schema=SCHEMA, max_tokens=40)
            out.append((r, loc))
        await remote.aclose()
        return out

    for r, loc in asyncio.run(both()):
        assert r.ok and loc.ok, (r.error, loc.error)
        assert r.parsed == loc.parsed
        assert r.text == loc.text
        assert r.prompt_tokens == loc.prompt_tokens and r.completion_tokens == loc.completion_tokens
