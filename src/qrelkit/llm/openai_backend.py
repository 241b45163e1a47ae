"""Any OpenAI-compatible server (vLLM, SGLang, llama.cpp server, Ollama, hosted APIs) over httpx.

Why not the openai package: per call it costs several times the CPU
(pydantic models per response), which matters when one process drives
hundreds of calls per second against a GPU server.

- One connection pool per endpoint, sized to the Client's concurrency,
  created lazily inside the running event loop (and re-created if a later
  ``asyncio.run`` uses a new loop). Plain-http endpoints (self-hosted
  servers) use h11 over asyncio streams (see ``_H11Pool`` for the
  measurements behind this); https endpoints and proxied networks use
  ``httpx.AsyncClient``.
- Several endpoints of one model are load-balanced: the endpoint with the
  fewest requests in flight wins, ties go round robin.
- Structured output, per the spec option ``json=``:
  ``schema`` sends ``response_format={"type": "json_schema", ...}`` (OpenAI,
  vLLM, SGLang); ``object`` sends ``{"type": "json_object", "schema": ...}``
  (llama.cpp's servers); ``prompt`` appends the schema to the last user
  message and relies on the Client's tolerant parser. A server that answers
  400 to ``response_format`` is switched to ``prompt`` once, and remembered.
- ``score`` needs prompt log-probabilities, which only some servers give
  (vLLM's ``/v1/completions`` with ``echo``); it is offered only when the
  spec says ``score=echo``. One token is generated (``max_tokens=1``, as
  ``0`` means "unlimited" to some servers) and dropped by its text offset.
  The prompt is tokenized as one string, so a token straddling the
  prefix/continuation boundary counts towards the continuation.
- Failures become ``CallFailed``: 408/409/429/5xx, timeouts and connection
  errors are retryable (with the server's ``Retry-After``), other 4xx are
  not — the Client decides what to do with them. Timeouts and connection
  errors are marked ``unanswered``; ``check`` is the endpoint check a judging
  job makes before its first call (:mod:`qrelkit.llm.availability`).
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from dataclasses import dataclass
from typing import Any, NamedTuple, Optional, Sequence
from urllib.parse import urlsplit

import h11

from qrelkit.llm.base import (
    CHAT,
    JSON_SCHEMA,
    SCORE,
    TOP_LOGPROBS,
    CallFailed,
    Completion,
    Message,
    ScoreResult,
    TokenLogprob,
)

RETRYABLE_STATUS = frozenset({408, 409, 429})
# What a failed exchange raises; httpx's own classes join when an httpx pool is made (httpx is
# imported only then: a third of a judging command's imports, for plain-http servers it never serves)
_TIMEOUTS: tuple[type[BaseException], ...] = (asyncio.TimeoutError,)
_TRANSPORT: tuple[type[BaseException], ...] = (OSError, EOFError)
PROMPT_SCHEMA_INSTRUCTION = "\n\nAnswer with only a JSON object that matches this JSON schema:\n"


class _Reply(NamedTuple):
    status: int
    retry_after: Optional[str]
    content: bytes


class _H11Conn:
    __slots__ = ("reader", "writer", "h11")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer
        self.h11 = h11.Connection(h11.CLIENT)

    def reusable(self) -> bool:
        return (
            self.h11.our_state is h11.IDLE
            and self.h11.their_state is h11.IDLE
            and not self.writer.is_closing()
            and not self.reader.at_eof()
        )

    def close(self) -> None:
        self.writer.close()


class _StaleConnection(Exception):
    """A kept-alive connection the server had already closed; safe to resend on a new one."""


class _H11Pool:
    """Keep-alive HTTP/1.1 connections to one plain-http origin: h11 over asyncio streams.

    Why not httpx.AsyncClient for these: measured on a 2-core machine
    against a loopback server, its pool (httpcore's) rescans every connection
    and waiting request on each event, costing ~12 ms of client CPU per call
    at 64 calls in flight; one httpx call alone costs ~0.9 ms and one
    httpcore connection ~0.5 ms (anyio layers, a socket write per part).
    h11 still does the protocol; asyncio streams and one write per request
    bring it to ~0.15 ms, which keeps a single process able to saturate a
    GPU server. Connections are reused last-in first-out; any error or
    cancellation (the Client's timeout) closes the connection in use.

    Why not aiohttp, the library built for this (benchmarks/http_pool.py, same
    prebuilt POST to the loopback fake server at 0.2 s latency, pools
    alternated in one run on the shared 2-core machine):

    ========= ============= ============== =========================
    in flight pool          share of ideal client CPU per call (ms)
    ========= ============= ============== =========================
    64        h11 (this)    0.86           0.107
    64        aiohttp 3.14  0.77           0.167
    256       h11 (this)    0.62           0.100
    256       aiohttp 3.14  0.49           0.133
    ========= ============= ============== =========================

    aiohttp is measurably worse at both loads (a third to a half more CPU
    per call, a tenth to a fifth fewer calls per second), so this stays.
    """

    def __init__(self, base_url: str, headers: list[tuple[bytes, bytes]], size: int, connect_timeout: float):
        u = urlsplit(base_url)
        self.host = u.hostname or "127.0.0.1"
        self.port = u.port or 80
        self.prefix = (u.path.rstrip("/") or "").encode()
        self.headers = [(b"Host", u.netloc.encode("idna")), *headers]
        self.connect_timeout = connect_timeout
        self.idle: list[_H11Conn] = []
        self.sem = asyncio.Semaphore(size)

    async def _connect(self) -> _H11Conn:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(self.host, self.port), self.connect_timeout
        )
        return _H11Conn(reader, writer)

    async def post(self, path: str, body: bytes) -> _Reply:
        return await self.request(path, body)

    async def request(self, path: str, body: Optional[bytes], method: bytes = b"POST") -> _Reply:
        """One exchange (a GET when ``body`` is None) on a kept-alive connection, or a new one."""
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
                    return await self._exchange(conn, path, body, method)
                except _StaleConnection:
                    pass
            try:
                return await self._exchange(await self._connect(), path, body, method)
            except _StaleConnection:
                raise ConnectionError("server closed the connection without answering") from None

    async def _exchange(self, conn: _H11Conn, path: str, body: Optional[bytes], method: bytes = b"POST") -> _Reply:
        h = conn.h11
        done = False
        try:
            if body is None:
                req = h11.Request(method=method, target=self.prefix + path.encode(), headers=self.headers)
                conn.writer.write(h.send(req) + h.send(h11.EndOfMessage()))
            else:
                req = h11.Request(
                    method=method,
                    target=self.prefix + path.encode(),
                    headers=[*self.headers, (b"Content-Length", str(len(body)).encode())],
                )
                conn.writer.write(h.send(req) + h.send(h11.Data(data=body)) + h.send(h11.EndOfMessage()))
            status, retry, chunks, got_any = 0, None, [], False
            while True:
                ev = h.next_event()
                if ev is h11.NEED_DATA:
                    data = await conn.reader.read(65536)
                    if not data and not got_any:
                        raise _StaleConnection()
                    got_any = True
                    h.receive_data(data)
                elif isinstance(ev, h11.Response):
                    status = ev.status_code
                    for k, v in ev.headers:
                        if k == b"retry-after":
                            retry = v.decode("latin-1")
                elif isinstance(ev, h11.Data):
                    chunks.append(ev.data)
                elif isinstance(ev, h11.EndOfMessage):
                    break
                elif isinstance(ev, h11.ConnectionClosed):
                    raise ConnectionError("server closed the connection mid-response")
            if h.our_state is h11.DONE and h.their_state is h11.DONE:
                h.start_next_cycle()
                self.idle.append(conn)
                done = True
            return _Reply(status, retry, b"".join(chunks))
        except h11.ProtocolError as e:
            raise ConnectionError(f"HTTP protocol error: {e}") from None
        finally:
            if not done:
                conn.close()

    async def aclose(self) -> None:
        idle, self.idle = self.idle, []
        for c in idle:
            c.close()


class _HttpxPool:
    """httpx for TLS endpoints and proxied networks (it honours the proxy environment).

    Hosted APIs take seconds per call, so the client's CPU cost is noise there.
    """

    def __init__(self, base_url: str, headers: list[tuple[bytes, bytes]], size: int, connect_timeout: float):
        global _TIMEOUTS, _TRANSPORT
        import httpx

        _TIMEOUTS = (asyncio.TimeoutError, httpx.TimeoutException)
        _TRANSPORT = (httpx.TransportError, OSError, EOFError)
        limits = httpx.Limits(max_connections=size, max_keepalive_connections=size)
        self.client = httpx.AsyncClient(
            base_url=base_url,
            headers=[(k.decode(), v.decode()) for k, v in headers],
            timeout=httpx.Timeout(None, connect=connect_timeout),
            limits=limits,
        )

    async def post(self, path: str, body: bytes) -> _Reply:
        resp = await self.client.post(path, content=body)
        return _Reply(resp.status_code, resp.headers.get("retry-after"), resp.content)

    async def aclose(self) -> None:
        await self.client.aclose()


def _use_h11_pool(url: str) -> bool:
    u = urlsplit(url)
    if u.scheme != "http":
        return False
    proxies = urllib.request.getproxies()
    if ("http" in proxies or "all" in proxies) and not urllib.request.proxy_bypass(u.hostname or ""):
        return False
    return True


@dataclass
class _Endpoint:
    url: str
    in_flight: int = 0
    requests: int = 0
    pool: Any = None
    loop: Any = None


def _retry_after(value: Optional[str]) -> Optional[float]:
    from qrelkit.llm.client import parse_retry_after

    return parse_retry_after(value)


def _error_message(content: bytes) -> str:
    try:
        body = json.loads(content)
        err = body.get("error", body) if isinstance(body, dict) else body
        msg = err.get("message") if isinstance(err, dict) else None
        if msg is None and isinstance(body, dict):
            msg = body.get("detail")
        text = str(msg if msg is not None else err)
    except ValueError:
        text = content.decode("utf-8", errors="replace")
    text = " ".join(text.split())
    return text[:300]


@dataclass(frozen=True)
class OpenAISettings:
    """How an OpenAI-compatible endpoint is spoken to (the keywords of :class:`OpenAIBackend`)."""

    api_key: str = "EMPTY"
    json_mode: str = "schema"
    score: bool = False
    top_logprobs: bool = True
    concurrency: int = 8
    body: Optional[dict] = None
    connect_timeout: float = 10.0


_LENGTHS = frozenset({"maxLength", "minLength"})


def grammar_schema(schema: Any) -> Any:
    """``schema`` without string length bounds, for servers that compile it into a grammar.

    llama.cpp turns ``maxLength: 300`` into 300 nested optional rules; llama-cpp-python's server
    (0.3.x) then fails to parse its own grammar and the process dies, taking every later call with
    it (found running `fill` against ``python -m llama_cpp.server`` with the debate's schema). The
    Client still checks the reply against the full schema."""
    if isinstance(schema, dict):
        return {k: grammar_schema(v) for k, v in schema.items() if k not in _LENGTHS}
    if isinstance(schema, list):
        return [grammar_schema(v) for v in schema]
    return schema


class OpenAIBackend:
    def __init__(
        self,
        model: str,
        urls: Sequence[str],
        settings: "Optional[OpenAISettings]" = None,
        **given: Any,
    ):
        s = settings if settings is not None else OpenAISettings(**given)
        api_key, json_mode, score = s.api_key, s.json_mode, s.score
        top_logprobs, concurrency, body = s.top_logprobs, s.concurrency, s.body
        connect_timeout = s.connect_timeout
        if not urls:
            raise ValueError("at least one endpoint URL is needed")
        self.model = model
        self.model_id = f"openai:{model}"
        caps = {CHAT, JSON_SCHEMA}
        if top_logprobs:
            caps.add(TOP_LOGPROBS)
        if score:
            caps.add(SCORE)
        self.capabilities = frozenset(caps)
        self.json_mode = json_mode
        self.endpoints = [_Endpoint(u.rstrip("/")) for u in urls]
        self.concurrency = max(1, int(concurrency))
        self.body = dict(body or {})
        # Extra body fields change answers, so they enter the cache key (URLs do not).
        self.cache_extra = dict(self.body)
        self._headers = [
            (b"Authorization", f"Bearer {api_key}".encode()),
            (b"Content-Type", b"application/json"),
            (b"Accept", b"application/json"),
        ]
        self._connect_timeout = connect_timeout
        self._rr = 0
        self._key_set = api_key != "EMPTY"

    async def check(self) -> None:
        """Can every endpoint serve this model? (:func:`qrelkit.llm.availability.check_openai_endpoint`)"""
        from qrelkit.llm.availability import check_openai_endpoint

        headers = {k.decode(): v.decode() for k, v in self._headers}
        for ep in self.endpoints:
            await check_openai_endpoint(ep.url, self.model, headers, trust_env=not _use_h11_pool(ep.url),
                                        key_set=self._key_set, connect_timeout=self._connect_timeout)

    # ---- endpoints -----------------------------------------------------------
    def _pick(self) -> _Endpoint:
        eps = self.endpoints
        n = len(eps)
        if n == 1:
            return eps[0]
        best, best_i = None, 0
        for k in range(n):
            i = (self._rr + k) % n
            if best is None or eps[i].in_flight < best.in_flight:
                best, best_i = eps[i], i
        self._rr = (best_i + 1) % n
        return best  # type: ignore[return-value]

    def _pool(self, ep: _Endpoint) -> Any:
        loop = asyncio.get_running_loop()
        if ep.pool is None or ep.loop is not loop:
            kind = _H11Pool if _use_h11_pool(ep.url) else _HttpxPool
            ep.pool = kind(ep.url, self._headers, self.concurrency, self._connect_timeout)
            ep.loop = loop
        return ep.pool

    async def _post(self, path: str, payload: dict) -> Any:
        ep = self._pick()
        ep.in_flight += 1
        ep.requests += 1
        try:
            pool = self._pool(ep)
            try:
                reply = await pool.post(path, json.dumps(payload).encode())
            except _TIMEOUTS as e:
                raise CallFailed(f"timeout talking to {ep.url}: {type(e).__name__}", unanswered=True) from None
            except _TRANSPORT as e:
                raise CallFailed(f"cannot reach {ep.url}: {type(e).__name__}: {e}", unanswered=True) from None
        finally:
            ep.in_flight -= 1
        status = reply.status
        if status == 200:
            try:
                return json.loads(reply.content)
            except ValueError:
                raise CallFailed(f"malformed response from {ep.url}: not JSON") from None
        msg = f"HTTP {status} from {ep.url}: {_error_message(reply.content)}"
        if status in RETRYABLE_STATUS or status >= 500:
            raise CallFailed(msg, retry_after=_retry_after(reply.retry_after), status=status)
        raise CallFailed(msg, retryable=False, status=status)

    # ---- chat ----------------------------------------------------------------
    def _payload(
        self,
        messages: Sequence[Message],
        schema: Optional[dict],
        max_tokens: int,
        temperature: float,
        top_logprobs: int,
        stop: Optional[Sequence[str]],
        mode: str,
    ) -> dict:
        msgs = [{"role": m.role, "content": m.content} for m in messages]
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": msgs,
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if stop:
            payload["stop"] = list(stop)
        if top_logprobs:
            payload["logprobs"] = True
            payload["top_logprobs"] = top_logprobs
        if schema is not None:
            if mode == "schema":
                payload["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "answer", "schema": schema},
                }
            elif mode == "object":
                payload["response_format"] = {"type": "json_object", "schema": grammar_schema(schema)}
            else:
                instruction = PROMPT_SCHEMA_INSTRUCTION + json.dumps(schema)
                for i in range(len(msgs) - 1, -1, -1):
                    if msgs[i]["role"] == "user":
                        msgs[i] = {"role": "user", "content": msgs[i]["content"] + instruction}
                        break
                else:
                    msgs.append({"role": "user", "content": instruction.strip()})
        payload.update(self.body)
        return payload

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: Optional[dict] = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        top_logprobs: int = 0,
        stop: Optional[Sequence[str]] = None,
    ) -> Completion:
        mode = self.json_mode
        payload = self._payload(messages, schema, max_tokens, temperature, top_logprobs, stop, mode)
        try:
            data = await self._post("/chat/completions", payload)
        except CallFailed as e:
            if not (e.status == 400 and "response_format" in payload):
                raise
            # Perhaps the server does not do structured output: try the prompt
            # instead. Only if that request is not refused too was the 400
            # about response_format (and not, say, the context length); then
            # the prompt mode is kept for the rest of the run.
            payload = self._payload(messages, schema, max_tokens, temperature, top_logprobs, stop, "prompt")
            try:
                data = await self._post("/chat/completions", payload)
            except CallFailed as e2:
                if e2.status == 400:
                    raise e from None
                self.json_mode = "prompt"
                raise
            self.json_mode = "prompt"
        return self._parse_chat(data)

    def _parse_chat(self, data: Any) -> Completion:
        try:
            choice = data["choices"][0]
            text = choice["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise CallFailed(f"malformed response: no choices[0].message in {str(data)[:200]}") from None
        usage = data.get("usage") or {}
        lps: list[TokenLogprob] = []
        content = ((choice.get("logprobs") or {}).get("content")) or ()
        for item in content:
            top = tuple(
                (t.get("token", ""), float(t.get("logprob", 0.0))) for t in item.get("top_logprobs") or ()
            )
            lps.append(TokenLogprob(item.get("token", ""), float(item.get("logprob", 0.0)), top))
        return Completion(
            text=text,
            logprobs=tuple(lps),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            model=self.model_id,
        )

    # ---- score ---------------------------------------------------------------
    async def score(self, prefix: str, continuation: str) -> ScoreResult:
        if SCORE not in self.capabilities:
            raise CallFailed(
                f"{self.model_id}: score is not enabled (spec option ?score=echo)", retryable=False
            )
        full = prefix + continuation
        payload = {
            "model": self.model,
            "prompt": full,
            "echo": True,
            "logprobs": 0,
            "max_tokens": 1,
            "temperature": 0.0,
            **self.body,
        }
        data = await self._post("/completions", payload)
        try:
            lp = data["choices"][0]["logprobs"]
            tokens, token_lps, offsets = lp["tokens"], lp["token_logprobs"], lp["text_offset"]
        except (KeyError, IndexError, TypeError):
            raise CallFailed(f"malformed score response (no echoed logprobs): {str(data)[:200]}") from None
        picked: list[float] = []
        for tok, lpv, off in zip(tokens, token_lps, offsets, strict=False):
            end = off + len(tok)
            if off >= len(full):
                break  # the generated token
            if end > len(prefix) and lpv is not None:
                picked.append(float(lpv))
        usage = data.get("usage") or {}
        return ScoreResult(
            logprob=float(sum(picked)),
            tokens=len(picked),
            token_logprobs=tuple(picked),
            prompt_tokens=int(usage.get("prompt_tokens") or len(tokens)),
            model=self.model_id,
        )

    async def aclose(self) -> None:
        for ep in self.endpoints:
            if ep.pool is not None:
                if ep.loop is asyncio.get_running_loop():
                    await ep.pool.aclose()
                ep.pool = None  # a pool of a finished event loop cannot be closed from here
