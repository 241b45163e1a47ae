"""The Client's middleware against a scripted backend and a real loopback HTTP server."""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import time

import pytest

from qrelkit.errors import CapabilityError, UsageError
from qrelkit.llm import (
    CORRECTIVE,
    CallFailed,
    Client,
    Completion,
    Message,
    Prices,
    ScriptedBackend,
    canonical_model_id,
    make_client,
    parse_model_spec,
)
from qrelkit.llm.base import CHAT, JSON_SCHEMA, SCORE
from qrelkit.llm.client import parse_retry_after
from qrelkit.llm.jsonschema import extract_json, parse_reply, validate
from qrelkit.llm.limits import TokenBucket
from qrelkit.llm.openai_backend import PROMPT_SCHEMA_INSTRUCTION
from qrelkit.llm.prices import load_price_file, resolve_prices

SCHEMA = {
    "type": "object",
    "properties": {"grade": {"type": "integer", "minimum": 0, "maximum": 3}, "why": {"type": "string"}},
    "required": ["grade"],
}
MSGS = [Message("system", "You judge relevance."), Message("user", "query: cats\ndoc: cats purr")]
FAST = dict(backoff_base=0.001, backoff_max=0.01)


def run(coro):
    return asyncio.run(coro)


def client_for(server, spec_tail: str = "", **kw) -> Client:
    opts = {**FAST, **kw}
    return make_client(f"openai:fake@{server.url}{spec_tail}", **opts)


# ---- JSON extraction and validation ---------------------------------------------------------------


def test_extract_json_tolerates_prose_and_fences():
    assert extract_json('{"a": 1}') == {"a": 1}
    assert extract_json('Sure!\n```json\n{"a": 2}\n```\nDone.') == {"a": 2}
    assert extract_json('The answer is {"a": 3} and {"b": 4}') == {"a": 3}
    with pytest.raises(ValueError):
        extract_json('{"a": 1')


def test_validate_subset():
    assert validate({"grade": 2}, SCHEMA) is None
    assert "missing" in validate({}, SCHEMA)
    assert "maximum" in validate({"grade": 4}, SCHEMA)
    assert "expected integer" in validate({"grade": "2"}, SCHEMA)
    assert "expected integer" in validate({"grade": True}, SCHEMA)
    assert validate({"label": "a"}, {"type": "object", "properties": {"label": {"enum": ["a", "b"]}}}) is None
    assert "not one of" in validate({"label": "c"}, {"properties": {"label": {"enum": ["a", "b"]}}})
    arr = {"type": "array", "items": {"type": "string"}}
    assert validate(["x", "y"], arr) is None
    assert "[1]" in validate(["x", 2], arr)
    assert validate(1.5, {"type": "number"}) is None
    assert validate(True, {"type": "boolean"}) is None
    assert validate(1, {"type": "boolean"}) is not None
    assert parse_reply('{"grade": 1}', SCHEMA) == ({"grade": 1}, None)
    assert parse_reply('{"grade": 1', SCHEMA)[1].startswith("unparseable")
    assert parse_reply('{"label": 1}', SCHEMA)[1].startswith("invalid")


# ---- scripted backend: retries on bad replies, caching ------------------------------------------------


def test_parse_failure_is_retried_with_correction_then_cached():
    replies = iter(["not json at all", '{"grade": 7}', '{"grade": 1, "why": "purrs"}'])
    backend = ScriptedBackend(lambda msgs, params: next(replies, '{"grade": 0}'))
    client = Client(backend, **FAST)
    res = run(client.complete(MSGS, schema=SCHEMA, version="v1"))
    assert res.ok and res.parsed == {"grade": 1, "why": "purrs"} and res.attempts == 3
    assert backend.calls == 3
    retry_msgs = backend.requests[1][0]
    assert retry_msgs[-1] == Message("user", CORRECTIVE) and retry_msgs[-2].content == "not json at all"
    again = run(client.complete(MSGS, schema=SCHEMA, version="v1"))
    assert again.cached and again.cost_usd == 0 and again.parsed == res.parsed and backend.calls == 3
    run(client.complete(MSGS, schema=SCHEMA, version="v2"))  # a changed template version is a new key
    assert backend.calls == 4
    assert client.usage.calls == 3 and client.usage.cache_hits == 1 and client.usage.errors == 0


