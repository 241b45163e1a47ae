"""A generator's and a grader's answers for the rag tests, served over HTTP by tests/fakeserver.py.

Run as ``python tests/fakeserver.py rag.fake_rag_server --port N --delay S --log FILE``
(the in-process tests use :func:`reply_for` through a scripted client).
Generator: answers with the first line of the first context passage. Grader:
``correct`` is whether the graded answer contains the word "right"; an answer
containing "garble" gets a reply that is not JSON (a malformed grading reply).
A zero-shot relevance judge (of ``fill``) gets label 1 for everything.
Each request's log line is ``ROLE SHA256`` (role: gen|grade|judge),
so a test can count how often the same call reached the server.
"""

from __future__ import annotations

import hashlib
import json
import re


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


def answer(messages: list[dict]) -> tuple[str, str]:
    """(log line, reply text) for tests/fakeserver.py."""
    role, text = reply_for(messages)
    digest = hashlib.sha256(json.dumps(messages[:2], sort_keys=True).encode()).hexdigest()
    return f"{role} {digest}", text
