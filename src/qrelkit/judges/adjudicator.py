"""A third model reads a finished debate and decides.

Used by ``debate(adjudicator=llm)`` when the agents still disagree after the
last round, and by the runner's ``--budget`` overflow for escalations people
will not see. It works from the debate history as stored in provenance (the
shape documented in :mod:`qrelkit.judges.debate`), so an escalation can be
adjudicated long after the debate ran. A failed call is an error, never a
guessed label.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from qrelkit import prompts
from qrelkit.judges.base import JudgeInput, Meter, parsed_decision

TEMPLATE = "adjudicator"
MAX_TOKENS = 200
REASON = ("reason", {"type": "string", "maxLength": 400})
# The adjudicator sees the last LAST_ROUNDS rounds, clipped, so that document,
# instructions, debate and answer fit a 2048-token context.
LAST_ROUNDS = 2
QUOTE_CHARS = 120
REASONING_CHARS = 300


@dataclass(frozen=True)
class Ruling:
    """The adjudicator's decision (``value`` is the grade or label), or why there is none."""

    value: Optional[int]
    reason: str
    error: Optional[str] = None
    template: str = ""

    def as_dict(self, task_field: str) -> dict:
        out: dict = {task_field: self.value, "reason": self.reason, "template": self.template}
        if self.error:
            out["error"] = self.error
        return out


def render_debate(history: list[dict], inp: JudgeInput) -> str:
    t = prompts.load(TEMPLATE)
    lines = []
    for rnd in history[-LAST_ROUNDS:]:
        # stance order, not agent order: the ruling must not depend on debate(first=...)
        for a in sorted(rnd.get("agents", []), key=lambda x: x.get("stance") != "relevant"):
            value = a.get("grade") if inp.task.graded else a.get("label")
            quotes = (
                "; ".join(
                    f'"{prompts.clip(e["quote"], QUOTE_CHARS)}"'
                    + ("" if e.get("found") else " (not found in the document)")
                    for e in a.get("evidence", [])
                )
                or "none"
            )
            lines.append(
                t.render(
                    "debate_entry",
                    round=rnd.get("round"),
                    stance=a.get("stance", "?").replace("irrelevant", "not relevant"),
                    decision=inp.task.describe(value)
                    if a.get("error") is None
                    else "nothing (the call failed)",
                    quotes=quotes,
                    reasoning=prompts.clip(a.get("reasoning", ""), REASONING_CHARS),
                )
            )
    return prompts.delimit(prompts.escape("\n\n".join(lines)), "DEBATE")


async def adjudicate(
    inp: JudgeInput,
    history: list[dict],
    client: Any,
    meter: Meter,
    doc_tokens: int = prompts.DEFAULT_DOC_TOKENS,
) -> Ruling:
    t = prompts.load(TEMPLATE)
    task_t = inp.task.template()
    block, _ = prompts.document_block(inp.text, doc_tokens)
    messages = t.messages(
        criteria=task_t.render("criteria"),
        query_block=inp.query_block(),
        document=block,
        debate=render_debate(history, inp),
        format=task_t.render("adjudicator_format"),
    )
    c = meter.add(
        await client.complete(
            messages,
            schema=inp.task.decision_schema(REASON),
            max_tokens=MAX_TOKENS,
            version=f"{t.version}|{task_t.version}",
        )
    )
    value, problem = parsed_decision(c, inp.task)
    if value is None:
        return Ruling(None, "", problem or "no decision", t.version)
    return Ruling(value, str(c.parsed.get("reason", "")), None, t.version)
