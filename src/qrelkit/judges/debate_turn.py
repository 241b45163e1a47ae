"""One debate agent's turn: what it is shown, what it may answer, and its parsed answer.

Split from :mod:`qrelkit.judges.debate` (the protocol: rounds, agreement, escalation) because
the two change for different reasons: the protocol follows the DREAM paper's rules, a turn
follows the prompt version and its context limits.

Prompt versions (``debate(prompt=...)``):
- ``v1``: the first protocol — "states, or clearly implies", document cut to 400
  tokens, at most 3 quotes of 150 characters, reasoning 400 characters, history clipped to
  160/400. Kept byte for byte so that workspaces judged with it resume from their cache.
- ``v2`` (default): the paper's agent rules (appendix A.1) — the chunk must *fully support* a
  candidate answer; answer correctness, query–answer validity and answer–answer consistency are
  out of scope; the decisive evidence is quoted; the rationale covers the query–chunk reading,
  the response to the opposing position and the justification. The limits are the spec's
  ``doc_tokens``, ``quotes`` and ``reasoning_chars``; history shows what the agents wrote,
  within those same limits (no further clipping).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from qrelkit import prompts
from qrelkit.judges.base import JudgeInput, parsed_decision
from qrelkit.judges.evidence import QuoteCheck, check_quotes

if TYPE_CHECKING:
    from qrelkit.llm.client import Client

RELEVANT, IRRELEVANT = "relevant", "irrelevant"


@dataclass(frozen=True)
class Limits:
    """How much of the document and of the agents' writing a prompt holds (recorded in provenance)."""

    prompt: str
    doc_tokens: int
    quotes: int
    quote_chars: int
    reasoning_chars: int
    history_quote_chars: int
    history_reasoning_chars: int

    @property
    def max_tokens(self) -> int:
        """Room for a full answer: quotes and reasoning at their bounds (~4 chars/token) plus JSON."""
        if self.prompt == "v1":
            return 360
        return (self.quotes * (self.quote_chars + 8) + self.reasoning_chars) // 3 + 60

    def as_dict(self) -> dict:
        return {
            "doc_tokens": self.doc_tokens,
            "quotes": self.quotes,
            "quote_chars": self.quote_chars,
            "reasoning_chars": self.reasoning_chars,
            "history_quote_chars": self.history_quote_chars,
            "history_reasoning_chars": self.history_reasoning_chars,
        }


def limits(prompt: str, doc_tokens: int, quotes: int, reasoning_chars: int) -> Limits:
    if prompt == "v1":
        return Limits("v1", doc_tokens, 3, 150, 400, 160, 400)
    return Limits(prompt, doc_tokens, quotes, 300, reasoning_chars, 300, reasoning_chars)


@dataclass(frozen=True)
class Agent:
    """One debater: its place (0 = agent A), initial stance, sampling temperature and model."""

    index: int
    stance: str
    temperature: float = 0.0
    model: Any = None  # a ModelRef of its own (debate(models=[...])); None or 'same': the job's


@dataclass(frozen=True)
class Turn:
    """One agent's answer in one round."""

    stance: str
    value: Optional[int]  # grade (graded) or label (answer); None when the call failed
    label: Optional[int]
    evidence: tuple[QuoteCheck, ...]
    reasoning: str
    error: Optional[str] = None
    agent: int = 0

    def as_dict(self, task: Any, numbered: bool = False) -> dict:
        out = {
            "stance": self.stance,
            "label": self.label,
            "grade": self.value if task.graded else None,
            "evidence": [q.as_dict() for q in self.evidence],
            "reasoning": self.reasoning,
            "error": self.error,
        }
        if numbered:
            out["agent"] = self.agent
        return out


def schema_fields(lim: Limits) -> tuple[tuple[str, dict], tuple[str, dict]]:
    """The evidence and reasoning fields of an agent's reply, bounded so a reply fits max_tokens."""
    evidence = {"type": "array", "items": {"type": "string", "maxLength": lim.quote_chars}, "maxItems": lim.quotes}
    return ("evidence", evidence), ("reasoning", {"type": "string", "maxLength": lim.reasoning_chars})