def test_persistent_bad_reply_is_an_explicit_failure_and_not_cached():
    backend = ScriptedBackend(lambda msgs, params: '{"grade": ')
    client = Client(backend, max_attempts=3, **FAST)
    res = run(client.complete(MSGS, schema=SCHEMA))
    assert not res.ok and res.parsed is None and res.error.startswith("unparseable") and res.attempts == 3
    assert backend.calls == 3
    run(client.complete(MSGS, schema=SCHEMA))
    assert backend.calls == 6  # failures are never cached
    assert client.usage_dict()["errors"] == 2


def test_exceptions_are_retried_and_nonretryable_stop_at_once():
    n = {"k": 0}

    def flaky(msgs, params):
        n["k"] += 1
        if n["k"] < 3:
            raise ConnectionError("boom")
        return {"grade": 3}

    client = Client(ScriptedBackend(flaky), **FAST)
    res = run(client.complete(MSGS, schema=SCHEMA))
    assert res.ok and res.parsed == {"grade": 3} and res.attempts == 3

    def fatal(msgs, params):
        raise CallFailed("HTTP 401: bad key", retryable=False)

    backend = ScriptedBackend(fatal)
    res = run(Client(backend, **FAST).complete(MSGS))
    assert not res.ok and "401" in res.error and backend.calls == 1


def test_read_cache_false_bypasses_reading_but_still_writes():
    backend = ScriptedBackend(lambda m, p: "hello")
    client = Client(backend, **FAST)
    run(client.complete(MSGS))
    nocache = Client(backend, read_cache=False, **FAST)
    nocache.cache = client.cache
    res = run(nocache.complete(MSGS))
    assert not res.cached and backend.calls == 2
    assert run(client.complete(MSGS)).cached


def test_a_cache_that_cannot_be_written_does_not_lose_the_answer(caplog):
    class BrokenStore:
        write_failed = None  # no write the disk refused (qrelkit.store.faults): the client calls on

        def cache_get(self, key):
            return None

        def cache_put(self, *a):
            raise OSError("read-only workspace")

    client = Client(ScriptedBackend(lambda m, p: {"grade": 1}), store=BrokenStore(), **FAST)
    res = run(client.complete(MSGS, schema=SCHEMA))
    assert res.ok and res.parsed == {"grade": 1} and "could not cache" in caplog.text


def test_workspace_cache_survives_clients(tmp_path):
    from qrelkit.store import Store

    backend = ScriptedBackend(lambda m, p: {"grade": 1}, model_id="scripted:a")
    store = Store.create(tmp_path / "ws")
    run(Client(backend, store=store, **FAST).complete(MSGS, schema=SCHEMA, version="t1"))
    store.close()
    store = Store.open(tmp_path / "ws")
    c2 = Client(backend, store=store, **FAST)
    res = run(c2.complete(MSGS, schema=SCHEMA, version="t1"))
    assert res.cached and res.parsed == {"grade": 1} and backend.calls == 1
    other = Client(ScriptedBackend(lambda m, p: {"grade": 0}, model_id="scripted:b"), store=store, **FAST)
    assert run(other.complete(MSGS, schema=SCHEMA, version="t1")).parsed == {"grade": 0}  # model in key
    rows = store.query("SELECT model, prompt_tokens FROM llm_calls ORDER BY model")
    assert [r[0] for r in rows] == ["scripted:a", "scripted:b"]


def test_identical_concurrent_calls_are_sent_once():
    async def slow(msgs, params):
        await asyncio.sleep(0.05)
        return "same"

    backend = ScriptedBackend(slow)
    client = Client(backend, **FAST)

    async def go():
        return await asyncio.gather(*[client.complete(MSGS) for _ in range(5)])

    results = run(go())
    assert backend.calls == 1 and all(r.text == "same" for r in results)
    assert sum(r.cached for r in results) == 4 and client.usage.cache_hits == 4


