"""Any OpenAI-compatible server (vLLM, SGLang, llama.cpp server, Ollama, hosted APIs) over httpx.

Why not the openai package: per call it costs several times the CPU
(pydantic models per response), which matters when one process drives
hundreds of calls per second against a GPU server.

- One connection pool per endpoint, sized to the Client's concurrency,
  created lazily inside the running event loop (and re-created if a later
  ``asyncio.run`` uses a new loop). Plain-http endpoints (self-hosted
  servers) use :mod:`qrelkit.llm.http1` (httptools' parser under asyncio
  protocols; the measurements behind it are there); https endpoints and proxied networks use
  ``httpx.AsyncClient``.
- Several endpoints of one model are load-balanced: the endpoint with the
  fewest requests in flight wins, ties go round robin.
- Structured output, per the spec option ``json=``:
  ``schema`` sends ``response_format={"type": "json_schema", ...}`` (OpenAI,
  vLLM, SGLang); ``object`` sends ``{"type": "json_object", "schema": ...}``
  (llama.cpp's servers); ``prompt`` appends the schema to the last user
  message and relies on the Client's tolerant parser. A judging job's
  start-up check (:meth:`OpenAIBackend.check`) asks the way the judge will and
  falls back ``schema`` → ``object`` → ``prompt`` before the first call; other
  clients switch on the first refusal: a 400 to ``response_format`` to
  ``prompt``, a 500 naming ``json_schema`` (llama-cpp-python's server) to
  ``object``, and remember it.
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
import logging
import os
import sys
from dataclasses import dataclass
from typing import Any, Optional, Sequence
from urllib.parse import urlsplit

import msgspec

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
from qrelkit.llm.http1 import Http1Pool, Reply

RETRYABLE_STATUS = frozenset({408, 409, 429})
# What a failed exchange raises; httpx's own classes join when an httpx pool is made (httpx is
# imported only then: a third of a judging command's imports, for plain-http servers it never serves)
_TIMEOUTS: tuple[type[BaseException], ...] = (asyncio.TimeoutError,)
_TRANSPORT: tuple[type[BaseException], ...] = (OSError, EOFError)
# msgspec, not json, for the request body and the reply: ~1.5 us against ~28 us to encode a judge's
# prompt (json escapes every non-ASCII character), ~0.8 against ~4 to decode a reply; the body's
# bytes are the server's to read, not a cache key (the key stays json: qrelkit.llm.cache).
_ENCODE = msgspec.json.Encoder().encode
_DECODE = msgspec.json.Decoder().decode
PROMPT_SCHEMA_INSTRUCTION = "\n\nAnswer with only a JSON object that matches this JSON schema:\n"
JSON_FALLBACKS = ("schema", "object", "prompt")  # the next way to ask for JSON when a server refuses one
# The start-up check's request: small, but structured the way a judge's are (a grade and a bounded reason)
PROBE_SCHEMA = {"type": "object", "properties": {"grade": {"type": "integer", "enum": [0, 1, 2, 3]},
                                                 "reason": {"type": "string", "maxLength": 40}},
                "required": ["grade", "reason"]}
PROBE_MESSAGES = (Message("user", 'Reply with JSON: {"grade": 1, "reason": "ok"}'),)
PROBE_TOKENS = 1  # the server refuses a response_format before generating; each token under a grammar
# took llama-cpp-python's server ~0.6 s on the loaded 2-core machine (12 tokens: 7.5 s, 1: 0.5 s)
log = logging.getLogger(__name__)


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

    async def post(self, path: str, body: bytes) -> Reply:
        resp = await self.client.post(path, content=body)
        return Reply(resp.status_code, resp.headers.get("retry-after"), resp.content)

    async def aclose(self) -> None:
        await self.client.aclose()


def _use_plain_pool(url: str) -> bool:
    u = urlsplit(url)
    if u.scheme != "http":
        return False
    # getproxies() reads only the environment except on macOS and Windows (system settings)
    if sys.platform != "darwin" and os.name != "nt" and not any(n.lower().endswith("_proxy") for n in os.environ):
        return True  # no proxy is set
    import urllib.request  # only here: it and http.client are ~8 ms of every command's start-up

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


def _decode_reply(content: bytes) -> Any:
    """A reply's JSON; what strict JSON refuses but Python's json reads (``-Infinity``, ``NaN``: a
    Python server's log-probabilities) is read by json, as before."""
    try:
        return _DECODE(content)
    except msgspec.DecodeError:
        return json.loads(content)


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
        """Can every endpoint serve this model, asked for JSON as the judge will ask?
        (:func:`qrelkit.llm.availability.check_openai_endpoint`). A server that refuses the spec's
        ``json=`` mode gets the next one (``schema`` → ``object`` → ``prompt``) for the whole job,
        said once on stderr."""
        from qrelkit.llm.availability import check_openai_endpoint

        headers = {k.decode(): v.decode() for k, v in self._headers}
        for ep in self.endpoints:
            modes = JSON_FALLBACKS[JSON_FALLBACKS.index(self.json_mode):]
            probes = tuple((m, self._payload(PROBE_MESSAGES, PROBE_SCHEMA, PROBE_TOKENS, 0.0, 0, None, m))
                           for m in modes)
            mode = await check_openai_endpoint(ep.url, self.model, headers, trust_env=not _use_plain_pool(ep.url),
                                               key_set=self._key_set, connect_timeout=self._connect_timeout,
                                               probes=probes)
            if mode is not None and mode != self.json_mode:
                log.warning("%s at %s refuses json=%s; asking with json=%s for this job (add ?json=%s to "
                            "the model spec to say so)", self.model_id, ep.url, self.json_mode, mode, mode)
                self.json_mode = mode

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
            kind = Http1Pool if _use_plain_pool(ep.url) else _HttpxPool
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
                reply = await pool.post(path, _ENCODE(payload))
            except _TIMEOUTS as e:
                raise CallFailed(f"timeout talking to {ep.url}: {type(e).__name__}", unanswered=True) from None
            except _TRANSPORT as e:
                raise CallFailed(f"cannot reach {ep.url}: {type(e).__name__}: {e}", unanswered=True) from None
        finally:
            ep.in_flight -= 1
        status = reply.status
        if status == 200:
            try:
                return _decode_reply(reply.content)
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
            fallback = self._fallback(e, payload)
            if fallback is None:
                raise
            # Perhaps the server does not do this structured output: try the
            # fallback. Only if that request is not refused the same way was the
            # refusal about response_format (and not, say, the context length);
            # then the fallback is kept for the rest of the run.
            payload = self._payload(messages, schema, max_tokens, temperature, top_logprobs, stop, fallback)
            try:
                data = await self._post("/chat/completions", payload)
            except CallFailed as e2:
                if e2.status == e.status:
                    raise e from None
                self.json_mode = fallback
                raise
            self.json_mode = fallback
        return self._parse_chat(data)

    def _fallback(self, refused: CallFailed, payload: dict) -> Optional[str]:
        """The JSON mode to try after ``refused``: a 400 to any ``response_format`` → the prompt;
        a 500 or 422 that names ``json_schema`` (llama-cpp-python's server) → ``json_object``. A
        judging job learns this before its first call (:meth:`check`); other clients here."""
        if "response_format" not in payload:
            return None
        if refused.status == 400:
            return "prompt"
        if refused.status in (422, 500) and self.json_mode == "schema" and "json_schema" in str(refused):
            return "object"
        return None

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
