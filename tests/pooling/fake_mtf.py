"""A zero-shot judge for the MTF build tests, served over HTTP by tests/fakeserver.py.

Every document reads ``passage <docid> ...``; the judge grades 3 when the text mentions a fox, else 0.
Each log line is the docid judged, so a test reads which pairs were judged, in order.
"""
from __future__ import annotations

import json
import re


def answer(messages: list[dict]) -> tuple[str, str]:
    user = messages[-1]["content"]
    docid = re.search(r"passage (\w+)", user).group(1)
    return docid, json.dumps({"reason": "read it", "grade": 3 if "fox" in user.split(docid, 1)[1] else 0})