def test_a_failed_leader_does_not_fail_its_duplicates():
    n = {"k": 0}

    async def first_fails(msgs, params):
        n["k"] += 1
        await asyncio.sleep(0.02)
        if n["k"] == 1:
            raise CallFailed("nope", retryable=False)
        return "fine"

    backend = ScriptedBackend(first_fails)
    client = Client(backend, **FAST)

    async def go():
        return await asyncio.gather(*[client.complete(MSGS) for _ in range(3)])

    a, b, c = run(go())
    assert not a.ok and b.ok and c.ok and b.text == "fine"


def test_capabilities_are_checked_with_a_clear_message():
    client = Client(ScriptedBackend(lambda m, p: "x", capabilities=frozenset({"chat"}), model_id="m1"))
    with pytest.raises(CapabilityError, match="m1 does not support score"):
        client.require("score")
    with pytest.raises(CapabilityError, match="top_logprobs"):
        run(client.complete(MSGS, top_logprobs=3))
    with pytest.raises(CapabilityError, match="json_schema"):
        run(client.complete(MSGS, schema=SCHEMA))
    with pytest.raises(CapabilityError, match="score"):
        run(client.score("a", "b"))


def test_scripted_score_and_cache():
    backend = ScriptedBackend(lambda m, p: "x", score_fn=lambda pre, cont: [-0.5, -1.0])
    client = Client(backend, **FAST)
    s = run(client.score("prefix", " cont"))
    assert s.ok and s.logprob == -1.5 and s.tokens == 2
    assert run(client.score("prefix", " cont")).cached and backend.calls == 1


def test_timeout_and_concurrency_with_scripted_backend():
    async def hang(msgs, params):
        await asyncio.sleep(5)

    client = Client(ScriptedBackend(hang), timeout=0.05, max_attempts=2, **FAST)
    res = run(client.complete(MSGS))
    assert not res.ok and "timeout" in res.error and res.attempts == 2

    async def slow(msgs, params):
        await asyncio.sleep(0.01)
        return msgs[-1].content

    backend = ScriptedBackend(slow)
    client = Client(backend, concurrency=3, **FAST)

    async def go():
        return await asyncio.gather(*[client.complete([Message("user", str(i))]) for i in range(30)])

    out = run(go())
    assert [r.text for r in out] == [str(i) for i in range(30)]
    assert backend.max_in_flight == 3


def test_a_freed_slot_sends_the_waiting_request_before_the_answer_is_handled():
    """One slot, two callers: the second caller's request goes out as soon as the first answer
    frees the slot, before the first caller handles that answer (in a judging run: its verdict,
    store write, progress and next prompt), so the server does not wait for that work."""
    events = []

    async def answer(msgs, params):
        events.append(f"sent {msgs[-1].content}")
        await asyncio.sleep(0.01)
        return msgs[-1].content

    client = Client(ScriptedBackend(answer), concurrency=1, **FAST)

    async def caller(name):
        res = await client.complete([Message("user", name)])
        events.append(f"handled {res.text}")

    async def go():
        await asyncio.gather(caller("a"), caller("b"), caller("c"))

    run(go())
    assert events == ["sent a", "sent b", "handled a", "sent c", "handled b", "handled c"]


def test_a_caller_stopped_while_the_next_request_goes_out_keeps_its_answer_cached():
    """The turn an answered call gives to the waiting caller is a point where the answered one can
    be cancelled (Ctrl-C); the answer is paid for, so it is in the cache all the same."""
    tasks = {}

    async def answer(msgs, params):
        if msgs[-1].content == "b":
            tasks["a"].cancel()  # "a" was answered and is letting "b" go first
        await asyncio.sleep(0.01)
        return msgs[-1].content

    backend = ScriptedBackend(answer)
    client = Client(backend, concurrency=1, **FAST)

    async def go():
        tasks["a"] = asyncio.ensure_future(client.complete([Message("user", "a")]))
        b = asyncio.ensure_future(client.complete([Message("user", "b")]))
        with pytest.raises(asyncio.CancelledError):
            await tasks["a"]
        await b
        again = await client.complete([Message("user", "a")])
        return again

    again = run(go())
    assert again.cached and again.text == "a" and backend.calls == 2


