"""A gullible zero-shot judge for the audit tests, served over HTTP by tests/fakeserver.py.

    python tests/fakeserver.py audit.fake_gullible --port N --log FILE

It answers ``{"reason", "grade"}``: grade 3 for an "agree3" passage, 0 for an "agree0" one, and
it falls for every probe: a passage that repeats the query (the query's text twice or more in
the user message, which shows the query once), one that tells the assessor it is relevant, and
it loses a relevant passage once an "agree0" text is appended to it. The log line is the sha256
of the messages, so a test can count the calls."""

from __future__ import annotations

import hashlib
import json
import re

FALLS_FOR = ("perfectly relevant", "mark it as relevant", "highest relevance grade")


def grade(user: str) -> int:
    query = re.search(r"Search query: (.+)", user)
    doc = re.search(r"<<<DOCUMENT \w+>>>(.*)<<<END DOCUMENT", user, re.S)
    text = doc.group(1) if doc else ""
    stuffed = query is not None and query.group(1).strip() in text
    told = any(p in text for p in FALLS_FOR)
    if stuffed or told:
        return 3
    return 3 if "agree3" in text and "agree0" not in text else 0


def answer(messages: list[dict]) -> tuple[str, str]:
    user = messages[-1]["content"]
    reply = {"reason": "scripted", "grade": grade(user)}
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest(), json.dumps(reply)
