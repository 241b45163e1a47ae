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
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

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

    def envelope(text: str, body: dict) -> dict:
        choice: dict = {
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "finish_reason": "stop",
        }
        if body.get("logprobs") and not st.script.get("omit_logprobs"):
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
                "prompt_tokens": st.script["prompt_tokens"],
                "completion_tokens": st.script["completion_tokens"],
                "total_tokens": st.script["prompt_tokens"] + st.script["completion_tokens"],
            },
        }

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
            return JSONResponse(envelope(text, body))
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


def lean(app: FastAPI):
    """Answer plain chat calls without FastAPI's routing and request objects.

    The benchmark measures the client; a server spending more CPU per call
    than the client would hide it. Only used when nothing is scripted
    (no faults, no body capture, no response_format rejection).
    """
    st: State = app.state.st
    cache: dict = {}

    async def asgi(scope, receive, send):
        sc = st.script
        if (
            scope["type"] != "http"
            or scope["path"] != "/v1/chat/completions"
            or sc["faults"]
            or sc.get("keep_bodies", True)
            or sc["reject_response_format"]
        ):
            return await app(scope, receive, send)
        gen = st.gen
        st.calls += 1
        st.in_flight += 1
        st.max_in_flight = max(st.max_in_flight, st.in_flight)
        try:
            more = True
            while more:
                msg = await receive()
                more = msg.get("more_body", False)
            if sc["latency"]:
                await asyncio.sleep(sc["latency"])
            key = (sc["reply"], sc["prompt_tokens"], sc["completion_tokens"])
            body = cache.get(key)
            if body is None:
                body = cache[key] = json.dumps(
                    {
                        "id": "fake-1",
                        "object": "chat.completion",
                        "model": "fake",
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": sc["reply"]},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {
                            "prompt_tokens": sc["prompt_tokens"],
                            "completion_tokens": sc["completion_tokens"],
                            "total_tokens": sc["prompt_tokens"] + sc["completion_tokens"],
                        },
                    }
                ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
        finally:
            if gen == st.gen:
                st.in_flight -= 1

    return asgi


def main() -> None:
    import uvicorn

    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--latency", type=float, default=0.0)
    args = ap.parse_args()
    app = create_app()
    app.state.st.script["latency"] = args.latency
    DEFAULT["latency"] = args.latency
    uvicorn.run(
        lean(app),
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=1,
        backlog=2048,
    )


if __name__ == "__main__":
    main()