def test_client_survives_several_event_loops():
    client = Client(ScriptedBackend(lambda m, p: m[-1].content), concurrency=2)

    async def go(i):
        return await asyncio.gather(*[client.complete([Message("user", f"{i}-{j}")]) for j in range(4)])

    for i in range(3):
        assert [r.text for r in run(go(i))] == [f"{i}-{j}" for j in range(4)]


def test_completion_is_frozen():
    from dataclasses import FrozenInstanceError

    with pytest.raises(FrozenInstanceError):
        Completion(text="a").text = "b"  # type: ignore[misc]


# ---- limits, prices, Retry-After -------------------------------------------------------------------


def test_token_bucket_paces():
    async def go():
        b = TokenBucket(600)  # 10 per second
        b.level = 0
        t0 = time.monotonic()
        await b.acquire(1)
        await b.acquire(1)
        return time.monotonic() - t0

    assert 0.15 <= run(go()) < 1.0


def test_rpm_limit_applies_to_calls():
    backend = ScriptedBackend(lambda m, p: m[-1].content)
    client = Client(backend, rpm=600)
    client._rpm.level = 1  # the bucket starts full; drain it to see the pacing

    async def go():
        t0 = time.monotonic()
        await asyncio.gather(*[client.complete([Message("user", str(i))]) for i in range(4)])
        return time.monotonic() - t0

    assert run(go()) >= 0.25  # 3 calls beyond the one token at 10/s


def test_retry_after_forms():
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    future = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= parse_retry_after(future) <= 31
    assert parse_retry_after(email.utils.formatdate(time.time() - 30, usegmt=True)) == 0.0


def test_price_files(tmp_path):
    (tmp_path / "p.toml").write_text('["openai:gpt-x"]\ninput = 2.5\noutput = 10\n')
    (tmp_path / "p.json").write_text(json.dumps({"gpt-y": {"input": 1, "output": 4}}))
    assert load_price_file(tmp_path / "p.toml")["openai:gpt-x"] == Prices(2.5, 10.0)
    assert resolve_prices("openai:gpt-y", tmp_path / "p.json") == Prices(1.0, 4.0)
    assert resolve_prices("openai:unknown", tmp_path / "p.json") == Prices()
    assert resolve_prices("local:smollm2-135m-instruct-q4_1", Prices(9, 9)) == Prices()
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(UsageError):
        load_price_file(tmp_path / "bad.json")


# ---- spec strings ----------------------------------------------------------------------------------


