"""A third model reads a finished debate and decides.

Used by ``debate(adjudicator=llm)`` when the agents still disagree after the
last round, and by the runner's ``--budget`` overflow for escalations people
will not see. It works from the debate history as stored in provenance (the
shape documented in :mod:`qrelkit.judges.debate`), so an escalation can be
adjudicated long after the debate ran. A failed call is an error, never a
guessed label.

What it reads depends on the debate's prompt version: ``v1`` (the old protocol) sees the last
two rounds, clipped to 120/300 characters, so that everything fits a 2048-token context; ``v2``
sees what the paper's adjudicator sees — the outputs of the *final* round from every agent
(``adjudicator_sees=final``, default) or every round (``all``), within the debate's own limits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from qrelkit import prompts
from qrelkit.judges.base import JudgeInput, Meter, parsed_decision

if TYPE_CHECKING:
    from qrelkit.llm.client import Client

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


def _shown(history: list[dict], sees: str) -> list[dict]:
    if sees == "v1":
        return history[-LAST_ROUNDS:]
    return history[-1:] if sees == "final" else history


def render_debate(history: list[dict], inp: JudgeInput, lim: Any = None, sees: str = "v1") -> str:
    t = prompts.load(f"{TEMPLATE}.{'v1' if sees == 'v1' else 'v2'}")
    quote_chars = QUOTE_CHARS if lim is None or sees == "v1" else lim.history_quote_chars
    reasoning_chars = REASONING_CHARS if lim is None or sees == "v1" else lim.history_reasoning_chars
    lines = []
    for rnd in _shown(history, sees):
        # stance order, not agent order: the ruling must not depend on debate(first=...)
        for a in sorted(rnd.get("agents", []), key=lambda x: x.get("stance") != "relevant"):
            value = a.get("grade") if inp.task.graded else a.get("label")
            quotes = (
                "; ".join(
                    f'"{prompts.clip(e["quote"], quote_chars)}"'
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
                    reasoning=prompts.clip(a.get("reasoning", ""), reasoning_chars),
                )
            )
    return prompts.delimit(prompts.escape("\n\n".join(lines)), "DEBATE")


async def adjudicate(
    inp: JudgeInput,
    history: list[dict],
    client: Client,
    meter: Meter,
    lim: Any = None,
    sees: str = "final",
) -> Ruling:
    """One call: the ruling on ``history`` (``lim``: the debate's Limits; None means v1's)."""
    v1 = lim is None or lim.prompt == "v1"
    t = prompts.load(f"{TEMPLATE}.{'v1' if v1 else lim.prompt}")
    task_t = inp.task.template()
    block, _ = prompts.document_block(inp.text, prompts.DEFAULT_DOC_TOKENS if lim is None else lim.doc_tokens)
    if v1:
        crit = task_t.render("criteria")
    else:
        from qrelkit.judges.debate_turn import criteria

        crit = criteria(prompts.load(f"debate_agent.{lim.prompt}"), inp)
    messages = t.messages(
        criteria=crit,
        query_block=inp.query_block(),
        document=block,
        debate=render_debate(history, inp, lim, "v1" if v1 else sees),
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
