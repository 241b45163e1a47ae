"""Scripted model answers for the rcl preset's tests, served over HTTP by tests/fakeserver.py.

An instructor (narrative) prompt gets a fixed narrative; an assessor prompt is answered from the
document to assess (after the last <<<DOCUMENT marker): "Relevant" when it says agree3, else
"Not Relevant" (``output=label``), or the JSON reply with grade 3 or 0 — so the scripted assessor
agrees with the reference everywhere. The log line is the prompt's sha256."""

from __future__ import annotations

import hashlib
import json


def answer(messages: list[dict]) -> tuple[str, str]:
    system, user = messages[0]["content"], messages[-1]["content"]
    if "guidance for relevance assessors" in system or "Narrative:" in user:
        reply = "Narrative: a relevant passage says agree3.\nInstructions: look for agree3."
    else:
        relevant = "agree3" in user.rsplit("<<<DOCUMENT", 1)[-1]
        if '"Not Relevant"' in user:
            reply = json.dumps("Relevant" if relevant else "Not Relevant")
        else:
            reply = json.dumps({"reason": "scripted", "grade": 3 if relevant else 0})
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest(), reply