def test_specs(monkeypatch):
    s = parse_model_spec("openai:llama3:8b@http://a:1/v1,https://b.example/v1/?json=object&score=echo")
    assert s.model == "llama3:8b" and s.urls == ("http://a:1/v1", "https://b.example/v1")
    assert s.option("json") == "object" and s.option("score") == "echo"
    monkeypatch.setenv("QRELKIT_API_KEY", "k1")
    monkeypatch.setenv("OPENAI_API_KEY", "k2")
    c = make_client("openai:m@http://a:1/v1,http://b:2/v1?body.repeat_penalty=1.0")
    assert c.model_id == "openai:m" and len(c.backend.endpoints) == 2
    assert dict(c.backend._headers)[b"Authorization"] == b"Bearer k1" and c.backend.body == {
        "repeat_penalty": 1.0
    }
    assert "score" not in c.capabilities and "top_logprobs" in c.capabilities
    monkeypatch.delenv("QRELKIT_API_KEY")
    assert dict(make_client("openai:m@http://a:1/v1").backend._headers)[b"Authorization"] == b"Bearer k2"
    monkeypatch.delenv("OPENAI_API_KEY")
    assert dict(make_client("openai:m@http://a:1/v1").backend._headers)[b"Authorization"] == b"Bearer EMPTY"
    assert make_client("local").model_id == "local:smollm2-135m-instruct-q4_1"
    assert canonical_model_id("local") == "local:smollm2-135m-instruct-q4_1"
    assert canonical_model_id("local:smollm2-135m-instruct-q4_1") == "local:smollm2-135m-instruct-q4_1"
    assert canonical_model_id("local:/m/Qwen2.5-0.5B.Q4_K_M.gguf") == "local:qwen2.5-0.5b.q4_k_m"
    assert canonical_model_id("openai:llama3:8b@http://a:1/v1,http://b/v1?json=object") == "openai:llama3:8b"
    assert canonical_model_id("openai:gpt-4o-mini") == "openai:gpt-4o-mini"
    for bad in [
        "",
        "gpt4",
        "openai:",
        "openai:m@ftp://x",
        "openai:m@http://a,",
        "openai:m@http://a?json=xml",
        "openai:m@http://a?bogus=1",
        "local:/no/such.gguf",
        "local:model.bin",
    ]:
        with pytest.raises(UsageError):
            parse_model_spec(bad)


# ---- the real HTTP path ----------------------------------------------------------------------------


def test_http_success_cost_and_cache(server):
    prices = Prices(input_per_mtok=1.0, output_per_mtok=2.0)
    client = client_for(server, prices=prices)
    res = run(client.complete(MSGS, schema=SCHEMA))
    assert res.ok and res.parsed == {"grade": 2} and res.prompt_tokens == 100 and res.completion_tokens == 10
    assert res.cost_usd == pytest.approx(120 / 1e6)
    body = server.stats()["bodies"][0]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert body["temperature"] == 0.0 and body["model"] == "fake"
    again = run(client.complete(MSGS, schema=SCHEMA))
    assert again.cached and again.cost_usd == 0.0 and server.calls == 1  # never reached the server
    run(client.complete([Message("user", "other")], schema=SCHEMA))
    run(client.complete([Message("user", "third")], schema=SCHEMA))
    u = client.usage_dict()
    assert u == {
        "calls": 4,
        "cache_hits": 1,
        "errors": 0,
        "attempts": 3,  # three requests reached the server; the cache hit sent none
        "retries": 0,
        "prompt_tokens": 300,
        "completion_tokens": 30,
        "cost_usd": pytest.approx(3 * 120 / 1e6),
    }
    run(client.aclose())


def test_http_500_retried_then_success(server):
    server.script(faults=["500", "500"])
    client = client_for(server)
    res = run(client.complete(MSGS, schema=SCHEMA))
    assert res.ok and res.attempts == 3 and server.calls == 3


def test_http_500_forever_is_an_explicit_failure(server):
    server.script(faults=["500"] * 10)
    client = client_for(server, max_attempts=4)
    res = run(client.complete(MSGS, schema=SCHEMA))
    assert not res.ok and res.parsed is None and "HTTP 500" in res.error and res.attempts == 4
    assert server.calls == 4 and client.usage.errors == 1


def test_http_429_honours_retry_after(server):
    server.script(faults=["429:1"])
    client = client_for(server)
    t0 = time.monotonic()
    res = run(client.complete(MSGS, schema=SCHEMA))
    assert res.ok and res.attempts == 2 and server.calls == 2
    assert time.monotonic() - t0 >= 0.95  # the tiny backoff base would retry at once otherwise


def test_http_hang_times_out(server):
    server.script(faults=["hang:3", "hang:3"])
    client = client_for(server, timeout=0.3, max_attempts=2)
    t0 = time.monotonic()
    res = run(client.complete(MSGS, schema=SCHEMA))
    assert not res.ok and "timeout" in res.error and server.calls == 2
    assert time.monotonic() - t0 < 2.5


