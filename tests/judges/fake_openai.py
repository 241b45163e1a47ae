"""The debate agents' answers for the judge CLI tests, served over HTTP by tests/fakeserver.py.

Run as ``python tests/fakeserver.py judges.fake_openai --port N --delay S --log FILE``.
Replies like the debate agents of ``test_runner.py``: the grade depends on the
agent's stance and on a keyword in the document (see GRADES). Each request's
log line is the sha256 of its messages, so a test can count how often the same
call reached the server.
"""

from __future__ import annotations

import hashlib
import json

# doc text -> (relevant agent's grade, irrelevant agent's grade); test_runner's scripted agents too
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
    if "IS relevant" not in system and "NOT relevant" not in system:  # zero-shot: the graded task's reply
        key = next((k for k in GRADES if k in user), "agree0")
        return {"reason": "by the keyword", "grade": GRADES[key][0]}
    stance = 0 if "IS relevant" in system else 1
    key = next((k for k in GRADES if k in user), "agree0")
    return {"evidence": ["passage"], "reasoning": f"stance {stance}", "grade": GRADES[key][stance]}


def answer(messages: list[dict]) -> tuple[str, str]:
    """(log line, reply text) for tests/fakeserver.py."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest(), json.dumps(reply_for(messages))
