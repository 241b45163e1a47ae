"""Scripted model answers for the compare tests, served over HTTP by tests/fakeserver.py.

    python tests/fakeserver.py compare.fake_judges --port N --log FILE

Debate agents answer as ``judges.fake_openai`` does (both stances agree on "agree3"/"agree0"
texts); a single judge (zero-shot) answers ``{"reason", "grade"}`` with the grade the text
names, and grade 3 for a "tricky" text whatever it names (its false positives). The log line is the sha256 of the messages, so a test can count the calls."""

from __future__ import annotations

import hashlib
import json

from judges.fake_openai import reply_for


def answer(messages: list[dict]) -> tuple[str, str]:
    system, user = messages[0]["content"], messages[-1]["content"]
    if "debate" in system or "senior relevance assessor" in system:
        reply = reply_for(messages)
    else:
        reply = {"reason": "scripted", "grade": 3 if "agree3" in user or "tricky" in user else 0}
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest(), json.dumps(reply)