@pytest.mark.parametrize("fault", ["malformed", "truncated", "wrong_schema"])
def test_http_bad_bodies_are_retried(server, fault):
    server.script(faults=[fault])
    client = client_for(server)
    res = run(client.complete(MSGS, schema=SCHEMA))
    assert res.ok and res.parsed == {"grade": 2} and res.attempts == 2 and server.calls == 2
    if fault != "malformed":  # a bad reply is shown back with a correction
        retry = server.stats()["bodies"][1]["messages"]
        assert retry[-1] == {"role": "user", "content": CORRECTIVE}


@pytest.mark.parametrize("fault", ["truncated", "wrong_schema", "malformed"])
def test_http_bad_bodies_forever_fail(server, fault):
    server.script(faults=[fault] * 10)
    client = client_for(server, max_attempts=3)
    res = run(client.complete(MSGS, schema=SCHEMA))
    assert not res.ok and res.parsed is None and server.calls == 3
    expect = {"truncated": "unparseable", "wrong_schema": "invalid", "malformed": "malformed"}[fault]
    assert expect in res.error


@pytest.mark.parametrize("fault", ["400", "404"])
def test_http_client_errors_are_not_retried(server, fault):
    server.script(faults=[fault] * 3)
    client = client_for(server, max_attempts=4)
    res = run(client.complete(MSGS))
    assert not res.ok and f"HTTP {fault}" in res.error and server.calls == 1


def test_response_format_rejected_falls_back_to_prompt_once(server):
    server.script(reject_response_format=True)
    client = client_for(server)
    res = run(client.complete(MSGS, schema=SCHEMA))
    assert res.ok and res.parsed == {"grade": 2}
    run(client.complete([Message("user", "next")], schema=SCHEMA))
    bodies = server.stats()["bodies"]
    assert len(bodies) == 3  # rejected, fallback, and then prompt mode straight away
    assert "response_format" in bodies[0] and "response_format" not in bodies[1]
    assert "response_format" not in bodies[2] and client.backend.json_mode == "prompt"
    assert bodies[2]["messages"][-1]["content"].endswith(PROMPT_SCHEMA_INSTRUCTION + json.dumps(SCHEMA))


def test_other_400s_do_not_switch_off_structured_output(server):
    server.script(faults=["400", "400"])
    client = client_for(server)
    res = run(client.complete(MSGS, schema=SCHEMA))
    assert not res.ok and "HTTP 400" in res.error and server.calls == 2
    assert client.backend.json_mode == "schema"
    assert run(client.complete([Message("user", "next")], schema=SCHEMA)).ok
    assert "response_format" in server.stats()["bodies"][-1]


def test_json_object_mode_for_llamacpp(server):
    client = client_for(server, "?json=object")
    assert run(client.complete(MSGS, schema=SCHEMA)).ok
    rf = server.stats()["bodies"][0]["response_format"]
    assert rf == {"type": "json_object", "schema": SCHEMA}


def test_json_object_mode_sends_no_string_lengths(server):
    """llama-cpp-python's server compiles a ``maxLength`` into nested grammar rules and dies of a
    long one; the Client still checks the reply against the whole schema."""
    long = {"type": "object", "properties": {"reason": {"type": "string", "maxLength": 300},
                                             "quotes": {"type": "array", "maxItems": 2,
                                                        "items": {"type": "string", "maxLength": 200}}}}
    client = client_for(server, "?json=object")
    run(client.complete(MSGS, schema=long))
    sent = server.stats()["bodies"][0]["response_format"]["schema"]
    assert "maxLength" not in json.dumps(sent)
    assert sent["properties"]["quotes"]["maxItems"] == 2


def test_concurrency_limit_is_never_exceeded(server):
    server.script(latency=0.05, keep_bodies=False)
    client = client_for(server, concurrency=5)

    async def go():
        return await asyncio.gather(*[client.complete([Message("user", f"q{i}")]) for i in range(40)])

    results = run(go())
    assert all(r.ok for r in results)
    st = server.stats()
    assert st["calls"] == 40 and st["max_in_flight"] == 5


