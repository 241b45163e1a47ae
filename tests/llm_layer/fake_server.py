"""A scriptable OpenAI-compatible server for the LLM client's tests and benchmark.

Runs as its own process (``python tests/llm_layer/fake_server.py --port N``) so that
the client's CPU time can be measured apart from the server's. Tests script
it over HTTP:

- ``POST /_script``: ``{"faults": [...], "reply": str, "latency": s,
  "prompt_tokens": n, "completion_tokens": n, "reject_response_format": bool}``.
  Each request to /v1/* consumes the next fault, if any: ``"500"``,
  ``"429:SECONDS"`` (with Retry-After), ``"hang:SECONDS"`` (sleeps, 60 s by default),
  ``"malformed"`` (a body that is not JSON), ``"truncated"`` (reply cut in
  half), ``"wrong_schema"`` (valid JSON, wrong fields), ``"400"``, ``"404"``.
  ``omit_logprobs`` ignores requests for log-probabilities.
- ``GET /_stats``: calls, in-flight, max in-flight, the request bodies.
- ``POST /_reset``: forget scripting and counters.

The HTTP server is its own (:class:`Connection`, asyncio protocols over httptools, the parser
uvicorn uses), not uvicorn: unscripted chat calls, the benchmark's, are answered by a timer
writing prebuilt bytes, everything else by the FastAPI app. Under uvicorn (an ASGI task, a
sleep and two sends per call) a burst of 256 calls came back 8-11 ms late on average, p90
16-30 ms, measured by benchmarks/bare_client.py; that lateness is in every ratio the
benchmark reports.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import time
from collections import deque
from http import HTTPStatus
from typing import Optional
from urllib.parse import unquote

import httptools
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

DEFAULT = {
    "faults": [],
    "reply": '{"grade": 2}',
    "latency": 0.0,
    "prompt_tokens": 100,
    "completion_tokens": 10,
    "reject_response_format": False,
    "keep_bodies": True,
}


class State:
    def __init__(self) -> None:
        self.reset()

    gen = 0

    def reset(self) -> None:
        # Requests from an earlier test may still be running (hangs): they
        # belong to an older generation and no longer count as in flight.
        self.gen += 1
        self.script = dict(DEFAULT, faults=[])
        self.calls = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.bodies: list[dict] = []
        self.paths: list[str] = []
        self.fast: dict = {}  # prebuilt answers of the fast path, by (reply, prompt and completion tokens)


def create_app() -> FastAPI:
    app = FastAPI()
    st = State()

    @app.post("/_script")
    async def script(req: Request) -> dict:
        st.script.update(await req.json())
        return {"ok": True}

    @app.post("/_reset")
    async def reset() -> dict:
        st.reset()
        return {"ok": True}

    @app.get("/_stats")
    async def stats() -> dict:
        return {
            "calls": st.calls,
            "in_flight": st.in_flight,
            "max_in_flight": st.max_in_flight,
            "bodies": st.bodies,
            "paths": st.paths,
        }

    @app.get("/v1/models")
    async def models() -> dict:
        return {"object": "list", "data": [{"id": "fake", "object": "model"}]}

    async def handle(req: Request, kind: str) -> Response:
        gen = st.gen
        st.calls += 1
        st.in_flight += 1
        st.max_in_flight = max(st.max_in_flight, st.in_flight)
        try:
            body = json.loads(await req.body())
            if st.script.get("keep_bodies", True):
                st.bodies.append(body)
                st.paths.append(req.url.path)
            fault = st.script["faults"].pop(0) if st.script["faults"] else None
            if st.script["latency"]:
                await asyncio.sleep(st.script["latency"])
            if fault and fault.startswith("hang"):
                await asyncio.sleep(float(fault.split(":", 1)[1]) if ":" in fault else 60.0)
            if fault == "500":
                return JSONResponse({"error": {"message": "internal error"}}, status_code=500)
            if fault and fault.startswith("429"):
                wait = fault.split(":", 1)[1] if ":" in fault else "0"
                return JSONResponse(
                    {"error": {"message": "rate limited"}}, status_code=429, headers={"Retry-After": wait}
                )
            if fault in ("400", "404"):
                return JSONResponse({"error": {"message": f"bad request {fault}"}}, status_code=int(fault))
            if "response_format" in body and st.script["reject_response_format"]:
                return JSONResponse(
                    {"error": {"message": "response_format is not supported"}}, status_code=400
                )
            if fault == "malformed":
                return Response(b'{"choices": [ this is not json', media_type="application/json")
            if kind == "completions":
                return JSONResponse(echo_logprobs(body))
            text = st.script["reply"]
            if fault == "truncated":
                text = text[: max(1, len(text) // 2)]
            elif fault == "wrong_schema":
                text = '{"label": "yes"}'
            return JSONResponse(envelope(st.script, text, body))
        finally:
            if gen == st.gen:
                st.in_flight -= 1

    def echo_logprobs(body: dict) -> dict:
        # Words (with their leading space) are tokens; token i has logprob -(i+1)/10.
        prompt = body["prompt"]
        tokens, offsets, pos = [], [], 0
        for i, word in enumerate(prompt.split(" ")):
            tok = word if i == 0 else " " + word
            tokens.append(tok)
            offsets.append(pos)
            pos += len(tok)
        lps = [None] + [-(i + 1) / 10 for i in range(1, len(tokens))]
        tokens.append(" gen")
        offsets.append(pos)
        lps.append(-0.5)
        return {
            "id": "fake-c",
            "object": "text_completion",
            "model": body.get("model"),
            "choices": [
                {
                    "index": 0,
                    "text": prompt + " gen",
                    "finish_reason": "length",
                    "logprobs": {
                        "tokens": tokens,
                        "token_logprobs": lps,
                        "text_offset": offsets,
                        "top_logprobs": None,
                    },
                }
            ],
            "usage": {"prompt_tokens": len(tokens) - 1, "completion_tokens": 1, "total_tokens": len(tokens)},
        }

    @app.post("/v1/chat/completions")
    async def chat(req: Request) -> Response:
        return await handle(req, "chat")

    @app.post("/v1/completions")
    async def completions(req: Request) -> Response:
        return await handle(req, "completions")

    app.state.st = st
    return app


def envelope(script: dict, text: str, body: dict) -> dict:
    """A chat completion answering ``text``, with log-probabilities when ``body`` asks for them."""
    choice: dict = {
        "index": 0,
        "message": {"role": "assistant", "content": text},
        "finish_reason": "stop",
    }
    if body.get("logprobs") and not script.get("omit_logprobs"):
        n = int(body.get("top_logprobs") or 0)
        content = []
        for ch in text[:8]:
            top = [{"token": ch, "logprob": -0.1}] + [
                {"token": f"alt{k}", "logprob": -3.0 - k} for k in range(max(0, n - 1))
            ]
            content.append({"token": ch, "logprob": -0.1, "top_logprobs": top[:n]})
        choice["logprobs"] = {"content": content}
    return {
        "id": "fake-1",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model"),
        "choices": [choice],
        "usage": {
            "prompt_tokens": script["prompt_tokens"],
            "completion_tokens": script["completion_tokens"],
            "total_tokens": script["prompt_tokens"] + script["completion_tokens"],
        },
    }


def _reply_body(sc: dict) -> bytes:
    return json.dumps(envelope(sc, sc["reply"], {"model": "fake"})).encode()


class _Request:
    __slots__ = ("method", "url", "headers", "body", "keep_alive")

    def __init__(self) -> None:
        self.method, self.url, self.headers, self.body, self.keep_alive = b"", b"", [], [], True


class Connection(asyncio.Protocol):
    """One client connection: requests parsed by httptools, answered one at a time, in order.

    A plain chat call while nothing is scripted (no faults, no body capture, no
    response_format rejection) is answered by a timer that writes prebuilt bytes, with no task,
    no ASGI and no JSON: the benchmark measures the client, and a server that spends more CPU
    per call than the client, or answers a burst of calls late one after another, hides it
    (benchmarks/llm_throughput.py --judge --floor reports the lateness). Every other request
    goes to the FastAPI app through a minimal ASGI bridge (:meth:`_asgi`)."""

    def __init__(self, app: FastAPI) -> None:
        self.app, self.st = app, app.state.st
        self.loop = asyncio.get_running_loop()
        self.parser = httptools.HttpRequestParser(self)
        self.transport: Optional[asyncio.Transport] = None
        self.req = _Request()
        self.queue: deque[_Request] = deque()
        self.busy = False
        self.lost = asyncio.Event()

    # ---- asyncio.Protocol -------------------------------------------------------------------
    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            self.transport.write(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            self.transport.close()

    def connection_lost(self, exc) -> None:
        self.lost.set()
        self.queue.clear()

    # ---- httptools callbacks ------------------------------------------------------------------
    def on_message_begin(self) -> None:
        self.req = _Request()

    def on_url(self, url: bytes) -> None:
        self.req.url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        self.req.headers.append((name.lower(), value))

    def on_body(self, body: bytes) -> None:
        self.req.body.append(body)

    def on_message_complete(self) -> None:
        self.req.method = self.parser.get_method()
        self.req.keep_alive = self.parser.should_keep_alive()
        self.queue.append(self.req)
        if not self.busy:
            self._next()

    # ---- answering ------------------------------------------------------------------------------
    def _next(self) -> None:
        if not self.queue or self.transport.is_closing():
            self.busy = False
            return
        self.busy = True
        req = self.queue.popleft()
        st, sc = self.st, self.st.script
        if (
            req.method == b"POST"
            and req.url == b"/v1/chat/completions"
            and not sc["faults"]
            and not sc.get("keep_bodies", True)
            and not sc["reject_response_format"]
        ):
            st.calls += 1
            st.in_flight += 1
            st.max_in_flight = max(st.max_in_flight, st.in_flight)
            if sc["latency"]:
                self.loop.call_later(sc["latency"], self._fast, st.gen, req.keep_alive)
            else:
                self._fast(st.gen, req.keep_alive)
        else:
            self.loop.create_task(self._asgi(req))

    def _fast(self, gen: int, keep_alive: bool) -> None:
        st = self.st
        if gen == st.gen:
            st.in_flight -= 1
        sc = st.script
        key = (sc["reply"], sc["prompt_tokens"], sc["completion_tokens"])
        answer = st.fast.get(key)
        if answer is None:
            body = _reply_body(sc)
            answer = st.fast[key] = (
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(body) + body
            )
        self._write(answer, keep_alive)

    def _write(self, data: bytes, keep_alive: bool) -> None:
        if self.transport.is_closing():
            return
        self.transport.write(data)
        if keep_alive:
            self._next()
        else:
            self.transport.close()

    async def _asgi(self, req: _Request) -> None:
        """``req`` through the FastAPI app as an ASGI server would hand it over."""
        path, _, query = req.url.partition(b"?")
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": req.method.decode(),
            "scheme": "http",
            "path": unquote(path.decode("latin-1")),
            "raw_path": path,
            "query_string": query,
            "root_path": "",
            "headers": req.headers,
            "client": self.transport.get_extra_info("peername"),
            "server": self.transport.get_extra_info("sockname"),
        }
        body, status, headers, out = b"".join(req.body), 500, [], []
        given = False

        async def receive() -> dict:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            await self.lost.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            nonlocal status, headers
            if message["type"] == "http.response.start":
                status, headers = message["status"], list(message.get("headers", []))
            elif message["type"] == "http.response.body":
                out.append(message.get("body", b""))

        try:
            await self.app(scope, receive, send)
        except Exception:  # noqa: BLE001 - a test server answers 500, as uvicorn would
            status, headers, out = 500, [], [b"Internal Server Error"]
        content = b"".join(out)
        head = [b"HTTP/1.1 %d %s\r\n" % (status, HTTPStatus(status).phrase.encode())]
        head += [k + b": " + v + b"\r\n" for k, v in headers if k.lower() != b"content-length"]
        head.append(b"content-length: %d\r\n\r\n" % len(content))
        self._write(b"".join(head) + content, req.keep_alive)


async def serve(port: int, app: FastAPI) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: Connection(app), "127.0.0.1", port, backlog=2048)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    server.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--latency", type=float, default=0.0)
    args = ap.parse_args()
    app = create_app()
    app.state.st.script["latency"] = args.latency
    DEFAULT["latency"] = args.latency
    asyncio.run(serve(args.port, app))


if __name__ == "__main__":
    main()
