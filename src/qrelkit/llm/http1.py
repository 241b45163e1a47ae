"""Keep-alive HTTP/1.1 connections to one plain-http origin, for self-hosted model servers.

A judging job against a GPU server sends hundreds of calls a second from one process, so the
client's CPU per call decides how close the job comes to the server's rate. Each connection
is an asyncio protocol that hands what the socket delivers straight to ``httptools``' response
parser (llhttp, the C parser Node.js and uvicorn use): no stream reader, no future per read,
no per-event Python state machine. A request is one write of bytes formatted from headers
checked once, when the pool is made.

Measured (``benchmarks/http_pool.py``: the same prebuilt POST to the loopback fake server at
0.2 s latency, pools alternated in one run on the shared 2-core machine; see
docs/benchmarks.md for the table) against the h11-over-streams pool this replaced and
aiohttp's client.

Behaviour a caller relies on (the OpenAI backend, the endpoint check):

- connections are reused last-in first-out, at most ``size`` exchanges at once;
- a kept-alive connection the server had closed before answering is retried once on a new
  connection (the request never reached a handler); a connection closed mid-response, a
  response the parser refuses, or a cancellation (the Client's timeout) closes the connection
  and raises, never returning a partial body;
- ``Retry-After`` is handed back with the status and the body.
"""

from __future__ import annotations

import asyncio
from typing import NamedTuple, Optional
from urllib.parse import urlsplit

import httptools


class Reply(NamedTuple):
    status: int
    retry_after: Optional[str]
    content: bytes


class StaleConnection(Exception):
    """A kept-alive connection the server had already closed; safe to resend on a new one."""


_BAD_HEADER = frozenset(b"\r\n\x00")


def _header_block(headers: list[tuple[bytes, bytes]]) -> bytes:
    for k, v in headers:
        if _BAD_HEADER & set(k + v) or b":" in k or not k:
            raise ValueError(f"invalid HTTP header {k!r}: names and values may not hold CR, LF or NUL")
    return b"".join(k + b": " + v + b"\r\n" for k, v in headers)


class _Connection(asyncio.Protocol):
    """One connection: at most one exchange at a time, its reply parsed as bytes arrive."""

    def __init__(self) -> None:
        self.transport: Optional[asyncio.Transport] = None
        self.parser = httptools.HttpResponseParser(self)
        self.waiter: Optional[asyncio.Future] = None
        self.closed = False
        self.got_any = False
        self.keep = False
        self.framed = False  # the reply says where its body ends (Content-Length or chunked)
        self.headers_done = False
        self.retry: Optional[str] = None
        self.chunks: list[bytes] = []

    # ---- the exchange ---------------------------------------------------------------------
    def start(self, request: bytes) -> asyncio.Future:
        self.got_any = self.keep = self.framed = self.headers_done = False
        self.retry = None
        self.chunks = []
        self.waiter = asyncio.get_running_loop().create_future()
        assert self.transport is not None
        self.transport.write(request)
        return self.waiter

    def reusable(self) -> bool:
        return not self.closed and self.waiter is None and self.transport is not None \
            and not self.transport.is_closing()

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def _fail(self, exc: BaseException) -> None:
        w, self.waiter = self.waiter, None
        self.close()
        if w is not None and not w.done():
            w.set_exception(exc)

    # ---- asyncio.Protocol -----------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if self.waiter is None:  # nothing was asked: a server speaking out of turn
            self.close()
            return
        self.got_any = True
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as e:
            self._fail(ConnectionError(f"HTTP protocol error: {e}"))

    def eof_received(self) -> bool:
        return False  # close our side too; connection_lost follows

    def connection_lost(self, exc: Optional[Exception]) -> None:
        self.closed = True
        if self.waiter is None or self.waiter.done():
            self.waiter = None
            return
        if not self.got_any:
            self._fail(StaleConnection())
        elif self.headers_done and not self.framed:  # a body that ends where the connection does
            self._finish(keep=False)
        else:
            self._fail(ConnectionError("server closed the connection mid-response"))

    # ---- httptools callbacks ----------------------------------------------------------------
    def on_header(self, name: bytes, value: bytes) -> None:
        n = name.lower()
        if n == b"retry-after":
            self.retry = value.decode("latin-1")
        elif n == b"content-length" or (n == b"transfer-encoding" and b"chunked" in value.lower()):
            self.framed = True

    def on_headers_complete(self) -> None:
        self.headers_done = True

    def on_body(self, body: bytes) -> None:
        self.chunks.append(body)

    def on_message_complete(self) -> None:
        self._finish(keep=self.parser.should_keep_alive())

    def _finish(self, keep: bool) -> None:
        w, self.waiter = self.waiter, None
        if not keep:
            self.close()
        if w is not None and not w.done():
            w.set_result(Reply(self.parser.get_status_code(), self.retry, b"".join(self.chunks)))


class Http1Pool:
    """Keep-alive connections to ``base_url`` (``http://host:port/prefix``), ``size`` at once."""

    def __init__(self, base_url: str, headers: list[tuple[bytes, bytes]], size: int, connect_timeout: float):
        u = urlsplit(base_url)
        self.host = u.hostname or "127.0.0.1"
        self.port = u.port or 80
        self.prefix = (u.path.rstrip("/") or "").encode()
        self.head = _header_block([(b"Host", u.netloc.encode("idna")), *headers])
        self.connect_timeout = connect_timeout
        self.idle: list[_Connection] = []
        self.sem = asyncio.Semaphore(size)

    async def _connect(self) -> _Connection:
        loop = asyncio.get_running_loop()
        _, conn = await asyncio.wait_for(
            loop.create_connection(_Connection, self.host, self.port), self.connect_timeout
        )
        return conn

    def _request(self, method: bytes, path: str, body: Optional[bytes]) -> bytes:
        line = method + b" " + self.prefix + path.encode() + b" HTTP/1.1\r\n" + self.head
        if body is None:
            return line + b"\r\n"
        return line + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body

    async def post(self, path: str, body: bytes) -> Reply:
        return await self.request(path, body)

    async def request(self, path: str, body: Optional[bytes], method: bytes = b"POST") -> Reply:
        """One exchange (a GET when ``body`` is None) on a kept-alive connection, or a new one."""
        request = self._request(method, path, body)
        async with self.sem:
            conn = None
            while self.idle:
                c = self.idle.pop()
                if c.reusable():
                    conn = c
                    break
                c.close()
            if conn is not None:
                try:
                    return await self._exchange(conn, request)
                except StaleConnection:
                    pass
            try:
                return await self._exchange(await self._connect(), request)
            except StaleConnection:
                raise ConnectionError("server closed the connection without answering") from None

    async def _exchange(self, conn: _Connection, request: bytes) -> Reply:
        try:
            reply = await conn.start(request)
        except BaseException:  # an error, or a cancellation (the Client's timeout): never reuse it
            conn.close()
            raise
        if conn.reusable():
            self.idle.append(conn)
        return reply

    async def aclose(self) -> None:
        idle, self.idle = self.idle, []
        for c in idle:
            c.close()