def test_top_logprobs_over_http(server):
    client = client_for(server)
    res = run(client.complete(MSGS, top_logprobs=3, max_tokens=5))
    body = server.stats()["bodies"][0]
    assert body["logprobs"] is True and body["top_logprobs"] == 3
    assert res.logprobs and len(res.logprobs[0].top) == 3 and res.logprobs[0].logprob == -0.1


def test_logprobs_asked_but_not_given_is_an_explicit_failure(server):
    server.script(omit_logprobs=True)
    res = run(client_for(server).complete(MSGS, top_logprobs=3, max_tokens=5))
    assert not res.ok and "no log-probabilities" in res.error and server.calls == 1


def test_score_over_http_echo(server):
    client = client_for(server, "?score=echo")
    s = run(client.score("a b", " c d"))
    assert s.ok and s.tokens == 2 and s.logprob == pytest.approx(-0.3 - 0.4)
    body = server.stats()["bodies"][0]
    assert body["echo"] is True and body["prompt"] == "a b c d"
    with pytest.raises(CapabilityError, match="score"):
        run(client_for(server).score("a", "b"))


def test_load_balancing_spreads_calls(two_servers):
    a, b = two_servers
    for s in two_servers:
        s.script(latency=0.02, keep_bodies=False)
    client = make_client(f"openai:fake@{a.url},{b.url}", concurrency=4, **FAST)

    async def go():
        return await asyncio.gather(*[client.complete([Message("user", f"q{i}")]) for i in range(40)])

    assert all(r.ok for r in run(go()))
    ca, cb = a.calls, b.calls
    assert ca + cb == 40 and abs(ca - cb) <= 4
    # Sequential calls (nothing in flight) alternate: round robin on ties.
    for s in two_servers:
        s.reset()

    async def seq():
        for i in range(6):
            await client.complete([Message("user", f"s{i}")])

    run(seq())
    assert a.calls == 3 and b.calls == 3
    # The slow endpoint gets fewer calls: least in flight wins.
    a.reset(), b.reset()
    a.script(latency=0.2, keep_bodies=False)
    b.script(latency=0.0, keep_bodies=False)

    async def skew():
        return await asyncio.gather(*[client.complete([Message("user", f"k{i}")]) for i in range(40)])

    run(skew())
    assert b.calls > 2 * a.calls
    run(client.aclose())


def test_unreachable_server_is_a_failure_not_an_exception():
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = make_client(f"openai:fake@http://127.0.0.1:{port}/v1", max_attempts=2, **FAST)
    res = run(client.complete(MSGS))
    assert not res.ok and "cannot reach" in res.error and res.attempts == 2


@pytest.fixture
def no_proxy_env(monkeypatch):
    """No ``*_proxy`` variable, whatever the machine running the tests has set."""
    for name in list(os.environ):
        if name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)


@pytest.mark.parametrize("env, url, plain", [
    ({}, "http://127.0.0.1:8000/v1", True),
    ({}, "https://api.example.org/v1", False),  # TLS: httpx
    ({"HTTP_PROXY": "http://proxy:3128"}, "http://10.0.0.5:8000/v1", False),
    ({"http_proxy": "http://proxy:3128"}, "http://10.0.0.5:8000/v1", False),
    ({"ALL_PROXY": "http://proxy:3128"}, "http://10.0.0.5:8000/v1", False),
    ({"http_proxy": "http://proxy:3128", "no_proxy": "10.0.0.5"}, "http://10.0.0.5:8000/v1", True),
    ({"HTTPS_PROXY": "http://proxy:3128"}, "http://10.0.0.5:8000/v1", True),  # a proxy for https only
])
def test_the_plain_pool_is_used_where_no_proxy_applies(monkeypatch, no_proxy_env, env, url, plain):
    # urllib.request is imported only when some *_proxy variable is set (start-up), so both the
    # shortcut and the urllib path decide here
    import qrelkit.llm.openai_backend as ob

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert ob._use_plain_pool(url) is plain


