"""A zero-shot judge's answers for the vote tests, served over HTTP by tests/fakeserver.py.

Run as ``python tests/fakeserver.py judges.fake_vote --port N --log FILE``. The grade depends on a
keyword in the document and on whether the prompt shows the topic's narrative (NARRATIVE_MARK):

- ``agree3`` / ``agree0``: every prompt and every sample answers 3 / 0;
- ``split``: 3 with the narrative, 0 without (two members disagree);
- ``mixed``: the n-th call of the same prompt answers ``MIXED[n % 3]`` (3, 0, 3): three samples of
  one prompt give two relevant votes and one not relevant, in whatever order they arrive.

Each log line is ``<keyword> <narrative|plain>``, so a test counts calls per kind of case.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter

NARRATIVE_MARK = "NARRATIVE-MARK"
MIXED = (3, 0, 3)
KEYS = ("agree3", "agree0", "split", "mixed")
_seen: Counter = Counter()


def grade_for(messages: list[dict]) -> tuple[str, bool, int]:
    user = messages[-1]["content"]
    key = next((k for k in KEYS if k in user), "agree0")
    narrative = NARRATIVE_MARK in user
    if key == "split":
        return key, narrative, 3 if narrative else 0
    if key == "mixed":
        h = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
        _seen[h] += 1
        return key, narrative, MIXED[(_seen[h] - 1) % len(MIXED)]
    return key, narrative, 3 if key == "agree3" else 0


def answer(messages: list[dict]) -> tuple[str, str]:
    """(log line, reply text) for tests/fakeserver.py."""
    key, narrative, grade = grade_for(messages)
    line = f"{key} {'narrative' if narrative else 'plain'}"
    return line, json.dumps({"reason": f"{key} says {grade}", "grade": grade})
