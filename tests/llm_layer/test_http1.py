"""The plain-http pool (qrelkit.llm.http1) against a raw loopback TCP server that answers each
request the way a test scripts it: keep-alive, a server that closed an idle connection, one
that dies mid-reply, garbage, chunked and close-delimited bodies, Retry-After, cancellation."""
from __future__ import annotations

import asyncio
import contextlib

import pytest

from qrelkit.llm.http1 import Http1Pool

OK = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\": 1}\r\n"


class Server:
    """Reads one request at a time per connection and answers with the next scripted action:
    bytes to send, ``"close"`` (close without answering), ``("cut", bytes)`` (send, then close),
    ``("hang", bytes)`` (send nothing, wait) or ``("then-close", bytes)`` (answer, then close)."""

    def __init__(self, actions):
        self.actions = list(actions)
        self.connections = 0
        self.requests: list[bytes] = []

    async def handle(self, reader, writer):
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                body = await reader.readexactly(length) if length else b""
                self.requests.append(head + body)
                action = self.actions.pop(0) if self.actions else OK
                if action == "close":
                    writer.close()
                    return
                if isinstance(action, tuple):
                    kind, data = action
                    if kind == "hang":
                        await asyncio.sleep(30)
                        return
                    writer.write(data)
                    await writer.drain()
                    writer.close()
                    return
                writer.write(action)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@contextlib.asynccontextmanager
async def pooled(actions, size=1, headers=()):
    """A scripted server and a pool to it, both closed after the block."""
    srv = Server(actions)
    server = await asyncio.start_server(srv.handle, "127.0.0.1", 0)
    pool = Http1Pool(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1", list(headers), size, 5.0)
    try:
        yield srv, pool
    finally:
        await pool.aclose()
        server.close()


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 20))


def test_replies_come_back_and_a_kept_alive_connection_is_reused():
    async def go():
        async with pooled([], 4, [(b"Authorization", b"Bearer k")]) as (srv, pool):
            a = await pool.post("/chat/completions", b'{"x": 1}')
            b = await pool.post("/chat/completions", b'{"x": 2}')
        return srv, a, b

    srv, a, b = run(go())
    assert (a.status, a.content, b.content) == (200, b'{"ok": 1}\r\n', b'{"ok": 1}\r\n')
    assert srv.connections == 1
    first = srv.requests[0]
    assert first.startswith(b"POST /v1/chat/completions HTTP/1.1\r\n")
    assert b"\r\nAuthorization: Bearer k\r\n" in first and b"\r\nContent-Length: 8\r\n" in first
    assert first.endswith(b'\r\n\r\n{"x": 1}')


def test_a_get_has_no_body_and_no_length():
    async def go():
        async with pooled([]) as (srv, pool):
            r = await pool.request("/models", None, b"GET")
        return srv, r

    srv, r = run(go())
    assert r.status == 200
    assert srv.requests[0].startswith(b"GET /v1/models HTTP/1.1\r\n") and b"Content-Length" not in srv.requests[0]


def test_a_connection_the_server_closed_unanswered_is_retried_once_on_a_new_one():
    async def go():
        async with pooled([OK, "close"]) as (srv, pool):
            await pool.post("/chat/completions", b"{}")
            r = await pool.post("/chat/completions", b"{}")  # the kept-alive one is closed by the server
        return srv, r

    srv, r = run(go())
    assert r.status == 200 and srv.connections == 2 and len(srv.requests) == 3


def test_a_new_connection_closed_unanswered_is_an_error_not_a_loop():
    async def go():
        async with pooled(["close", "close", "close"]) as (srv, pool):
            with pytest.raises(ConnectionError, match="without answering"):
                await pool.post("/chat/completions", b"{}")
        return srv

    srv = run(go())
    assert srv.connections == 1


def test_a_reply_cut_short_is_an_error_never_a_partial_body():
    cut = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"par"
    async def go():
        async with pooled([("cut", cut)]) as (_, pool):
            with pytest.raises(ConnectionError, match="mid-response"):
                await pool.post("/chat/completions", b"{}")
            return await pool.post("/chat/completions", b"{}")  # and the pool goes on

    assert run(go()).status == 200


def test_garbage_is_a_protocol_error():
    async def go():
        async with pooled([("cut", b"SSH-2.0-OpenSSH_9.2\r\n\r\n")]) as (_, pool):
            with pytest.raises(ConnectionError, match="HTTP protocol error"):
                await pool.post("/chat/completions", b"{}")

    run(go())


def test_chunked_and_close_delimited_bodies_are_read_whole_and_retry_after_is_kept():
    chunked = (b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\nTransfer-Encoding: chunked\r\n\r\n"
               b"4\r\n{\"a\"\r\n5\r\n: 12}\r\n0\r\n\r\n")
    delimited = b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{\"whole\": true}"
    async def go():
        async with pooled([chunked, ("then-close", delimited)]) as (srv, pool):
            a = await pool.post("/chat/completions", b"{}")
            b = await pool.post("/chat/completions", b"{}")
            c = await pool.post("/chat/completions", b"{}")  # the closed one is not reused
        return srv, a, b, c

    srv, a, b, c = run(go())
    assert (a.status, a.retry_after, a.content) == (429, "7", b'{"a": 12}')
    assert (b.status, b.content) == (200, b'{"whole": true}')
    assert c.status == 200 and srv.connections == 2


def test_a_cancelled_exchange_closes_its_connection():
    async def go():
        async with pooled([("hang", b"")]) as (srv, pool):
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.3):
                    await pool.post("/chat/completions", b"{}")
            r = await pool.post("/chat/completions", b"{}")
        return srv, r

    srv, r = run(go())
    assert r.status == 200 and srv.connections == 2


def test_a_header_value_with_a_line_break_is_refused_when_the_pool_is_made():
    with pytest.raises(ValueError, match="CR, LF or NUL"):
        Http1Pool("http://127.0.0.1:1/v1", [(b"Authorization", b"Bearer k\r\nX-Evil: 1")], 1, 5.0)


def test_at_most_size_exchanges_at_once():
    async def go():
        active, most = [0], [0]

        async def handle(reader, writer):
            await reader.readuntil(b"\r\n\r\n")
            active[0] += 1
            most[0] = max(most[0], active[0])
            await asyncio.sleep(0.05)
            active[0] -= 1
            writer.write(OK)
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"
        pool = Http1Pool(url, [], 3, 5.0)
        try:
            replies = await asyncio.gather(*[pool.post("/x", b"{}") for _ in range(9)])
        finally:
            await pool.aclose()
            server.close()
        return replies, most[0]

    replies, most = run(go())
    assert all(r.status == 200 for r in replies) and most == 3
