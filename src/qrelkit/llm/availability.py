"""Whether a model server can be used at all: the check before the first call, and giving up on a dead one.

Why: judging against a URL where nothing listens (or one without ``/v1``, or a
refused key) used to store every case as an error escalation and tell the user
that people were waiting, with the cause visible only in ``qrelkit escalations``.
People cannot fix a dead server. So a judging job's client (``fail_fast``,
:class:`qrelkit.llm.client.Client`) checks the endpoint before its first real
call and stops with :class:`qrelkit.errors.ModelUnavailable` (exit 3) and what
to fix; a call the server did not answer (connection refused, timeout, 502/503/504)
marks the case it was made for (:func:`case_calls`), so the runner leaves the case
to the next run instead of storing an error, and so does a call the server answered with an
HTTP error after its retries (a refused ``response_format``, a model it does not have: the
server's or the configuration's fault, never people's work); ``GIVE_UP_AFTER`` such calls in a
row stop the job the same way (finished work is kept; the same command continues).

The check (:func:`check_openai_endpoint`) costs one ``GET /models`` and one short chat
completion that asks for JSON the way the judge will (``response_format`` of the spec's
``json=`` mode). A model the list does not name is refused with the names it does list
(llama.cpp's server answers any name with its one model, so provenance would record a model
that never ran; Ollama's ``name:latest`` is taken for ``name``). A server that refuses
``json_schema`` (llama-cpp-python's answers HTTP 500) is asked with ``json_object`` and then with
the schema in the prompt; the first it answers is used for the whole job, said once on stderr,
instead of failing every case (:meth:`qrelkit.llm.openai_backend.OpenAIBackend.check`).
"""
from __future__ import annotations

import asyncio
import json
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Iterator, Optional

from qrelkit.errors import ModelUnavailable

GIVE_UP_AFTER = 20  # calls in a row the server did not answer, each after its retries
UNANSWERED_STATUS = frozenset({502, 503, 504})  # a proxy or server saying nothing is behind it
CHECK_TIMEOUT = 60.0  # one token; a busy server may queue it behind others


@dataclass
class CaseCalls:
    """What the calls made for one case met: ``unanswered`` when one got no answer from the server."""

    unanswered: bool = False


_CASE: ContextVar[Optional[CaseCalls]] = ContextVar("qrelkit_case_calls", default=None)


@contextmanager
def case_calls() -> Iterator[CaseCalls]:
    """Around judging one case: the calls made inside (child tasks too) report to the value yielded."""
    calls = CaseCalls()
    token = _CASE.set(calls)
    try:
        yield calls
    finally:
        _CASE.reset(token)


class Availability:
    """A client's view of its server: checked once before the first call, given up after
    ``limit`` unanswered calls in a row (any answered call resets the count)."""

    def __init__(self, limit: int = GIVE_UP_AFTER):
        self.limit = limit
        self.in_a_row = 0
        self.checked = False
        self.gave_up: Optional[ModelUnavailable] = None
        self._checking: Optional[asyncio.Future] = None

    async def before_call(self, backend: Any) -> None:
        if self.gave_up is not None:
            raise self.gave_up
        if self.checked:
            return
        check = getattr(backend, "check", None)  # optional, like max_concurrency (llm.base.Backend)
        if check is None:
            self.checked = True
            return
        loop = asyncio.get_running_loop()
        if self._checking is None or self._checking.get_loop() is not loop:
            self._checking = asyncio.ensure_future(check())
        await asyncio.shield(self._checking)  # one check for every call waiting on it
        self.checked = True

    def answered(self) -> None:
        self.in_a_row = 0

    def unanswered(self, model_id: str, error: str, refused: bool = False) -> None:
        """One more call in a row the server did not answer (``refused``: answered with an HTTP error)."""
        self.in_a_row += 1
        if self.in_a_row >= self.limit and self.gave_up is None:
            what, fix = (("were refused by the server", "fix the server or the model spec") if refused else
                         ("got no answer", "the server stopped answering. Finished work is saved: start the "
                          "server again"))
            self.gave_up = ModelUnavailable(f"{model_id}: {self.in_a_row} calls in a row {what} (last: {error}); "
                                            f"{fix} and run the same command to continue")
        if self.gave_up is not None:
            raise self.gave_up


def mark_unanswered() -> None:
    """Tell the case being judged (if any) that one of its calls got no answer."""
    calls = _CASE.get()
    if calls is not None:
        calls.unanswered = True


# ---- the OpenAI-compatible check ------------------------------------------------------------
@dataclass(frozen=True)
class _Answer:
    """A reply of the check: what it reads of httpx's response, from either transport."""

    status_code: int
    content: bytes

    def json(self) -> Any:
        return json.loads(self.content)


def _served(resp: Any) -> Optional[list[str]]:
    try:
        data = resp.json().get("data")
        return [str(m["id"]) for m in data if isinstance(m, dict) and "id" in m]
    except (ValueError, AttributeError, TypeError, KeyError):
        return None


def _message(resp: Any) -> str:
    from qrelkit.llm.openai_backend import _error_message

    return _error_message(resp.content)


def _refuse_key(resp: Any, where: str, key_set: bool) -> None:
    if resp.status_code in (401, 403):
        fix = "set QRELKIT_API_KEY to a key it accepts" if key_set else "set QRELKIT_API_KEY"
        raise ModelUnavailable(f"{resp.status_code} at {where} — {fix} (server said: {_message(resp)})")


