"""A small OpenAI-compatible server that plays generator and grader, for the rag CLI tests.

Run as ``python tests/rag/fake_rag_server.py --port N --delay S --log FILE``.
Generator: answers with the first line of the first context passage. Grader:
``correct`` is whether the graded answer contains the word "right"; an answer
containing "garble" gets a reply that is not JSON (a malformed grading reply).
A zero-shot relevance judge (of ``fill``) gets label 1 for everything.
Every request is appended to FILE as one line ``ROLE SHA256`` (role: gen|grade|judge),
so a test can count how often the same call reached the server.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import time

import uvicorn
from fastapi import FastAPI, Request


def reply_for(messages: list[dict]) -> tuple[str, str]:
    system, user = messages[0]["content"], messages[1]["content"]
    if "relevance assessor" in system:  # a zero-shot judge of `fill`: everything is relevant
        return "judge", json.dumps({"reason": "on topic", "label": 1})
    if "You grade answers" in system:
        answer = user.split("<<<ANSWER", 1)[1]
        if "garble" in answer:
            return "grade", "I think it is fine"
        return "grade", json.dumps({"reason": "compared", "correct": "right" in answer})
    m = re.search(r"<<<PASSAGE [0-9a-f]+>>>\n(.*)", user)
    return "gen", json.dumps({"answer": m.group(1).strip() if m else "The context does not contain the answer."})


def create_app(delay: float, log: str) -> FastAPI:
    app = FastAPI()

    @app.get("/v1/models")
    async def models() -> dict:
        return {"object": "list", "data": [{"id": "fake", "object": "model"}]}

    @app.post("/v1/chat/completions")
    async def chat(req: Request) -> dict:
        body = await req.json()
        msgs = body["messages"]
        role, text = reply_for(msgs)
        digest = hashlib.sha256(json.dumps(msgs[:2], sort_keys=True).encode()).hexdigest()
        with open(log, "a") as f:
            f.write(f"{role} {digest}\n")
        await asyncio.sleep(delay)
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
