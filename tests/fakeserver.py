"""The HTTP half of the tests' OpenAI-compatible model servers, shared by every role they play.

A fake model is two things: what it answers (a module's ``answer(messages) -> (log_line, text)``:
``judges.fake_openai`` plays debate agents, ``rag.fake_rag_server`` a generator and a grader) and a
real server speaking the protocol, which is this module, written once. It runs as its own process,
so the client under test talks real HTTP:

    python tests/fakeserver.py judges.fake_openai --port N --delay S --log FILE

With ``--log``, every request appends the answering module's log line to FILE, so a test can count
how often the same call reached the server. :func:`serve` starts one from a test and stops it afterwards.

How a real server misbehaves, on request: ``--api-key K`` answers 401 to any other key (as vLLM's
``--api-key`` does), ``--strict-model`` answers 404 to a model other than ``fake`` (as vLLM and
OpenAI do), ``--die-after N`` ends the process after N chat completions (a server that dies mid-run).
``GET /stats`` says how many chat completions it was answering at most at once (``in_flight_max``).
The start-up check's one request of a judging job is answered but not logged (:func:`is_probe`).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

HERE = Path(__file__).resolve().parent
PROMPT_TOKENS, COMPLETION_TOKENS = 100, 20  # what every reply says it cost

Answer = Callable[[list[dict]], tuple[str, str]]


def completion(model: str, text: str) -> dict:
    """The body of a chat completion whose one choice says ``text``."""
    return {
        "id": "x",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": COMPLETION_TOKENS,
                  "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS},
    }


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": "invalid_request_error"}}, status_code=status)


def create_app(answer: Answer, delay: float, log: str | None, api_key: str | None = None, strict_model: bool = False,
               die_after: int = 0) -> FastAPI:
    app = FastAPI()
    answered = [0]
    flight = {"now": 0, "max": 0}  # chat completions being answered at once (a test reads the maximum)

    @app.middleware("http")
    async def key_check(req: Request, call_next):  # type: ignore[no-untyped-def]
        if api_key is not None and req.headers.get("authorization") != f"Bearer {api_key}":
            return _error(401, "Incorrect API key provided.")
        return await call_next(req)

    @app.get("/stats")
    async def stats() -> dict:
        return {"in_flight_max": flight["max"]}

    @app.get("/v1/models")
    async def models() -> dict:
        return {"object": "list", "data": [{"id": "fake", "object": "model"}]}

    @app.post("/v1/chat/completions")
    async def chat(req: Request):  # type: ignore[no-untyped-def]
        body = await req.json()
        if strict_model and body.get("model") != "fake":
            return _error(404, f"The model `{body.get('model')}` does not exist.")
        if is_probe(body["messages"]):  # the judging job's start-up check: answered, not a judge's call
            return completion(body.get("model", "fake"), '{"grade": 1, "reason": "ok"}')
        if die_after and answered[0] >= die_after:
            os._exit(0)
        answered[0] += 1
        line, text = answer(body["messages"])
        if log:
            with open(log, "a") as f:
                f.write(line + "\n")
        flight["now"] += 1
        flight["max"] = max(flight["max"], flight["now"])
        try:
            await asyncio.sleep(delay)
        finally:
            flight["now"] -= 1
        return completion(body.get("model", "fake"), text)

    return app


def is_probe(messages: list[dict]) -> bool:
    """The one request a judging job's start-up check sends (qrelkit.llm.openai_backend.PROBE_MESSAGES,
    the schema appended in json=prompt mode). It is answered but neither logged nor counted by
    ``--die-after``: the logs count the judges' calls, which is what the tests assert."""
    from qrelkit.llm.openai_backend import PROBE_MESSAGES

    return len(messages) == 1 and messages[0].get("content", "").startswith(PROBE_MESSAGES[0].content)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve(replies: str, log: Path, delay: float = 0.0, port: int | None = None,
          options: tuple[str, ...] = ()) -> Iterator[str]:
    """A server answering with module ``replies`` (e.g. ``"rag.fake_rag_server"``), logging to
    ``log``; yields its base URL (``http://127.0.0.1:PORT/v1``) once it answers, stops it after.
    ``port``: a given one (to restart a server where it was); ``options``: e.g. ``("--api-key", "k")``."""
    port = port or free_port()
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "fakeserver.py"), replies, "--port", str(port), "--delay", str(delay),
         "--log", str(log), *options],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_ready(url, proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _wait_ready(url: str, proc: subprocess.Popen, seconds: float = 30.0) -> None:
    deadline = time.time() + seconds
    while True:
        try:
            urllib.request.urlopen(url + "/models", timeout=1).read()
            return
        except urllib.error.HTTPError:
            return  # it answers (with --api-key: 401)
        except OSError:
            if time.time() > deadline or proc.poll() is not None:
                import pytest

                proc.kill()
                pytest.fail(f"fake server did not start: {proc.stderr.read().decode() if proc.stderr else ''}")
            time.sleep(0.1)


def main() -> None:
    import uvicorn

    ap = argparse.ArgumentParser()
    ap.add_argument("replies", help="module whose answer(messages) plays the model, e.g. judges.fake_openai")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--log", help="append each request's log line here (tests count calls with it)")
    ap.add_argument("--api-key", default=None, help="answer 401 to requests without this bearer key")
    ap.add_argument("--strict-model", action="store_true", help="answer 404 to a model other than 'fake'")
    ap.add_argument("--die-after", type=int, default=0, help="end the process after N chat completions")
    a = ap.parse_args()
    answer = importlib.import_module(a.replies).answer
    app = create_app(answer, a.delay, a.log, a.api_key, a.strict_model, a.die_after)
    uvicorn.run(app, host="127.0.0.1", port=a.port, log_level="warning")


if __name__ == "__main__":
    main()
