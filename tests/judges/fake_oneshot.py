"""A served model for the oneshot tests, over HTTP by tests/fakeserver.py.

Its log line is the prompt's user message (JSON-encoded, one line), so a test reads exactly what
the model was shown; it grades the document to assess 3 when it mentions a fox, else 0.
"""
from __future__ import annotations

import json


def answer(messages: list[dict]) -> tuple[str, str]:
    user = messages[-1]["content"]
    case = user.split("Now the document to assess")[-1]
    return json.dumps(user), json.dumps({"reason": "compared", "grade": 3 if "fox" in case else 0})
