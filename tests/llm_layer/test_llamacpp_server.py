"""One code path: the same judge prompt through llama.cpp's own OpenAI-compatible server and in-process."""

from __future__ import annotations

import asyncio

import pytest

from qrelkit.llm import Message, make_client

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
def llama_server(llama_url):
    return llama_url


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
