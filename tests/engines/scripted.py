"""The scripted model the Ray tests ship to actors: debate agents whose grade depends on the
stance and a keyword in the document, with a small delay so batches overlap (as real I/O does).

Kept in its own module so the test can ship it to Ray workers by value (they cannot import tests/)."""

from __future__ import annotations

import asyncio

GRADES = {"agree3": (3, 3), "agree0": (0, 0), "gap3": (3, 0), "gap1": (2, 1), "agree2": (2, 2)}


async def debate_reply(messages, params) -> dict:
    await asyncio.sleep(0.002)
    system, user = messages[0].content, messages[-1].content
    if "senior relevance assessor" in system:
        return {"reason": "settled", "grade": 1}
    stance = 0 if "IS relevant" in system else 1
    key = next((k for k in GRADES if k in user), "agree0")
    return {"evidence": ["passage"], "reasoning": f"stance {stance}", "grade": GRADES[key][stance]}


class ScriptedModel:
    """A picklable factory of the scripted backend (what an actor loads)."""

    def __call__(self):
        from qrelkit.llm import ScriptedBackend

        return ScriptedBackend(debate_reply)
