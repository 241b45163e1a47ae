"""A small OpenAI-compatible chat server for the judge CLI tests.

Run as ``python tests/judges/fake_openai.py --port N --delay S --log FILE``.
Replies like the debate agents of ``test_runner.py``: the grade depends on the
agent's stance and on a keyword in the document (see GRADES). Every request
is appended to FILE as one line: the sha256 of its messages, so a test can
count how often the same call reached the server.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import time

import uvicorn
from fastapi import FastAPI, Request

GRADES = {
    "agree3": (3, 3),
    "agree0": (0, 0),
    "gap3": (3, 0),
    "gap1": (2, 1),
    "gap2": (3, 1),
    "agree2": (2, 2),
}


def reply_for(messages: list[dict]) -> dict:
    system, user = messages[0]["content"], messages[-1]["content"]
    if "senior relevance assessor" in system:
        return {"reason": "settled", "grade": 1}
    stance = 0 if "IS relevant" in system else 1
    key = next((k for k in GRADES if k in user), "agree0")
    return {"evidence": ["passage"], "reasoning": f"stance {stance}", "grade": GRADES[key][stance]}


def create_app(delay: float, log: str) -> FastAPI:
    app = FastAPI()

    @app.get("/v1/models")
    async def models() -> dict:
        return {"object": "list", "data": [{"id": "fake", "object": "model"}]}

    @app.post("/v1/chat/completions")
    async def chat(req: Request) -> dict:
        body = await req.json()
        msgs = body["messages"]
        digest = hashlib.sha256(json.dumps(msgs, sort_keys=True).encode()).hexdigest()
        with open(log, "a") as f:
            f.write(digest + "\n")
        await asyncio.sleep(delay)
        text = json.dumps(reply_for(msgs))
        return {
            "id": "x",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
        }

    return app


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--log", required=True)
    a = ap.parse_args()
    uvicorn.run(create_app(a.delay, a.log), host="127.0.0.1", port=a.port, log_level="warning")


if __name__ == "__main__":
    main()