def test_on_macos_and_windows_the_system_proxy_settings_are_asked(monkeypatch, no_proxy_env):
    # there getproxies() reads the system's settings, not only the environment: no shortcut
    import urllib.request

    import qrelkit.llm.openai_backend as ob

    monkeypatch.setattr(urllib.request, "getproxies", lambda: {"http": "http://system-proxy:3128"})
    monkeypatch.setattr(urllib.request, "proxy_bypass", lambda host: False)
    assert ob._use_plain_pool("http://10.0.0.5:8000/v1") is True  # Linux: the environment, which is empty
    monkeypatch.setattr(ob.sys, "platform", "darwin")
    assert ob._use_plain_pool("http://10.0.0.5:8000/v1") is False


def test_the_httpx_path_behaves_the_same(server, monkeypatch):
    # https endpoints and proxied networks go through httpx instead of the plain-http pool.
    import qrelkit.llm.openai_backend as ob

    monkeypatch.setattr(ob, "_use_plain_pool", lambda url: False)
    server.script(faults=["500", "429:0", "malformed", "truncated"])
    client = client_for(server, max_attempts=5)
    res = run(client.complete(MSGS, schema=SCHEMA))
    assert res.ok and res.parsed == {"grade": 2} and res.attempts == 5 and server.calls == 5
    assert isinstance(client.backend.endpoints[0].pool, ob._HttpxPool)
    server.script(faults=["hang:3"])
    res = run(client_for(server, timeout=0.3, max_attempts=1).complete(MSGS))
    assert not res.ok and "timeout" in res.error
    server.script(faults=["404"])
    res = run(client_for(server).complete(MSGS))
    assert not res.ok and "HTTP 404" in res.error


def test_local_model_waits_long_by_default():
    from qrelkit.llm import make_client
    from qrelkit.llm.spec import LOCAL_TIMEOUT

    # an in-process call cannot be cancelled, so the local default is long; explicit values win
    assert make_client("local").timeout == LOCAL_TIMEOUT >= 300
    assert make_client("local", timeout=5).timeout == 5
    assert make_client("openai:m@http://127.0.0.1:9/v1").timeout == 60.0


def test_retries_are_counted_as_attempts_beyond_one_per_answered_call():
    n = {"k": 0}

    def flaky(msgs, params):
        n["k"] += 1
        if n["k"] < 3:
            raise ConnectionError("boom")
        return {"grade": 3}

    client = Client(ScriptedBackend(flaky), **FAST)
    run(client.complete(MSGS, schema=SCHEMA))
    run(client.complete(MSGS, schema=SCHEMA))  # a cache hit: no request, no retry
    usage = client.usage_dict()
    assert usage["calls"] == 2
    assert usage["attempts"] == n["k"] == 3
    assert usage["retries"] == 2


@pytest.mark.parametrize("kind", ["complete", "score"])
def test_the_cache_stores_the_text_its_key_signs(tmp_path, kind):
    import hashlib

    from qrelkit.store import Store

    backend = ScriptedBackend(lambda m, p: {"grade": 1}, capabilities=frozenset({CHAT, JSON_SCHEMA, SCORE}),
                              score_fn=lambda prefix, cont: -1.0)
    store = Store.create(tmp_path / "ws")
    client = Client(backend, store=store, **FAST)
    run(client.complete(MSGS, schema=SCHEMA) if kind == "complete" else client.score("a b", " c"))
    ((key, request),) = store.query("SELECT key, request FROM llm_calls")
    assert hashlib.sha256(request.encode("utf-8")).hexdigest() == key


def test_a_reply_strict_json_refuses_is_still_read():
    """msgspec reads replies; what only Python's json reads (a Python server's -Infinity log-probability)
    still comes through, and what neither reads is an error."""
    from qrelkit.llm.openai_backend import _decode_reply

    assert _decode_reply(b'{"a": [1, 2.5]}') == {"a": [1, 2.5]}
    assert _decode_reply(b'{"logprob": -Infinity}')["logprob"] == float("-inf")
    with pytest.raises(ValueError):
        _decode_reply(b"<html>")