def _quotes(evidence: tuple[QuoteCheck, ...], chars: int) -> str:
    return (
        "; ".join(
            f'"{prompts.clip(q.quote, chars)}"' + ("" if q.found else " (not found in the document)")
            for q in evidence
        )
        or "none"
    )


def history_text(t: prompts.Template, me: Agent, prev: tuple[Turn, ...], rnd: int, inp: JudgeInput,
                 lim: Limits) -> str:
    """The previous round as this agent sees it: its own output first, then the others'."""
    mine = [x for x in prev if x.agent == me.index]
    others = [x for x in prev if x.agent != me.index]
    named = [("you", x) for x in mine] + [
        ("opponent", x) if len(others) == 1 else ("other", x) for x in others
    ]
    entries = "\n\n".join(
        t.render(
            "history_entry",
            who=t.render(who, k=x.agent + 1) if who == "other" else t.render(who),
            decision=inp.task.describe(x.value),
            quotes=_quotes(x.evidence, lim.history_quote_chars),
            reasoning=prompts.clip(x.reasoning, lim.history_reasoning_chars),
        )
        for who, x in named
    )
    return "\n" + prompts.delimit(prompts.escape(t.render("history", round=rnd - 1, entries=entries)), "DEBATE")


def criteria(t: prompts.Template, inp: JudgeInput) -> str:
    """v2 states the paper's rules for the answer task; the graded scale is the task's own."""
    key = f"criteria_{inp.task.name}"
    return t.render(key) if key in t.sections else inp.task.template().render("criteria")


def messages(me: Agent, n: int, rnd: int, prev: Optional[tuple[Turn, ...]], inp: JudgeInput, block: str,
             lim: Limits, guide: str = "") -> list[prompts.Message]:
    t = prompts.load(f"debate_agent.{lim.prompt}")
    task_t = inp.task.template()
    history = history_text(t, me, prev, rnd, inp, lim) if prev is not None else ""
    v2 = lim.prompt != "v1"
    extra = {"quotes": lim.quotes} if v2 else {}
    instructions = t.render("round1", **extra) if rnd == 1 else t.render("later", round=rnd, **extra)
    system = t.render("system", stance=t.render(f"stance_{me.stance}"), **({"n": n} if v2 else {}))
    user = t.render(
        "user",
        criteria=criteria(t, inp) if v2 else task_t.render("criteria"),
        query_block=inp.query_block() + guide,
        document=block,
        history=history,
        instructions=instructions,
        format=task_t.render("agent_format"),
    )
    return [prompts.Message("system", system), prompts.Message("user", user)]


@dataclass(frozen=True)
class Debated:
    """The case a debate's agents argue over, as every round of it sees it: the input, the
    document block of the prompt, the limits, the narrative guide and how many agents there are."""

    inp: JudgeInput
    block: str
    lim: Limits
    guide: str = ""
    agents: int = 2


async def take_turn(me: Agent, rnd: int, prev: Optional[tuple[Turn, ...]], case: Debated, client: Client,
                    version: str) -> tuple[Turn, Any]:
    """Ask one agent for its answer in round ``rnd``; a failed or unparseable call is a Turn with an error."""
    inp, lim = case.inp, case.lim
    c = await client.complete(
        messages(me, case.agents, rnd, prev, inp, case.block, lim, case.guide),
        schema=inp.task.decision_schema(*schema_fields(lim)),
        max_tokens=lim.max_tokens,
        temperature=me.temperature,
        version=version,
    )
    value, problem = parsed_decision(c, inp.task)
    if value is None:
        return Turn(me.stance, None, None, (), "", problem or "no decision", me.index), c
    quotes = [q for q in c.parsed.get("evidence", []) if isinstance(q, str)][: lim.quotes]
    turn = Turn(me.stance, value, inp.task.binary(value), check_quotes(quotes, inp.text),
                str(c.parsed.get("reasoning", "")), None, me.index)
    return turn, c