class _Plain:
    """The check over the backend's own plain-http transport (plain http, no proxy): no httpx client
    (its import and TLS context were a tenth of a judging command's start-up)."""

    def __init__(self, url: str, headers: dict[str, str], connect_timeout: float):
        from qrelkit.llm.http1 import Http1Pool

        self.url = url
        self.pool = Http1Pool(url, [(k.encode(), v.encode()) for k, v in headers.items()], 1, connect_timeout)

    async def send(self, where: str, body: Optional[bytes]) -> _Answer:
        path = where[len(self.url):]
        reply = await asyncio.wait_for(self.pool.request(path, body, b"GET" if body is None else b"POST"),
                                       CHECK_TIMEOUT)
        return _Answer(reply.status, reply.content)

    async def aclose(self) -> None:
        await self.pool.aclose()


class _Proxied:
    """The check over httpx (https endpoints, proxied networks: it honours the proxy environment)."""

    def __init__(self, headers: dict[str, str], trust_env: bool, connect_timeout: float):
        import httpx

        timeout = httpx.Timeout(CHECK_TIMEOUT, connect=connect_timeout)
        self.http = httpx.AsyncClient(headers=headers, timeout=timeout, trust_env=trust_env)

    async def send(self, where: str, body: Optional[bytes]) -> Any:
        return await (self.http.get(where) if body is None else self.http.post(where, content=body))

    async def aclose(self) -> None:
        await self.http.aclose()


async def _send(transport: Any, where: str, base: str, body: Optional[dict] = None, slow_ok: bool = False) -> Any:
    """The reply, or :class:`ModelUnavailable` when nothing answers; ``slow_ok``: None on a timeout
    (a server that listed its models is running; a chat completion may queue behind others' work)."""
    timeouts, failures = (asyncio.TimeoutError,), (OSError, EOFError)
    if isinstance(transport, _Proxied):
        import httpx

        timeouts, failures = (*timeouts, httpx.TimeoutException), (*failures, httpx.TransportError)
    try:
        return await transport.send(where, None if body is None else json.dumps(body).encode())
    except timeouts:
        if slow_ok:
            return None
        raise ModelUnavailable(f"no answer from {base} within {CHECK_TIMEOUT:g} s — is the server running "
                               "and not overloaded?") from None
    except failures as e:
        raise ModelUnavailable(f"nothing answers at {base} — is the server running? "
                               f"({type(e).__name__}: {e})") from None


Probe = tuple[str, dict]  # a way of asking for JSON (a ``json=`` mode) and the request that asks so


async def check_openai_endpoint(url: str, model: str, headers: dict[str, str], trust_env: bool,
                                key_set: bool, connect_timeout: float = 10.0,
                                probes: tuple[Probe, ...] = ()) -> Optional[str]:
    """Raise :class:`ModelUnavailable` saying what to fix when ``url`` cannot serve ``model``:
    nothing listening, a refused key, no OpenAI API there (404: the URL lacks ``/v1``), a model
    the server does not list, or a server that refuses every way of asking for JSON.

    ``probes``: the structured output the judge will use, then the fallbacks, as requests; the
    first the server answers is the mode returned (the caller keeps it for the whole job). A 502,
    503 or 504 (a server still loading) is left to the run's own calls: None.
    ``trust_env`` (https, or a proxy to go through) sends it with httpx, else over :mod:`qrelkit.llm.http1`."""
    transport = (_Proxied(headers, trust_env, connect_timeout) if trust_env
                 else _Plain(url, headers, connect_timeout))
    try:
        return await _check(transport, url, model, key_set, probes or (("", _ping(model)),))
    finally:
        await transport.aclose()


def _ping(model: str) -> dict:
    return {"model": model, "messages": [{"role": "user", "content": "Say OK."}], "max_tokens": 1,
            "temperature": 0.0}


def _listed(model: str, served: list[str]) -> bool:
    """Is ``model`` one of the ids a server lists? Ollama lists ``name:latest`` and serves ``name``."""
    return model in served or f"{model}:latest" in served


async def _check(transport: Any, url: str, model: str, key_set: bool, probes: tuple[Probe, ...]) -> Optional[str]:
    r = await _send(transport, url + "/models", url)
    _refuse_key(r, url + "/models", key_set)
    served = _served(r) if r.status_code == 200 else None
    if served and not _listed(model, served):  # llama.cpp answers any name with its one model
        raise ModelUnavailable(f"model '{model}' is not served at {url}; it serves: {', '.join(served)}")
    chat = url + "/chat/completions"
    refused: list[str] = []
    for mode, payload in probes:
        r = await _send(transport, chat, url, payload, slow_ok=served is not None)
        if r is None:
            return None  # slow but running: the run's calls find out how to ask (OpenAIBackend.complete)
        _refuse_key(r, chat, key_set)
        if r.status_code == 200:
            return mode or None
        if r.status_code in UNANSWERED_STATUS:
            return None  # loading or overloaded: the run's calls retry
        if r.status_code == 404 and not served:
            raise ModelUnavailable(f"404 at {chat} — does the URL end in /v1? (server said: {_message(r)})")
        refused.append(f"json={mode}: HTTP {r.status_code}: {_message(r)}" if mode else
                       f"HTTP {r.status_code}: {_message(r)}")
    raise ModelUnavailable(f"{chat} refuses the judge's requests for model '{model}' ({'; '.join(refused)})")
